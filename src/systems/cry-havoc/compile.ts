/**
 * Compile a validated Cry Havoc scenario: tables to integer codes, characters to values.
 */
import { dieThreshold } from '../../engine/dice.js';
import {
  BATTERING,
  BATTERING_COLUMNS,
  D_NEEDED,
  FIRE,
  HEALING_CROISADES_TURNS,
  HEALING_SIEGE_DAYS,
  LINE_OFFSET,
  MELEE_FOOT,
  MELEE_MOUNTED,
  MISSILE_FOOT,
  MISSILE_MOUNTED,
  RANGE_BANDS,
  type Weapon,
} from './tables.js';

export const KIND_NAMES = ['melee', 'missile', 'battering', 'fire', 'healing'] as const;
export const K_MELEE = 0;
export const K_MISSILE = 1;
export const K_BATTERING = 2;
export const K_FIRE = 3;
export const K_HEALING = 4;

/** Result letters as codes: '-' = 0, A = 1, B = 2, ... */
export function resultCode(cell: string): number {
  return cell === '-' ? 0 : cell.charCodeAt(0) - 64;
}
export const MELEE_FOOT_RESULTS = ['-', 'A', 'B', 'C', 'D', 'E', 'F'];
export const MELEE_MOUNTED_RESULTS = ['-', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];
/** What each melee result means, in the order of the letters (docs/rules/cry-havoc.md 1.6, the keys under tables A and B). */
export const MELEE_FOOT_MEANING = [
  'no effect',
  'attacker wounded',
  'attacker retreats 1 hex',
  'defender retreats 1 hex',
  'defender stunned',
  'defender wounded',
  'defender killed',
];
export const MELEE_MOUNTED_MEANING = [
  'no effect',
  'attacker wounded',
  'attacker retreats 1 hex',
  'defender retreats 1 hex',
  'horse killed, rider stunned, dismounted',
  'horse unhurt, rider wounded',
  'horse killed, rider wounded, dismounted',
  'horse unhurt, rider killed',
  'horse and rider killed',
];
export const MISSILE_FOOT_RESULTS = ['-', 'A', 'B', 'C'];
export const MISSILE_MOUNTED_RESULTS = ['-', 'A', 'B', 'C', 'D', 'E', 'F'];

type Terrain = '+' | '0' | '-' | 0;
const terrainValue = (t: Terrain) => (t === '+' ? 1 : t === '-' ? -1 : 0);

interface Scenario {
  kind: (typeof KIND_NAMES)[number];
  attackers?: { attack: number; mounted: boolean; terrain: Terrain; state: string; wounded: { attack?: number; defence?: number } }[];
  defender?: {
    defence: number;
    mounted: boolean;
    terrain: Terrain;
    state: string;
    wounded: { attack?: number; defence?: number };
    dismounted: { defence?: number; wounded_defence?: number };
  };
  shooters?: { weapon: Weapon; range: number; wounded: boolean }[];
  target: { mounted: boolean; cover: 'none' | 'light' | 'medium' | 'heavy'; dismounted_knight: boolean; state: string };
  turns: number;
  engines: { mangonel: number; trebuchet: number; ram: number };
  wall: 'outer' | 'interior';
  days: number;
  fire: { method: 'hand' | 'oil_barrel' | 'arrow_light' | 'arrow_heavy'; attempts: number; extinguish_attempts: number };
  healing: { table: 'siege' | 'croisades'; horizon_days: number };
  policy: { engine_losses: 'smallest_first' | 'largest_first' };
  rules: {
    odds_below_one: string;
    shift_below_one: string;
    multi_attacker_shift: string;
    attacker_terrain: string;
    attacker_wound: string;
    wounded_values: string;
    stunned_defence: string;
    stun_recovery: string;
    retreat_blocked: boolean;
    ranges: 'base' | 'croisades' | 'vikings';
    vikings_shortbow_long: [number, number];
    revised_ballista: 'refused' | 'base_bands';
    mounted_heavy_cover: 'medium' | 'light' | 'none';
    croisades_mounted_errata: boolean;
    rolls_per_day: number;
    oil_barrel_row7: string;
    extinguish_same_turn: boolean;
    strategic_turn_days: number;
  };
}

export interface CryHavocCompiled {
  kind: number;
  turns: number;
  t10: number;
  t6: number;
  // --- melee ---
  meleeFoot: number[]; // [row * 12 + col]
  meleeMounted: number[];
  nAtt: number;
  attH: number[];
  attW: number[];
  attState0: number[]; // 0 healthy, 1 wounded
  terrainShift: number; // v(attackers) - v(defender)
  defH: number; // defence while mounted (a foot defender: his defence)
  defW: number; // wounded (and, by rules.stunned_defence, stunned) defence while mounted: printed, or halved
  dismH: number; // defence on foot: a foot defender's own, an unhorsed knight's dismounted counter
  dismW: number; // wounded (stunned) defence on foot: printed, or halved (1.1)
  defMounted0: number;
  defState0: number;
  oddsBelowOneNoAttack: number;
  shiftBelowOneNoAttack: number;
  multiBoth: number;
  woundAll: number;
  stunnedDefenceWounded: number;
  stunLasts: number;
  retreatBlocked: number;
  // --- missile ---
  missileFoot: number[]; // [(line - 1) * 4 + cover]
  missileMounted: number[]; // [(line - 1) * 3 + cover]
  nShoot: number;
  shootAdd: number[]; // offset + range modifier + wounded
  coverFoot: number;
  coverMounted: number;
  dismountedKnight: number;
  targetMounted0: number;
  targetState0: number;
  errata: number;
  // --- battering ---
  rams: number;
  enginePoints: number[]; // non-ram engines' points
  dNeeded: number;
  days: number;
  rollsPerDay: number;
  batterD: number[]; // [row * 5 + col]
  batterC: number[];
  lossesLargestFirst: number;
  // --- fire ---
  ignite: number[]; // 10 rows: 1 = fire started
  extinguish: number[]; // 10 rows: 0 none, 1 D (any fire out), 2 DA (arrow fires out)
  arrowFire: number;
  attempts: number;
  extAttempts: number;
  sameTurn: number;
  // --- healing ---
  croisades: number;
  horizon: number;
  turnDays: number;
  siegeDays: number[];
  croisadesTurns: number[];
}

/** The short, medium and long bands of a weapon under the scenario's range table, or undefined when the table has none for it. */
export function weaponBands(s: Pick<Scenario, 'rules'>, weapon: Weapon): [number, number][] | undefined {
  // The revised tables have no ballista row (1.4): refused by DEFAULT, or the base table's bands (rules.revised_ballista).
  const table = RANGE_BANDS[s.rules.ranges][weapon] ?? (s.rules.revised_ballista === 'base_bands' ? RANGE_BANDS.base[weapon] : undefined);
  if (!table) return undefined;
  const bands: [number, number][] = table.slice();
  if (s.rules.ranges === 'vikings' && weapon === 'shortbow') bands.push(s.rules.vikings_shortbow_long);
  return bands;
}

/**
 * Range band (0, 1, 2) of a shot: the first band (short, medium, long) that holds the range, so
 * a band overlapping an earlier one gives up the overlap; -1 when no band holds it (beyond the
 * long band, or in a gap rules.vikings_shortbow_long leaves), -2 when the weapon has no bands.
 */
export function rangeBand(s: Pick<Scenario, 'rules'>, weapon: Weapon, range: number): number {
  const bands = weaponBands(s, weapon);
  if (!bands) return -2; // the weapon has no band in this table (the ballista in the revised tables)
  for (let b = 0; b < bands.length; b++) if (range >= bands[b][0] && range <= bands[b][1]) return b;
  return -1;
}

/** Problems that need more than one key to see (run after the schema). */
export function refineCryHavoc(raw: Record<string, unknown>): { path: (string | number)[]; message: string }[] {
  const s = raw as unknown as Scenario;
  const out: { path: (string | number)[]; message: string }[] = [];
  if (s.kind === 'melee') {
    if (!s.attackers) out.push({ path: ['attackers'], message: 'a melee needs attackers' });
    if (!s.defender) out.push({ path: ['defender'], message: 'a melee needs a defender' });
  }
  if (s.kind === 'missile') {
    if (!s.shooters) out.push({ path: ['shooters'], message: 'a missile question needs shooters' });
    (s.shooters ?? []).forEach((sh, i) => {
      const b = rangeBand(s, sh.weapon, sh.range);
      if (b === -2) out.push({ path: ['shooters', i, 'weapon'], message: `the ${sh.weapon} has no range bands in the "${s.rules.ranges}" table (use rules.ranges: base, or rules.revised_ballista: base_bands)` });
      else if (b < 0) {
        // beyond every band, or in none of them (a gap or a backwards band from rules.vikings_shortbow_long)
        const bands = weaponBands(s, sh.weapon) ?? [];
        const beyond = bands.every(([, last]) => sh.range > last);
        const names = ['short', 'medium', 'long'];
        const list = bands.map(([a, z], k) => `${names[k]} ${a}-${z}`).join(', ');
        out.push({
          path: ['shooters', i, 'range'],
          message: beyond
            ? `${sh.range} hexes is beyond the ${sh.weapon}'s long range in the "${s.rules.ranges}" table (${list})`
            : `${sh.range} hexes is in none of the ${sh.weapon}'s range bands in the "${s.rules.ranges}" table (${list}): rules.vikings_shortbow_long leaves it out`,
        });
      }
    });
  }
  return out;
}

/** The setup keys and `rules:` each kind reads (Part 3, Part 4): a key of another kind changes nothing. */
const READS: Record<Scenario['kind'], { keys: string[]; rules: string[] }> = {
  melee: {
    keys: ['attackers', 'defender', 'turns'],
    rules: ['odds_below_one', 'shift_below_one', 'multi_attacker_shift', 'attacker_terrain', 'attacker_wound', 'wounded_values', 'stunned_defence', 'stun_recovery', 'retreat_blocked'],
  },
  missile: { keys: ['shooters', 'target', 'turns'], rules: ['ranges', 'vikings_shortbow_long', 'revised_ballista', 'mounted_heavy_cover', 'croisades_mounted_errata', 'stun_recovery', 'retreat_blocked'] },
  battering: { keys: ['engines', 'wall', 'days', 'policy'], rules: ['rolls_per_day'] },
  fire: { keys: ['fire', 'turns'], rules: ['oil_barrel_row7', 'extinguish_same_turn'] },
  healing: { keys: ['healing'], rules: ['strategic_turn_days'] },
};
const SETUP_KEYS = [...new Set(Object.values(READS).flatMap((r) => r.keys))];
const RULE_KEYS = [...new Set(Object.values(READS).flatMap((r) => r.rules))];

const mapping = (x: unknown): Record<string, unknown> | undefined => (x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined);
const writes = (o: unknown, key: string): boolean => {
  const m = mapping(o);
  return m !== undefined && Object.hasOwn(m, key);
};

/**
 * Settings a case writes that change nothing in it, whatever the dice: a key its `kind` never
 * reads (Part 4: shooters in a melee, turns in battering or healing), and a reading that no
 * state of this case can reach (each with the rule that says why). Only what no case of that
 * shape can use: a setting that merely happens not to move this case's numbers (odds that never
 * fall below 1-1) is not said. The counter's own printed values that a one-way melee never reads
 * (attackers[].mounted, attackers[].wounded.defence, defender.wounded.attack) describe the
 * counter and are not said either.
 */
export function deadSettingsCryHavoc(written: Record<string, unknown>, scenario: Record<string, unknown>): { path: string[]; message: string }[] {
  const s = scenario as unknown as Scenario;
  const out: { path: string[]; message: string }[] = [];
  const reads = READS[s.kind];
  for (const k of SETUP_KEYS) if (!reads.keys.includes(k) && writes(written, k)) out.push({ path: [k], message: `changes nothing: a ${s.kind} question never reads ${k} (Part 4); leave it out, or set kind to the question that reads it` });
  const rules = mapping(written.rules);
  for (const k of RULE_KEYS) if (!reads.rules.includes(k) && writes(rules, k)) out.push({ path: ['rules', k], message: `changes nothing: rules.${k} is not read by a ${s.kind} question (Part 4); leave it out` });
  const rule = (k: string, why: string) => {
    if (writes(rules, k) && reads.rules.includes(k)) out.push({ path: ['rules', k], message: `changes nothing: ${why}` });
  };
  if (s.kind === 'melee' && s.attackers && s.defender) {
    const d = s.defender;
    const atts = s.attackers;
    if (!d.mounted && writes(mapping(written.defender), 'dismounted'))
      out.push({ path: ['defender', 'dismounted'], message: 'changes nothing: the defender is on foot from the start (defender.mounted is false) and fights on his own values; the dismounted counters are read only once a mounted defender is unhorsed (Part 4); set defender.mounted: true, or leave dismounted out' });
    if (s.rules.stun_recovery !== 'after_next_attack')
      rule('stunned_defence', 'a stun wears off before the next attack (rules.stun_recovery: before_next_attack), so no attack meets a stunned defender and his stunned defence is never read (Part 3.1); set rules.stun_recovery: after_next_attack, or leave stunned_defence out');
    if (atts.length < 2) {
      rule('multi_attacker_shift', 'there is one attacker, and the column for several attackers needs two or more (1.3)');
      rule('attacker_wound', 'there is one attacker, so an "A" result wounds him whether it wounds one attacker or all (1.6 step 5)');
    } else if (!d.mounted) rule('multi_attacker_shift', 'the defender is on foot from the start, and the foot table has the column for several attackers either way; the option adds it on the mounted table only (1.3)');
    if (new Set(atts.map((a) => terrainValue(a.terrain))).size === 1) rule('attacker_terrain', 'every attacker stands on the same terrain, so the worst and the best are the same (1.3)');
    const halves = atts.some((a) => a.wounded.attack === undefined) || d.wounded.defence === undefined || (d.mounted && d.dismounted.defence !== undefined && d.dismounted.wounded_defence === undefined);
    if (!halves) rule('wounded_values', 'every wounded value this melee reads is printed (attackers[].wounded.attack, defender.wounded.defence, and the dismounted wounded defence where a dismounted defence is given), so none is halved (1.1)');
  }
  if (s.kind === 'missile' && s.shooters) {
    const weapons = new Set(s.shooters.map((sh) => sh.weapon));
    if (s.rules.ranges !== 'vikings') rule('vikings_shortbow_long', `it is the short bow's long band under rules.ranges: vikings, and the ranges are "${s.rules.ranges}" (O2)`);
    else if (!weapons.has('shortbow')) rule('vikings_shortbow_long', 'no shooter has a short bow (O2)');
    if (s.rules.ranges === 'base') rule('revised_ballista', 'it applies under the revised range tables (rules.ranges: croisades or vikings), and the ranges are "base" (1.4)');
    else if (!weapons.has('ballista')) rule('revised_ballista', 'no shooter has a ballista (1.4)');
    if (!s.target.mounted) {
      const why = 'the target is on foot (target.mounted is false) and never reads the mounted table (1.5 A)';
      rule('mounted_heavy_cover', why);
      rule('croisades_mounted_errata', why);
      rule('stun_recovery', 'the target is on foot (target.mounted is false), and the foot table has no stun result (1.5 B)');
    } else if (s.target.cover !== 'heavy') rule('mounted_heavy_cover', `it is the column of a mounted target in heavy cover, and the cover is "${s.target.cover}" (1.5 A)`);
  }
  if (s.kind === 'battering' && writes(mapping(written.policy), 'engine_losses') && (s.engines.trebuchet === 0 || (s.engines.trebuchet === 1 && s.engines.mangonel === 0)))
    out.push({ path: ['policy', 'engine_losses'], message: 'changes nothing: every non-ram engine here holds as many points as any other that can lose one (mangonels only, or a single trebuchet), so whichever takes a C loss leaves the same points (1.7); leave it out' });
  if (s.kind === 'fire') {
    if (s.fire.method === 'arrow_light' || s.fire.method === 'arrow_heavy') rule('oil_barrel_row7', `row 7 differs only in the columns by hand and oil barrel, and fire.method is ${s.fire.method} (O8)`);
    if (s.fire.extinguish_attempts === 0) rule('extinguish_same_turn', 'fire.extinguish_attempts is 0: a fire is never fought, this turn or later (1.9)');
  }
  return out;
}

const half = (x: number) => Math.floor(x / 2);

export function compileCryHavoc(raw: Record<string, unknown>): CryHavocCompiled {
  const s = raw as unknown as Scenario;
  const r = s.rules;
  const woundedOf = (given: number | undefined, healthy: number) => given ?? (r.wounded_values === 'half' ? half(healthy) : healthy);
  const atts = s.attackers ?? [];
  const tv = atts.map((a) => terrainValue(a.terrain));
  const attTerrain = tv.length === 0 ? 0 : r.attacker_terrain === 'best' ? Math.max(...tv) : Math.min(...tv); // 1.3 DEFAULT: worst
  const d = s.defender;
  // The defence the defender fights with (1.1: the printed counters; halving only where a value
  // is missing): defH/defW while mounted, dismH/dismW on foot. A defender on foot from the start
  // fights on his own counters, so his printed wounded defence is dismW, not
  // half his healthy value. An unhorsed knight uses his
  // dismounted counters where given, else the mounted values (Part 4), his printed wounded
  // defence included; a dismounted healthy value without its wounded one is halved.
  const defW = d ? woundedOf(d.wounded.defence, d.defence) : 0;
  const dismH = !d ? 0 : d.mounted ? (d.dismounted.defence ?? d.defence) : d.defence;
  const dismW = !d ? 0 : !d.mounted ? defW : (d.dismounted.wounded_defence ?? (d.dismounted.defence !== undefined ? woundedOf(undefined, dismH) : defW));
  // Fire table with the O8 toggle: row 7 as printed (hand F, oil barrel -), or swapped.
  const fire = FIRE.map((row) => row.slice());
  if (r.oil_barrel_row7 === 'swapped') {
    fire[6][0] = '-';
    fire[6][1] = 'F';
  }
  const col = ['hand', 'oil_barrel', 'arrow_light', 'arrow_heavy'].indexOf(s.fire.method);
  const enginePoints: number[] = [];
  for (let i = 0; i < s.engines.mangonel; i++) enginePoints.push(1);
  for (let i = 0; i < s.engines.trebuchet; i++) enginePoints.push(3);
  const coverIdx = { none: 0, light: 1, medium: 2, heavy: 3 } as const;
  return {
    kind: KIND_NAMES.indexOf(s.kind),
    turns: s.turns,
    t10: dieThreshold(10),
    t6: dieThreshold(6),
    meleeFoot: MELEE_FOOT.flat().map(resultCode),
    meleeMounted: MELEE_MOUNTED.flat().map(resultCode),
    nAtt: atts.length,
    attH: atts.map((a) => a.attack),
    attW: atts.map((a) => woundedOf(a.wounded.attack, a.attack)),
    attState0: atts.map((a) => (a.state === 'wounded' ? 1 : 0)),
    terrainShift: d ? attTerrain - terrainValue(d.terrain) : 0,
    defH: d ? d.defence : 0,
    defW,
    dismH,
    dismW,
    defMounted0: d?.mounted ? 1 : 0,
    defState0: d?.state === 'wounded' ? 1 : 0,
    oddsBelowOneNoAttack: r.odds_below_one === 'no_attack' ? 1 : 0,
    shiftBelowOneNoAttack: r.shift_below_one === 'no_attack' ? 1 : 0,
    multiBoth: r.multi_attacker_shift === 'both' ? 1 : 0,
    woundAll: r.attacker_wound === 'all' ? 1 : 0,
    stunnedDefenceWounded: r.stunned_defence === 'wounded' ? 1 : 0,
    stunLasts: r.stun_recovery === 'after_next_attack' ? 1 : 0,
    retreatBlocked: r.retreat_blocked ? 1 : 0,
    missileFoot: MISSILE_FOOT.flat().map(resultCode),
    missileMounted: MISSILE_MOUNTED.flat().map(resultCode),
    nShoot: (s.shooters ?? []).length,
    shootAdd: (s.shooters ?? []).map((sh) => LINE_OFFSET[sh.weapon] + Math.max(0, rangeBand(s, sh.weapon, sh.range)) + (sh.wounded ? 1 : 0)),
    coverFoot: coverIdx[s.target.cover],
    coverMounted: s.target.cover === 'heavy' ? coverIdx[r.mounted_heavy_cover] : coverIdx[s.target.cover],
    dismountedKnight: s.target.dismounted_knight ? 1 : 0,
    targetMounted0: s.target.mounted ? 1 : 0,
    targetState0: s.target.state === 'wounded' ? 1 : 0,
    errata: r.croisades_mounted_errata ? 1 : 0,
    rams: s.engines.ram,
    enginePoints,
    dNeeded: D_NEEDED[s.wall],
    days: s.days,
    rollsPerDay: r.rolls_per_day,
    batterD: BATTERING.flat().map((c) => (c.includes('D') ? 1 : 0)),
    batterC: BATTERING.flat().map((c) => {
      const m = /(\d)C/.exec(c);
      return m ? Number(m[1]) : 0;
    }),
    lossesLargestFirst: s.policy.engine_losses === 'largest_first' ? 1 : 0,
    ignite: fire.map((row) => (row[col] === 'F' ? 1 : 0)),
    extinguish: fire.map((row) => (row[4] === 'D' ? 1 : row[4] === 'DA' ? 2 : 0)),
    arrowFire: s.fire.method.startsWith('arrow') ? 1 : 0,
    attempts: s.fire.attempts,
    extAttempts: s.fire.extinguish_attempts,
    sameTurn: r.extinguish_same_turn ? 1 : 0,
    croisades: s.healing.table === 'croisades' ? 1 : 0,
    horizon: s.healing.horizon_days,
    turnDays: r.strategic_turn_days,
    siegeDays: HEALING_SIEGE_DAYS,
    croisadesTurns: HEALING_CROISADES_TURNS,
  };
}

/** Column index (0-based) of the battering table for a total of points: the largest <= total. */
export function batteringColumn(points: number): number {
  let c = -1;
  for (let i = 0; i < BATTERING_COLUMNS.length; i++) if (points >= BATTERING_COLUMNS[i]) c = i;
  return c;
}
