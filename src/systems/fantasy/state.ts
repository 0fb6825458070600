/**
 * The fantasy kernel's state (seed 001, docs/rules/fantasy.md): one `FantasyState` per compiled
 * case, made once (`prepareFantasy`) and handed to every phase of the kernel, which keeps nothing
 * of its own between calls. It holds what the case needs beyond its numbers (allocation orders,
 * dice tables, the count array at a trial's start), the scratch of the allocation and volley
 * phases, and the current trial's state.
 *
 * The state of both armies is a count of units per (side, group, type, current HP) class, so a
 * side of any size is a few dozen integers and damage allocation works on classes, not on units.
 * Groups: 0 ordinary units, 1 the breach pool (climbers over the wall), 2 climbers who failed
 * and may not retry (H17 (c)).
 */
import { dieThreshold, rollDie } from '../../engine/dice.js';
import type { RngState } from '../../engine/rng.js';
import { ROUND_STRIDE } from './accumulator.js';
import * as TYPES from './compile.js';
import type { FantasyCompiled } from './compile.js';
import { aliasDraw, AliasTables, ensureBinomials, ensureClimbOutcomes, ensurePoolFaces, ensurePoolPairs, ensureSums, ensureSums32, ensureVolleys, JOINT_MAX, JOINT_OUTCOMES_MAX, poolPairOutcomes, sums32Outcomes, volleyOutcomes } from './kernel-tables.js';

// The troop types (compile.ts) as this module's own constants: V8 folds a module's own `const`
// into the code, while an imported binding is read and checked at every use. The kernel's other
// modules declare the ones they use the same way; this check holds all of them to compile.ts.
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

// ---- the count array's layout ------------------------------------------------------------------
export const G = 3;
/** Class stride: HP 1..30 (the schema's largest), so the layout is the same for every case. */
export const H1 = 31;
export const SIDE = G * NT * H1; // ints per side
/**
 * Running totals live in the count arrays themselves, after both sides' classes: alive per
 * (side, group, type) at TOT + (s * G + g) * NT + t, and per (side, group) at TOTG + s * G + g.
 * Every change of a class count goes through `addCount`, so counting a type or a side is a few
 * reads instead of a scan of every class.
 */
export const TOT = 2 * SIDE;
export const TOTG = TOT + 2 * G * NT;
export const NTH = NT * H1; // class index / NTH = s * G + g
/** Length of a count array (classes and running totals). */
export const COUNT_LENGTH = TOTG + 2 * G;
export const ALL_TYPES = (1 << NT) - 1;
export const ALL_GROUPS = 7;
/** Ints per entry of an allocation order (FantasyState.ord). */
export const OE = 8;
/** Ints per entry of a volley's target list (FantasyState.vl). */
export const VS = 8;

// Allocation policies (H4 (a)-(d), and the receiver's own choice for H3 (b)).
export const P_GREEDY = 0;
export const P_LOWEST = 1;
export const P_KNAPSACK = 2;
export const P_RANDOM = 3;
export const P_RECEIVER = 4;

/** P(2d3 >= h) for h = 0..7 (rules 4.4): a failed climber of h HP is lost. */
const TWO_D3_AT_LEAST = [1, 1, 1, 8 / 9, 6 / 9, 3 / 9, 1 / 9, 0];
const T2 = dieThreshold(2);
const T3 = dieThreshold(3);
const T6 = dieThreshold(6);

/** How the kernel rolls its dice; the defaults are what runs use, the rest is for tests. */
export interface PrepareOptions {
  /**
   * Roll every die as the rules say, instead of drawing sums of identical dice, cleric pools and
   * classes of climbers from their exact distributions (kernel-tables.ts). Both make the same
   * decisions; only the dice stream differs. Tests hold the table mode to it.
   */
  perDie?: boolean;
  /** Price volleys and mage targets on a copy of the side (the reference for the short target lists). */
  copyPricing?: boolean;
  /** Keep each volley's decisions in the volley table (volley.ts receiveVolley; default true). Tests turn it off. */
  volleyTable?: boolean;
}

/**
 * Everything the kernel reads and writes for one compiled case. Made once per case
 * (`prepareFantasy`): variants alternate trial by trial, so switching cases must cost nothing.
 */
export class FantasyState {
  readonly c: FantasyCompiled;
  readonly perDie: boolean;
  readonly copyPricing: boolean;
  /** The largest HP of any unit of the case (classes 1..hmax). */
  readonly hmax: number;
  /** Whether damage can last (H2 (b), H17 (b)): only then is a unit below its type's full HP. */
  readonly wounds: boolean;
  /**
   * The allocation orders of the sorting policies. A sorting policy (H4 greedy value and lowest
   * HP, the receiver of H3 (b)) orders a side's classes by a key of (threat value, HP), ties in
   * class order (group, type, HP). That order depends only on the case, so it is sorted once over
   * every class the battle can reach (full HP, or any HP when wounds persist; the breach groups
   * for the attacker's climbers), and an allocation walks it, skipping empty classes.
   * Classes per (side, policy) in allocation order, entries ordFrom[k] .. ordFrom[k + 1] for
   * k = s * 3 + (0 greedy, 1 lowest HP, 2 receiver); entry e is ord[e * OE ..]: class index,
   * type bit, group bit, HP, value (x10), index of its (side, group, type) total, of its (side,
   * group) total, type.
   */
  readonly ord: Int32Array;
  readonly ordFrom: Int32Array;
  /** The count array at the start of every trial (classes and running totals). */
  readonly start: Int32Array;
  /**
   * side * NT + type of every type a side has (the attrition curve's rows; the others stay 0),
   * the first `slotsGrouped` of them the types whose units can leave group 0 (climbers).
   */
  readonly slots: Int32Array;
  readonly slotsGrouped: number;
  /**
   * Every class a trial can reach (those in the allocation orders), then their running totals:
   * the entries a trial can change, reset from `start` at each trial's start (the rest of the
   * count array stays 0); padded to a multiple of four with its last entry.
   */
  readonly reset: Int32Array;
  /** What each entry of `reset` is reset to (start[reset[j]], one read fewer per entry). */
  readonly resetVal: Int32Array;
  /** Per slot: the index of its (side, group 0, type) running total (+NT, +2NT: groups 1, 2). */
  readonly slotTot: Int32Array;
  /** Table mode: the case's alias tables (`al`), and the bases of each kind of draw in them. */
  readonly al: Int32Array;
  /** Sums of n d2, d3, d6 (by n). */
  readonly sum2: Int32Array;
  readonly sum3: Int32Array;
  readonly sum6: Int32Array;
  /** Binomial(n, 1/3) and Binomial(n, 1/2): a pool's 1s, then its 2s among the rest. */
  readonly third: Int32Array;
  readonly half: Int32Array;
  /** Binomial(n, P(climb succeeds)), and Binomial(n, P(2d3 >= HP)) for HP 2..7 at [HP - 2]. */
  readonly climbOk: Int32Array;
  readonly climbDies: Int32Array[];
  /**
   * One draw for what would be two (kernel-tables.ts, "joint outcomes"), where the case's numbers
   * keep the tables small (empty otherwise, and the kernel draws the two apart): a pool's faces
   * by its clerics (code ones | twos << 8); a class of climbers' outcome by its units, per HP as
   * climbDies (code ok | lost << 8); and the total of n3 d3 and n2 d2 at n3 * (sum32N2 + 1) + n2.
   */
  readonly poolFaces: Int32Array;
  readonly climbJoint: Int32Array[];
  readonly sum32: Int32Array;
  readonly sum32N3: number;
  readonly sum32N2: number;
  /**
   * A volley's M and A in one draw (code M | A << 16) by its mages m and archers a, at m *
   * (volNA + 1) + a (volNM -1: none); with the tower's 2d3 in A, the defender's in a siege
   * (towerNM -1: none). Both sides' cleric pools in one draw by their clerics, at na *
   * (poolND + 1) + nd (poolND -1: none).
   */
  readonly volley: Int32Array;
  readonly volNM: number;
  readonly volNA: number;
  readonly volleyTower: Int32Array;
  readonly towerNM: number;
  readonly towerNA: number;
  readonly poolPairs: Int32Array;
  readonly poolND: number;

  // ---- the current trial ----
  /** The trial's generator state, drawn from the chunk's stream at each trial's start. */
  readonly rng: RngState = new Int32Array(4);
  /** Unit counts per class, then the running totals (layout above). */
  readonly cnt = new Int32Array(COUNT_LENGTH);
  /** Cleric shield pools: [side * 4 + face], faces 1..3. */
  readonly pool = new Int32Array(8);
  /** H2 (c): each side's leftover damage carried to its next phase. */
  readonly carry = new Int32Array(2);
  wallHp = 0;
  /** 1 attacker wins, 2 defender wins, 3 undecided. */
  outcome = 0;
  endRound = 0;
  breachRound = 0;

  // ---- allocation (H2-H4) ----
  /** Copies of a side for what-if allocations. */
  readonly tmp = new Int32Array(COUNT_LENGTH);
  readonly tmp2 = new Int32Array(COUNT_LENGTH);
  /** A side's non-empty legal classes (listClasses): class index, HP, value; units left (random order). */
  readonly clsIdx = new Int32Array(SIDE);
  readonly clsH = new Int32Array(SIDE);
  readonly clsV = new Int32Array(SIDE);
  readonly clsLeft = new Int32Array(SIDE);
  /** Value (x10) and units killed by allocations since the caller last zeroed them (what-if runs read them). */
  killedValue = 0;
  killedUnits = 0;
  /** The knapsack's table and items; grown to the largest allocation seen, never per trial. */
  knapDp: Int32Array;
  knapTake = new Uint8Array(0);
  knapItemCls = new Int32Array(0);
  knapItemK = new Int32Array(0);

  // ---- volleys (4.1, H5, H8, H9) ----
  /** The dice of the volley being applied (rollsA or rollsB: Phase A's and Phase B's). */
  mageRolls: Int32Array;
  readonly rollsA: Int32Array;
  readonly rollsB: Int32Array;
  readonly mageTmp: Int32Array;
  /** The last rolled volley: mage damage, archer (and tower) damage, mage dice kept (in mageRolls). */
  volleyM = 0;
  volleyA = 0;
  volleyMages = 0;
  /** What M mage points kill at each type (listTargets): points left, value killed. */
  readonly mageLeft = new Int32Array(NT);
  readonly mageValue = new Int32Array(NT);
  /**
   * A volley's legal targets as a short list in the allocation order (listTargets). Entry i is
   * vl[i * VS ..]: HP, value (x10), units, type, the least HP from it to the end of the list,
   * class index, indices of its (side, group, type) and (side, group) totals.
   */
  readonly vl = new Int32Array(VS * SIDE);
  vLen = 0;
  /** The policy whose order the list follows. */
  vPolicy = -1;
  /** splitCancel's two shares: cut[0] off the mage part, cut[1] off the archer (free) part. */
  readonly cut = new Int32Array(2);
  /**
   * The price per pip of a shield die kept back (H9 DEFAULT's lambda for the open-field
   * defender's Phase A; 0 otherwise). A typed array: a fractional number in a field or passed to
   * a function that is not inlined would be boxed on the heap at every change.
   */
  readonly lambda = new Float64Array(1);
  /** The shield dice chosen (faces 1, 2, 3). */
  pickD1 = 0;
  pickD2 = 0;
  pickD3 = 0;
  /**
   * The volley being priced for the shield policies (priceVolley): value and units it would kill
   * with p points cancelled are lossTab[p] and killsTab[p], current when lossSeen[p] === pxStamp.
   */
  pxM = 0;
  pxT = -1;
  pxA = 0;
  pxSpill = false;
  pxArcherFirst = false;
  pxStamp = 1;
  readonly lossTab: Int32Array;
  readonly killsTab: Int32Array;
  readonly lossSeen: Int32Array;
  /** Per listed target: units the mage part leaves; which listed targets are of the mage type. */
  readonly pxw = new Int32Array(SIDE);
  readonly pxt = new Int32Array(SIDE);
  pxNT = 0;

  // ---- the volley table (volley.ts receiveVolley) ----
  /** Whether volleys go through the table: a sorting policy, no lasting wounds, no per-mage targets. */
  readonly memoOn: boolean;
  /** The table's entries (16 ints each, 2^13 of them in sets of two; empty when memoOn is false), shared by equal cases (memoTableOf). */
  readonly memo: Int32Array;
  /** The key of the volley being looked up. */
  readonly memoKey = new Int32Array(6);
  /**
   * Two lists of legal classes a side (list q = 2 * side + 0 or 1; a side meets two sets of
   * masks, as the defender before and after its wall falls): for the masks legalMasks[q], offsets
   * into ord (13 a list), how many (legalN[q]); legalAt[s] is the list side s used last.
   */
  readonly legalOrd = new Int32Array(4 * 13);
  /** The same classes' indices in the count array. */
  readonly legalIdx = new Int32Array(4 * 13);
  /** The indices of their (side, group, type) and (side, group) running totals. */
  readonly legalTot = new Int32Array(4 * 13);
  readonly legalTotG = new Int32Array(4 * 13);
  /** Their (side, group 0, type) running total's index, and their slot's offset in a round's records (record.ts). */
  readonly legalTyp = new Int32Array(4 * 13);
  readonly legalRec = new Int32Array(4 * 13);
  /** Their HP (all 0 when a listed class has value 0: then every class is keyed, volley.ts memoFind). */
  readonly legalHp = new Int32Array(4 * 13);
  readonly legalMasks = new Int32Array(4);
  readonly legalN = new Int32Array(4);
  readonly legalAt = Int32Array.of(1, 3);

  // ---- the round records (record.ts) ----
  /** The round being played: the one a loss or a blow to the wall is recorded in (record.ts noteLoss). */
  recRound = 0;
  /** The records' changes by round since the last flush (the accumulator's layout of a round, ROUND_STRIDE a round). */
  readonly recD: Float64Array;

  constructor(c: FantasyCompiled, opts: PrepareOptions = {}) {
    this.c = c;
    this.perDie = opts.perDie ?? c.perDie === true;
    this.copyPricing = opts.copyPricing === true;
    this.hmax = c.maxHp;
    const wounds = c.leftover === 1 || c.failedClimb === 1;
    this.wounds = wounds;
    const lists: number[] = [];
    const from: number[] = [];
    for (let s = 0; s < 2; s++) {
      for (let pi = 0; pi < 3; pi++) {
        const policy = pi === 2 ? P_RECEIVER : pi;
        const cls: { idx: number; key: number }[] = [];
        for (let g = 0; g < G; g++)
          for (let t = 0; t < NT; t++) {
            if (c.units[s * NT + t] === 0) continue; // never on the field
            if (g > 0 && !reachesGroup(c, s, g, t)) continue; // only climbers change group
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
    this.ord = Int32Array.from(lists);
    this.ordFrom = Int32Array.from(from);

    const dt = diceTablesOf(c);
    this.al = dt.al;
    this.sum2 = dt.sum2;
    this.sum3 = dt.sum3;
    this.sum6 = dt.sum6;
    this.third = dt.third;
    this.half = dt.half;
    this.climbOk = dt.climbOk;
    this.climbDies = dt.climbDies;
    this.poolFaces = dt.poolFaces;
    this.climbJoint = dt.climbJoint;
    this.sum32 = dt.sum32;
    this.sum32N3 = dt.sum32N3;
    this.sum32N2 = dt.sum32N2;
    this.volley = dt.volley;
    this.volNM = dt.volNM;
    this.volNA = dt.volNA;
    this.volleyTower = dt.volleyTower;
    this.towerNM = dt.towerNM;
    this.towerNA = dt.towerNA;
    this.poolPairs = dt.poolPairs;
    this.poolND = dt.poolND;

    const start = new Int32Array(COUNT_LENGTH);
    const slots: number[] = [];
    for (let s = 0; s < 2; s++)
      for (let t = 0; t < NT; t++) {
        const n = c.units[s * NT + t];
        if (n === 0) continue;
        addCount(start, off(s, 0, t) + c.hp[t], n);
        slots.push(s * NT + t);
      }
    // the types that can leave group 0 (the attacker's climbers) first: only their records read three groups
    const grouped = (st: number) => st < NT && (reachesGroup(c, 0, 1, st) || reachesGroup(c, 0, 2, st));
    slots.sort((x, y) => (grouped(x) === grouped(y) ? x - y : grouped(x) ? -1 : 1));
    this.slotsGrouped = slots.filter(grouped).length;
    const reset: number[] = [];
    for (let s = 0; s < 2; s++) for (let e = from[s * 3]; e < from[s * 3 + 1]; e++) reset.push(lists[e * OE]); // the greedy order: every reachable class once
    // and the running totals of those classes (the others stay 0: no unit ever reaches them)
    const totals = new Set<number>();
    for (const i of reset) {
      totals.add(TOT + ((i / H1) | 0));
      totals.add(TOTG + ((i / NTH) | 0));
    }
    reset.push(...[...totals].sort((x, y) => x - y));
    while (reset.length % 4 !== 0) reset.push(reset[reset.length - 1]); // the trial loop resets four a step
    this.start = start;
    this.slots = Int32Array.from(slots);
    this.reset = Int32Array.from(reset);
    this.resetVal = Int32Array.from(reset, (i) => start[i]);
    this.slotTot = Int32Array.from(slots, (st) => TOT + (st >= NT ? G * NT + st - NT : st)); // (side * G + 0) * NT + type

    let units = 0;
    for (let i = 0; i < 2 * NT; i++) units += c.units[i];
    // Largest damage any single pool can reach: every unit's largest die, engines 12, towers 6,
    // the captain 6 per Might, plus carried leftovers (bounded by the same again).
    const maxDamage = 2 * (units * 12 + 6 + 6 * (c.might[0] + c.might[1])) + 8;
    this.lossTab = new Int32Array(maxDamage + 1);
    this.killsTab = new Int32Array(maxDamage + 1);
    this.lossSeen = new Int32Array(maxDamage + 1);
    const mages = Math.max(1, c.units[MAG] + c.units[NT + MAG]);
    this.rollsA = new Int32Array(mages);
    this.rollsB = new Int32Array(mages);
    this.mageTmp = new Int32Array(mages);
    this.mageRolls = this.rollsA;
    this.knapDp = new Int32Array(units * this.hmax + 1);
    this.memoOn = opts.volleyTable !== false && !this.copyPricing && (c.alloc === P_GREEDY || c.alloc === P_LOWEST) && c.leftover !== 1 && c.mageTargeting !== 1;
    this.memo = this.memoOn ? memoTableOf(c) : new Int32Array(0);
    this.recD = new Float64Array((c.maxRounds + 1) * ROUND_STRIDE);
  }
}

/** A case's dice tables (FantasyState's fields of the same names). */
interface DiceTables {
  al: Int32Array;
  sum2: Int32Array;
  sum3: Int32Array;
  sum6: Int32Array;
  third: Int32Array;
  half: Int32Array;
  climbOk: Int32Array;
  climbDies: Int32Array[];
  poolFaces: Int32Array;
  climbJoint: Int32Array[];
  sum32: Int32Array;
  sum32N3: number;
  sum32N2: number;
  volley: Int32Array;
  volNM: number;
  volNA: number;
  volleyTower: Int32Array;
  towerNM: number;
  towerNA: number;
  poolPairs: Int32Array;
  poolND: number;
}

/**
 * The dice tables of the cases seen last, by the numbers they are made from: the engine hands
 * each batch of chunks a copy of the compiled case, and the tables (a few milliseconds to make)
 * are the same for every copy, and for the points of a sweep that differ elsewhere (wall HP).
 * At most DICE_TABLES_KEPT are kept, the oldest dropped first. The tables are only read.
 */
const DICE_TABLES = new Map<string, DiceTables>();
const DICE_TABLES_KEPT = 16;

function diceTablesOf(c: FantasyCompiled): DiceTables {
  const key = JSON.stringify([c.units, c.might, c.climbGt, c.dc, c.climbers, c.siege, c.tower]);
  let dt = DICE_TABLES.get(key);
  if (dt === undefined) {
    dt = makeDiceTables(c);
    DICE_TABLES.set(key, dt);
    if (DICE_TABLES.size > DICE_TABLES_KEPT) DICE_TABLES.delete(DICE_TABLES.keys().next().value as string);
  }
  return dt;
}

/** Make the dice tables of case c: each kind of draw up to the largest n the case can ask for. */
function makeDiceTables(c: FantasyCompiled): DiceTables {
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
  const tables = new AliasTables();
  const sum2 = ensureSums(tables, 2, n2);
  const sum3 = ensureSums(tables, 3, n3);
  const sum6 = ensureSums(tables, 6, n6);
  const third = ensureBinomials(tables, '1/3', 1 / 3, clerics);
  const half = ensureBinomials(tables, '1/2', 1 / 2, clerics);
  const climbOk = ensureBinomials(tables, `${faces}/20`, faces / 20, climbers);
  const climbDies: Int32Array[] = [];
  for (let h = 2; h <= 7; h++) climbDies.push(ensureBinomials(tables, `2d3>=${h}`, TWO_D3_AT_LEAST[h], climbers));
  // Two counts in one draw (kernel-tables.ts, "joint outcomes") where the tables stay small.
  const poolFaces = clerics <= JOINT_MAX ? ensurePoolFaces(tables, clerics) : new Int32Array(0);
  const climbJoint: Int32Array[] = [];
  if (climbers <= JOINT_MAX && c.climbers > 0)
    for (let h = 2; h <= 7; h++) climbJoint.push(ensureClimbOutcomes(tables, `${faces}/20 2d3>=${h}`, faces / 20, TWO_D3_AT_LEAST[h], climbers));
  // d3 and d2 together: a side's melee archers (d3) with its mages and clerics (d2); the tower's
  // 2d3 with the defender's archers when the volley tables below are too large
  let n32 = 2;
  let n22 = 0;
  for (let s = 0; s < 2; s++) {
    n32 = Math.max(n32, c.units[s * NT + ARC]);
    n22 = Math.max(n22, c.units[s * NT + ARC], c.units[s * NT + MAG] + c.units[s * NT + CLE]);
  }
  const mixed = sums32Outcomes(n32, n22) <= JOINT_OUTCOMES_MAX;
  const nm = Math.max(c.units[MAG], c.units[NT + MAG]);
  const na = Math.max(c.units[ARC], c.units[NT + ARC]);
  const plain = volleyOutcomes(nm, na, false) <= JOINT_OUTCOMES_MAX;
  const towerNM = c.units[NT + MAG];
  const towerNA = c.units[NT + ARC];
  const tower = c.siege === 1 && c.tower !== 2 && volleyOutcomes(towerNM, towerNA, true) <= JOINT_OUTCOMES_MAX;
  const pairs = c.units[CLE] <= JOINT_MAX && c.units[NT + CLE] <= JOINT_MAX && poolPairOutcomes(c.units[CLE], c.units[NT + CLE]) <= JOINT_OUTCOMES_MAX;
  const dt: DiceTables = {
    al: tables.al,
    sum2,
    sum3,
    sum6,
    third,
    half,
    climbOk,
    climbDies,
    poolFaces,
    climbJoint,
    sum32: mixed ? ensureSums32(tables, n32, n22) : new Int32Array(0),
    sum32N3: mixed ? n32 : -1,
    sum32N2: mixed ? n22 : -1,
    volley: plain ? ensureVolleys(tables, nm, na, false) : new Int32Array(0),
    volNM: plain ? nm : -1,
    volNA: plain ? na : -1,
    volleyTower: tower ? ensureVolleys(tables, towerNM, towerNA, true) : new Int32Array(0),
    towerNM: tower ? towerNM : -1,
    towerNA: tower ? towerNA : -1,
    poolPairs: pairs ? ensurePoolPairs(tables, c.units[CLE], c.units[NT + CLE]) : new Int32Array(0),
    poolND: pairs ? c.units[NT + CLE] : -1,
  };
  dt.al = tables.al; // after the last table: building may replace the array
  return dt;
}

/**
 * The volley tables of the cases seen last, by content: the engine hands each batch of chunks a
 * copy of the compiled case, so a table kept with its state alone would start empty at every
 * batch. A table holds only decisions that follow from the case's numbers, so equal cases share
 * one. At most MEMO_TABLES_KEPT are kept (half a MiB each), the oldest dropped first.
 */
const MEMO_TABLES = new Map<string, Int32Array>();
const MEMO_TABLES_KEPT = 16;

function memoTableOf(c: FantasyCompiled): Int32Array {
  const key = JSON.stringify(c);
  let table = MEMO_TABLES.get(key);
  if (table === undefined) {
    table = new Int32Array(16 << 13);
    MEMO_TABLES.set(key, table);
    if (MEMO_TABLES.size > MEMO_TABLES_KEPT) MEMO_TABLES.delete(MEMO_TABLES.keys().next().value as string);
  }
  return table;
}

/**
 * Can units of side s and type t reach group g > 0? Only the attacker's climbers do (siege.ts
 * climbs): the breach pool (1) those of the types the policy sends up the wall (H18), group 2
 * only failed climbers who may not retry (H17 (c)). A class no unit can reach is left out of the
 * allocation orders: every walk over them skips one empty class fewer.
 */
function reachesGroup(c: FantasyCompiled, s: number, g: number, t: number): boolean {
  if (s !== 0 || c.siege !== 1 || c.climbers === 0) return false;
  if (t !== INF && (t !== CAV || c.climbers < 2 || c.cavalryClimb === 0)) return false;
  return g === 1 || c.failedClimb === 2;
}

/** Make the state of a compiled case (see FantasyState). */
export function prepareFantasy(c: FantasyCompiled, opts: PrepareOptions = {}): FantasyState {
  return new FantasyState(c, opts);
}

/** Sort key of a class of value v (x10) and current HP h under a sorting policy (ties: class order). */
export function classKey(policy: number, v: number, h: number): number {
  if (policy === P_GREEDY) return -v / h - v * 1e-7; // H4 DEFAULT: threat value per HP, descending
  if (policy === P_LOWEST) return h - v * 1e-7; // H4 (b): most kills
  return v / h - h * 1e-7; // receiver (H3 (b)): cheapest value per point absorbed
}

/** Index of class (side s, group g, type t) at HP 0 in a count array (HP h at + h). */
export function off(s: number, g: number, t: number): number {
  return ((s * G + g) * NT + t) * H1;
}

/** Add k units to the class at idx of array a, keeping its running totals. */
export function addCount(a: Int32Array, idx: number, k: number): void {
  a[idx] += k;
  a[TOT + ((idx / H1) | 0)] += k;
  a[TOTG + ((idx / NTH) | 0)] += k;
}

/** One die of n faces. */
export function rollN(rng: RngState, n: number): number {
  return rollDie(rng, n, 4294967296 % n);
}

/** The sum of n dice of `die` faces (2, 3 or 6): one table draw, or every die in per-die mode. */
export function sumDice(st: FantasyState, rng: RngState, n: number, die: number): number {
  if (n <= 0) return 0;
  if (!st.perDie) return aliasDraw(rng, st.al, die === 6 ? st.sum6[n] : die === 3 ? st.sum3[n] : st.sum2[n]);
  const t = die === 6 ? T6 : die === 3 ? T3 : T2;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += rollDie(rng, die, t);
  return sum;
}

/**
 * The total of n3 d3 and n2 d2: one table draw when the case has the table (FantasyState.sum32),
 * else the two sums apart; every die in per-die mode (the d3 first).
 */
export function sumDice32(st: FantasyState, rng: RngState, n3: number, n2: number): number {
  if (!st.perDie && n3 <= st.sum32N3 && n2 <= st.sum32N2) return aliasDraw(rng, st.al, st.sum32[n3 * (st.sum32N2 + 1) + n2]);
  return sumDice(st, rng, n3, 3) + sumDice(st, rng, n2, 2);
}

/** Units of type t of side s in the groups of groupMask. */
export function countType(a: Int32Array, s: number, t: number, groupMask: number): number {
  const b = TOT + s * G * NT + t;
  if (groupMask === ALL_GROUPS) return a[b] + a[b + NT] + a[b + 2 * NT];
  return ((groupMask & 1) !== 0 ? a[b] : 0) + ((groupMask & 2) !== 0 ? a[b + NT] : 0) + ((groupMask & 4) !== 0 ? a[b + 2 * NT] : 0);
}

/**
 * countType for a type whose units never leave group 0: every type but infantry and cavalry
 * (only climbers change group: siege.ts climbs). One running total read instead of three.
 */
export function countStaying(a: Int32Array, s: number, t: number, groupMask: number): number {
  return (groupMask & 1) !== 0 ? a[TOT + s * G * NT + t] : 0;
}

/** Units of side s in the groups of groupMask (every type): a read per group, no loop. */
export function countGroups(a: Int32Array, s: number, groupMask: number): number {
  const b = TOTG + s * G;
  return ((groupMask & 1) !== 0 ? a[b] : 0) + ((groupMask & 2) !== 0 ? a[b + 1] : 0) + ((groupMask & 4) !== 0 ? a[b + 2] : 0);
}

/** Units of side s of the types of typeMask in the groups of groupMask. */
export function countSide(a: Int32Array, s: number, typeMask: number, groupMask: number): number {
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

/** Σ current HP of side s's units. */
export function hpSide(a: Int32Array, s: number, hmax: number): number {
  let sum = 0;
  for (let g = 0; g < G; g++)
    for (let t = 0; t < NT; t++) {
      const b = off(s, g, t);
      for (let h = 1; h <= hmax; h++) sum += a[b + h] * h;
    }
  return sum;
}

/** Copy side s's classes and running totals from one count array to another. */
export function copySide(from: Int32Array, to: Int32Array, s: number): void {
  const b = s * SIDE;
  for (let i = 0; i < SIDE; i++) to[b + i] = from[b + i];
  const bt = TOT + s * G * NT;
  for (let i = 0; i < G * NT; i++) to[bt + i] = from[bt + i];
  for (let g = 0; g < G; g++) to[TOTG + s * G + g] = from[TOTG + s * G + g];
}

/** Do the running totals of count array a agree with the classes they sum (both sides, every group and type)? */
export function totalsMatch(a: Int32Array): boolean {
  for (let s = 0; s < 2; s++)
    for (let g = 0; g < G; g++) {
      let side = 0;
      for (let t = 0; t < NT; t++) {
        let n = 0;
        for (let h = 1; h < H1; h++) n += a[off(s, g, t) + h];
        if (a[TOT + (s * G + g) * NT + t] !== n) return false;
        side += n;
      }
      if (a[TOTG + s * G + g] !== side) return false;
    }
  return true;
}
