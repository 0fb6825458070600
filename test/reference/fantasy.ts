/**
 * A plain, per-die reference of the fantasy rules, written from docs/rules/fantasy.md (4.0-4.2
 * and "What each metric counts") alone: no import from src/systems/fantasy, no tables, no unit
 * classes: every unit is an object, every die is rolled, every allocation sorts the units anew.
 * Slow and obvious on purpose; test/fantasy-reference.test.ts holds the fast kernel to it.
 *
 * Covers every DEFAULT of docs/rules/fantasy.md and every option it describes (the ones the
 * differential test's generator varies, in combination): mode; both armies (captain Might as a
 * bonus or, H23 (b) rules.captain unit, a unit of hp.captain and value values.captain x Might);
 * the hp: table and rules.hp_preset (H1, all three); values: (H4, read in tenths); wall.hp, dc,
 * upgrades, breach_threshold; max_rounds; rules.leftover (H2, all three), melee_allocation (H3,
 * all three), mage_targeting (H5, all three), ranged_phases (H6), open_field_rounds (H7),
 * round_cap_result (H7, H27), shield_scope and shield_reduces (H8), siege_pool (H10), dice_removal
 * (H11, all four), fire_split (H12, all three) with policy.defender_fire_share, mage_fire,
 * archer_fire, attacker_fire_targets (H13), shields_vs_wall (H14), tower_bonus (H15),
 * climb_comparison (H16), failed_climb (H17, all three), cavalry_climb (H18),
 * breach_threshold_rule (H19), melee_start (H21, all four: full_battle's battle is 4.1's),
 * breach_pool_targetable (H22), siege_units_open_field (H24), engines_targetable (H25),
 * wall_fall (H28), pool_fire_order (H29), repelled_breach (H30); policy.climbers,
 * attacker_fire (defenders / wall / finish_wall), damage_allocation (H4, all four),
 * shield_spending (H9, all five), withdraw_below (H27); wall.type (H20, H19) with any of wall.hp,
 * dc, upgrades, breach_threshold set over it.
 *
 * Readings the reference had to choose where the document leaves a detail to the reader:
 * - H4 (d) random: 4.0 draws each loss(p) "for p = 0, 1, ..., min(D, pool sum) in that order
 *   before the dice are chosen"; the reference draws loss(p) lazily, the first time the
 *   shield choice asks for p, each on its own copy (the same law: the draws are independent).
 * - H23 (b): the captain unit exists only when its side's captain_might > 0 (the document:
 *   "a `captain` row only under `rules.captain: unit` with Might > 0").
 * - PER_MAGE: a candidate type's full HP and value are read off any live unit of that type on
 *   the receiving side (all alike: the captain unit's value is its own side's Might's).
 * Every other option must be at its DEFAULT (checked: `referenceCovers`).
 */
import { deriveState, nextU32, type RngState } from '../../src/engine/rng.js';

// ---- the scenario, as YAML gives it (docs/rules/fantasy.md "Every scenario option") ----------

export interface RefArmy {
  infantry?: number;
  cavalry?: number;
  archers?: number;
  mages?: number;
  clerics?: number;
  siege_engines?: number;
  captain_might?: number;
}
export interface RefScenario {
  mode: 'open_field' | 'siege';
  attacker: RefArmy;
  defender: RefArmy;
  wall?: { type?: 'palisade' | 'stone' | 'fortress'; hp?: number; dc?: number; upgrades?: number; breach_threshold?: number };
  max_rounds?: number;
  hp?: Partial<Record<'infantry' | 'cavalry' | 'archer' | 'mage' | 'cleric' | 'siege_engine' | 'captain', number>>;
  values?: Partial<Record<'infantry' | 'cavalry' | 'archer' | 'mage' | 'cleric' | 'siege_engine' | 'captain', number>>;
  rules?: {
    hp_preset?: 'table' | 'melee_die' | 'one';
    leftover?: 'waste' | 'persistent' | 'next_phase';
    shield_scope?: 'total' | 'per_component';
    shield_reduces?: 'mage_first' | 'archer_first';
    fire_split?: 'one_choice' | 'per_unit' | 'by_type';
    failed_climb?: 'no_lasting' | 'persistent' | 'no_retry';
    breach_threshold_rule?: 'wall' | 'half_defenders';
    captain?: 'bonus' | 'unit';
    siege_units_open_field?: 'targets' | 'absent';
    wall_fall?: 'at_once' | 'end_of_phase';
    pool_fire_order?: 'outside_first' | 'pool_first';
    repelled_breach?: 'closes' | 'stays_open';
    tower_bonus?: 'standing_wall' | 'always' | 'none';
    climb_comparison?: 'ge' | 'gt';
    cavalry_climb?: boolean;
    melee_start?: 'next_round' | 'full_battle' | 'same_round' | 'all_attackers';
    round_cap_result?: 'auto' | 'more_hp' | 'defender' | 'undecided';
    ranged_phases?: 'sequential' | 'simultaneous';
    open_field_rounds?: 'repeat_melee' | 'single_pass' | 'repeat_phases';
    melee_allocation?: 'dealer' | 'receiver' | 'random';
    siege_pool?: 'reroll' | 'accumulate';
    dice_removal?: 'highest_type_first' | 'highest_results' | 'lowest_type_first' | 'points';
    mage_targeting?: 'one_type_together' | 'per_mage' | 'spill';
    attacker_fire_targets?: 'mages_and_archers' | 'any';
    shields_vs_wall?: boolean;
    breach_pool_targetable?: boolean;
    engines_targetable?: boolean;
  };
  policy?: {
    climbers?: 'none' | 'infantry' | 'infantry_and_cavalry';
    attacker_fire?: 'defenders' | 'wall' | 'finish_wall';
    damage_allocation?: 'greedy_value' | 'lowest_hp' | 'knapsack' | 'random';
    shield_spending?: 'optimal' | 'no_waste' | 'full_block' | 'threshold' | 'never_phase_a';
    mage_fire?: 'defenders' | 'wall';
    archer_fire?: 'defenders' | 'wall';
    defender_fire_share?: number;
    withdraw_below?: number;
  };
}

const COVERED_RULES = new Set([
  'hp_preset',
  'leftover',
  'shield_scope',
  'shield_reduces',
  'fire_split',
  'failed_climb',
  'breach_threshold_rule',
  'captain',
  'siege_units_open_field',
  'wall_fall',
  'pool_fire_order',
  'repelled_breach',
  'tower_bonus',
  'climb_comparison',
  'cavalry_climb',
  'melee_start',
  'round_cap_result',
  'ranged_phases',
  'open_field_rounds',
  'melee_allocation',
  'siege_pool',
  'dice_removal',
  'mage_targeting',
  'attacker_fire_targets',
  'shields_vs_wall',
  'breach_pool_targetable',
  'engines_targetable',
]);
const COVERED_POLICY = new Set(['climbers', 'attacker_fire', 'damage_allocation', 'shield_spending', 'withdraw_below', 'mage_fire', 'archer_fire', 'defender_fire_share']);

/** Does the reference play this scenario (only covered options set)? */
export function referenceCovers(s: RefScenario): boolean {
  for (const k of Object.keys(s.rules ?? {})) if (!COVERED_RULES.has(k)) return false;
  for (const k of Object.keys(s.policy ?? {})) if (!COVERED_POLICY.has(k)) return false;
  return true;
}

// ---- the units (docs "The units", H1, H4, H23 (b)) -------------------------------------------

// Type order [FIXED] (4.0): infantry, cavalry, archer, mage, cleric, siege engine, captain.
const INF = 0;
const CAV = 1;
const ARC = 2;
const MAG = 3;
const CLE = 4;
const ENG = 5;
const CPT = 6;
const TYPE_KEYS = ['infantry', 'cavalry', 'archer', 'mage', 'cleric', 'siege_engine', 'captain'] as const;
const HP_DEFAULT = [4, 5, 2, 2, 2, 6, 5]; // H1 DEFAULT (hp.captain 5)
const HP_MELEE_DIE = [6, 6, 3, 2, 2, 6]; // H1 (b)
const VALUE_DEFAULT = [3.5, 7, 3.5, 3.5, 3.5, 7, 3.5]; // H4 DEFAULT
const MELEE = [6, 6, 3, 2, 2, 0, 0]; // seed phase 5 table; the captain unit has none
const OUTSIDE = 0;
const POOL = 1;
const BARRED = 2;

interface Unit {
  type: number;
  hp: number; // current HP
  full: number; // full HP (H1 reading in force)
  v: number; // value x10 (4.0: ROUND(v x 10); the captain unit ROUND(values.captain x 10 x Might))
  place: number; // OUTSIDE, POOL, BARRED (the attacker in a siege); every other unit is OUTSIDE
  alive: boolean;
}
interface Side {
  units: Unit[];
  might: number;
  captainUnit: boolean; // H23 (b): Might dice only while the captain unit lives
  pool: number[]; // shield dice faces
  carry: number; // H2 (c)
}

// ---- dice: the generic engine generator, unbiased by rejection --------------------------------

function die(rng: RngState, n: number): number {
  const limit = 4294967296 - (4294967296 % n);
  for (;;) {
    const u = nextU32(rng);
    if (u < limit) return (u % n) + 1;
  }
}
function dice(rng: RngState, k: number, n: number): number {
  let s = 0;
  for (let i = 0; i < k; i++) s += die(rng, n);
  return s;
}
/** k mage d3, in the order rolled (PER_MAGE reads each). */
function mageDice(rng: RngState, k: number): number[] {
  const md: number[] = [];
  for (let i = 0; i < k; i++) md.push(die(rng, 3));
  return md;
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

// ---- 4.0 the common procedures -----------------------------------------------------------------

type Policy = 'greedy_value' | 'lowest_hp' | 'receiver' | 'knapsack' | 'random';
type ShieldMode = 'optimal' | 'no_waste' | 'full_block' | 'threshold' | 'never_phase_a';

interface Ctx {
  rng: RngState;
  poolFirst: boolean;
  dealer: Policy; // policy.damage_allocation (H4)
  melee: Policy; // H3: the dealer's, receiver, random
  shields: ShieldMode; // H9
  perComponent: boolean; // H8 (b)
  archerFirst: boolean; // rules.shield_reduces
  mageTargeting: 'one_type_together' | 'per_mage' | 'spill'; // H5
  leftover: 'waste' | 'persistent' | 'next_phase'; // H2
}

/** The rankings of 4.0 (H4 greedy_value and lowest_hp, H3 (b) receiver; H29). */
function ranking(ctx: Ctx, policy: Policy, units: Unit[]): Unit[] {
  const placeRank = (u: Unit) => (ctx.poolFirst && u.place !== BARRED ? (u.place === POOL ? 0 : 1) : u.place);
  return units.slice().sort((a, b) => {
    const va = a.v;
    const vb = b.v;
    if (policy === 'lowest_hp') {
      if (a.hp !== b.hp) return a.hp - b.hp; // lowest HP first
      if (va !== vb) return vb - va;
    } else if (policy === 'receiver') {
      const c = va * b.hp - vb * a.hp; // v / hp ascending
      if (c !== 0) return c;
      if (a.hp !== b.hp) return b.hp - a.hp;
    } else {
      const c = vb * a.hp - va * b.hp; // v / hp descending, by cross-multiplication
      if (c !== 0) return c;
      if (va !== vb) return vb - va;
    }
    if (placeRank(a) !== placeRank(b)) return placeRank(a) - placeRank(b);
    if (a.type !== b.type) return a.type - b.type;
    return a.hp - b.hp;
  });
}

/** ALLOCATE: the points left over (kills and, H2 (b), a wound made on the units themselves). */
function allocate(ctx: Ctx, D: number, legal0: Unit[], policy: Policy): number {
  if (D <= 0) return 0;
  const legal = legal0.filter((u) => u.alive);
  if (policy === 'knapsack') return knapsack(ctx, D, legal);
  if (policy === 'random') return randomAlloc(ctx, D, legal);
  const rank = ranking(ctx, policy, legal);
  for (const u of rank) {
    if (D >= u.hp) {
      D -= u.hp;
      u.alive = false;
    }
  }
  if (ctx.leftover === 'persistent' && D > 0) {
    const w = rank.find((u) => u.alive);
    if (w) {
      w.hp -= D;
      D = 0;
    }
  }
  return D;
}

/** 4.0 KNAPSACK (H4 (c)). */
function knapsack(ctx: Ctx, D: number, legal: Unit[]): number {
  const key = (u: Unit) => u.place * 1e6 + u.type * 1e4 + u.hp;
  const classes = new Map<number, Unit[]>();
  for (const u of legal.slice().sort((a, b) => key(a) - key(b))) {
    const k = key(u);
    if (!classes.has(k)) classes.set(k, []);
    classes.get(k)!.push(u);
  }
  const items: Unit[][] = [];
  for (const us of classes.values()) {
    let i = 0;
    for (let size = 1; i + size <= us.length; size *= 2) {
      items.push(us.slice(i, i + size));
      i += size;
    }
    if (i < us.length) items.push(us.slice(i));
  }
  const W = Math.min(D, sum(legal.map((u) => u.hp)));
  const best = new Array<number>(W + 1).fill(0);
  const take: boolean[][] = [];
  for (const it of items) {
    const wt = sum(it.map((u) => u.hp));
    const worth = sum(it.map((u) => u.v));
    const t = new Array<boolean>(W + 1).fill(false);
    for (let w = W; w >= 0; w--) {
      if (w >= wt && best[w - wt] + worth > best[w]) {
        t[w] = true;
        best[w] = best[w - wt] + worth;
      }
    }
    take.push(t);
  }
  let w = W;
  for (let i = items.length - 1; i >= 0; i--) {
    if (take[i][w]) {
      for (const u of items[i]) u.alive = false;
      w -= sum(items[i].map((u) => u.hp));
    }
  }
  let left = D - (W - w);
  if (ctx.leftover === 'persistent' && left > 0) {
    for (const us of classes.values()) {
      const u = us.find((x) => x.alive);
      if (u && u.hp > left) {
        u.hp -= left;
        left = 0;
        break;
      }
    }
  }
  return left;
}

/** 4.0 RANDOM_ALLOC (H4 (d), H3 (c)). */
function randomAlloc(ctx: Ctx, D: number, legal: Unit[]): number {
  const rest = legal.slice();
  while (D > 0 && rest.length > 0) {
    const u = rest.splice(die(ctx.rng, rest.length) - 1, 1)[0];
    if (D >= u.hp) {
      u.alive = false;
      D -= u.hp;
    } else if (ctx.leftover === 'persistent') {
      u.hp -= D;
      return 0;
    }
  }
  return D;
}

function alive(side: Side): Unit[] {
  return side.units.filter((u) => u.alive);
}

/** A copy of the units, to play an allocation on without touching the side. */
function copy(units: Unit[]): Unit[] {
  return units.map((u) => ({ ...u }));
}
/** [value x10, units] the copy lost. */
function lost(units: Unit[]): [number, number] {
  let v = 0;
  let n = 0;
  for (const u of units)
    if (!u.alive) {
      v += u.v;
      n++;
    }
  return [v, n];
}

/** MAGE_TARGET: the first type in type order whose units M kills the most value of. */
function mageTarget(ctx: Ctx, M: number, legal: Unit[]): number {
  const pol = ctx.dealer === 'random' ? 'greedy_value' : ctx.dealer;
  let best = -1;
  let bestV = -1;
  for (let t = 0; t < 7; t++) {
    const ofT = copy(legal.filter((u) => u.type === t && u.alive));
    if (ofT.length === 0) continue;
    allocate(ctx, M, ofT, pol);
    const v = lost(ofT)[0];
    if (v > bestV) {
      bestV = v;
      best = t;
    }
  }
  return best;
}

/** APPLY: the mage part m = M - cm at type T (H5), then the free part a = A - ca; returns the points left. */
function apply(ctx: Ctx, M: number, T: number, A: number, cm: number, ca: number, legal: Unit[], md: number[]): number {
  const m = M - cm;
  let a = A - ca;
  let left = 0;
  const now = () => legal.filter((u) => u.alive);
  if (m > 0 && ctx.mageTargeting === 'per_mage') {
    // PER_MAGE: cm off the first dice; each die its own type among the legal units alive now
    let cut = cm;
    for (const d of md) {
      const r = d - Math.min(cut, d);
      cut -= d - r;
      if (r === 0) continue;
      let t = -1;
      let tv = -1;
      for (let u = 0; u < 7; u++) {
        const x = now().find((y) => y.type === u);
        if (!x || x.full > r) continue;
        if (t < 0 || x.v > tv) {
          t = u;
          tv = x.v;
        }
      }
      if (t < 0) t = T;
      left += allocate(ctx, r, now().filter((u) => u.type === t), ctx.dealer);
    }
  } else if (m > 0) {
    const rest = allocate(ctx, m, now().filter((u) => u.type === T), ctx.dealer);
    if (ctx.mageTargeting === 'spill') a += rest;
    else left += rest;
  }
  left += allocate(ctx, a, now(), ctx.dealer);
  return left;
}

/** The shield pricing of a volley: loss(p) as [value, units] killed with p points cancelled, each p drawn once. */
type Loss = (p: number) => [number, number];

/** SHIELD_SPEND (H9): the dice it spends leave the pool; returns their pips. */
function shieldSpend(ctx: Ctx, side: Side, D: number, loss: Loss, lambda: number, phaseA: boolean): number {
  const mode = ctx.shields;
  if (mode === 'never_phase_a' && phaseA) return 0;
  if (mode === 'no_waste') return noWaste(side, D);
  if (mode === 'full_block') return fullBlock(side, D);
  if (mode === 'threshold') {
    const k0 = loss(0)[1];
    const P = sum(side.pool);
    for (let p = 1; p <= Math.min(D, P); p++) if (loss(p)[1] < k0) return fullBlock(side, p);
    return 0;
  }
  const lam = mode === 'optimal' ? lambda : 0;
  const c = [0, 0, 0, 0];
  for (const f of side.pool) c[f]++;
  if (loss(0)[0] === 0) return 0;
  let best = Infinity;
  let bn = 0;
  let bs = 0;
  let pick = [0, 0, 0];
  for (let k3 = 0; k3 <= c[3]; k3++)
    for (let k2 = 0; k2 <= c[2]; k2++)
      for (let k1 = 0; k1 <= c[1]; k1++) {
        const s = k1 + 2 * k2 + 3 * k3;
        const n = k1 + k2 + k3;
        const cost = loss(Math.min(s, D))[0] + lam * s;
        const tieWins = n < bn || (n === bn && s < bs);
        if (cost < best - 1e-9 || (Math.abs(cost - best) <= 1e-9 && tieWins)) {
          best = cost;
          bn = n;
          bs = s;
          pick = [k1, k2, k3];
        }
      }
  take(side, pick);
  return bs;
}

function take(side: Side, pick: number[]): void {
  for (let f = 1; f <= 3; f++) for (let k = 0; k < pick[f - 1]; k++) side.pool.splice(side.pool.indexOf(f), 1);
}

/** H9 (c) full_block covering D: the smallest sum >= D, then fewest dice, threes, twos; the pool short of D: no_waste. */
function fullBlock(side: Side, D: number): number {
  if (sum(side.pool) < D) return noWaste(side, D);
  const c = [0, 0, 0, 0];
  for (const f of side.pool) c[f]++;
  let bestKey: number[] | null = null;
  let pick = [0, 0, 0];
  for (let k3 = 0; k3 <= c[3]; k3++)
    for (let k2 = 0; k2 <= c[2]; k2++)
      for (let k1 = 0; k1 <= c[1]; k1++) {
        const s = k1 + 2 * k2 + 3 * k3;
        if (s < D) continue;
        const key = [s, k1 + k2 + k3, k3, k2];
        let better = bestKey === null;
        if (!better) {
          for (let i = 0; i < 4; i++)
            if (key[i] !== bestKey![i]) {
              better = key[i] < bestKey![i];
              break;
            }
        }
        if (better) {
          bestKey = key;
          pick = [k1, k2, k3];
        }
      }
  take(side, pick);
  return bestKey![0];
}

/** H9 (b) no_waste: the largest die <= the damage left, again and again; returns the pips spent. */
function noWaste(side: Side, D: number): number {
  let spent = 0;
  for (;;) {
    let f = 3;
    while (f >= 1 && (f > D - spent || !side.pool.includes(f))) f--;
    if (f < 1) return spent;
    side.pool.splice(side.pool.indexOf(f), 1);
    spent += f;
  }
}

/** RECEIVE_VOLLEY of the mage dice md (M = their sum) and A free points: returns the damage through the shields. */
function receiveVolley(ctx: Ctx, md: number[], A: number, side: Side, legal: Unit[], lambda: number, phaseA = false): number {
  const M = sum(md);
  const T = M > 0 ? mageTarget(ctx, M, legal) : -1;
  if (ctx.leftover === 'next_phase') {
    A += side.carry;
    side.carry = 0;
  }
  let cm = 0;
  let ca = 0;
  const split = (p: number): [number, number] => {
    if (ctx.archerFirst) {
      const a = Math.min(p, A);
      return [Math.min(p - a, M), a];
    }
    const m = Math.min(p, M);
    return [m, Math.min(p - m, A)];
  };
  const pricer = (Mx: number, Ax: number, part: 0 | 1 | 2): Loss => {
    const memo = new Map<number, [number, number]>();
    return (p) => {
      let r = memo.get(p);
      if (r === undefined) {
        const c = copy(legal);
        const [pm, pa] = part === 0 ? split(p) : part === 1 ? [Math.min(p, Mx), 0] : [0, Math.min(p, Ax)];
        apply(ctx, Mx, T, Ax, pm, pa, c, md);
        r = lost(c);
        memo.set(p, r);
      }
      return r;
    };
  };
  if (side.pool.length > 0 && M + A > 0) {
    if (ctx.perComponent) {
      // H8 (b): the mage part first (A = 0), then the archer part (M = 0), both priced on the side before the volley
      if (M > 0) cm = Math.min(shieldSpend(ctx, side, M, pricer(M, 0, 1), lambda, phaseA), M);
      if (side.pool.length > 0 && A > 0) ca = Math.min(shieldSpend(ctx, side, A, pricer(0, A, 2), lambda, phaseA), A);
    } else {
      const cancel = Math.min(shieldSpend(ctx, side, M + A, pricer(M, A, 0), lambda, phaseA), M + A);
      [cm, ca] = split(cancel);
    }
  }
  const left = apply(ctx, M, T, A, cm, ca, legal, md);
  if (ctx.leftover === 'next_phase') side.carry += left;
  return M - cm + A - ca;
}

function out(side: Side): boolean {
  return !side.units.some((u) => u.alive);
}

function might(side: Side): number {
  if (side.captainUnit && !side.units.some((u) => u.alive && u.type === CPT)) return 0;
  return side.might;
}

function meleeExchange(ctx: Ctx, rng: RngState, att: Side, attFighters: Unit[], def: Side): void {
  const roll = (side: Side, fighters: Unit[]) => {
    let s = 0;
    for (const u of fighters) if (MELEE[u.type] > 0) s += die(rng, MELEE[u.type]);
    return s + dice(rng, might(side), 6);
  };
  const defFighters = alive(def);
  const Ma = roll(att, attFighters);
  const Md = roll(def, defFighters);
  const recv = (D: number, side: Side, fighters: Unit[]) => {
    if (ctx.leftover === 'next_phase') {
      D += side.carry;
      side.carry = 0;
    }
    const left = allocate(ctx, D, fighters, ctx.melee);
    if (ctx.leftover === 'next_phase') side.carry += left;
  };
  recv(Ma, def, defFighters);
  recv(Md, att, attFighters);
}

function totalHp(side: Side): number {
  return alive(side).reduce((a, u) => a + u.hp, 0);
}

// ---- one battle ------------------------------------------------------------------------------

/** One trial's outcome (docs "What each metric counts"). */
export interface RefTrial {
  outcome: 1 | 2 | 3; // attacker, defender, undecided
  rounds: number;
  cap: boolean;
  breachRound: number; // 0: none
  volleyA: number;
  withdrew: boolean;
}

/** The full HP of each type under the H1 reading in force (hp_preset; hp.captain for the captain unit). */
function fullHp(s: RefScenario): number[] {
  const preset = s.rules?.hp_preset ?? 'table';
  const table = TYPE_KEYS.map((k, t) => s.hp?.[k] ?? HP_DEFAULT[t]);
  if (preset === 'one') return table.map(() => 1);
  if (preset === 'melee_die') return [...HP_MELEE_DIE, table[CPT]];
  return table;
}

function army(s: RefScenario, a: RefArmy, keepEngines: boolean): Side {
  const hp = fullHp(s);
  const value = TYPE_KEYS.map((k, t) => s.values?.[k] ?? VALUE_DEFAULT[t]);
  const units: Unit[] = [];
  const might = a.captain_might ?? 0;
  const add = (t: number, n = 0) => {
    const v = t === CPT ? Math.round(value[CPT] * 10 * might) : Math.round(value[t] * 10);
    for (let i = 0; i < n; i++) units.push({ type: t, hp: hp[t], full: hp[t], v, place: OUTSIDE, alive: true });
  };
  add(INF, a.infantry);
  add(CAV, a.cavalry);
  add(ARC, a.archers);
  add(MAG, a.mages);
  add(CLE, a.clerics);
  if (keepEngines) add(ENG, a.siege_engines); // H24 (b) absent: none in an open field
  const captainUnit = s.rules?.captain === 'unit';
  if (captainUnit && might > 0) add(CPT, 1); // H23 (b)
  return { units, might, captainUnit, pool: [], carry: 0 };
}

function rollPool(rng: RngState, side: Side, keep = false): void {
  const fresh = alive(side)
    .filter((u) => u.type === CLE)
    .map(() => die(rng, 3));
  side.pool = keep ? side.pool.concat(fresh) : fresh;
}

function count(units: Unit[], t: number): number {
  return units.filter((u) => u.type === t).length;
}

function openFieldVolleys(ctx: Ctx, rng: RngState, att: Side, def: Side, record: boolean, trial: RefTrial, simultaneous: boolean): void {
  // lambda (4.0), from the state at the start of Phase A (H9 optimal only)
  let lambda = 0;
  const C = count(alive(att), CAV);
  const P = def.pool.reduce((a, f) => a + f, 0);
  if (C > 0 && P > 0 && ctx.shields === 'optimal') {
    const d = alive(def);
    const V = d.reduce((a, u) => a + u.v, 0);
    const H = d.reduce((a, u) => a + u.full, 0);
    lambda = H > 0 ? ((3.5 * C) / P) * (V / H) : 0;
  }
  const a0 = alive(att);
  const MA = mageDice(rng, count(a0, MAG));
  const AA = dice(rng, count(a0, ARC), 2);
  let MB: number[] = [];
  let AB = 0;
  if (simultaneous) {
    // H6 (b): the defender's volley is rolled from the state before Phase A
    const d0 = alive(def);
    MB = mageDice(rng, count(d0, MAG));
    AB = dice(rng, count(d0, ARC), 2);
  }
  const through = receiveVolley(ctx, MA, AA, def, alive(def), lambda, true);
  if (record) trial.volleyA = through;
  if (!simultaneous) {
    const d0 = alive(def);
    MB = mageDice(rng, count(d0, MAG));
    AB = dice(rng, count(d0, ARC), 2);
  }
  receiveVolley(ctx, MB, AB, att, alive(att), 0);
  const cav = count(alive(att), CAV);
  if (cav > 0) receiveVolley(ctx, [], dice(rng, cav, 6), def, alive(def), 0);
}

function endCheck(att: Side, def: Side): 0 | 1 | 2 | 3 {
  const a = out(att);
  const d = out(def);
  return a && d ? 3 : a ? 2 : d ? 1 : 0;
}

function capResult(s: RefScenario, att: Side, def: Side): 1 | 2 | 3 {
  let rule = s.rules?.round_cap_result ?? 'auto';
  if (rule === 'auto') rule = s.mode === 'siege' ? 'defender' : 'more_hp';
  if (rule === 'defender') return 2;
  if (rule === 'undecided') return 3;
  const ha = totalHp(att);
  const hd = totalHp(def);
  return ha > hd ? 1 : hd > ha ? 2 : 3;
}

/** 4.1 OPEN_FIELD_BATTLE from round `start` (a siege's H21 (b) battle starts after its breach round). */
function openField(s: RefScenario, ctx: Ctx, rng: RngState, att: Side, def: Side, trial: RefTrial, maxRounds: number, start = 1): void {
  rollPool(rng, att);
  rollPool(rng, def);
  const rounds = s.rules?.open_field_rounds ?? 'repeat_melee';
  for (let r = start; r <= maxRounds; r++) {
    att.carry = 0; // H2 (c): none survive the round
    def.carry = 0;
    if (r === start || rounds === 'repeat_phases') openFieldVolleys(ctx, rng, att, def, r === 1, trial, s.rules?.ranged_phases === 'simultaneous');
    if (endCheck(att, def) === 0) meleeExchange(ctx, rng, att, alive(att), def);
    const e = endCheck(att, def);
    if (e !== 0) {
      trial.outcome = e;
      trial.rounds = r;
      return;
    }
    if (rounds === 'single_pass') {
      const ha = totalHp(att);
      const hd = totalHp(def);
      trial.outcome = ha > hd ? 1 : hd > ha ? 2 : 3;
      trial.rounds = r;
      return;
    }
  }
  trial.rounds = maxRounds;
  trial.cap = true;
  trial.outcome = capResult(s, att, def);
}

/**
 * 4.2's ceil(withdraw_below × starting units) on the decimal as written: its shortest decimal
 * text (String) read as an integer over a power of ten (0.56 × 25 = 14, where the double
 * product 14.000000000000002 would round up to 15).
 */
function ceilOfShare(share: number, n: number): number {
  const [m, e = '0'] = String(share).split('e');
  const [whole, frac = ''] = m.split('.');
  const scale = frac.length - Number(e);
  const num = BigInt(whole + frac) * BigInt(n);
  if (scale <= 0) return Number(num * 10n ** BigInt(-scale));
  const den = 10n ** BigInt(scale);
  return Number((num + den - 1n) / den);
}

function siege(s: RefScenario, ctx: Ctx, rng: RngState, att: Side, def: Side, trial: RefTrial, maxRounds: number): void {
  const r0 = s.rules ?? {};
  const p0 = s.policy ?? {};
  // H20: wall.type (DEFAULT stone) gives what wall.hp, dc, upgrades do not set
  const type = s.wall?.type ?? 'stone';
  const [hp0, dc0, up0] = type === 'palisade' ? [15, 10, 0] : type === 'fortress' ? [50, 14, 1] : [30, 12, 0];
  let wall = s.wall?.hp ?? hp0;
  const dc = s.wall?.dc ?? dc0;
  const upgrades = s.wall?.upgrades ?? up0;
  const k = 2 + upgrades;
  const thr0 = type === 'palisade' ? 2 : type === 'fortress' ? 6 + upgrades : 4; // H19
  // H19: the wall's (stone's 4 unless set), or (b) half the defender's starting units
  const threshold = r0.breach_threshold_rule === 'half_defenders' ? Math.max(1, Math.ceil(def.units.length / 2)) : s.wall?.breach_threshold ?? thr0;
  const split = r0.fire_split ?? 'one_choice';
  const share = p0.defender_fire_share ?? 0.5;
  const mageFire = p0.mage_fire ?? 'defenders';
  const archerFire = p0.archer_fire ?? 'defenders';
  const failedClimb = r0.failed_climb ?? 'no_lasting';
  const atOnce = (r0.wall_fall ?? 'at_once') === 'at_once';
  const tower = r0.tower_bonus ?? 'standing_wall';
  const gt = r0.climb_comparison === 'gt';
  const cavClimb = r0.cavalry_climb ?? true;
  const meleeStart = r0.melee_start ?? 'next_round';
  const staysOpen = r0.repelled_breach === 'stays_open';
  const climbers = p0.climbers ?? 'infantry_and_cavalry';
  const fire = p0.attacker_fire ?? 'defenders';
  const removal = r0.dice_removal ?? 'highest_type_first';
  const shieldsVsWall = r0.shields_vs_wall === true;
  const anyTargets = r0.attacker_fire_targets === 'any';
  const poolTargetable = r0.breach_pool_targetable ?? true;
  const enginesTargetable = r0.engines_targetable ?? true;
  const withdrawBelow = p0.withdraw_below ?? 0;
  const withdrawUnits = withdrawBelow > 0 ? ceilOfShare(withdrawBelow, att.units.length) : 0;
  let melee = false;
  const end = (r: number): boolean => {
    const e = endCheck(att, def);
    if (e === 0) return false;
    trial.outcome = e;
    trial.rounds = r;
    return true;
  };
  for (let r = 1; r <= maxRounds; r++) {
    att.carry = 0; // H2 (c)
    def.carry = 0;
    rollPool(rng, att, r0.siege_pool === 'accumulate'); // H10 DEFAULT: emptied and rolled anew
    rollPool(rng, def, r0.siege_pool === 'accumulate');
    // ATTACKER_RANGED
    let E = 0;
    if (wall > 0) {
      E = dice(rng, 2 * count(alive(att), ENG), 6);
      if (atOnce) {
        if (shieldsVsWall) E -= noWaste(def, E);
        wall = Math.max(0, wall - E);
        E = 0;
      }
    }
    const up = wall > 0;
    const a0 = alive(att);
    let m = count(a0, MAG);
    let a = count(a0, ARC);
    if (up) {
      let W = E;
      // H12: how the mages and archers split between the wall and the defenders
      let mW = 0;
      let aW = 0;
      if (split === 'per_unit') {
        mW = m - Math.round(m * share);
        aW = a - Math.round(a * share);
      } else if (split === 'by_type') {
        if (mageFire === 'wall') mW = m;
        if (archerFire === 'wall') aW = a;
      } else if (fire === 'wall' || (fire === 'finish_wall' && E + 2 * m + 1.5 * a >= wall)) {
        mW = m;
        aW = a;
      }
      W += dice(rng, mW, 3) + dice(rng, aW, 2);
      m -= mW;
      a -= aW;
      if (shieldsVsWall && W > 0) W -= noWaste(def, W);
      wall = Math.max(0, wall - W);
    }
    if (m + a > 0) {
      let M: number[] = []; // the mage dice kept, in the order rolled
      let A = 0;
      if (up && (removal === 'highest_type_first' || removal === 'lowest_type_first')) {
        // H11 DEFAULT: k dice removed, mage dice first; (c) archer dice first
        if (removal === 'highest_type_first') {
          const rm = Math.min(k, m);
          m -= rm;
          a -= Math.min(k - rm, a);
        } else {
          const ra = Math.min(k, a);
          a -= ra;
          m -= Math.min(k - ra, m);
        }
        M = mageDice(rng, m);
        A = dice(rng, a, 2);
      } else {
        const md: number[] = [];
        for (let i = 0; i < m; i++) md.push(die(rng, 3));
        const ad: number[] = [];
        for (let i = 0; i < a; i++) ad.push(die(rng, 2));
        if (up && removal === 'points') {
          // H11 (d): k points off, the archer part first, then off the mage dice in roll order
          let cut = k;
          let sa = ad.reduce((x, y) => x + y, 0);
          const ca = Math.min(cut, sa);
          sa -= ca;
          cut -= ca;
          M = [];
          for (const d of md) {
            const take = Math.min(cut, d);
            cut -= take;
            if (d > take) M.push(d - take);
          }
          A = sa;
        } else {
          if (up) {
            // H11 (b): the k highest results go; on equal faces mage dice first
            for (let cut = k; cut > 0; cut--) {
              let best = 0;
              let fromMage = true;
              let at = -1;
              md.forEach((f, i) => {
                if (f > best) {
                  best = f;
                  at = i;
                  fromMage = true;
                }
              });
              ad.forEach((f, i) => {
                if (f > best) {
                  best = f;
                  at = i;
                  fromMage = false;
                }
              });
              if (at < 0) break;
              if (fromMage) md.splice(at, 1);
              else ad.splice(at, 1);
            }
          }
          M = md;
          A = ad.reduce((x, y) => x + y, 0);
        }
      }
      const legal = alive(def).filter((u) => !up || anyTargets || u.type === MAG || u.type === ARC); // H13
      if (legal.length > 0) receiveVolley(ctx, M, A, def, legal, 0);
    }
    if (end(r)) return;
    // DEFENDER_RANGED
    const d0 = alive(def);
    const M = mageDice(rng, count(d0, MAG));
    let A = dice(rng, count(d0, ARC), 2);
    if (tower === 'always' || (tower === 'standing_wall' && wall > 0)) A += dice(rng, 2, 3);
    const legal = alive(att).filter((u) => (enginesTargetable || u.type !== ENG) && (poolTargetable || u.place !== POOL)); // H22, H25
    if (sum(M) + A > 0 && legal.length > 0) receiveVolley(ctx, M, A, att, legal, 0);
    if (end(r)) return;
    // CLIMBS
    if (wall > 0 && climbers !== 'none') {
      for (const u of alive(att)) {
        if (u.place !== OUTSIDE) continue;
        if (u.type !== INF && !(u.type === CAV && climbers === 'infantry_and_cavalry' && cavClimb)) continue;
        const d20 = die(rng, 20);
        if (gt ? d20 > dc : d20 >= dc) u.place = POOL;
        else {
          const dmg = die(rng, 3) + die(rng, 3);
          if (dmg >= u.hp) u.alive = false;
          else if (failedClimb === 'persistent') u.hp -= dmg; // H17 (b)
          else if (failedClimb === 'no_retry') u.place = BARRED; // H17 (c)
        }
      }
    }
    if (end(r)) return;
    // BREACH CHECK
    const poolSize = () => alive(att).filter((u) => u.place === POOL).length;
    const breachNow = wall === 0 || poolSize() >= threshold;
    const first = breachNow && trial.breachRound === 0;
    if (first) trial.breachRound = r;
    if (first && meleeStart === 'same_round') melee = true;
    if (melee) {
      const fighters = wall === 0 || meleeStart === 'all_attackers' ? alive(att) : alive(att).filter((u) => u.place === POOL);
      if (fighters.length > 0) meleeExchange(ctx, rng, att, fighters, def);
      if (end(r)) return;
    }
    if (breachNow && !melee) {
      if (meleeStart === 'full_battle') {
        // H21 (b): the rest of the siege is 4.1 from round r + 1, every unit in it; no withdrawal
        if (r === maxRounds) break;
        openField(s, ctx, rng, att, def, trial, maxRounds, r + 1);
        return;
      }
      melee = true;
    }
    if (melee && wall > 0 && meleeStart !== 'all_attackers' && poolSize() === 0 && !staysOpen) melee = false;
    if (withdrawUnits > 0 && alive(att).length < withdrawUnits) {
      trial.outcome = 2;
      trial.withdrew = true;
      trial.rounds = r;
      return;
    }
  }
  trial.rounds = maxRounds;
  trial.cap = true;
  trial.outcome = capResult(s, att, def);
}

/** Play one battle or siege of s on rng. */
export function referenceTrial(s: RefScenario, rng: RngState): RefTrial {
  const dealer: Policy = s.policy?.damage_allocation ?? 'greedy_value';
  const ma = s.rules?.melee_allocation ?? 'dealer';
  const ctx: Ctx = {
    rng,
    poolFirst: s.rules?.pool_fire_order === 'pool_first',
    dealer,
    melee: ma === 'dealer' ? dealer : ma,
    shields: s.policy?.shield_spending ?? 'optimal',
    perComponent: s.rules?.shield_scope === 'per_component',
    archerFirst: s.rules?.shield_reduces === 'archer_first',
    mageTargeting: s.rules?.mage_targeting ?? 'one_type_together',
    leftover: s.rules?.leftover ?? 'waste',
  };
  const keep = s.mode === 'siege' || s.rules?.siege_units_open_field !== 'absent';
  const att = army(s, s.attacker, keep);
  const def = army(s, s.defender, keep);
  const trial: RefTrial = { outcome: 3, rounds: 0, cap: false, breachRound: 0, volleyA: 0, withdrew: false };
  const e = endCheck(att, def);
  if (e !== 0) {
    trial.outcome = e;
    return trial;
  }
  const maxRounds = s.max_rounds ?? (s.mode === 'siege' ? 20 : 10);
  if (s.mode === 'siege') siege(s, ctx, rng, att, def, trial, maxRounds);
  else openField(s, ctx, rng, att, def, trial, maxRounds);
  return trial;
}

/** Sums over `trials` battles: [n, Σx, Σx²] per metric, as docs "What each metric counts". */
export interface RefMoments {
  trials: number;
  attWins: number;
  defWins: number;
  undecided: number;
  cap: number;
  rounds: number;
  rounds2: number;
  breached: number;
  breachRound: number;
  breachRound2: number;
  volley: number;
  volley2: number;
  withdrew: number;
}

export function runReference(s: RefScenario, seed: string, trials: number): RefMoments {
  const rng = deriveState(seed, 'fantasy-reference', 0);
  const m: RefMoments = { trials, attWins: 0, defWins: 0, undecided: 0, cap: 0, rounds: 0, rounds2: 0, breached: 0, breachRound: 0, breachRound2: 0, volley: 0, volley2: 0, withdrew: 0 };
  for (let i = 0; i < trials; i++) {
    const t = referenceTrial(s, rng);
    if (t.outcome === 1) m.attWins++;
    else if (t.outcome === 2) m.defWins++;
    else m.undecided++;
    if (t.cap) m.cap++;
    m.rounds += t.rounds;
    m.rounds2 += t.rounds * t.rounds;
    if (t.breachRound > 0) {
      m.breached++;
      m.breachRound += t.breachRound;
      m.breachRound2 += t.breachRound * t.breachRound;
    }
    if (t.withdrew) m.withdrew++;
    m.volley += t.volleyA;
    m.volley2 += t.volleyA * t.volleyA;
  }
  return m;
}
