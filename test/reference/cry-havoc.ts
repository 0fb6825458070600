/**
 * A plain, per-die reference of the Cry Havoc / Siege tables, written from docs/rules/cry-havoc.md
 * (Parts 1, 3 and 4) and seed 003 alone: no import from src/systems/cry-havoc. Every table below
 * is transcribed here from seed 003 (the Spanish player aid) and checked against the document's
 * restatement; every trial is played one die at a time, in the order Part 3.1's pseudo-code says.
 * Slow and obvious on purpose; test/cry-havoc-reference.test.ts holds siegesim to it.
 *
 * Covers every `kind` and every option of Part 4 with every value: melee (odds_below_one,
 * shift_below_one, multi_attacker_shift, attacker_terrain, attacker_wound, wounded_values,
 * stunned_defence, stun_recovery, retreat_blocked; printed or missing wounded and dismounted
 * values; starting states), missile (ranges base / croisades / vikings, vikings_shortbow_long,
 * revised_ballista, mounted_heavy_cover, croisades_mounted_errata, stun_recovery,
 * retreat_blocked; every weapon, cover, dismounted_knight, starting state), battering
 * (rolls_per_day, wall, engines, policy.engine_losses), fire (every method, oil_barrel_row7,
 * extinguish_same_turn, attempts 0-20) and healing (both tables, strategic_turn_days,
 * horizon_days). It computes every metric and every curve row of Part 3.2 as counts (k of n)
 * or moments (n, Σx, Σx²).
 *
 * Its dice come from seedrandom's xor4096, a generator siegesim does not use: the reference
 * shares siegesim's distributions, never its dice stream.
 */
import seedrandom from 'seedrandom';

// ---- the scenario, as YAML gives it (docs/rules/cry-havoc.md Part 4) ---------------------------

export type Terrain = '+' | '0' | '-' | 0;
export type Weapon = 'shortbow' | 'crossbow' | 'longbow' | 'ballista';
export type Cover = 'none' | 'light' | 'medium' | 'heavy';
export type FireMethod = 'hand' | 'oil_barrel' | 'arrow_light' | 'arrow_heavy';

export interface RefAttacker {
  attack: number;
  mounted?: boolean;
  terrain?: Terrain;
  state?: 'healthy' | 'wounded';
  wounded?: { attack?: number; defence?: number };
}
export interface RefDefender {
  defence: number;
  mounted?: boolean;
  terrain?: Terrain;
  state?: 'healthy' | 'wounded';
  wounded?: { attack?: number; defence?: number };
  dismounted?: { defence?: number; wounded_defence?: number };
}
export interface RefShooter {
  weapon: Weapon;
  range: number;
  wounded?: boolean;
}
export interface RefRules {
  odds_below_one?: 'no_attack' | 'column_one';
  shift_below_one?: 'clamp' | 'no_attack';
  multi_attacker_shift?: 'foot_only' | 'both';
  attacker_terrain?: 'worst' | 'best';
  attacker_wound?: 'one' | 'all';
  wounded_values?: 'half' | 'unchanged';
  stunned_defence?: 'wounded' | 'normal';
  stun_recovery?: 'before_next_attack' | 'after_next_attack';
  retreat_blocked?: boolean;
  ranges?: 'base' | 'croisades' | 'vikings';
  vikings_shortbow_long?: [number, number];
  revised_ballista?: 'refused' | 'base_bands';
  mounted_heavy_cover?: 'medium' | 'light' | 'none';
  croisades_mounted_errata?: boolean;
  rolls_per_day?: number;
  oil_barrel_row7?: 'as_printed' | 'swapped';
  extinguish_same_turn?: boolean;
  strategic_turn_days?: number;
}
export interface RefScenario {
  kind: 'melee' | 'missile' | 'battering' | 'fire' | 'healing';
  attackers?: RefAttacker[];
  defender?: RefDefender;
  shooters?: RefShooter[];
  target?: { mounted?: boolean; cover?: Cover; dismounted_knight?: boolean; state?: 'healthy' | 'wounded' };
  turns?: number;
  engines?: { mangonel?: number; trebuchet?: number; ram?: number };
  wall?: 'outer' | 'interior';
  days?: number;
  policy?: { engine_losses?: 'smallest_first' | 'largest_first' };
  fire?: { method?: FireMethod; attempts?: number; extinguish_attempts?: number };
  healing?: { table?: 'siege' | 'croisades'; horizon_days?: number };
  rules?: RefRules;
}

// ---- what the reference counts (Part 3.2) ------------------------------------------------------

export type RefMetric = { kind: 'probability'; n: number; k: number } | { kind: 'mean'; n: number; sum: number; sumSq: number };
export interface RefResult {
  metrics: Record<string, RefMetric>;
  /** curve file -> row key (`curveKey` of the row's key columns) -> k of n trials. */
  curves: Record<string, Record<string, { n: number; k: number }>>;
}

/** The key of one curve row: its key columns in a fixed order (`turn=3|table=foot|result=-`). */
export function curveKey(x: Record<string, number | string>): string {
  return Object.keys(x)
    .sort()
    .map((k) => `${k}=${x[k]}`)
    .join('|');
}

/** The counts of one run: a metric by name; a curve row by a short id of the reference's own (its key columns kept beside it). */
class Counts {
  readonly metrics: Record<string, RefMetric> = {};
  private readonly rows: Record<string, Map<string, { x: Record<string, number | string>; k: number }>> = {};
  constructor(readonly n: number) {}
  prob(name: string): void {
    this.metrics[name] = { kind: 'probability', n: this.n, k: 0 };
  }
  mean(name: string): void {
    this.metrics[name] = { kind: 'mean', n: 0, sum: 0, sumSq: 0 };
  }
  hit(name: string): void {
    (this.metrics[name] as { k: number }).k++;
  }
  /** One observation x of a mean (a conditional mean gets one only in the trials of its event). */
  observe(name: string, x: number): void {
    const m = this.metrics[name] as { n: number; sum: number; sumSq: number };
    m.n++;
    m.sum += x;
    m.sumSq += x * x;
  }
  row(curve: string, id: string, x: Record<string, number | string>): void {
    (this.rows[curve] ??= new Map()).set(id, { x, k: 0 });
  }
  rowHit(curve: string, id: string): void {
    this.rows[curve].get(id)!.k++;
  }
  result(): RefResult {
    const curves: RefResult['curves'] = {};
    for (const [curve, rows] of Object.entries(this.rows)) {
      curves[curve] = {};
      for (const { x, k } of rows.values()) curves[curve][curveKey(x)] = { n: this.n, k };
    }
    return { metrics: this.metrics, curves };
  }
}

// ---- dice --------------------------------------------------------------------------------------

type Rng = seedrandom.PRNG;
/** One fair die of n faces, 1..n: an unsigned 32-bit draw, rejected above the last whole multiple of n. */
function die(rng: Rng, n: number): number {
  const limit = 4294967296 - (4294967296 % n);
  for (;;) {
    const u = rng.int32() >>> 0;
    if (u < limit) return (u % n) + 1;
  }
}
const d10 = (rng: Rng) => die(rng, 10);
const d6 = (rng: Rng) => die(rng, 6);

// ---- 1.1 values and 1.3 terrain ----------------------------------------------------------------

/** 1.1 DEFAULT: a wounded value not printed on a counter (rules.wounded_values). */
function derived(value: number, rules: RefRules): number {
  return rules.wounded_values === 'unchanged' ? value : Math.floor(value / 2);
}
/** 1.3: v(+) = +1, v(0) = 0, v(−) = −1. */
function v(t: Terrain | undefined): number {
  return t === '+' ? 1 : t === '-' ? -1 : 0;
}

// ---- 1.6 melee tables (seed 003 "TABLA DE RESULTADOS DEL COMBATE") -------------------------------

// Rows d10 = 1..10, columns 1-1 .. 12-1+; '-' is no effect.
const MELEE_MOUNTED = [
  'CCDDEEFFGGHH',
  'BCCDDEEFFGGH',
  'BBCCDDEEFFGG',
  'ABBCCDDEEFFG',
  'AAABCCDDEEFF',
  '---ABCCDDEEF',
  '----ABCCDDEE',
  '-----ABCCDDE',
  '------ABCCDD',
  '-------ABCCD',
];
const MELEE_FOOT = [
  'CDEEFFFFFFFF',
  'BCDEEFFFFFFF',
  'BCDEEFFFFFFF', // O5: rows 2 and 3 identical, kept as printed
  'ABCDDEEFFFFF',
  'ABCDDDEEFFFF',
  '-ABCCDDEEFFF',
  '--ABCCDDEEFF',
  '---ABCCDDEEF',
  '----ABCCDDEE',
  '-----ABCCDDE',
];
const FOOT_LETTERS = ['-', 'A', 'B', 'C', 'D', 'E', 'F'];
const MOUNTED_LETTERS = ['-', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];
/** `p_first_<R>` names "-" `none` (Part 3.2). */
const firstName = (r: string) => `p_first_${r === '-' ? 'none' : r}`;

interface Fighter {
  attack: number;
  wattack: number; // 1.1: printed wounded.attack, else derived
  terrain: number;
  wounded: boolean;
  dead: boolean;
}

function meleeInit(s: RefScenario, c: Counts): void {
  const turns = s.turns ?? 6;
  const tables = ['foot', 'mounted'];
  for (const n of ['p_defender_killed', 'p_attacker_killed', 'p_undecided', 'p_no_attack']) c.prob(n);
  c.mean('mean_turns');
  for (const r of s.defender!.mounted ? MOUNTED_LETTERS : FOOT_LETTERS) c.prob(firstName(r));
  for (let t = 1; t <= turns; t++)
    for (const table of tables)
      for (const result of table === 'foot' ? FOOT_LETTERS : MOUNTED_LETTERS) c.row('results_by_turn', `${t}${table}${result}`, { turn: t, table, result });
}

/** The defender's state in a melee, or the target's in missile fire (Part 3.1). */
interface Hurt {
  mounted: boolean;
  wounded: boolean;
  stun: number; // turns of stun left; counted down at the end of each turn
  dead: boolean;
}
/** 1.1 death by accumulation: a wound on a wounded or stunned character kills. */
function wound(h: Hurt): void {
  if (h.wounded || h.stun > 0) h.dead = true;
  else h.wounded = true;
}
/** 1.1: a stun on a wounded or stunned character kills; else it lasts `turns` end-of-turn countdowns. */
function stun(h: Hurt, turns: number): void {
  if (h.wounded || h.stun > 0) h.dead = true;
  else h.stun = turns;
}
function woundAttacker(a: Fighter): void {
  if (a.wounded) a.dead = true;
  else a.wounded = true;
}

/** One melee trial, Part 3.1 "Melee", line by line. */
function meleeTrial(s: RefScenario, rules: RefRules, rng: Rng, c: Counts): void {
  const turns = s.turns ?? 6;
  const D = s.defender!;
  const atts: Fighter[] = s.attackers!.map((a) => ({
    attack: a.attack,
    wattack: a.wounded?.attack ?? derived(a.attack, rules),
    terrain: v(a.terrain),
    wounded: a.state === 'wounded',
    dead: false,
  }));
  // the defender: his own counter, and (1.1, Part 4) the dismounted counters once unhorsed
  const startedMounted = D.mounted === true;
  const def = D.defence;
  const wdef = D.wounded?.defence ?? derived(def, rules);
  const ddef = D.dismounted?.defence ?? def;
  const dwdef = D.dismounted?.wounded_defence ?? (D.dismounted?.defence !== undefined ? derived(D.dismounted.defence, rules) : wdef);
  const h: Hurt = { mounted: startedMounted, wounded: D.state === 'wounded', stun: 0, dead: false };
  const stunFor = rules.stun_recovery === 'after_next_attack' ? 2 : 1;
  const stunCountsAsWound = rules.stunned_defence !== 'normal';

  for (let t = 1; t <= turns; t++) {
    // 1.1 defence(): wounded (or stunned, by rules.stunned_defence) values; an unhorsed knight's dismounted ones
    const hurt = h.wounded || (h.stun > 0 && stunCountsAsWound);
    const dv = h.mounted || !startedMounted ? (hurt ? wdef : def) : hurt ? dwdef : ddef;
    // 1.6 step 2: odds from the current values; every attacker is alive (the melee ends at a death)
    let sum = 0;
    for (const a of atts) sum += a.wounded ? a.wattack : a.attack;
    let odds = dv > 0 ? Math.floor(sum / dv) : 12;
    if (odds < 1) {
      if (rules.odds_below_one !== 'column_one') {
        c.hit('p_no_attack');
        return;
      }
      odds = 1;
    }
    odds = Math.min(odds, 12);
    // 1.3: terrain shift (worst or best attacker terrain), then the multi-attacker column
    let vAtt = atts[0].terrain;
    for (const a of atts) vAtt = rules.attacker_terrain === 'best' ? Math.max(vAtt, a.terrain) : Math.min(vAtt, a.terrain);
    let col = odds + vAtt - v(D.terrain);
    if (atts.length >= 2 && (!h.mounted || rules.multi_attacker_shift === 'both')) col += 1;
    if (col < 1) {
      if (rules.shift_below_one === 'no_attack') {
        c.hit('p_no_attack');
        return;
      }
      col = 1;
    }
    col = Math.min(col, 12);
    // step 4: the die, on the table of the defender's state now
    const table = h.mounted ? 'mounted' : 'foot';
    const r = (h.mounted ? MELEE_MOUNTED : MELEE_FOOT)[d10(rng) - 1][col - 1];
    if (t === 1) c.hit(firstName(r));
    c.rowHit('results_by_turn', `${t}${table}${r}`);

    // step 5: the result
    if (r === 'A') {
      if (rules.attacker_wound === 'all') {
        for (const a of atts) woundAttacker(a);
      } else {
        // the healthy attacker with the lowest printed attack, else the wounded one with the lowest wounded attack; ties to the first listed
        let pick: Fighter | undefined;
        for (const a of atts) if (!a.wounded && (pick === undefined || a.attack < pick.attack)) pick = a;
        if (pick === undefined) for (const a of atts) if (pick === undefined || a.wattack < pick.wattack) pick = a;
        woundAttacker(pick!);
      }
    } else if (r === 'B') {
      if (rules.retreat_blocked === true) for (const a of atts) woundAttacker(a);
    } else if (r === 'C') {
      if (h.stun > 0) h.dead = true; // a stunned character forced to retreat dies
      else if (rules.retreat_blocked === true) wound(h); // stays mounted, as with E
    } else if (!h.mounted) {
      if (r === 'D') stun(h, stunFor);
      else if (r === 'E') wound(h);
      else if (r === 'F') h.dead = true;
    } else if (r === 'D') {
      h.mounted = false;
      stun(h, stunFor);
    } else if (r === 'E') wound(h);
    else if (r === 'F') {
      h.mounted = false;
      wound(h);
    } else if (r === 'G' || r === 'H') h.dead = true;

    const attackerDied = atts.some((a) => a.dead);
    if (h.dead || attackerDied) {
      c.hit(h.dead ? 'p_defender_killed' : 'p_attacker_killed');
      c.observe('mean_turns', t);
      return;
    }
    if (h.stun > 0) h.stun--;
  }
  c.hit('p_undecided');
}

// ---- 1.4 ranges and 1.5 missile tables (seed 003 "TABLAS DE DISPARO DE PROYECTILES") -------------

type Bands = [number, number][]; // short, medium, long: [first, last] hexes
const BASE_BANDS: Record<Weapon, Bands> = {
  shortbow: [[1, 25], [26, 50], [51, 75]],
  crossbow: [[1, 25], [26, 75], [76, 130]],
  longbow: [[1, 30], [31, 90], [91, 150]],
  ballista: [[1, 50], [51, 100], [101, 175]],
};
const CROISADES_BANDS: Record<'shortbow' | 'crossbow' | 'longbow', Bands> = {
  shortbow: [[1, 15], [16, 40], [41, 70]], // O2: the seed's row shifted back one cell
  crossbow: [[1, 25], [26, 55], [56, 90]],
  longbow: [[1, 30], [31, 60], [61, 120]],
};
const VIKINGS_BANDS: Record<'crossbow' | 'longbow', Bands> = {
  crossbow: [[1, 15], [16, 30], [31, 75]],
  longbow: [[1, 12], [13, 30], [31, 90]],
};

/** 1.4: the bands a weapon reads under the scenario's rules, or undefined where it is refused (a ballista under a revised table by DEFAULT). */
export function bandsOf(weapon: Weapon, rules: RefRules): Bands | undefined {
  const table = rules.ranges ?? 'base';
  if (table === 'base') return BASE_BANDS[weapon];
  if (weapon === 'ballista') return rules.revised_ballista === 'base_bands' ? BASE_BANDS.ballista : undefined;
  if (table === 'croisades') return CROISADES_BANDS[weapon];
  if (weapon === 'shortbow') return [[1, 10], [11, 25], rules.vikings_shortbow_long ?? [26, 50]]; // O2 DEFAULT 26-50
  return VIKINGS_BANDS[weapon];
}
/** 1.4: the die modifier of a range, the first band that holds it (0 short, 1 medium, 2 long); -1 in none. */
export function bandOf(bands: Bands, range: number): number {
  for (let b = 0; b < 3; b++) if (range >= bands[b][0] && range <= bands[b][1]) return b;
  return -1;
}

/** 1.5: the line a roll of 1 reaches, per weapon (ballista r -> line r, crossbow r + 2, ...). */
const OFFSET: Record<Weapon, number> = { ballista: 0, crossbow: 2, longbow: 3, shortbow: 4 };
// 1.5 A (mounted), lines 1..8, columns none / light / medium
const MISSILE_MOUNTED: Record<'none' | 'light' | 'medium', string> = {
  none: 'FEDCBBA-',
  light: 'EDCBBA--',
  medium: 'DCBBA---',
};
// 1.5 B (foot), lines 1..10, columns none / light / medium / heavy
const MISSILE_FOOT: Record<Cover, string> = {
  none: 'CCCCCBBAA-',
  light: 'CCCCBBAA--',
  medium: 'CCCBBAA---',
  heavy: 'CBBAA-----',
};
const SHOT_FOOT = ['miss', 'A', 'B', 'C'];
const SHOT_MOUNTED = ['miss', 'A', 'B', 'C', 'D', 'E', 'F'];

function missileInit(s: RefScenario, c: Counts): void {
  c.prob('p_killed');
  c.mean('mean_turns_to_kill');
  c.prob('p_hurt');
  for (const r of s.target?.mounted ? SHOT_MOUNTED : SHOT_FOOT) c.prob(`p_shot_${r}`);
  for (let t = 1; t <= (s.turns ?? 6); t++) c.row('p_killed_by_turn', String(t), { turn: t });
}

/** One missile trial, Part 3.1 "Missile fire". */
function missileTrial(s: RefScenario, rules: RefRules, rng: Rng, c: Counts): void {
  const turns = s.turns ?? 6;
  const T = s.target ?? {};
  const cover: Cover = T.cover ?? 'none';
  const dk = T.dismounted_knight === true ? 1 : 0;
  const errata = rules.croisades_mounted_errata === true;
  const stunFor = rules.stun_recovery === 'after_next_attack' ? 2 : 1;
  const h: Hurt = { mounted: T.mounted === true, wounded: T.state === 'wounded', stun: 0, dead: false };
  let hurt = h.wounded; // p_hurt: wounded or stunned at some point, or from the start
  const shooters = s.shooters!.map((sh) => ({ band: bandOf(bandsOf(sh.weapon, rules)!, sh.range), offset: OFFSET[sh.weapon], wmod: sh.wounded ? 1 : 0 }));

  for (let t = 1; t <= turns; t++) {
    // the shooters in the listed order, the target's state changing after every shot
    for (let i = 0; i < shooters.length; i++) {
      const sh = shooters[i];
      let r: string;
      if (h.mounted) {
        // 1.5 A: no heavy column; a mounted target in heavy cover reads rules.mounted_heavy_cover's
        const col = cover === 'heavy' ? (rules.mounted_heavy_cover ?? 'medium') : cover;
        const line = Math.min(d10(rng) + sh.band + sh.wmod + sh.offset, 8);
        r = MISSILE_MOUNTED[col][line - 1];
      } else {
        // 1.5 B: the target's own cover column (Heavy included), +1 only for target.dismounted_knight
        const line = Math.min(d10(rng) + sh.band + sh.wmod + dk + sh.offset, 10);
        r = MISSILE_FOOT[cover][line - 1];
      }
      if (t === 1 && i === 0) c.hit(`p_shot_${r === '-' ? 'miss' : r}`);

      if (r === 'A') {
        if (h.stun > 0) h.dead = true; // a stunned character forced to retreat dies
        else if (rules.retreat_blocked === true) wound(h); // a mounted target stays mounted
      } else if (!h.mounted) {
        if (r === 'B') wound(h);
        else if (r === 'C') h.dead = true;
      } else if (r === 'B') {
        h.mounted = false; // unhorsed and stunned (the errata keeps the horse; the rider is dismounted either way)
        stun(h, stunFor);
      } else if (r === 'C') {
        if (!errata) h.mounted = false; // the Croisades errata: wounded, stays mounted
        wound(h);
      } else if (r === 'D') {
        h.mounted = false;
        wound(h);
      } else if (r === 'E' || r === 'F') h.dead = true;
      if (h.dead) {
        c.hit('p_killed');
        c.observe('mean_turns_to_kill', t);
        for (let u = t; u <= turns; u++) c.rowHit('p_killed_by_turn', String(u));
        if (hurt) c.hit('p_hurt');
        return;
      }
      if (h.wounded || h.stun > 0) hurt = true;
    }
    if (h.stun > 0) h.stun--;
  }
  if (hurt) c.hit('p_hurt');
}

// ---- 1.7 battering (seed 003 "TABLA DE BOMBARDEO") ----------------------------------------------

const BATTER_COLUMNS = [1, 3, 6, 9, 12];
// [D results, C points] per d10 row 1..10 and column 1 / 3 / 6 / 9 / 12+
const BATTER: [number, number][][] = [
  [[0, 1], [0, 1], [0, 2], [0, 3], [0, 4]],
  [[0, 0], [0, 0], [0, 1], [0, 2], [0, 3]],
  [[0, 0], [0, 0], [0, 0], [0, 1], [1, 2]],
  [[0, 0], [0, 0], [0, 0], [0, 0], [1, 1]],
  [[0, 0], [0, 0], [0, 0], [1, 0], [1, 0]],
  [[0, 0], [0, 0], [0, 0], [1, 0], [1, 0]],
  [[0, 0], [0, 0], [1, 0], [1, 0], [1, 0]],
  [[0, 0], [0, 0], [1, 0], [1, 0], [1, 0]],
  [[0, 0], [1, 0], [1, 0], [1, 0], [1, 0]],
  [[1, 0], [1, 0], [1, 0], [1, 0], [1, 0]],
];

function batteringInit(s: RefScenario, c: Counts): void {
  c.prob('p_breached');
  c.mean('mean_days');
  c.mean('mean_points_lost');
  c.mean('mean_engines_out');
  for (let d = 1; d <= (s.days ?? 20); d++) c.row('breach_by_day', String(d), { day: d });
}

/** One battering trial, Part 3.1 "Battering". */
function batteringTrial(s: RefScenario, rules: RefRules, rng: Rng, c: Counts): void {
  const days = s.days ?? 20;
  const E = s.engines ?? {};
  const rams = E.ram ?? 0;
  // the non-ram engines in list order: mangonels (1 point) then trebuchets (3 points)
  const pts: number[] = [];
  for (let i = 0; i < (E.mangonel ?? 0); i++) pts.push(1);
  for (let i = 0; i < (E.trebuchet ?? 0); i++) pts.push(3);
  const start = pts.reduce((a, b) => a + b, 0);
  let left = start; // the non-ram points left
  const need = (s.wall ?? 'outer') === 'outer' ? 4 : 1;
  const largest = s.policy?.engine_losses === 'largest_first';
  let dCount = 0;
  let breachDay = 0;
  days: for (let day = 1; day <= days; day++) {
    for (let roll = 0; roll < (rules.rolls_per_day ?? 1); roll++) {
      const total = 9 * rams + left;
      if (total < 1) continue; // no roll below 1 point
      let col = 0;
      for (let k = 0; k < BATTER_COLUMNS.length; k++) if (BATTER_COLUMNS[k] <= total) col = k;
      const [dRes, cRes] = BATTER[d10(rng) - 1][col];
      dCount += dRes;
      for (let p = 0; p < cRes; p++) {
        let pick = -1;
        for (let e = 0; e < pts.length; e++) {
          if (pts[e] <= 0) continue;
          if (pick < 0 || (largest ? pts[e] > pts[pick] : pts[e] < pts[pick])) pick = e;
        }
        if (pick < 0) break; // every non-ram engine out: the rest of the nC is ignored
        pts[pick]--;
        left--;
      }
      if (dCount >= need) {
        breachDay = day;
        break days;
      }
    }
  }
  c.observe('mean_points_lost', start - left);
  c.observe('mean_engines_out', pts.filter((p) => p === 0).length);
  if (breachDay > 0) {
    c.hit('p_breached');
    c.observe('mean_days', breachDay);
    for (let d = breachDay; d <= days; d++) c.rowHit('breach_by_day', String(d));
  }
}

// ---- 1.9 fire (seed 003 "TABLA DE INCENDIO") ----------------------------------------------------

/** 1.9: the lowest d10 that starts a fire, per column (O8: rules.oil_barrel_row7 swaps row 7). */
function igniteFrom(method: FireMethod, rules: RefRules): number {
  const swapped = rules.oil_barrel_row7 === 'swapped';
  if (method === 'hand') return swapped ? 8 : 7;
  if (method === 'oil_barrel') return swapped ? 7 : 8;
  if (method === 'arrow_light') return 8;
  return 10; // arrow_heavy
}

function fireInit(s: RefScenario, c: Counts): void {
  c.prob('p_ever_ignited');
  c.prob('p_burning_at_end');
  c.mean('mean_turns_burning');
  for (let t = 1; t <= (s.turns ?? 6); t++) c.row('p_burning_by_turn', String(t), { turn: t });
}

/** One fire trial, Part 3.1 "Fire". */
function fireTrial(s: RefScenario, rules: RefRules, rng: Rng, c: Counts): void {
  const turns = s.turns ?? 6;
  const method = s.fire?.method ?? 'hand';
  const attempts = s.fire?.attempts ?? 1;
  const ext = s.fire?.extinguish_attempts ?? 1;
  const from = igniteFrom(method, rules);
  const arrows = method === 'arrow_light' || method === 'arrow_heavy';
  let burning = false;
  let byArrow = false;
  let ever = false;
  let turnsBurning = 0;
  for (let t = 1; t <= turns; t++) {
    let litNow = false;
    if (!burning) {
      for (let a = 0; a < attempts; a++) {
        if (d10(rng) >= from) {
          burning = ever = litNow = true;
          byArrow = arrows;
          break;
        }
      }
    }
    if (burning && !(litNow && rules.extinguish_same_turn === false)) {
      for (let e = 0; e < ext; e++) {
        const r = d10(rng);
        // 1-3 D (every fire out), 4-5 DA (a fire arrows started), 6-10 nothing
        if (r <= 3 || (r <= 5 && byArrow)) {
          burning = false;
          break;
        }
      }
    }
    if (burning) {
      turnsBurning++;
      c.rowHit('p_burning_by_turn', String(t));
    }
  }
  if (ever) c.hit('p_ever_ignited');
  if (burning) c.hit('p_burning_at_end');
  c.observe('mean_turns_burning', turnsBurning);
}

// ---- 1.8 healing (seed 003 "TABLA DE CURACION") -------------------------------------------------

/** Siege d10: days to heal; 0 = several months (out for the scenario). */
const SIEGE_HEAL = [1, 2, 3, 4, 5, 6, 8, 10, 0, 0];

/** heal_by_day's rows: up to the horizon, at most the last day a heal can come (Part 3.2). */
function healRows(s: RefScenario, rules: RefRules): number {
  return Math.min(s.healing?.horizon_days ?? 30, Math.max(10, 5 * (rules.strategic_turn_days ?? 3)));
}

function healingInit(s: RefScenario, rules: RefRules, c: Counts): void {
  for (const n of ['p_healed', 'p_out_for_scenario', 'p_dies']) c.prob(n);
  c.mean('mean_days_to_heal');
  for (let d = 1; d <= healRows(s, rules); d++) c.row('heal_by_day', String(d), { day: d });
}

/** One healing trial, Part 3.1 "Healing". */
function healingTrial(s: RefScenario, rules: RefRules, rng: Rng, c: Counts): void {
  const std = rules.strategic_turn_days ?? 3;
  let days = 0;
  if ((s.healing?.table ?? 'siege') === 'siege') {
    days = SIEGE_HEAL[d10(rng) - 1];
    if (days === 0) {
      c.hit('p_out_for_scenario');
      return;
    }
  } else {
    const r = d6(rng);
    if (r <= 2) days = std;
    else if (r <= 4) days = 2 * std;
    else if (r === 5) days = 3 * std;
    else {
      // roll again: 1-2 dies, 3-6 heals 5 turns after the wound
      if (d6(rng) <= 2) {
        c.hit('p_dies');
        return;
      }
      days = 5 * std;
    }
  }
  c.hit('p_healed');
  c.observe('mean_days_to_heal', days);
  for (let d = days; d <= healRows(s, rules); d++) c.rowHit('heal_by_day', String(d));
}

/** The tables as transcribed here, for the test's check against the document's own sums (1.5, 1.6, 1.7). */
export const TABLES = { MELEE_FOOT, MELEE_MOUNTED, MISSILE_FOOT, MISSILE_MOUNTED, OFFSET, BATTER };

// ---- a run -------------------------------------------------------------------------------------

/** `trials` trials of the scenario, every metric and curve row of its kind counted. */
export function runReference(s: RefScenario, seed: string, trials: number): RefResult {
  const rng = seedrandom.xor4096(`cry-havoc-reference\u0000${seed}`);
  const rules = s.rules ?? {};
  const c = new Counts(trials);
  const init = { melee: meleeInit, missile: missileInit, battering: batteringInit, fire: fireInit, healing: (x: RefScenario, cc: Counts) => healingInit(x, rules, cc) }[s.kind];
  const trial = { melee: meleeTrial, missile: missileTrial, battering: batteringTrial, fire: fireTrial, healing: healingTrial }[s.kind];
  init(s, c);
  for (let i = 0; i < trials; i++) trial(s, rules, rng, c);
  return c.result();
}
