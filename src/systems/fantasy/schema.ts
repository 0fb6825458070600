/**
 * Scenario keys of the fantasy open-field and siege system (seed 001, docs/rules/fantasy.md).
 * Every ambiguity H1-H30 of the rules file is a key under `rules:` (or `hp:`, `wall:`,
 * `policy:`), defaulting to the file's DEFAULT. docs/scenarios.md lists them against H numbers.
 */
import * as z from 'zod';

let built: ReturnType<typeof buildShape> | undefined;

/**
 * The system's own scenario keys (RulesSystem.shape), built on first use: building zod schemas
 * is a large part of a command's start-up, and a command uses one system's.
 */
export const fantasyShape = () => (built ??= buildShape());

function buildShape() {
  const count = (what: string) => z.int().min(0).max(200).default(0).describe(what);

  const Army = z
    .strictObject({
      infantry: count('infantry units (melee d6)'),
      cavalry: count('cavalry units (melee d6; charge d6 when attacking in the open field)'),
      archers: count('archer units (ranged d2, melee d3)'),
      mages: count('mage units (ranged d3 at one chosen troop type, melee d2)'),
      clerics: count('cleric units (d3 to the shield pool, melee d2)'),
      siege_engines: count('siege engines (2d6 against the wall; no melee die)'),
      captain_might: z.int().min(0).max(20).default(0).describe("Captain's Might: +1d6 per point to the side's melee total (H23)"),
    })
    .prefault({});

  const hpValue = (d: number, what: string) => z.int().min(1).max(30).default(d).describe(what);

  /** H1 DEFAULT table; `rules.hp_preset` picks an alternative. */
  const Hp = z
    .strictObject({
      infantry: hpValue(4, 'H1 DEFAULT 4'),
      cavalry: hpValue(5, 'H1 DEFAULT 5'),
      archer: hpValue(2, 'H1 DEFAULT 2'),
      mage: hpValue(2, 'H1 DEFAULT 2'),
      cleric: hpValue(2, 'H1 DEFAULT 2'),
      siege_engine: hpValue(6, 'H1 DEFAULT 6'),
      captain: hpValue(5, 'HP of the captain when rules.captain is "unit" (H23 (b))'),
    })
    .prefault({});

  const value = (d: number, what: string) => z.number().min(0).max(1000).default(d).describe(what);

  /** H4 DEFAULT threat values (expected melee die + expected ranged/charge/shield contribution). */
  const Values = z
    .strictObject({
      infantry: value(3.5, 'd6 melee'),
      cavalry: value(7, 'd6 melee + d6 charge'),
      archer: value(3.5, 'd2 ranged + d3 melee'),
      mage: value(3.5, 'd3 ranged + d2 melee'),
      cleric: value(3.5, 'd2 melee + d3 shield'),
      siege_engine: value(7, '2d6 against the wall'),
      captain: value(3.5, 'per point of Might, when the captain is a unit (H23 (b))'),
    })
    .prefault({});

  const Wall = z
    .strictObject({
      type: z
        .enum(['palisade', 'stone', 'fortress'])
        .default('stone')
        .describe('H20 DEFAULT wall types: palisade 15 HP DC 10; stone 30 HP DC 12; fortress 50 HP DC 14 with 1 upgrade'),
      hp: z.int().min(0).max(100000).optional().describe('wall HP (default from type)'),
      dc: z.int().min(1).max(40).optional().describe('climb DC (default from type; seed default 12)'),
      upgrades: z.int().min(0).max(20).optional().describe('wall upgrade level: 2 + upgrades dice removed (default from type)'),
      breach_threshold: z
        .int()
        .min(1)
        .max(1000)
        .optional()
        .describe('climbers in the breach pool that breach (H19 DEFAULT: palisade 2, stone 4, fortress 6 + 1 per upgrade)'),
    })
    .prefault({});

  const fire = z.enum(['wall', 'defenders']);

  const Policy = z
    .strictObject({
      attacker_fire: z
        .enum(['defenders_while_wall_up', 'defenders', 'wall', 'finish_wall'])
        .default('defenders_while_wall_up')
        .describe(
          'siege: what attacking mages and archers shoot while the wall stands. defenders_while_wall_up (= defenders): the defenders, engines batter the wall; wall: the wall; finish_wall: the wall when this round\'s expected ranged damage would bring it down, else the defenders. Once the wall is down everyone shoots defenders',
        ),
      mage_fire: fire.default('defenders').describe('H12 (c) by_type: where the mages shoot'),
      archer_fire: fire.default('defenders').describe('H12 (c) by_type: where the archers shoot'),
      defender_fire_share: z.number().min(0).max(1).default(0.5).describe('H12 (b) per_unit: share of each type that shoots the defenders'),
      climbers: z.enum(['none', 'infantry', 'infantry_and_cavalry']).default('infantry_and_cavalry').describe('who attempts to climb each siege round'),
      shield_spending: z
        .enum(['optimal', 'no_waste', 'full_block', 'threshold', 'never_phase_a'])
        .default('optimal')
        .describe('H9: optimal (DEFAULT), no_waste (b), full_block (c), threshold (d), never_phase_a (e)'),
      damage_allocation: z
        .enum(['greedy_value', 'lowest_hp', 'knapsack', 'random'])
        .default('greedy_value')
        .describe('H4: greedy_value (DEFAULT), lowest_hp (b), knapsack (c), random (d)'),
      withdraw_below: z
        .number()
        .min(0)
        .max(1)
        .default(0)
        .describe('H27: the attacker withdraws (defender wins) when fewer than this share of its starting units is left; 0 = never'),
    })
    .prefault({});

  const FantasyRules = z
    .strictObject({
      hp_preset: z.enum(['table', 'melee_die', 'one']).default('table').describe('H1: the hp table (DEFAULT), HP = melee die size (b), 1 HP each (c)'),
      leftover: z.enum(['waste', 'persistent', 'next_phase']).default('waste').describe('H2: leftover damage wasted (DEFAULT), persistent wounds (b), carried to the next phase of the round (c)'),
      melee_allocation: z.enum(['dealer', 'receiver', 'random']).default('dealer').describe('H3: who allocates melee casualties'),
      mage_targeting: z.enum(['one_type_together', 'per_mage', 'spill']).default('one_type_together').describe('H5'),
      ranged_phases: z.enum(['sequential', 'simultaneous']).default('sequential').describe('H6'),
      open_field_rounds: z.enum(['repeat_melee', 'single_pass', 'repeat_phases']).default('repeat_melee').describe('H7'),
      round_cap_result: z
        .enum(['auto', 'more_hp', 'defender', 'undecided'])
        .default('auto')
        .describe('at the round cap: auto = more total HP wins in the open field (H7), the defender wins a siege (H27)'),
      shield_scope: z.enum(['total', 'per_component']).default('total').describe('H8: a die cancels from the total (DEFAULT) or from the mage or archer part (b)'),
      shield_reduces: z
        .enum(['mage_first', 'archer_first'])
        .default('mage_first')
        .describe('H8 DEFAULT detail (not in the rules file): which part of a volley a total reduction comes off first'),
      siege_pool: z.enum(['reroll', 'accumulate']).default('reroll').describe('H10'),
      dice_removal: z
        .enum(['highest_type_first', 'highest_results', 'lowest_type_first', 'points'])
        .default('highest_type_first')
        .describe('H11: remove d3s before d2s (DEFAULT), roll and drop the k highest results (b), d2s first (c), subtract k points (d)'),
      fire_split: z.enum(['one_choice', 'per_unit', 'by_type']).default('one_choice').describe('H12'),
      attacker_fire_targets: z.enum(['mages_and_archers', 'any']).default('mages_and_archers').describe('H13: legal targets of attacker fire at the defenders while the wall stands'),
      shields_vs_wall: z.boolean().default(false).describe('H14: the defender\'s shield dice reduce damage to the wall'),
      tower_bonus: z.enum(['standing_wall', 'always', 'none']).default('standing_wall').describe('H15: the 2d3 tower bonus needs a standing wall (DEFAULT), always (b); none is a siegesim extra'),
      climb_comparison: z.enum(['ge', 'gt']).default('ge').describe('H16: success on d20 >= DC (DEFAULT) or > DC'),
      failed_climb: z.enum(['no_lasting', 'persistent', 'no_retry']).default('no_lasting').describe('H17'),
      cavalry_climb: z.boolean().default(true).describe('H18: cavalry may climb'),
      breach_threshold_rule: z.enum(['wall', 'half_defenders']).default('wall').describe('H19: the wall\'s threshold (DEFAULT) or ceil(defender units / 2)'),
      melee_start: z
        .enum(['next_round', 'full_battle', 'same_round', 'all_attackers'])
        .default('next_round')
        .describe('H21: DEFAULT next round, breach pool only while the wall stands; (b) full open-field battle; (c) same round; (d) all attackers fight'),
      breach_pool_targetable: z.boolean().default(true).describe('H22: breach-pool units are legal targets of defender fire'),
      captain: z.enum(['bonus', 'unit']).default('bonus').describe('H23: Might is an untargetable bonus (DEFAULT) or the captain is a unit with HP'),
      siege_units_open_field: z.enum(['targets', 'absent']).default('targets').describe('H24'),
      engines_targetable: z.boolean().default(true).describe('H25: siege engines are legal targets of defender fire'),
      pool_fire_order: z
        .enum(['outside_first', 'pool_first'])
        .default('outside_first')
        .describe(
          'H29: among attacking units the allocation ranks equal (same type, HP and value), the ones outside the wall die before those in the breach pool (DEFAULT), or the breach pool first',
        ),
      repelled_breach: z
        .enum(['closes', 'stays_open'])
        .default('closes')
        .describe(
          'H30: a breach pool wiped out with the wall standing ends the melee until the pool reaches the breach threshold again (DEFAULT); stays_open: melee goes on every round, fought by whoever is in the pool (a new climber fights the round he climbs)',
        ),
      wall_fall: z
        .enum(['at_once', 'end_of_phase'])
        .default('at_once')
        .describe(
          'H28: a wall the engines bring to 0 HP is down at once, for the same volley\'s mages and archers too (DEFAULT: no dice removed, any target); end_of_phase: that volley still fires under standing-wall rules, the wall is down from the defender\'s fire on',
        ),
    })
    .prefault({});

  return {
    mode: z.enum(['open_field', 'siege']).default('siege').describe('open-field battle (seed phases 1-5) or siege rounds (steps 1-5)'),
    attacker: Army,
    defender: Army,
    hp: Hp,
    values: Values,
    wall: Wall,
    policy: Policy,
    max_rounds: z.int().min(1).max(1000).optional().describe('round cap (H7 DEFAULT 10 in the open field, H27 DEFAULT 20 in a siege)'),
    rules: FantasyRules,
  } as const;
}
