/**
 * The fantasy kernel (seed 001, docs/rules/fantasy.md 4.1-4.3). Allocation-free: the state of both
 * armies is a count of units per (side, group, type, current HP) class, so a side of any size
 * is a few dozen integers and damage allocation works on classes, not on units.
 *
 * Groups: 0 ordinary units, 1 the breach pool (climbers over the wall), 2 climbers who failed
 * and may not retry (H17 (c)).
 *
 * Accumulator layout (Float64Array):
 *   [0] trials  [1] attacker wins  [2] defender wins  [3] undecided  [4] Σ rounds  [5] Σ rounds²
 *   [6] breached  [7] Σ breach round  [8] Σ breach round²  [9] round cap reached
 *   [10] Σ Phase A damage after shields  [11] its Σ²  [12] attacker withdrew
 *   [13 + r - 1]                      breaches in round r, r = 1..R
 *   [13 + R + r * 30 + k]             end-of-round state, r = 0..R (0 = before the battle):
 *                                     k = 0, 1: Σ wall HP, Σ wall HP²;
 *                                     k = 2 + (side * 7 + type) * 2 (+1): Σ alive, Σ alive²
 *   [13 + R + (R + 1) * 30 + d]       Phase A damage after shields = d, d = 0..maxVolley
 */
import { nextTrialState, type RngState } from '../../engine/rng.js';
import { dieThreshold, rollDie } from '../../engine/dice.js';
import { writeTrace } from '../trace.js';
import type { Kernel, Trace } from '../types.js';
import * as TYPES from './compile.js';
import type { FantasyCompiled } from './compile.js';
import { aliasDraw, ensureBinomials, ensureSums } from './kernel-tables.js';

// The troop types (compile.ts) as this module's own constants: V8 folds a module's own `const`
// into the code, while an imported binding is read and checked at every use.
const INF = 0;
const CAV = 1;
const ARC = 2;
const MAG = 3;
const CLE = 4;
const ENG = 5;
const CAP = 6;
const NT = 7;
if ([INF, CAV, ARC, MAG, CLE, ENG, CAP, NT].join() !== [TYPES.INF, TYPES.CAV, TYPES.ARC, TYPES.MAG, TYPES.CLE, TYPES.ENG, TYPES.CAP, TYPES.NT].join()) {
  throw new Error('internal: troop type codes differ from compile.ts');
}

/** The current trial's generator state, drawn from the chunk's stream at each trial's start. */
const TRIAL: RngState = new Int32Array(4);

export const A_TRIALS = 0;
export const A_ATT_WINS = 1;
export const A_DEF_WINS = 2;
export const A_UNDECIDED = 3;
export const A_ROUNDS = 4;
export const A_ROUNDS2 = 5;
export const A_BREACHED = 6;
export const A_BREACH_ROUND = 7;
export const A_BREACH_ROUND2 = 8;
export const A_CAP = 9;
export const A_VOLLEY = 10;
export const A_VOLLEY2 = 11;
export const A_WITHDREW = 12;
export const A_BY_ROUND = 13;
export const ROUND_STRIDE = 2 + 2 * NT * 2;

export function roundBase(c: FantasyCompiled): number {
  return A_BY_ROUND + c.maxRounds;
}
export function histBase(c: FantasyCompiled): number {
  return roundBase(c) + (c.maxRounds + 1) * ROUND_STRIDE;
}
export function accLengthFantasy(c: FantasyCompiled): number {
  return histBase(c) + c.maxVolley + 1;
}

const G = 3;
const ALL_TYPES = (1 << NT) - 1;
const ALL_GROUPS = 7;
// Allocation policies (H4 (a)-(d), and the receiver's own choice for H3 (b)).
const P_GREEDY = 0;
const P_LOWEST = 1;
const P_KNAPSACK = 2;
const P_RANDOM = 3;
const P_RECEIVER = 4;

// ---- scratch, made once per compiled case (docs/architecture.md "Kernel") ----------------------------
let sized: FantasyCompiled | null = null;
/** Class stride: HP 1..30 (the schema's largest), so the layout is the same for every case. */
const H1 = 31;
const SIDE = G * NT * H1; // ints per side
/**
 * Running totals live in the count arrays themselves, after both sides' classes: alive per
 * (side, group, type) at TOT + (s * G + g) * NT + t, and per (side, group) at TOTG + s * G + g.
 * Every change of a class count goes through `addCount`, so counting a type or a side is a few
 * reads instead of a scan of every class.
 */
const TOT = 2 * SIDE;
const TOTG = TOT + 2 * G * NT;
const NTH = NT * H1; // class index / NTH = s * G + g
const cnt = new Int32Array(TOTG + 2 * G);
const tmp = new Int32Array(TOTG + 2 * G);
const tmp2 = new Int32Array(TOTG + 2 * G);
const clsIdx = new Int32Array(SIDE);
const clsH = new Int32Array(SIDE);
const clsV = new Int32Array(SIDE);
const clsLeft = new Int32Array(SIDE);
let lossTab = new Int32Array(0);
let killsTab = new Int32Array(0);
let mageRolls = new Int32Array(0); // the dice of the volley being applied
let rollsA = new Int32Array(0);
let rollsB = new Int32Array(0);
let mageTmp = new Int32Array(0);
let knapDp = new Int32Array(0);
let knapTake = new Uint8Array(0);
let knapItemCls = new Int32Array(0);
let knapItemK = new Int32Array(0);
// A volley's legal targets as a short list in the allocation order (see `listTargets`).
// Entry i is VL[i * VS ..]: HP, value (x10), units, type, the least HP from it to the end of
// the list, class index, indices of its (side, group, type) and (side, group) totals.
const VS = 8;
const VL = new Int32Array(VS * SIDE);
let vLen = 0;
let vPolicy = -1; // the policy whose order the list follows
const pool = new Int32Array(8); // [side * 4 + face], faces 1..3
const carry = new Int32Array(2);
let Hmax = 0;

/**
 * What a compiled case needs beyond its numbers, made once per case (variants alternate trial
 * by trial, so switching cases must cost nothing): the allocation orders of the sorting
 * policies. A sorting policy (H4 greedy value and lowest HP, the receiver of H3 (b)) orders a
 * side's classes by a key of (threat value, HP), ties in class order (group, type, HP). That
 * order depends only on the case, so it is sorted here once over every class the battle can
 * reach (full HP, or any HP when wounds persist; the breach groups for the attacker's climbers),
 * and an allocation walks it, skipping empty classes: the same order the per-volley sort gave.
 */
interface Prepared {
  /**
   * Classes per (side, policy) in allocation order, entries ordFrom[k] .. ordFrom[k + 1] for
   * k = s * 3 + (0 greedy, 1 lowest HP, 2 receiver); entry e is ord[e * OE ..]: class index,
   * type bit, group bit, HP, value (x10), index of its (side, group, type) total, of its (side,
   * group) total, type.
   */
  ord: Int32Array;
  ordFrom: Int32Array;
  /** The count array at the start of every trial (classes and running totals). */
  start: Int32Array;
  /** side * NT + type of every type a side has (the attrition curve's rows; the others stay 0). */
  slots: Int32Array;
  /**
   * Every class a trial can reach (those in the allocation orders), then their running totals:
   * the entries a trial can change, reset from `start` at each trial's start (the rest of the
   * count array stays 0 for the whole kernel call).
   */
  reset: Int32Array;
  /** What each entry of `reset` is reset to (start[reset[j]], one read fewer per entry). */
  resetVal: Int32Array;
  /** Per slot: the index of its (side, group 0, type) running total (+NT, +2NT: groups 1, 2). */
  slotTot: Int32Array;
  /** Table mode: alias tables of the sums of n d2, d3, d6 (by n), see kernel-tables.ts. */
  sum2: Int32Array;
  sum3: Int32Array;
  sum6: Int32Array;
  /** Binomial(n, 1/3) and Binomial(n, 1/2): a pool's 1s, then its 2s among the rest. */
  third: Int32Array;
  half: Int32Array;
  /** Binomial(n, P(climb succeeds)), and Binomial(n, P(2d3 >= HP)) for HP 2..7 at [HP - 2]. */
  climbOk: Int32Array;
  climbDies: Int32Array[];
}
const OE = 8;
const prepared = new WeakMap<FantasyCompiled, Prepared>();
/** P(2d3 >= h) for h = 0..7 (rules 4.4): a failed climber of h HP is lost. */
const TWO_D3_AT_LEAST = [1, 1, 1, 8 / 9, 6 / 9, 3 / 9, 1 / 9, 0];
let S2: Int32Array = new Int32Array(0);
let S3: Int32Array = new Int32Array(0);
let S6: Int32Array = new Int32Array(0);
let THIRD: Int32Array = new Int32Array(0);
let HALF: Int32Array = new Int32Array(0);
let CLIMB_OK: Int32Array = new Int32Array(0);
let CLIMB_DIES: Int32Array[] = [];
/**
 * Table mode (the default): the sum of n identical dice, a cleric pool and a class of climbers
 * are each drawn from their exact distribution (kernel-tables.ts) instead of die by die. The
 * per-die mode rolls every die as the rules say; tests switch to it (setPerDie) to hold the
 * table mode to it. Both make the same decisions; only the dice stream differs.
 */
let perDie = false;
const T2 = dieThreshold(2);
const T3 = dieThreshold(3);
const T6 = dieThreshold(6);
let ORD: Int32Array = new Int32Array(0);
let START: Int32Array = new Int32Array(0);
let RESET: Int32Array = new Int32Array(0);
let SLOTS: Int32Array = new Int32Array(0);
let SLOT_TOT: Int32Array = new Int32Array(0);
let RESET_VAL: Int32Array = new Int32Array(0);
let ORD_FROM: Int32Array = new Int32Array(7);

/** Sort key of a class of value v (x10) and current HP h under a sorting policy (ties: class order). */
function classKey(policy: number, v: number, h: number): number {
  if (policy === P_GREEDY) return -v / h - v * 1e-7; // H4 DEFAULT: threat value per HP, descending
  if (policy === P_LOWEST) return h - v * 1e-7; // H4 (b): most kills
  return v / h - h * 1e-7; // receiver (H3 (b)): cheapest value per point absorbed
}

function prepare(c: FantasyCompiled): Prepared {
  const wounds = c.leftover === 1 || c.failedClimb === 1;
  const lists: number[] = [];
  const from: number[] = [];
  for (let s = 0; s < 2; s++) {
    for (let pi = 0; pi < 3; pi++) {
      const policy = pi === 2 ? P_RECEIVER : pi;
      const cls: { idx: number; key: number }[] = [];
      for (let g = 0; g < G; g++)
        for (let t = 0; t < NT; t++) {
          if (c.units[s * NT + t] === 0) continue; // never on the field
          if (g > 0 && (s !== 0 || (t !== INF && t !== CAV))) continue; // only climbers change group
          // H29: among equal keys the class order (group, type, HP) puts units outside (group 0)
          // before the breach pool (group 1); pool_first moves the pool ahead by less than any
          // two different keys differ (values x10 and HP are integers <= 10000 and 30)
          const early = c.poolFirst === 1 && g === 1 ? 1e-12 : 0;
          for (let h = wounds ? 1 : c.hp[t]; h <= c.hp[t]; h++) cls.push({ idx: off(s, g, t) + h, key: classKey(policy, c.value[s * NT + t], h) - early });
        }
      cls.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0)); // stable: ties in class order
      from.push(lists.length / OE);
      for (const x of cls) {
        const sgt = (x.idx / H1) | 0;
        const t = sgt % NT;
        const g = ((sgt / NT) | 0) % G;
        lists.push(x.idx, 1 << t, 1 << g, x.idx % H1, c.value[s * NT + t], TOT + sgt, TOTG + s * G + g, t);
      }
    }
  }
  from.push(lists.length / OE);
  // Table mode: the largest n each kind of draw can ask for in this case.
  let n6 = 0;
  let n3 = 2; // the tower bonus 2d3
  let n2 = 0;
  let clerics = 0;
  for (let s = 0; s < 2; s++) {
    const u = (t: number) => c.units[s * NT + t];
    n6 = Math.max(n6, u(INF) + u(CAV) + c.might[s], 2 * u(ENG));
    n3 = Math.max(n3, u(ARC), u(MAG));
    n2 = Math.max(n2, u(ARC), u(MAG) + u(CLE));
    clerics = Math.max(clerics, u(CLE));
  }
  const climbers = Math.max(c.units[INF], c.units[CAV]);
  const faces = Math.min(20, Math.max(0, c.climbGt === 1 ? 20 - c.dc : 21 - c.dc)); // H16: faces that succeed
  const climbDies: Int32Array[] = [];
  for (let h = 2; h <= 7; h++) climbDies.push(ensureBinomials(`2d3>=${h}`, TWO_D3_AT_LEAST[h], climbers));
  const start = new Int32Array(TOTG + 2 * G);
  const slots: number[] = [];
  for (let s = 0; s < 2; s++)
    for (let t = 0; t < NT; t++) {
      const n = c.units[s * NT + t];
      if (n === 0) continue;
      addCount(start, off(s, 0, t) + c.hp[t], n);
      slots.push(s * NT + t);
    }
  const reset: number[] = [];
  for (let s = 0; s < 2; s++) for (let e = from[s * 3]; e < from[s * 3 + 1]; e++) reset.push(lists[e * OE]); // the greedy order: every reachable class once
  // and the running totals of those classes (the others stay 0: no unit ever reaches them)
  const totals = new Set<number>();
  for (const i of reset) {
    totals.add(TOT + ((i / H1) | 0));
    totals.add(TOTG + ((i / NTH) | 0));
  }
  reset.push(...[...totals].sort((x, y) => x - y));
  const slotTot = slots.map((st) => TOT + (st >= NT ? G * NT + st - NT : st)); // (side * G + 0) * NT + type
  return {
    ord: Int32Array.from(lists),
    ordFrom: Int32Array.from(from),
    start,
    slots: Int32Array.from(slots),
    reset: Int32Array.from(reset),
    resetVal: Int32Array.from(reset, (i) => start[i]),
    slotTot: Int32Array.from(slotTot),
    sum2: ensureSums(2, n2),
    sum3: ensureSums(3, n3),
    sum6: ensureSums(6, n6),
    third: ensureBinomials('1/3', 1 / 3, clerics),
    half: ensureBinomials('1/2', 1 / 2, clerics),
    climbOk: ensureBinomials(`${faces}/20`, faces / 20, climbers),
    climbDies,
  };
}

/**
 * Size the scratch for a compiled case. Buffers only grow (to the largest case seen), so
 * variants that alternate block by block (common random numbers) never reallocate.
 */
function ensure(c: FantasyCompiled): void {
  if (sized === c) return;
  sized = c;
  Hmax = c.maxHp;
  let p = prepared.get(c);
  if (!p) {
    p = prepare(c);
    prepared.set(c, p);
  }
  ORD = p.ord;
  ORD_FROM = p.ordFrom;
  START = p.start;
  SLOTS = p.slots;
  SLOT_TOT = p.slotTot;
  RESET_VAL = p.resetVal;
  RESET = p.reset;
  S2 = p.sum2;
  S3 = p.sum3;
  S6 = p.sum6;
  THIRD = p.third;
  HALF = p.half;
  CLIMB_OK = p.climbOk;
  CLIMB_DIES = p.climbDies;
  let units = 0;
  for (let i = 0; i < 2 * NT; i++) units += c.units[i];
  // Largest damage any single pool can reach: every unit's largest die, engines 12, towers 6,
  // the captain 6 per Might, plus carried leftovers (bounded by the same again).
  const maxDamage = 2 * (units * 12 + 6 + 6 * (c.might[0] + c.might[1])) + 8;
  if (lossTab.length < maxDamage + 1) {
    lossTab = new Int32Array(maxDamage + 1);
    killsTab = new Int32Array(maxDamage + 1);
    lossSeen = new Int32Array(maxDamage + 1);
  }
  const mages = Math.max(1, c.units[MAG] + c.units[NT + MAG]);
  if (rollsA.length < mages) {
    rollsA = new Int32Array(mages);
    rollsB = new Int32Array(mages);
    mageTmp = new Int32Array(mages);
  }
  mageRolls = rollsA;
  if (knapDp.length < units * Hmax + 1) knapDp = new Int32Array(units * Hmax + 1);
}

function off(s: number, g: number, t: number): number {
  return ((s * G + g) * NT + t) * H1;
}

/** Add k units to the class at idx of array a, keeping its running totals. */
function addCount(a: Int32Array, idx: number, k: number): void {
  a[idx] += k;
  a[TOT + ((idx / H1) | 0)] += k;
  a[TOTG + ((idx / NTH) | 0)] += k;
}

function rollN(rng: RngState, n: number): number {
  return rollDie(rng, n, 4294967296 % n);
}

/** The sum of n dice of `die` faces (2, 3 or 6): one table draw, or every die in per-die mode. */
function sumDice(rng: RngState, n: number, die: number): number {
  if (n <= 0) return 0;
  if (!perDie) return aliasDraw(rng, die === 6 ? S6[n] : die === 3 ? S3[n] : S2[n]);
  const t = die === 6 ? T6 : die === 3 ? T3 : T2;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += rollDie(rng, die, t);
  return sum;
}

function countType(a: Int32Array, s: number, t: number, groupMask: number): number {
  const b = TOT + s * G * NT + t;
  if (groupMask === ALL_GROUPS) return a[b] + a[b + NT] + a[b + 2 * NT];
  let n = 0;
  for (let g = 0; g < G; g++) if ((groupMask & (1 << g)) !== 0) n += a[b + g * NT];
  return n;
}

function countSide(a: Int32Array, s: number, typeMask: number, groupMask: number): number {
  let n = 0;
  if (typeMask === ALL_TYPES || POP[typeMask] > 3) {
    // the groups' totals, less the few types left out (the defender's targets: all but engines)
    for (let g = 0; g < G; g++) if ((groupMask & (1 << g)) !== 0) n += a[TOTG + s * G + g];
    if (typeMask !== ALL_TYPES) for (let t = 0; t < NT; t++) if ((typeMask & (1 << t)) === 0) n -= countType(a, s, t, groupMask);
    return n;
  }
  for (let t = 0; t < NT; t++) if ((typeMask & (1 << t)) !== 0) n += countType(a, s, t, groupMask);
  return n;
}

/** POP[m]: the number of types in a type mask m. */
const POP = new Uint8Array(ALL_TYPES + 1);
for (let m = 1; m <= ALL_TYPES; m++) POP[m] = POP[m >> 1] + (m & 1);

function hpSide(a: Int32Array, s: number): number {
  let sum = 0;
  for (let g = 0; g < G; g++)
    for (let t = 0; t < NT; t++) {
      const b = off(s, g, t);
      for (let h = 1; h <= Hmax; h++) sum += a[b + h] * h;
    }
  return sum;
}

function copySide(from: Int32Array, to: Int32Array, s: number): void {
  const b = s * SIDE;
  for (let i = 0; i < SIDE; i++) to[b + i] = from[b + i];
  const bt = TOT + s * G * NT;
  for (let i = 0; i < G * NT; i++) to[bt + i] = from[bt + i];
  for (let g = 0; g < G; g++) to[TOTG + s * G + g] = from[TOTG + s * G + g];
}

// === H2-H4: allocating a pool of damage points =============================================

/** Value (x10) and units killed by allocations since the caller last zeroed them. */
let killedValue = 0;
let killedUnits = 0;

/**
 * Assign D damage points to side s's units of the legal types and groups, under a policy.
 * A unit dies when the points given to it reach its current HP; returns the points left over
 * (H2 DEFAULT: wasted by the caller; persistent wounds are applied here).
 */
function allocate(c: FantasyCompiled, rng: RngState, a: Int32Array, s: number, D: number, typeMask: number, groupMask: number, policy: number): number {
  if (D <= 0) return 0;
  if (policy === P_RANDOM || policy === P_KNAPSACK) {
    const n = listClasses(c, a, s, typeMask, groupMask);
    if (n === 0) return D;
    return policy === P_RANDOM ? allocateRandom(rng, a, n, D, c.leftover === 1) : allocateKnapsack(a, n, D, c.leftover === 1);
  }
  // A sorting policy: walk the case's order (prepare), skipping empty and illegal classes.
  const ord = ORD;
  const pi = s * 3 + (policy === P_RECEIVER ? 2 : policy);
  const e0 = ORD_FROM[pi] * OE;
  const e1 = ORD_FROM[pi + 1] * OE;
  let value = 0;
  let units = 0;
  for (let e = e0; e < e1 && D > 0; e += OE) {
    const idx = ord[e];
    const n = a[idx];
    if (n === 0 || (typeMask & ord[e + 1]) === 0 || (groupMask & ord[e + 2]) === 0) continue;
    const h = ord[e + 3];
    const kill = kills(D, h, n);
    if (kill === 0) continue;
    a[idx] = n - kill;
    a[ord[e + 5]] -= kill;
    a[ord[e + 6]] -= kill;
    D -= kill * h;
    value += kill * ord[e + 4];
    units += kill;
  }
  killedValue += value;
  killedUnits += units;
  if (D > 0 && c.leftover === 1) {
    // H2 (b): the leftover wounds the first unit in the order that it cannot kill.
    for (let e = e0; e < e1; e += OE) {
      const idx = ord[e];
      if (a[idx] > 0 && (typeMask & ord[e + 1]) !== 0 && (groupMask & ord[e + 2]) !== 0) {
        a[idx]--;
        a[idx - D]++; // every remaining class has HP > D; type and group (the totals) unchanged
        return 0;
      }
    }
  }
  return D;
}

/**
 * Units of n at h HP that D points kill: min(n, floor(D / h)), without a division when none or
 * all of them die (a division is a long wait in these chains, where each step needs the last).
 */
function kills(D: number, h: number, n: number): number {
  if (D < h) return 0;
  if (D >= n * h) return n;
  return (D / h) | 0;
}

/** Side s's non-empty legal classes in class order, into clsIdx / clsH / clsV; returns how many. */
function listClasses(c: FantasyCompiled, a: Int32Array, s: number, typeMask: number, groupMask: number): number {
  let n = 0;
  for (let g = 0; g < G; g++) {
    if ((groupMask & (1 << g)) === 0) continue;
    for (let t = 0; t < NT; t++) {
      if ((typeMask & (1 << t)) === 0) continue;
      const b = off(s, g, t);
      for (let h = 1; h <= Hmax; h++) {
        if (a[b + h] > 0) {
          clsIdx[n] = b + h;
          clsH[n] = h;
          clsV[n] = c.value[s * NT + t];
          n++;
        }
      }
    }
  }
  return n;
}

/** H4 (d): targets in random order, each killed if the points left reach its HP. */
function allocateRandom(rng: RngState, a: Int32Array, n: number, D: number, wounds: boolean): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    clsLeft[i] = a[clsIdx[i]];
    total += clsLeft[i];
  }
  // Every unit is drawn at most once: the loop is bounded by the number of units.
  while (total > 0 && D > 0) {
    let r = rollN(rng, total) - 1;
    let i = 0;
    while (r >= clsLeft[i]) {
      r -= clsLeft[i];
      i++;
    }
    clsLeft[i]--;
    total--;
    const idx = clsIdx[i];
    const h = clsH[i];
    if (h <= D) {
      addCount(a, idx, -1);
      D -= h;
      killedValue += clsV[i];
      killedUnits++;
    } else if (wounds) {
      a[idx]--;
      a[idx - D]++;
      return 0;
    }
  }
  return D;
}

/** H4 (c): exact 0/1 knapsack over units (binary-split classes): most value killed with Σ HP ≤ D. */
function allocateKnapsack(a: Int32Array, n: number, D: number, wounds: boolean): number {
  let totalHp = 0;
  let items = 0;
  for (let i = 0; i < n; i++) {
    totalHp += a[clsIdx[i]] * clsH[i];
    for (let left = a[clsIdx[i]], k = 1; left > 0; k *= 2) {
      items++;
      left -= Math.min(k, left);
    }
  }
  const W = D < totalHp ? D : totalHp;
  if (knapItemCls.length < items) {
    // grows to the largest case seen, then never again (not per trial)
    knapItemCls = new Int32Array(items * 2);
    knapItemK = new Int32Array(items * 2);
  }
  if (knapTake.length < items * (W + 1)) knapTake = new Uint8Array(items * (W + 1) * 2);
  if (knapDp.length < W + 1) knapDp = new Int32Array((W + 1) * 2);
  let m = 0;
  for (let i = 0; i < n; i++) {
    for (let left = a[clsIdx[i]], k = 1; left > 0; k *= 2) {
      const take = Math.min(k, left);
      knapItemCls[m] = i;
      knapItemK[m] = take;
      m++;
      left -= take;
    }
  }
  for (let w = 0; w <= W; w++) knapDp[w] = 0;
  for (let it = 0; it < m; it++) {
    const i = knapItemCls[it];
    const wt = clsH[i] * knapItemK[it];
    const val = clsV[i] * knapItemK[it];
    const row = it * (W + 1);
    for (let w = W; w >= 0; w--) {
      knapTake[row + w] = 0;
      if (w >= wt && knapDp[w - wt] + val > knapDp[w]) {
        knapDp[w] = knapDp[w - wt] + val;
        knapTake[row + w] = 1;
      }
    }
  }
  let w = W;
  for (let it = m - 1; it >= 0; it--) {
    if (knapTake[it * (W + 1) + w] === 1) {
      const i = knapItemCls[it];
      addCount(a, clsIdx[i], -knapItemK[it]);
      w -= clsH[i] * knapItemK[it];
      killedValue += clsV[i] * knapItemK[it];
      killedUnits += knapItemK[it];
    }
  }
  let left = D - (W - w); // points not spent on kills
  if (left > 0 && wounds) {
    for (let i = 0; i < n; i++) {
      const idx = clsIdx[i];
      if (a[idx] > 0 && clsH[i] > left) {
        a[idx]--;
        a[idx - left]++;
        left = 0;
        break;
      }
    }
  }
  return left;
}

// === 4.1 RANGED_VOLLEY and H5, H8, H9: a volley arriving at a side ==========================

let volleyM = 0; // mage damage
let volleyA = 0; // archer (and tower) damage
let volleyMages = 0; // mage dice kept (rolls in mageRolls[0..volleyMages))

/** Roll a volley: `mages` d3 and `archers` d2 (results in volleyM, volleyA, mageRolls). */
function rollVolley(c: FantasyCompiled, rng: RngState, mages: number, archers: number): void {
  if (!perDie && c.mageTargeting !== 1 && c.diceRemoval !== 1) {
    // only the mages' total matters (per-mage targets and H11 (b) need each die)
    volleyMages = mages;
    volleyM = sumDice(rng, mages, 3);
    volleyA = sumDice(rng, archers, 2);
    return;
  }
  let m = 0;
  for (let i = 0; i < mages; i++) {
    const r = rollDie(rng, 3, c.t3);
    mageRolls[i] = r;
    m += r;
  }
  volleyMages = mages;
  volleyM = m;
  volleyA = sumDice(rng, archers, 2);
}

const mageLeft = new Int32Array(NT);
const mageValue = new Int32Array(NT);

/** Best single troop type for mage damage M against side s (H5 DEFAULT: one type for all). */
function chooseMageType(c: FantasyCompiled, rng: RngState, s: number, M: number, typeMask: number, groupMask: number): number {
  let best = -1;
  let bestV = -1;
  const policy = c.alloc === P_RANDOM ? P_GREEDY : c.alloc;
  const walk = policy !== P_KNAPSACK && !copyPricing;
  let present = 0; // the types with legal units: those in the list
  if (walk) {
    // What M kills at each type, all types in one walk of the targets (a type's classes are
    // disjoint from the others', so this is `allocate` on each type alone).
    present = listTargets(cnt, s, typeMask, groupMask, policy, M);
  }
  for (let t = 0; t < NT; t++) {
    if (walk ? (present & (1 << t)) === 0 : (typeMask & (1 << t)) === 0 || countType(cnt, s, t, groupMask) === 0) continue;
    let v: number;
    if (walk) v = mageValue[t];
    else {
      copySide(cnt, tmp2, s);
      killedValue = 0;
      allocate(c, rng, tmp2, s, M, 1 << t, groupMask, policy);
      v = killedValue;
    }
    if (v > bestV) {
      bestV = v;
      best = t;
    }
  }
  return best;
}

/**
 * Side s's non-empty legal classes in a sorting policy's allocation order, as a short list
 * (VL: each class's HP, value, units, type, ...). What-if allocations (which mage target kills the
 * most, what each shield spending would save) run on the list's counts instead of a copy of
 * the side, and give what `allocate` would give on the side itself. (Hot functions read the
 * module's arrays into locals once: each access to a module variable is checked.) With M > 0
 * mage points, also what they kill at each type (mageLeft, mageValue); returns the types
 * listed (as bits; 0 when M is 0).
 */
function listTargets(a: Int32Array, s: number, typeMask: number, groupMask: number, policy: number, M: number): number {
  const ord = ORD;
  const vl = VL;
  const ml = mageLeft;
  const mv = mageValue;
  if (M > 0)
    for (let t = 0; t < NT; t++) {
      ml[t] = M;
      mv[t] = 0;
    }
  const pi = s * 3 + (policy === P_RECEIVER ? 2 : policy);
  const e1 = ORD_FROM[pi + 1] * OE;
  let n = 0;
  let present = 0;
  for (let e = ORD_FROM[pi] * OE; e < e1; e += OE) {
    const k = a[ord[e]];
    if (k === 0 || (typeMask & ord[e + 1]) === 0 || (groupMask & ord[e + 2]) === 0) continue;
    const b = VS * n;
    const h = ord[e + 3];
    const v = ord[e + 4];
    const t = ord[e + 7];
    vl[b] = h;
    vl[b + 1] = v;
    vl[b + 2] = k;
    vl[b + 3] = t;
    vl[b + 5] = ord[e];
    vl[b + 6] = ord[e + 5];
    vl[b + 7] = ord[e + 6];
    n++;
    if (M > 0) {
      // what M mage points kill at each type (chooseMageType): a type's classes are disjoint
      // from the others', so this is `allocate` on each type alone, all in this one walk
      present |= 1 << t;
      const d = ml[t];
      if (d < h) continue;
      const kill = d >= k * h ? k : (d / h) | 0;
      ml[t] = d - kill * h;
      mv[t] += kill * v;
    }
  }
  let least = 1 << 30;
  for (let i = n - 1; i >= 0; i--) {
    if (vl[VS * i] < least) least = vl[VS * i];
    vl[VS * i + 4] = least;
  }
  vLen = n;
  vPolicy = policy;
  return present;
}

/**
 * Apply a volley (mage part M at type T, archer part A) with `cancel` points removed by
 * shields, to array `a`. Returns the points left over (for H2 (c)).
 */
function applyVolley(
  c: FantasyCompiled,
  rng: RngState,
  a: Int32Array,
  s: number,
  M: number,
  T: number,
  A: number,
  cancelM: number,
  cancelA: number,
  typeMask: number,
  groupMask: number,
): number {
  let m = M - cancelM;
  let ar = A - cancelA;
  if (m < 0) m = 0;
  if (ar < 0) ar = 0;
  let left = 0;
  if (m > 0 && T >= 0) {
    if (c.mageTargeting === 1) {
      // H5 (b): each mage picks its own type; shields took points off the first dice
      let cut = cancelM;
      for (let i = 0; i < volleyMages; i++) {
        let r = mageRolls[i];
        const take = cut < r ? cut : r;
        r -= take;
        cut -= take;
        mageTmp[i] = r;
      }
      for (let i = 0; i < volleyMages; i++) {
        if (mageTmp[i] === 0) continue;
        let t = -1;
        let bestV = -1;
        for (let u = 0; u < NT; u++) {
          if ((typeMask & (1 << u)) === 0 || countType(a, s, u, groupMask) === 0) continue;
          const v = c.value[s * NT + u];
          if (c.hp[u] <= mageTmp[i] && v > bestV) {
            bestV = v;
            t = u;
          }
        }
        if (t < 0) t = T;
        left += allocate(c, rng, a, s, mageTmp[i], 1 << t, groupMask, c.alloc);
      }
    } else {
      const rest = allocate(c, rng, a, s, m, 1 << T, groupMask, c.alloc);
      if (c.mageTargeting === 2) ar += rest; // H5 (c): excess spills to other types
      else left += rest;
    }
  } else if (m > 0) {
    left += m;
  }
  left += allocate(c, rng, a, s, ar, typeMask, groupMask, c.alloc);
  return left;
}

/** splitCancel's two shares: CUT[0] off the mage part, CUT[1] off the archer (free) part. */
const CUT = new Int32Array(2);

/**
 * Split `cancel` cancelled points between a volley's M mage and A archer points (H8 DEFAULT
 * detail: `rules.shield_reduces`, mage part first unless archerFirst) into CUT, a module
 * scratch, so that the two shares cost no allocation. The one split for the volley itself
 * (receiveVolley) and for its pricing (priceVolley, lossAt).
 */
function splitCancel(archerFirst: boolean, M: number, A: number, cancel: number): void {
  let cm: number;
  let ca: number;
  if (archerFirst) {
    ca = cancel < A ? cancel : A;
    cm = cancel - ca;
    if (cm > M) cm = M;
  } else {
    cm = cancel < M ? cancel : M;
    ca = cancel - cm;
    if (ca > A) ca = A;
  }
  CUT[0] = cm;
  CUT[1] = ca;
}

/**
 * The price per pip of a shield die kept back (H9 DEFAULT's lambda for the open-field
 * defender's Phase A; 0 otherwise). A typed array, not an argument: a fractional number passed
 * to a function that is not inlined would be boxed on the heap every call.
 */
const LAMBDA = new Float64Array(1);

let pickD1 = 0;
let pickD2 = 0;
let pickD3 = 0;

/** Dice (k1, k2, k3 of faces 1, 2, 3) with the smallest sum >= need, fewest dice on ties. */
function pickCover(s: number, need: number): boolean {
  const c1 = pool[s * 4 + 1];
  const c2 = pool[s * 4 + 2];
  const c3 = pool[s * 4 + 3];
  let bestSum = 1 << 30;
  let bestN = 1 << 30;
  let found = false;
  for (let k3 = 0; k3 <= c3; k3++) {
    for (let k2 = 0; k2 <= c2; k2++) {
      const base = 3 * k3 + 2 * k2;
      let k1 = need - base;
      if (k1 < 0) k1 = 0;
      if (k1 > c1) continue;
      const sum = base + k1;
      const nd = k1 + k2 + k3;
      if (sum < bestSum || (sum === bestSum && nd < bestN)) {
        bestSum = sum;
        bestN = nd;
        pickD1 = k1;
        pickD2 = k2;
        pickD3 = k3;
        found = true;
      }
      if (base >= need) break;
    }
  }
  return found;
}

/** H9 (b): spend the largest die that does not exceed the damage left, repeatedly. */
function pickNoWaste(s: number, D: number): void {
  let rem = D;
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  for (;;) {
    if (rem >= 3 && pool[s * 4 + 3] > k3) {
      k3++;
      rem -= 3;
    } else if (rem >= 2 && pool[s * 4 + 2] > k2) {
      k2++;
      rem -= 2;
    } else if (rem >= 1 && pool[s * 4 + 1] > k1) {
      k1++;
      rem -= 1;
    } else break;
  }
  pickD1 = k1;
  pickD2 = k2;
  pickD3 = k3;
}

function spendPick(s: number): number {
  pool[s * 4 + 1] -= pickD1;
  pool[s * 4 + 2] -= pickD2;
  pool[s * 4 + 3] -= pickD3;
  return pickD1 + 2 * pickD2 + 3 * pickD3;
}

/**
 * Choose which of side s's shield dice to spend against damage D (H8, H9). The optimal and
 * threshold policies ask what the volley kills with p points cancelled (lossAt, killsAt: the
 * volley priceVolley got ready). Returns the points cancelled (≤ D); the chosen dice leave the
 * pool.
 */
function spendShields(c: FantasyCompiled, s: number, D: number, phaseA: boolean): number {
  const c1 = pool[s * 4 + 1];
  const c2 = pool[s * 4 + 2];
  const c3 = pool[s * 4 + 3];
  if (D <= 0 || c1 + c2 + c3 === 0) return 0;
  let policy = c.shield;
  if (policy === 4) {
    if (phaseA) return 0; // H9 (e): save everything for the charge
    policy = 0;
  }
  if (policy === 1) {
    pickNoWaste(s, D);
  } else if (policy === 2) {
    // H9 (c): the subset with the smallest sum covering D, else no-waste
    if (c1 + 2 * c2 + 3 * c3 < D || !pickCover(s, D)) pickNoWaste(s, D);
  } else if (policy === 3) {
    // H9 (d): just enough to drop the damage below the next kill threshold
    const k0 = killsAt(0);
    let need = -1;
    const top = c1 + 2 * c2 + 3 * c3 < D ? c1 + 2 * c2 + 3 * c3 : D;
    for (let p = 1; p <= top; p++) {
      if (killsAt(p) < k0) {
        need = p;
        break;
      }
    }
    if (need < 0 || c1 + 2 * c2 + 3 * c3 < need || !pickCover(s, need)) return 0;
  } else {
    // H9 DEFAULT (optimalPick). Spending nothing loses nothing: no other subset can win
    // (every cost is >= 0, and ties go to fewer dice), so none is priced.
    if (lossAt(0) === 0) return 0;
    optimalPick(D, c1, c2, c3);
  }
  const spent = spendPick(s);
  return spent < D ? spent : D;
}

/**
 * H9 DEFAULT: the subset of k1 ones, k2 twos and k3 threes minimising the value lost (+ lambda
 * per pip reserved for a coming charge); ties: fewer dice, then the smaller sum, then the first
 * in (k3, k2, k1) order. A subset is priced only if it could still win: the value lost is
 * never negative, so lambda x pips bounds its cost from below (with lambda 0: once a subset
 * loses nothing, only one with fewer dice or a smaller sum is priced). Sets pickD1..3.
 */
function optimalPick(D: number, c1: number, c2: number, c3: number): void {
  const lambda = LAMBDA[0]; // read here: a fractional argument would be boxed
  const t3 = ((D + 2) / 3) | 0;
  const t2 = ((D + 1) / 2) | 0;
  const m3 = c3 < t3 ? c3 : t3;
  const m2 = c2 < t2 ? c2 : t2;
  const m1 = c1 < D ? c1 : D;
  const seen = lossSeen;
  const tab = lossTab;
  let best = Infinity;
  let bestN = 0;
  let bestSum = 0;
  let k1b = 0;
  let k2b = 0;
  let k3b = 0;
  for (let k3 = 0; k3 <= m3; k3++)
    for (let k2 = 0; k2 <= m2; k2++)
      for (let k1 = 0; k1 <= m1; k1++) {
        const sum = k1 + 2 * k2 + 3 * k3;
        const nd = k1 + k2 + k3;
        const tieWins = nd < bestN || (nd === bestN && sum < bestSum);
        const low = lambda * sum;
        if (tieWins ? low >= best + 1e-9 : low >= best - 1e-9) continue; // cannot win
        const p = sum < D ? sum : D;
        const cost = (seen[p] === pxStamp ? tab[p] : lossAt(p)) + low;
        if (cost < best - 1e-9 || (cost < best + 1e-9 && tieWins)) {
          best = cost;
          bestN = nd;
          bestSum = sum;
          k1b = k1;
          k2b = k2;
          k3b = k3;
        }
      }
  pickD1 = k1b;
  pickD2 = k2b;
  pickD3 = k3b;
}

// The volley being priced for the shield policies (priceVolley): value and units it would kill
// with p points cancelled are lossTab[p] and killsTab[p], made when first asked for (lossAt).
let pxM = 0;
let pxT = -1;
let pxA = 0;
let pxSpill = false;
let pxArcherFirst = false;
let pxStamp = 1;
let lossSeen = new Int32Array(0); // lossTab[p] is current when lossSeen[p] === pxStamp
const PXW = new Int32Array(SIDE); // per listed target: units the mage part leaves
const PXT = new Int32Array(SIDE); // which listed targets are of type T
let pxNT = 0;
/** Test hook: price volleys and mage targets on a copy of the side, as before the short lists. */
let copyPricing = false;

/**
 * Get ready to price a volley (M at type T, A free; per component, H8 (b), one of them is 0)
 * for side s's shield choice. With a sorting policy and no lasting wounds (H2 DEFAULT and (c))
 * or per-mage targets, the price of p points cancelled is a what-if `applyVolley` on the listed
 * targets (`dryAllocate`), made only for the p the shield policy asks about (`lossAt`).
 * Otherwise every p up to what the pool can cancel is priced at once, by the volley itself on a
 * copy of the side (tmp; with random allocation that rolls dice, so all of them, in order).
 */
function priceVolley(c: FantasyCompiled, rng: RngState, s: number, M: number, T: number, A: number, typeMask: number, groupMask: number): void {
  pxM = M;
  pxT = T;
  pxA = A;
  pxSpill = c.mageTargeting === 2;
  pxArcherFirst = c.archerFirst === 1;
  if (++pxStamp === 1 << 30) {
    // a module variable past the small-integer range would be a boxed number, made anew at each change
    lossSeen.fill(0);
    pxStamp = 1;
  }
  if (!copyPricing && c.alloc !== P_RANDOM && c.alloc !== P_KNAPSACK && c.leftover !== 1 && c.mageTargeting !== 1) {
    // chooseMageType listed the same targets when M > 0 (the same policy: not random)
    if (M === 0) listTargets(cnt, s, typeMask, groupMask, c.alloc, 0);
    // the targets of type T, for the mage part
    const vl = VL;
    const n = vLen;
    let nt = 0;
    for (let i = 0; i < n; i++) if (vl[VS * i + 3] === T) PXT[nt++] = i;
    pxNT = nt;
    return;
  }
  let D = M + A;
  // No spending can cancel more than the pool holds: the table is only needed up to there.
  const poolSum = pool[s * 4 + 1] + 2 * pool[s * 4 + 2] + 3 * pool[s * 4 + 3];
  if (poolSum < D) D = poolSum;
  for (let p = 0; p <= D; p++) {
    killedValue = 0;
    killedUnits = 0;
    copySide(cnt, tmp, s);
    splitCancel(pxArcherFirst, M, A, p);
    applyVolley(c, rng, tmp, s, M, T, A, CUT[0], CUT[1], typeMask, groupMask);
    lossTab[p] = killedValue;
    killsTab[p] = killedUnits;
    lossSeen[p] = pxStamp;
  }
}

/** Value (x10) the priced volley kills with p points cancelled (and killsTab[p]: units). */
function lossAt(p: number): number {
  if (lossSeen[p] === pxStamp) return lossTab[p];
  // applyVolley's steps on the listed targets: the mage part at type T (the rest spills over
  // with H5 (c)), then the free part, each `allocate` with wasted leftovers. The shares never
  // exceed their parts, so nothing here goes below 0.
  splitCancel(pxArcherFirst, pxM, pxA, p);
  let m = pxM - CUT[0];
  let ar = pxA - CUT[1];
  const px = VL;
  const left = PXW; // units of type T the mage part leaves
  let value = 0;
  let units = 0;
  const mages = m > 0 && pxT >= 0;
  if (mages) {
    const nt = pxNT;
    for (let j = 0; j < nt; j++) {
      const b = VS * PXT[j];
      let k = px[b + 2];
      if (m > 0) {
        const h = px[b];
        const kill = m < h ? 0 : m >= k * h ? k : (m / h) | 0;
        k -= kill;
        m -= kill * h;
        value += kill * px[b + 1];
        units += kill;
      }
      left[PXT[j]] = k;
    }
    if (pxSpill) ar += m;
  }
  const n = vLen;
  for (let i = 0; i < n; i++) {
    const b = VS * i;
    if (ar < px[b + 4]) break; // nobody from here on dies of what is left
    const h = px[b];
    if (ar < h) continue;
    const k = mages && px[b + 3] === pxT ? left[i] : px[b + 2];
    const kill = ar >= k * h ? k : (ar / h) | 0;
    ar -= kill * h;
    value += kill * px[b + 1];
    units += kill;
  }
  lossTab[p] = value;
  killsTab[p] = units;
  lossSeen[p] = pxStamp;
  return value;
}

/** Units the priced volley kills with p points cancelled. */
function killsAt(p: number): number {
  lossAt(p);
  return killsTab[p];
}

/**
 * A volley (M mage points, A free points) arrives at side s: the dealer picks the mages' target
 * type, the receiver spends shields, then the damage is allocated (4.1 apply_shield_and_damage).
 * Returns the damage that got through the shields.
 */
function receiveVolley(c: FantasyCompiled, rng: RngState, s: number, M: number, A: number, typeMask: number, groupMask: number, phaseA: boolean): number {
  vLen = -1; // no target list yet for this volley
  const T = M > 0 ? chooseMageType(c, rng, s, M, typeMask, groupMask) : -1;
  if (c.leftover === 2 && carry[s] > 0) {
    A += carry[s]; // H2 (c): last phase's leftover joins this phase's free damage
    carry[s] = 0;
  }
  let cm = 0;
  let ca = 0;
  const hasPool = pool[s * 4 + 1] + pool[s * 4 + 2] + pool[s * 4 + 3] > 0;
  // Only the optimal (H9 DEFAULT) and threshold (H9 (d)) policies look at the losses.
  const needLoss = c.shield === 0 || c.shield === 3 || (c.shield === 4 && !phaseA);
  if (hasPool && M + A > 0) {
    if (c.shieldPerComponent === 1) {
      // H8 (b): dice go to the mage part first, then the archer part, each whole
      if (M > 0) {
        if (needLoss) priceVolley(c, rng, s, M, T, 0, typeMask, groupMask);
        cm = spendShields(c, s, M, phaseA);
      }
      if (A > 0 && pool[s * 4 + 1] + pool[s * 4 + 2] + pool[s * 4 + 3] > 0) {
        if (needLoss) priceVolley(c, rng, s, 0, T, A, typeMask, groupMask);
        ca = spendShields(c, s, A, phaseA);
      }
    } else {
      if (needLoss) priceVolley(c, rng, s, M, T, A, typeMask, groupMask);
      splitCancel(c.archerFirst === 1, M, A, spendShields(c, s, M + A, phaseA));
      cm = CUT[0];
      ca = CUT[1];
    }
  }
  // The target list made for this volley (mage target, pricing) is what `allocate` would walk,
  // when it follows the allocation policy and nothing wounds: the damage goes down it directly.
  const listed = vLen >= 0 && vPolicy === c.alloc && c.leftover !== 1 && c.mageTargeting !== 1;
  const left = listed ? applyListed(c, M, T, A, cm, ca) : applyVolley(c, rng, cnt, s, M, T, A, cm, ca, typeMask, groupMask);
  if (c.leftover === 2) carry[s] += left;
  return M + A - cm - ca;
}

/** `applyVolley` down the volley's target list (no per-mage targets, no wounds). */
function applyListed(c: FantasyCompiled, M: number, T: number, A: number, cancelM: number, cancelA: number): number {
  let m = M - cancelM;
  let ar = A - cancelA;
  if (m < 0) m = 0;
  if (ar < 0) ar = 0;
  let left = 0;
  if (m > 0 && T >= 0) {
    const rest = killListed(m, T);
    if (c.mageTargeting === 2) ar += rest; // H5 (c): excess spills to other types
    else left += rest;
  } else left += m;
  return left + killListed(ar, -1);
}

/** `allocate` of D points down the target list (only type T when T >= 0); the points left over. */
function killListed(D: number, T: number): number {
  const a = cnt;
  const vl = VL;
  const len = vLen;
  for (let i = 0; i < len && D > 0; i++) {
    const b = VS * i;
    if (T >= 0 && vl[b + 3] !== T) continue;
    const idx = vl[b + 5];
    const n = a[idx];
    const h = vl[b];
    const kill = kills(D, h, n);
    if (kill === 0) continue;
    a[idx] = n - kill;
    a[vl[b + 6]] -= kill;
    a[vl[b + 7]] -= kill;
    D -= kill * h;
  }
  return D;
}

/** Damage with no shields (melee): allocate with the melee policy (H3), carry per H2 (c). */
function receiveMelee(c: FantasyCompiled, rng: RngState, s: number, D: number, groupMask: number): void {
  if (c.leftover === 2 && carry[s] > 0) {
    D += carry[s];
    carry[s] = 0;
  }
  const policy = c.meleeAlloc === 0 ? c.alloc : c.meleeAlloc === 1 ? P_RECEIVER : P_RANDOM;
  const left = allocate(c, rng, cnt, s, D, ALL_TYPES, groupMask, policy);
  if (c.leftover === 2) carry[s] += left;
}

function rollPool(c: FantasyCompiled, rng: RngState, s: number, accumulate: boolean): void {
  if (!accumulate) {
    pool[s * 4 + 1] = 0;
    pool[s * 4 + 2] = 0;
    pool[s * 4 + 3] = 0;
  }
  const n = countType(cnt, s, CLE, ALL_GROUPS);
  if (!perDie) {
    if (n === 0) return;
    // the faces of n d3: the 1s are Binomial(n, 1/3), the 2s Binomial(rest, 1/2)
    const ones = aliasDraw(rng, THIRD[n]);
    const twos = aliasDraw(rng, HALF[n - ones]);
    pool[s * 4 + 1] += ones;
    pool[s * 4 + 2] += twos;
    pool[s * 4 + 3] += n - ones - twos;
    return;
  }
  for (let i = 0; i < n; i++) pool[s * 4 + rollDie(rng, 3, c.t3)]++;
}

/** Melee total of side s's fighters (phase 5): each unit's melee die, plus Might d6 (H23). */
function meleeTotal(c: FantasyCompiled, rng: RngState, s: number, groupMask: number): number {
  const might = c.might[s];
  const mightDice = might > 0 && (c.captainUnit === 0 || countType(cnt, s, CAP, ALL_GROUPS) > 0) ? might : 0;
  if (!perDie) {
    // the same dice by size (MELEE_DIE): d6 infantry, cavalry and Might; d3 archers; d2 mages, clerics
    const n6 = countType(cnt, s, INF, groupMask) + countType(cnt, s, CAV, groupMask) + mightDice;
    const n2 = countType(cnt, s, MAG, groupMask) + countType(cnt, s, CLE, groupMask);
    return sumDice(rng, n6, 6) + sumDice(rng, countType(cnt, s, ARC, groupMask), 3) + sumDice(rng, n2, 2);
  }
  let sum = 0;
  for (let t = 0; t < NT; t++) {
    const die = c.meleeDie[t];
    if (die === 0) continue;
    sum += sumDice(rng, countType(cnt, s, t, groupMask), die);
  }
  return sum + sumDice(rng, mightDice, 6);
}

// === 4.1 OPEN_FIELD_BATTLE ===================================================================

let outcome = 0; // 1 attacker wins, 2 defender wins, 3 undecided
let endRound = 0;
let wallHp = 0;

function sideOut(s: number): boolean {
  const i = TOTG + s * G;
  return cnt[i] + cnt[i + 1] + cnt[i + 2] === 0;
}

/** Set `outcome` if a side is gone (both gone: undecided). */
function checkEnd(): boolean {
  const a = sideOut(0);
  const d = sideOut(1);
  if (!a && !d) return false;
  outcome = a && d ? 3 : a ? 2 : 1;
  return true;
}

function capOutcome(c: FantasyCompiled): void {
  if (c.capResult === 2) outcome = 2;
  else if (c.capResult === 3) outcome = 3;
  else {
    const ha = hpSide(cnt, 0);
    const hd = hpSide(cnt, 1);
    outcome = ha > hd ? 1 : hd > ha ? 2 : 3;
  }
}

function record(c: FantasyCompiled, acc: Float64Array, r: number): void {
  addState(acc, roundBase(c) + r * ROUND_STRIDE);
}

/** Add the current state (wall HP, alive per side and type, and their squares) to dst at b. */
function addState(dst: Float64Array, b: number): void {
  const w = wallHp > 0 ? wallHp : 0;
  dst[b] += w;
  dst[b + 1] += w * w;
  const slots = SLOTS;
  const tot = SLOT_TOT;
  const a = cnt;
  for (let j = 0; j < slots.length; j++) {
    const i = tot[j];
    const n = a[i] + a[i + NT] + a[i + 2 * NT];
    const k = b + 2 + slots[j] * 2;
    dst[k] += n;
    dst[k + 1] += n * n;
  }
}

/** Phases 2-4 (ranged A, ranged B, charge) of the open field, with the current pools. */
function openFieldVolleys(c: FantasyCompiled, rng: RngState, acc: Float64Array, firstPass: boolean): void {
  const attMages = countType(cnt, 0, MAG, ALL_GROUPS);
  const attArchers = countType(cnt, 0, ARC, ALL_GROUPS);
  // H9 DEFAULT: the open-field defender reserves dice for the coming charge at lambda per pip.
  let lambda = 0;
  const cav = countType(cnt, 0, CAV, ALL_GROUPS);
  const pips = pool[5] + 2 * pool[6] + 3 * pool[7];
  if (c.shield === 0 && cav > 0 && pips > 0) {
    let v = 0;
    let hpTot = 0;
    for (let t = 0; t < NT; t++) {
      const n = countType(cnt, 1, t, ALL_GROUPS);
      v += n * c.value[NT + t];
      hpTot += n * c.hp[t];
    }
    lambda = hpTot > 0 ? ((3.5 * cav) / pips) * (v / hpTot) : 0;
  }
  // Phase A: attacker fires.
  mageRolls = rollsA;
  rollVolley(c, rng, attMages, attArchers);
  const MA = volleyM;
  const AA = volleyA;
  const magesA = volleyMages;
  // H6 (b): the defender's volley is rolled from the state before Phase A's casualties.
  let MB = 0;
  let AB = 0;
  let magesB = 0;
  if (c.simultaneousRanged === 1) {
    mageRolls = rollsB;
    rollVolley(c, rng, countType(cnt, 1, MAG, ALL_GROUPS), countType(cnt, 1, ARC, ALL_GROUPS));
    MB = volleyM;
    AB = volleyA;
    magesB = volleyMages;
    mageRolls = rollsA;
  }
  volleyMages = magesA;
  LAMBDA[0] = lambda;
  const through = receiveVolley(c, rng, 1, MA, AA, ALL_TYPES, ALL_GROUPS, true);
  LAMBDA[0] = 0;
  if (firstPass) {
    acc[A_VOLLEY] += through;
    acc[A_VOLLEY2] += through * through;
    acc[histBase(c) + (through <= c.maxVolley ? through : c.maxVolley)] += 1;
  }
  // Phase B: defender fires (H6 DEFAULT: survivors only).
  mageRolls = rollsB;
  if (c.simultaneousRanged === 0) {
    rollVolley(c, rng, countType(cnt, 1, MAG, ALL_GROUPS), countType(cnt, 1, ARC, ALL_GROUPS));
    MB = volleyM;
    AB = volleyA;
  } else volleyMages = magesB;
  receiveVolley(c, rng, 0, MB, AB, ALL_TYPES, ALL_GROUPS, false);
  mageRolls = rollsA;
  // Phase 4: cavalry charge, attacker only; the defender may shield it.
  const ncav = countType(cnt, 0, CAV, ALL_GROUPS);
  if (ncav > 0) {
    const C = sumDice(rng, ncav, 6);
    receiveVolley(c, rng, 1, 0, C, ALL_TYPES, ALL_GROUPS, false);
  }
}

/** Phase 5 once: both sides roll, then both take their damage (simultaneous). */
function meleeExchange(c: FantasyCompiled, rng: RngState, attGroups: number): void {
  const Ma = meleeTotal(c, rng, 0, attGroups);
  const Md = meleeTotal(c, rng, 1, ALL_GROUPS);
  receiveMelee(c, rng, 1, Ma, ALL_GROUPS);
  receiveMelee(c, rng, 0, Md, attGroups);
}

/** An open-field battle from round `start` (1 for the open field; after a breach for H21 (b)). */
function openField(c: FantasyCompiled, rng: RngState, acc: Float64Array, start: number): void {
  rollPool(c, rng, 0, false);
  rollPool(c, rng, 1, false);
  let r = start;
  for (; r <= c.maxRounds; r++) {
    carry[0] = 0;
    carry[1] = 0;
    const full = r === start || c.openRounds === 2; // H7 (c): phases 2-5 every round
    if (full) openFieldVolleys(c, rng, acc, r === 1 && c.siege === 0);
    if (!checkEnd()) meleeExchange(c, rng, ALL_GROUPS);
    if (checkEnd()) return endTrial(c, r);
    if (c.openRounds === 1) {
      // H7 (b): one pass, then compare survivors
      const ha = hpSide(cnt, 0);
      const hd = hpSide(cnt, 1);
      outcome = ha > hd ? 1 : hd > ha ? 2 : 3;
      return endTrial(c, r);
    }
    record(c, acc, r);
  }
  endRound = c.maxRounds;
  acc[A_CAP] += 1;
  capOutcome(c);
}

// === 4.2 SIEGE_ROUND =========================================================================

let breachRound = 0;

function climbs(c: FantasyCompiled, rng: RngState): void {
  if (c.climbers === 0) return;
  for (let t = INF; t <= CAV; t++) {
    if (t === CAV && (c.climbers < 2 || c.cavalryClimb === 0)) continue; // policy, H18
    const b0 = off(0, 0, t);
    const b1 = off(0, 1, t);
    const b2 = off(0, 2, t);
    for (let h = 1; h <= Hmax; h++) {
      const n = cnt[b0 + h];
      if (n === 0) continue;
      if (!perDie && c.failedClimb !== 1) {
        // One class at once: successes ~ Binomial(n, p), the lost among the failures ~
        // Binomial(failures, P(2d3 >= h)); H17 (b) needs each failure's damage (per die).
        const ok = aliasDraw(rng, CLIMB_OK[n]);
        const lost = aliasDraw(rng, CLIMB_DIES[h < 2 ? 0 : h > 7 ? 5 : h - 2][n - ok]);
        const out = c.failedClimb === 2 ? n : ok + lost; // H17 (c): the failures may not retry
        cnt[b0 + h] -= out;
        cnt[TOT + t] -= out;
        cnt[TOTG] -= out;
        cnt[b1 + h] += ok;
        cnt[TOT + NT + t] += ok;
        cnt[TOTG + 1] += ok;
        if (c.failedClimb === 2) {
          cnt[b2 + h] += n - ok - lost;
          cnt[TOT + 2 * NT + t] += n - ok - lost;
          cnt[TOTG + 2] += n - ok - lost;
        }
        continue;
      }
      for (let i = 0; i < n; i++) {
        const d20 = rollDie(rng, 20, c.t20);
        const ok = c.climbGt === 1 ? d20 > c.dc : d20 >= c.dc; // H16
        if (ok) {
          addCount(cnt, b0 + h, -1);
          addCount(cnt, b1 + h, 1);
          continue;
        }
        const dmg = rollDie(rng, 3, c.t3) + rollDie(rng, 3, c.t3); // 2d3 on a failed climb
        if (dmg >= h) {
          addCount(cnt, b0 + h, -1); // the unit is lost
        } else if (c.failedClimb === 1) {
          cnt[b0 + h]--; // H17 (b): the damage stays (same type and group: totals unchanged)
          cnt[b0 + h - dmg]++;
        } else if (c.failedClimb === 2) {
          addCount(cnt, b0 + h, -1); // H17 (c): may not retry
          addCount(cnt, b2 + h, 1);
        } // H17 DEFAULT: no lasting damage
      }
    }
  }
}

/** Step 2: attacker ranged. Engines batter the wall; mages and archers per the fire policy. */
function attackerRanged(c: FantasyCompiled, rng: RngState): void {
  let wallUp = wallHp > 0;
  let wallDmg = 0;
  if (wallUp) wallDmg += sumDice(rng, 2 * countType(cnt, 0, ENG, ALL_GROUPS), 6); // 2d6 per engine
  if (wallUp && wallDmg > 0 && c.wallFall === 0) {
    // H28 DEFAULT: "Start with Siege engine" (seed 4.2 step 2): the engines' damage lands before
    // the mages and archers fire, so a wall it brings to 0 is down for their volley too (no
    // dice removed, any target), as it is for the tower bonus, the climbs and the breach check.
    if (c.shieldsVsWall === 1) {
      pickNoWaste(1, wallDmg); // H14 (b): shields meet the engines' damage as it lands
      wallDmg -= spendPick(1);
      if (wallDmg < 0) wallDmg = 0;
    }
    wallHp -= wallDmg;
    if (wallHp < 0) wallHp = 0;
    wallDmg = 0;
    wallUp = wallHp > 0;
  }
  const mages = countType(cnt, 0, MAG, ALL_GROUPS);
  const archers = countType(cnt, 0, ARC, ALL_GROUPS);
  // How many of each shoot the defenders (the rest shoot the wall), H12.
  let magesD = mages;
  let archersD = archers;
  if (wallUp) {
    if (c.fireSplit === 0) {
      let atWall = c.fire === 1;
      if (c.fire === 2) atWall = wallDmg + 2 * mages + 1.5 * archers >= wallHp; // finish_wall
      if (atWall) {
        magesD = 0;
        archersD = 0;
      }
    } else if (c.fireSplit === 1) {
      magesD = Math.round(mages * c.shareDefenders);
      archersD = Math.round(archers * c.shareDefenders);
    } else {
      if (c.mageFire === 1) magesD = 0;
      if (c.archerFire === 1) archersD = 0;
    }
    wallDmg += sumDice(rng, mages - magesD, 3) + sumDice(rng, archers - archersD, 2);
    if (c.shieldsVsWall === 1 && wallDmg > 0) {
      pickNoWaste(1, wallDmg); // H14 (b): use it or lose it against the wall
      wallDmg -= spendPick(1);
      if (wallDmg < 0) wallDmg = 0;
    }
    wallHp -= wallDmg;
    if (wallHp < 0) wallHp = 0;
  }
  if (magesD + archersD === 0) return;
  // Fire at the defenders: while the wall stands, remove k dice (H11) and only the units on the
  // wall are legal targets (H13).
  let M = 0;
  let A = 0;
  if (wallUp) {
    const k = c.removeK;
    if (c.diceRemoval === 0 || c.diceRemoval === 2) {
      let m = magesD;
      let a = archersD;
      if (c.diceRemoval === 0) {
        const rm = k < m ? k : m;
        m -= rm;
        a -= k - rm < a ? k - rm : a;
      } else {
        const ra = k < a ? k : a;
        a -= ra;
        m -= k - ra < m ? k - ra : m;
      }
      rollVolley(c, rng, m, a); // H26: nothing left, no damage
      M = volleyM;
      A = volleyA;
    } else {
      rollVolley(c, rng, magesD, archersD);
      M = volleyM;
      A = volleyA;
      if (c.diceRemoval === 3) {
        // H11 (d): k points off the total, archer part first
        let cut = k;
        const ca = cut < A ? cut : A;
        A -= ca;
        cut -= ca;
        M -= cut < M ? cut : M;
      } else {
        // H11 (b): roll everything, drop the k highest results (mage dice first on ties).
        // The archer dice are d2: A = n1 + 2 n2 with n1 + n2 = archersD.
        const n2 = A - archersD;
        const n1 = archersD - n2;
        let cut = k;
        for (let face = 3; face >= 1 && cut > 0; face--) {
          for (let i = 0; i < volleyMages && cut > 0; i++) {
            if (mageRolls[i] === face) {
              M -= face;
              mageRolls[i] = 0;
              cut--;
            }
          }
          if (face <= 2) {
            const nFace = face === 2 ? n2 : n1;
            const drop = nFace < cut ? nFace : cut;
            A -= drop * face;
            cut -= drop;
          }
        }
        // compact the kept mage dice
        let j = 0;
        for (let i = 0; i < volleyMages; i++) if (mageRolls[i] > 0) mageRolls[j++] = mageRolls[i];
        volleyMages = j;
      }
    }
  } else {
    rollVolley(c, rng, magesD, archersD);
    M = volleyM;
    A = volleyA;
  }
  const targets = wallUp && c.anyTargets === 0 ? (1 << MAG) | (1 << ARC) : ALL_TYPES;
  if (countSide(cnt, 1, targets, ALL_GROUPS) === 0) return;
  receiveVolley(c, rng, 1, M, A, targets, ALL_GROUPS, false);
}

/** Step 3: defender ranged, with the 2d3 tower bonus (H15); legal targets per H22, H25. */
function defenderRanged(c: FantasyCompiled, rng: RngState): void {
  rollVolley(c, rng, countType(cnt, 1, MAG, ALL_GROUPS), countType(cnt, 1, ARC, ALL_GROUPS));
  let A = volleyA;
  const M = volleyM;
  if (c.tower === 1 || (c.tower === 0 && wallHp > 0)) A += sumDice(rng, 2, 3);
  if (M + A === 0) return;
  const typeMask = c.enginesTargetable === 1 ? ALL_TYPES : ALL_TYPES & ~(1 << ENG);
  const groupMask = c.poolTargetable === 1 ? ALL_GROUPS : ALL_GROUPS & ~2;
  if (countSide(cnt, 0, typeMask, groupMask) === 0) return;
  receiveVolley(c, rng, 0, M, A, typeMask, groupMask, false);
}

function siege(c: FantasyCompiled, rng: RngState, acc: Float64Array): void {
  wallHp = c.wallHp;
  let melee = false;
  const startUnits = countSide(cnt, 0, ALL_TYPES, ALL_GROUPS);
  for (let r = 1; r <= c.maxRounds; r++) {
    carry[0] = 0;
    carry[1] = 0;
    // 1. Cleric pools, re-rolled every round (H10 (b): unused dice accumulate).
    rollPool(c, rng, 0, c.poolAccumulates === 1);
    rollPool(c, rng, 1, c.poolAccumulates === 1);
    attackerRanged(c, rng);
    if (checkEnd()) return endTrial(c, r);
    defenderRanged(c, rng);
    if (checkEnd()) return endTrial(c, r);
    if (wallHp > 0) climbs(c, rng);
    if (checkEnd()) return endTrial(c, r);
    // 5. Breach check.
    const breachNow = wallHp <= 0 || cnt[TOTG + 1] >= c.breachThreshold; // the breach pool (group 1)
    const fresh = breachNow && breachRound === 0;
    if (fresh) {
      breachRound = r;
      acc[A_BREACHED] += 1;
      acc[A_BREACH_ROUND] += r;
      acc[A_BREACH_ROUND2] += r * r;
      acc[A_BY_ROUND + r - 1] += 1;
    }
    if (fresh && c.meleeStart === 2) melee = true; // H21 (c): melee this round
    if (melee) {
      const attGroups = wallHp <= 0 || c.meleeStart === 3 ? ALL_GROUPS : 2;
      if (countSide(cnt, 0, ALL_TYPES, attGroups) > 0) meleeExchange(c, rng, attGroups);
      if (checkEnd()) return endTrial(c, r);
    }
    if (breachNow && !melee) {
      if (c.meleeStart === 1) {
        // H21 (b): from the next round on, a full open-field battle
        record(c, acc, r);
        if (r === c.maxRounds) break;
        openField(c, rng, acc, r + 1);
        return;
      }
      melee = true; // H21 DEFAULT and (d): melee from the next round
    }
    // A breach force wiped out with the wall standing ends the melee until the next breach.
    // H30 (b) stays_open: the melee goes on, fought by whoever is in the pool (none: no exchange).
    if (melee && wallHp > 0 && c.meleeStart !== 3 && c.repelledStaysOpen === 0 && cnt[TOTG + 1] === 0) {
      melee = false; // the first breach still counts: metrics are "ever breached"
    }
    // H27: the attacker withdraws below its threshold.
    if (c.withdrawUnits > 0 && countSide(cnt, 0, ALL_TYPES, ALL_GROUPS) < c.withdrawUnits && startUnits > 0) {
      outcome = 2;
      acc[A_WITHDREW] += 1;
      return endTrial(c, r);
    }
    record(c, acc, r);
  }
  endRound = c.maxRounds;
  acc[A_CAP] += 1;
  capOutcome(c);
}

/** The battle ends in round r: that round's state is also every later round's (fillRecords). */
function endTrial(c: FantasyCompiled, r: number): void {
  endRound = r;
  fillRecords(c, r - 1);
}

/**
 * Rounds r+1..R keep the state the battle ended with (after round r + 1: endTrial). Rather than adding it
 * to every later round of the accumulator trial by trial, a trial adds it once to TAIL[r], and
 * `flushTail` adds each TAIL[r] to rounds r+1..R (running sums) every 1024 trials and at the
 * end of the kernel call. Every value is an integer (counts, wall HP, their squares), so the
 * sums are the same exactly. (Flushing often also keeps flushTail hot enough to be optimised:
 * run once per call it would stay in the interpreter, which boxes every number it adds.)
 */
let TAIL = new Float64Array(0);
let tailFrom = 0; // lowest round with something in TAIL (maxRounds when empty)

function fillRecords(c: FantasyCompiled, r: number): void {
  if (r >= c.maxRounds) return;
  addState(TAIL, r * ROUND_STRIDE);
  if (r < tailFrom) tailFrom = r;
}

function flushTail(c: FantasyCompiled, acc: Float64Array): void {
  const R = c.maxRounds;
  if (tailFrom >= R) return;
  const base = roundBase(c);
  for (let k = 0; k < ROUND_STRIDE; k++) {
    let run = 0;
    for (let r = tailFrom; r < R; r++) {
      const i = r * ROUND_STRIDE + k;
      run += TAIL[i];
      TAIL[i] = 0;
      if (run !== 0) acc[base + (r + 1) * ROUND_STRIDE + k] += run;
    }
  }
  tailFrom = R;
}

export function runFantasy(c: FantasyCompiled, stream: RngState, trials: number, acc: Float64Array, trace?: Trace): void {
  const rng = TRIAL;
  ensure(c);
  if (TAIL.length < (c.maxRounds + 1) * ROUND_STRIDE) TAIL = new Float64Array((c.maxRounds + 1) * ROUND_STRIDE);
  tailFrom = c.maxRounds;
  // Round 0 (before the battle) is the same state in every trial: recorded once for all of them.
  cnt.set(START);
  wallHp = c.siege === 1 ? c.wallHp : 0;
  const b0 = roundBase(c);
  acc[b0] += trials * wallHp;
  acc[b0 + 1] += trials * wallHp * wallHp;
  for (let j = 0; j < SLOTS.length; j++) {
    const n = c.units[SLOTS[j]];
    acc[b0 + 2 + SLOTS[j] * 2] += trials * n;
    acc[b0 + 3 + SLOTS[j] * 2] += trials * n * n;
  }
  acc[A_TRIALS] += trials; // before the loop: nothing may follow it (the Kernel contract, systems/types.ts)
  const reset = RESET;
  const resetVal = RESET_VAL;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    for (let j = 0; j < reset.length; j++) cnt[reset[j]] = resetVal[j];
    for (let k = 0; k < 8; k++) pool[k] = 0;
    carry[0] = 0;
    carry[1] = 0;
    outcome = 0;
    killedValue = 0; // only what-if runs read these: kept small (a module variable past the
    killedUnits = 0; // small-integer range would be a boxed number, made anew at each change)
    endRound = 0;
    breachRound = 0;
    wallHp = c.siege === 1 ? c.wallHp : 0;
    if (checkEnd()) {
      endRound = 0;
      fillRecords(c, 0);
    } else if (c.siege === 1) siege(c, rng, acc);
    else openField(c, rng, acc, 1);
    if (outcome === 1) acc[A_ATT_WINS] += 1;
    else if (outcome === 2) acc[A_DEF_WINS] += 1;
    else acc[A_UNDECIDED] += 1;
    acc[A_ROUNDS] += endRound;
    acc[A_ROUNDS2] += endRound * endRound;
    if ((i & 1023) === 1023 || i === trials - 1) flushTail(c, acc); // the last trial flushes too: nothing may follow the loop
    if (trace !== undefined) writeTrace(trace, i, acc);
  }
}

export const fantasyKernel: Kernel<FantasyCompiled> = {
  run: runFantasy,
  accLength: accLengthFantasy,
};

// Exported for tests: single steps of the kernel on a prepared state.
export const _internals = {
  ensure,
  allocate,
  off,
  cnt: () => cnt,
  pool,
  spendShields(c: FantasyCompiled, s: number, D: number, phaseA: boolean, lambda: number): number {
    LAMBDA[0] = lambda;
    const spent = spendShields(c, s, D, phaseA);
    LAMBDA[0] = 0;
    return spent;
  },
  /** The mage and archer shares of a total cancellation (splitCancel). */
  splitCancel(c: FantasyCompiled, M: number, A: number, cancel: number): [number, number] {
    splitCancel(c.archerFirst === 1, M, A, cancel);
    return [CUT[0], CUT[1]];
  },
  /** Price every volley and mage target on a copy of the side (the reference for the short lists). */
  setCopyPricing(on: boolean): void {
    copyPricing = on;
  },
  /** Set the price of a volley by hand: value (x10) and units lost with p points cancelled. */
  setPrices(loss: number[], kills: number[]): void {
    pxStamp++;
    for (let p = 0; p < loss.length; p++) {
      lossTab[p] = loss[p];
      killsTab[p] = kills[p] ?? 0;
      lossSeen[p] = pxStamp;
    }
  },
  policies: { P_GREEDY, P_LOWEST, P_KNAPSACK, P_RANDOM, P_RECEIVER },
  /** Roll every die (per-die mode) instead of drawing sums and counts from tables. */
  setPerDie(on: boolean): void {
    perDie = on;
  },
  /** Do the running totals agree with the classes they sum (both sides, every group and type)? */
  totalsMatch(): boolean {
    for (let s = 0; s < 2; s++)
      for (let g = 0; g < G; g++) {
        let side = 0;
        for (let t = 0; t < NT; t++) {
          let n = 0;
          for (let h = 1; h < H1; h++) n += cnt[off(s, g, t) + h];
          if (cnt[TOT + (s * G + g) * NT + t] !== n) return false;
          side += n;
        }
        if (cnt[TOTG + s * G + g] !== side) return false;
      }
    return true;
  },
};
