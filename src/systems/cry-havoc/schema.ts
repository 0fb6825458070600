/**
 * Scenario keys of the Cry Havoc / Siege system (seeds 003 and 004, docs/rules/cry-havoc.md).
 * One `kind` per question players ask; every DEFAULT and toggle of the rules file is a
 * `rules:` option (docs/scenarios.md lists them).
 */
import * as z from 'zod';
import { WEAPONS } from './tables.js';

let built: ReturnType<typeof buildShape> | undefined;

/**
 * The system's own scenario keys (RulesSystem.shape), built on first use: building zod schemas
 * is a large part of a command's start-up, and a command uses one system's.
 */
export const cryHavocShape = () => (built ??= buildShape());

function buildShape() {
  const strength = (what: string) => z.int().min(0).max(100).describe(what);
  /** Combat effect of a hex (1.2): favourable, neutral, unfavourable. YAML reads a bare 0 as a number. */
  const Terrain = z
    .union([z.enum(['+', '0', '-']), z.literal(0)])
    .default('0')
    .describe('terrain combat effect of the hex: "+", "0" or "-" (1.2, 1.3)');

  const Wounded = z
    .strictObject({
      attack: strength('attack strength on the wounded counter').optional(),
      defence: strength('defence strength on the wounded counter').optional(),
    })
    .prefault({})
    .describe('printed values of the wounded counter (DEFAULT when missing: half, rounded down, 1.1)');

  const Attacker = z.strictObject({
    attack: strength('attack strength (black on the counter)'),
    mounted: z.boolean().default(false),
    terrain: Terrain,
    state: z.enum(['healthy', 'wounded']).default('healthy'),
    wounded: Wounded,
  });

  const Defender = z
    .strictObject({
      defence: strength('defence strength (red on the counter)'),
      mounted: z.boolean().default(false),
      terrain: Terrain,
      state: z.enum(['healthy', 'wounded']).default('healthy'),
      wounded: Wounded,
      dismounted: z
        .strictObject({
          defence: strength('defence on the dismounted counter').optional(),
          wounded_defence: strength('defence on the dismounted wounded counter').optional(),
        })
        .prefault({})
        .describe('values once unhorsed (default: the mounted values)'),
    })
    .optional();

  const Shooter = z.strictObject({
    weapon: z.enum(WEAPONS),
    range: z.int().min(1).max(1000).describe('range to the target in hexes'),
    wounded: z.boolean().default(false).describe('+1 to the die (1.4)'),
  });

  const Target = z
    .strictObject({
      mounted: z.boolean().default(false),
      cover: z.enum(['none', 'light', 'medium', 'heavy']).default('none'),
      dismounted_knight: z.boolean().default(false).describe('+1 to the die on the foot table (1.4); also applies once a mounted knight is unhorsed'),
      state: z.enum(['healthy', 'wounded']).default('healthy'),
    })
    .prefault({});

  const CryHavocRules = z
    .strictObject({
      // melee (1.1, 1.3, 1.6)
      odds_below_one: z.enum(['no_attack', 'column_one']).default('no_attack').describe('1.1 DEFAULT: odds below 1-1 are not allowed; alternative: fight on the 1-1 column'),
      shift_below_one: z.enum(['clamp', 'no_attack']).default('clamp').describe('1.3 DEFAULT: a column shifted below 1-1 is clamped; alternative: the attack is not allowed'),
      multi_attacker_shift: z.enum(['foot_only', 'both']).default('foot_only').describe('1.3: the +1 column for several attackers, on the foot table only (as printed) or on both'),
      attacker_terrain: z.enum(['worst', 'best']).default('worst').describe('1.3 DEFAULT: attackers on different terrain use the worst'),
      attacker_wound: z.enum(['one', 'all']).default('one').describe('1.6 step 5: an "A" result wounds one attacker (the healthy one with the lowest printed attack, ties to the first listed) or all'),
      wounded_values: z.enum(['half', 'unchanged']).default('half').describe('1.1 DEFAULT for missing wounded counters: half, rounded down'),
      stunned_defence: z.enum(['wounded', 'normal']).default('wounded').describe('1.1 DEFAULT: a stunned character defends at his wounded value'),
      stun_recovery: z
        .enum(['before_next_attack', 'after_next_attack'])
        .default('before_next_attack')
        .describe('1.1 DEFAULT: a stunned character recovers at the end of his own next player turn, before the next attack; alternative: still stunned through the next attack'),
      retreat_blocked: z.boolean().default(false).describe('1.6: a character who cannot retreat legally is wounded instead (the map decides; default: retreats are always possible)'),
      // missile (1.4, 1.5)
      ranges: z.enum(['base', 'croisades', 'vikings']).default('base').describe('1.4 range bands: base tables, or the revised Croisades or Vikings/Dragon Noir ones'),
      vikings_shortbow_long: z.tuple([z.int().min(1), z.int().min(1)]).default([26, 50]).describe('O2: the missing Vikings short-bow long band (DEFAULT 26-50, a guess)'),
      revised_ballista: z
        .enum(['refused', 'base_bands'])
        .default('refused')
        .describe('1.4 DEFAULT: the Croisades and Vikings range tables have no ballista row, so a ballista shot is refused under them; alternative: the ballista keeps the base table\'s bands (1-50 / 51-100 / 101-175)'),
      mounted_heavy_cover: z.enum(['medium', 'light', 'none']).default('medium').describe('1.5 DEFAULT: a mounted target in heavy cover uses the medium column'),
      croisades_mounted_errata: z.boolean().default(false).describe('1.5 note 2: Croisades errata for mounted results B and C'),
      // battering (1.7)
      rolls_per_day: z.int().min(1).max(24).default(1).describe('1.7 DEFAULT: one battering roll per hex per siege day (not in any source)'),
      // fire (1.9)
      oil_barrel_row7: z.enum(['as_printed', 'swapped']).default('as_printed').describe('O8: row 7 of the fire table as printed, or swapped (oil barrel 7-10, by hand 8-10)'),
      extinguish_same_turn: z.boolean().default(true).describe('a fire started this turn can be fought the same turn (siegesim DEFAULT: the sources are silent)'),
      // healing (1.8)
      strategic_turn_days: z.int().min(1).max(30).default(3).describe('1.8: 1 strategic turn = 3 siege days'),
    })
    .prefault({});

  return {
    kind: z.enum(['melee', 'missile', 'battering', 'fire', 'healing']).describe('the question: melee, missile, battering, fire or healing'),
    attackers: z.array(Attacker).min(1).max(20).optional().describe('melee: the attacking characters'),
    defender: Defender.describe('melee: the defending character'),
    shooters: z.array(Shooter).min(1).max(50).optional().describe('missile: the shooters, each firing once per turn'),
    target: Target.describe('missile: the target'),
    turns: z.int().min(1).max(1000).default(6).describe('melee/missile/fire: turns simulated (a cap)'),
    engines: z
      .strictObject({
        mangonel: z.int().min(0).max(100).default(0).describe('1 battering point each'),
        trebuchet: z.int().min(0).max(100).default(0).describe('3 battering points each'),
        ram: z.int().min(0).max(100).default(0).describe('9 battering points each; never loses points'),
      })
      .prefault({}),
    wall: z.enum(['outer', 'interior']).default('outer').describe('battering: an outer wall hex needs 4 D, an interior one behind a breach 1 D'),
    days: z.int().min(1).max(10000).default(20).describe('battering: siege days'),
    fire: z
      .strictObject({
        method: z.enum(['hand', 'oil_barrel', 'arrow_light', 'arrow_heavy']).default('hand').describe('column of the fire table'),
        attempts: z.int().min(0).max(20).default(1).describe('ignition attempts per turn while not burning'),
        extinguish_attempts: z.int().min(0).max(20).default(1).describe('extinguishing attempts per turn while burning'),
      })
      .prefault({}),
    healing: z
      .strictObject({
        table: z.enum(['siege', 'croisades']).default('siege').describe('1.8: Siege d10 days, or the Croisades d6 strategic turns'),
        horizon_days: z.int().min(1).max(1000).default(30).describe('days covered by heal_by_day.csv'),
      })
      .prefault({}),
    policy: z
      .strictObject({
        engine_losses: z
          .enum(['smallest_first', 'largest_first'])
          .default('smallest_first')
          .describe('1.7: the owner takes C losses from his smallest (or largest) non-ram engines first'),
      })
      .prefault({}),
    rules: CryHavocRules,
  } as const;
}
