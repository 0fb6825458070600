/**
 * Scenario keys of the surrender-level siege test (seed 002, docs/rules/surrender.md).
 * Every DEFAULT of the rules file is an option here, with the DEFAULT as its default.
 */
import * as z from 'zod';

let built: ReturnType<typeof buildShape> | undefined;

/**
 * The system's own scenario keys (RulesSystem.shape), built on first use: building zod schemas
 * is a large part of a command's start-up, and a command uses one system's.
 */
export const surrenderShape = () => (built ??= buildShape());

function buildShape() {
  const count = (what: string) => z.int().min(0).max(1000).default(0).describe(what);
  const probability = (what: string) => z.number().min(0).max(1).describe(what);

  const SurrenderRules = z
    .strictObject({
      die: z
        .int()
        .min(2)
        .max(1000)
        .default(6)
        .describe('faces of the test die; DEFAULT d6 (docs/rules/surrender.md "Proposed simulator defaults"); d10 is the listed alternative'),
      comparison: z
        .enum(['lt', 'le'])
        .default('lt')
        .describe('success iff roll + modifiers < level (lt, "below", as written) or <= level (le)'),
      natural_one_succeeds: z.boolean().default(false).describe('a natural 1 always succeeds (toggle; DEFAULT no)'),
      natural_max_fails: z
        .boolean()
        .default(false)
        .describe('a natural maximum (6 on a d6) always fails (not in the rules file; a common house rule)'),
      heavy_counts_as_artillery: z
        .boolean()
        .default(true)
        .describe('(iii) a heavy "S" artillery unit also triggers the "-1 if any artillery or bombers" line'),
      engineers_count_as_artillery: z
        .boolean()
        .default(true)
        .describe('(ii) engineers trigger the "-1 if any artillery or bombers" line (not cumulative)'),
      engineers_separate_modifier: z
        .boolean()
        .default(false)
        .describe('(ii) alternative: engineers give their own -1 (when any are present)'),
      leader_bonus: z
        .enum(['once_per_side', 'per_leader'])
        .default('once_per_side')
        .describe('(v) the -2/+2 leader siege bonus applies once per side (best leader) or per qualifying leader'),
      modifiers_apply_to: z
        .enum(['roll', 'level'])
        .default('roll')
        .describe('(i) modifiers are added to the roll (DEFAULT) or to the surrender level with the printed signs'),
      overcrowding_steps: z
        .int()
        .min(1)
        .max(1000)
        .default(5)
        .describe('(iv) -1 per this many steps inside, floor(steps / N)'),
      min_besieging_units: z
        .int()
        .min(0)
        .max(1000)
        .default(2)
        .describe('seed rule 1: a siege needs at least this many besieging combat units'),
      tests_per_turn: z.int().min(1).max(100).default(1).describe('surrender tests per game turn (DEFAULT one, in the Sieges phase)'),
    })
    .prefault({});

  /** A side's siege card: values are not in any source, so they are scenario inputs (rules file). */
  const cardSide = (defaultModifier: number) =>
    z
      .strictObject({
        chance: probability('chance that this side plays a siege card in a given turn').default(0),
        modifier: z.int().min(-20).max(20).default(defaultModifier).describe('die-roll modifier of the card'),
      })
      .prefault({});

  return {
    structure: z
      .strictObject({
        surrender_level: z
          .int()
          .min(-20)
          .max(1000)
          .default(3)
          .describe('surrender level L; placeholders: town/city 3, fortress 2, major fortress 2 (+port)'),
        port: z.boolean().default(false).describe('a fortress-port is only tested while blockaded (seed 002, section C)'),
        blockade_chance: probability('chance per turn that the blockade holds (ports only)').default(1),
      })
      .prefault({}),
    besieger: z
      .strictObject({
        combat_units: z.int().min(0).max(1000).default(2).describe('besieging combat units (a siege needs 2, seed rule 1)'),
        heavy_siege_artillery: count('heavy siege artillery units with the white "S": -1 each'),
        artillery: count('other artillery units'),
        bombers: count('bomber units'),
        engineers: count('engineer units'),
        siege_leaders: count('besieging leaders with a siege bonus: -2'),
      })
      .prefault({}),
    besieged: z
      .strictObject({
        steps_inside: count('steps of combat units sheltered inside: -1 per 5 (overcrowding)'),
        siege_leaders: count('besieged leaders with a siege bonus: +2'),
      })
      .prefault({}),
    cards: z
      .strictObject({
        besieger: cardSide(-1),
        besieged: cardSide(1),
      })
      .prefault({}),
    turns: z.int().min(1).max(10_000).default(12).describe('game turns of siege (one test per turn)'),
    rules: SurrenderRules,
    extra_modifier: z.int().min(-100).max(100).default(0).describe('any further constant die-roll modifier (scenario data)'),
  } as const;
}
