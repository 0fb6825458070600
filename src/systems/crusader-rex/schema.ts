/**
 * Scenario keys of the Crusader Rex system (seed 000, docs/rules/crusader-rex.md): one battle
 * location, fought for one or more game turns. Every player decision is a named policy and
 * every engine-vs-rulebook difference a `rules:` toggle.
 */
import * as z from 'zod';
import { because } from '../../text/because.js';

let built: ReturnType<typeof buildShape> | undefined;

/**
 * The system's own scenario keys (RulesSystem.shape), built on first use: building zod schemas
 * is a large part of a command's start-up, and a command uses one system's.
 */
export const crusaderRexShape = () => (built ??= buildShape());

function buildShape() {
  const STEPS = because('a block has at most 4 steps');

  const side = z.enum(['franks', 'saracens']);
  const at = z
    .enum(['field', 'castle', 'town', 'main_road', 'other_road'])
    .describe('field / castle: there at the start; town: a defender block placed by the deployment policy; main_road / other_road: arriving (6.41, 6.42, 6.56)');

  const RosterEntry = z.strictObject({
    block: z.string().min(1).describe('a roster name (docs/rules/crusader-rex.md 5.1), e.g. "King Guy"'),
    steps: z.int().min(1).max(4, STEPS).optional().describe('current steps (default: the block\'s maximum)'),
    at: at.default('field'),
    arrives: z.int().min(1).max(3).optional().describe('explicit arrival round in the first game turn (overrides the road rule)'),
  });

  const CustomEntry = z.strictObject({
    name: z.string().min(1),
    side,
    steps: z.int().min(1).max(4, STEPS).optional(),
    max: z.int().min(1).max(4, STEPS).describe('maximum steps'),
    rating: z.string().regex(/^[ABC][1-6]$/, 'a rating is a letter A-C and a firepower 1-6, e.g. "B2"'),
    type: z.enum(['crusader', 'military_order', 'outremer', 'turcopoles', 'pilgrims', 'emir', 'nomads', 'infantry']).default('infantry'),
    at: at.default('field'),
    arrives: z.int().min(1).max(3).optional(),
  });

  const ratio = (d: number, what: string) => z.number().min(0).max(100).default(d).describe(what);

  return {
    town: z
      .strictObject({
        rating: z.int().min(0).max(4).default(0).describe('castle limit (1.11, 6.52); 0 = no castle'),
        fortified_port: z.boolean().default(false).describe('Tyre or Tripoli: attrition only on a 1 (1-2 in winter), 6.57'),
      })
      .prefault({}),
    player1: side.describe('who is Player 1 this game turn'),
    situation: z.enum(['new_battle', 'existing_siege']).default('new_battle'),
    besieged: side.optional().describe('existing_siege: whose blocks are in the castle'),
    attacker: side.optional().describe('new_battle: the first to enter the field'),
    blocks: z.array(z.union([RosterEntry, CustomEntry])).min(1).max(40),
    turns: z.int().min(1).max(20).default(1).describe('game turns of siege (attrition each turn)'),
    retreat_slots: z
      .strictObject({
        attacker: z.int().min(-1).max(40).default(-1).describe('blocks the roads let the attacker retreat per battle (-1 = unlimited); others are eliminated'),
        defender: z.int().min(-1).max(40).default(-1).describe('the same for the defender (harrying and besiegers leaving after R3)'),
      })
      .prefault({}),
    policy: z
      .strictObject({
        deployment: z.enum(['all_castle', 'all_field', 'castle_first', 'field_first']).default('field_first').describe(
          '6.1: all_castle = fill the castle in listed order; all_field = nobody inside; castle_first = the strongest blocks inside; field_first = the strongest stay in the field, the weakest go inside',
        ),
        storm: z.enum(['never', 'always', 'when_stronger']).default('when_stronger').describe('6.53: storm with up to the castle limit'),
        stormers: z
          .enum(['strongest', 'listed'])
          .default('strongest')
          .describe('6.53 "the besieger names its storming blocks": strongest = the field blocks with the most current steps, ties in listed order (DEFAULT); listed = the first in the scenario\'s blocks: list'),
        storm_top_up: z
          .enum(['always', 'retest'])
          .default('always')
          .describe('6.54: at a later round of a storm under way, new blocks join up to the castle limit with no test (DEFAULT, always); retest = they join only if storm: when_stronger\'s test passes with them (the storm goes on either way)'),
        storm_ratio: ratio(1, 'when_stronger: storm when the stormers\' steps >= ratio x 2 x the castle\'s steps (double defense)'),
        sally: z.enum(['never', 'always', 'when_stronger']).default('never').describe('6.55'),
        sally_ratio: ratio(1, 'when_stronger: sally when the castle\'s (and friendly field) steps >= ratio x the enemy field steps'),
        charge: z.enum(['never', 'always', 'when_strongest_enemy_block_is_weaker']).default('never').describe('6.32 Knights\' Charge (Frank B blocks, field only)'),
        harry: z.enum(['never', 'always']).default('never').describe('6.33 Nomads and Turcopoles fire and retreat (needs a retreat slot)'),
        retreat: z
          .enum(['never', 'when_outnumbered'])
          .default('never')
          .describe('6.6: a field block retreats by road on its turn instead of firing when its side has fewer field steps (needs a retreat slot; never while sallying or besieged)'),
        withdraw: z.enum(['never', 'when_weaker']).default('never').describe('6.62: a castle owner\'s field block or a sallying block withdraws into the castle (room permitting), a stormer back to the field, when its side has fewer steps'),
        tie_break: z.enum(['first_listed', 'protect_best', 'random']).default('first_listed').describe('6.31: which of the tied strongest blocks takes a hit'),
        fire_order: z.enum(['listed', 'strongest_first']).default('listed').describe('6.2: order within one side and letter'),
        besieger_after_r3: z.enum(['stay', 'retreat']).default('stay').describe('6.2: the besieger stays on siege (engine) or retreats after R3'),
      })
      .prefault({}),
    rules: z
      .strictObject({
        relief_delay_when_besieged_without_attack: z.boolean().default(true).describe('"old siege #2": P2 relief arrives R2 (engine) even when P1 sent nothing; false: R1'),
        p1_other_road_relief_round: z.int().min(2).max(3).default(2).describe('P1 relief on a second road: R2 (rule and engine) or R3 (seed 000\'s figure)'),
        declined_sally_goes_to_attrition: z.boolean().default(true).describe('engine: both pass -> attrition unless the besieged has reserves coming; false: the besieger may also wait for its own reserves'),
        control_change_any_round: z.boolean().default(true).describe('6.41 battlefield control change in any round (engine); false: only in R1 (rule text)'),
        winter_campaign: z.boolean().default(false).describe('8.2: attrition on 1-4 (1-2 at fortified ports)'),
        jihad: z.enum(['none', 'attacker']).default('none').describe('Jihad: the attacker fires all letters first in R1 of the first turn'),
      })
      .prefault({}),
  } as const;
}
