/**
 * The fantasy kernel's volley phase (seed 001, docs/rules/fantasy.md 4.1 RANGED_VOLLEY, H5, H8,
 * H9): a volley rolled, its mage target chosen, shields spent against it (priced on a short list
 * of the side's targets), and the damage allocated (allocation.ts). Every scratch and result is
 * in the case's FantasyState (state.ts).
 */
import { rollDie } from '../../engine/dice.js';
import type { RngState } from '../../engine/rng.js';
import { allocate, kills } from './allocation.js';
import { ROUND_STRIDE as ROUND_STRIDE_AC } from './accumulator.js';
import * as S from './state.js';
import type { FantasyCompiled } from './compile.js';
import { aliasDraw } from './kernel-tables.js';
import { noteLossTot, noteTypeLoss } from './record.js';
import { copySide, countStaying, countType, sumDice, type FantasyState } from './state.js';

// The layout constants this module uses, as its own constants (V8 folds a module's own `const`;
// an imported binding is read and checked at every use), held to their definitions here.
const ALL_GROUPS = 7;
const G = 3;
const OE = 8;
const P_GREEDY = 0;
const P_KNAPSACK = 2;
const P_RANDOM = 3;
const P_RECEIVER = 4;
const ROUND_STRIDE = 2 + 2 * 7 * 2;
const TOT = 2 * 3 * 7 * 31;
const VS = 8;
if ([ALL_GROUPS, G, OE, P_GREEDY, P_KNAPSACK, P_RANDOM, P_RECEIVER, ROUND_STRIDE, TOT, VS].join() !== [S.ALL_GROUPS, S.G, S.OE, S.P_GREEDY, S.P_KNAPSACK, S.P_RANDOM, S.P_RECEIVER, ROUND_STRIDE_AC, S.TOT, S.VS].join()) {
  throw new Error('internal: layout constants differ from state.ts and accumulator.ts');
}

// compile.ts's type codes as this module's own constants (state.ts checks them)
const CLE = 4;
const NT = 7;

// === 4.1 RANGED_VOLLEY and H5, H8, H9: a volley arriving at a side ==========================

/** Roll a volley: `mages` d3 and `archers` d2 (results in st.volleyM, st.volleyA, st.mageRolls). */
export function rollVolley(st: FantasyState, c: FantasyCompiled, rng: RngState, mages: number, archers: number): void {
  if (!st.perDie && c.mageTargeting !== 1 && c.diceRemoval !== 1) {
    // only the mages' total matters (per-mage targets and H11 (b) need each die)
    st.volleyMages = mages;
    if (mages <= st.volNM && archers <= st.volNA) {
      const code = aliasDraw(rng, st.al, st.volley[mages * (st.volNA + 1) + archers]); // both totals in one draw
      st.volleyM = code & 0xffff;
      st.volleyA = code >>> 16;
      return;
    }
    st.volleyM = sumDice(st, rng, mages, 3);
    st.volleyA = sumDice(st, rng, archers, 2);
    return;
  }
  let m = 0;
  for (let i = 0; i < mages; i++) {
    const r = rollDie(rng, 3, c.t3);
    st.mageRolls[i] = r;
    m += r;
  }
  st.volleyMages = mages;
  st.volleyM = m;
  st.volleyA = sumDice(st, rng, archers, 2);
}

/** Best single troop type for mage damage M against side s (H5 DEFAULT: one type for all). */
export function chooseMageType(st: FantasyState, c: FantasyCompiled, rng: RngState, s: number, M: number, typeMask: number, groupMask: number): number {
  let best = -1;
  let bestV = -1;
  const policy = c.alloc === P_RANDOM ? P_GREEDY : c.alloc;
  const walk = policy !== P_KNAPSACK && !st.copyPricing;
  let present = 0; // the types with legal units: those in the list
  if (walk) {
    // What M kills at each type, all types in one walk of the targets (a type's classes are
    // disjoint from the others', so this is `allocate` on each type alone).
    present = listTargets(st, st.cnt, s, typeMask, groupMask, policy, M);
  }
  for (let t = 0; t < NT; t++) {
    if (walk ? (present & (1 << t)) === 0 : (typeMask & (1 << t)) === 0 || countType(st.cnt, s, t, groupMask) === 0) continue;
    let v: number;
    if (walk) v = st.mageValue[t];
    else {
      copySide(st.cnt, st.tmp2, s);
      st.killedValue = 0;
      allocate(st, c, rng, st.tmp2, s, M, 1 << t, groupMask, policy);
      v = st.killedValue;
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
 * (FantasyState.vl: each class's HP, value, units, type, ...). What-if allocations (which mage target kills the
 * most, what each shield spending would save) run on the list's counts instead of a copy of
 * the side, and give what `allocate` would give on the side itself. (Hot functions read the
 * state's arrays into locals once.) With M > 0
 * mage points, also what they kill at each type (st.mageLeft, st.mageValue); returns the types
 * listed (as bits; 0 when M is 0).
 */
export function listTargets(st: FantasyState, a: Int32Array, s: number, typeMask: number, groupMask: number, policy: number, M: number): number {
  const ord = st.ord;
  const vl = st.vl;
  const ml = st.mageLeft;
  const mv = st.mageValue;
  if (M > 0)
    for (let t = 0; t < NT; t++) {
      ml[t] = M;
      mv[t] = 0;
    }
  const pi = s * 3 + (policy === P_RECEIVER ? 2 : policy);
  const e1 = st.ordFrom[pi + 1] * OE;
  let n = 0;
  let present = 0;
  for (let e = st.ordFrom[pi] * OE; e < e1; e += OE) {
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
  st.vLen = n;
  st.vPolicy = policy;
  return present;
}

/**
 * Apply a volley (mage part M at type T, archer part A) with `cancel` points removed by
 * shields, to array `a`. Returns the points left over (for H2 (c)).
 */
export function applyVolley(st: FantasyState, 
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
      for (let i = 0; i < st.volleyMages; i++) {
        let r = st.mageRolls[i];
        const take = cut < r ? cut : r;
        r -= take;
        cut -= take;
        st.mageTmp[i] = r;
      }
      for (let i = 0; i < st.volleyMages; i++) {
        if (st.mageTmp[i] === 0) continue;
        let t = -1;
        let bestV = -1;
        for (let u = 0; u < NT; u++) {
          if ((typeMask & (1 << u)) === 0 || countType(a, s, u, groupMask) === 0) continue;
          const v = c.value[s * NT + u];
          if (c.hp[u] <= st.mageTmp[i] && v > bestV) {
            bestV = v;
            t = u;
          }
        }
        if (t < 0) t = T;
        left += allocate(st, c, rng, a, s, st.mageTmp[i], 1 << t, groupMask, c.alloc);
      }
    } else {
      const rest = allocate(st, c, rng, a, s, m, 1 << T, groupMask, c.alloc);
      if (c.mageTargeting === 2) ar += rest; // H5 (c): excess spills to other types
      else left += rest;
    }
  } else if (m > 0) {
    left += m;
  }
  left += allocate(st, c, rng, a, s, ar, typeMask, groupMask, c.alloc);
  return left;
}

/**
 * Split `cancel` cancelled points between a volley's M mage and A archer points (H8 DEFAULT
 * detail: `rules.shield_reduces`, mage part first unless archerFirst) into FantasyState.cut, so that the two shares cost no allocation. The one split for the volley itself
 * (receiveVolley) and for its pricing (priceVolley, lossAt).
 */
export function splitCancel(st: FantasyState, archerFirst: boolean, M: number, A: number, cancel: number): void {
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
  st.cut[0] = cm;
  st.cut[1] = ca;
}

/** Dice (k1, k2, k3 of faces 1, 2, 3) with the smallest sum >= need, fewest dice on ties. */
function pickCover(st: FantasyState, s: number, need: number): boolean {
  const c1 = st.pool[s * 4 + 1];
  const c2 = st.pool[s * 4 + 2];
  const c3 = st.pool[s * 4 + 3];
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
        st.pickD1 = k1;
        st.pickD2 = k2;
        st.pickD3 = k3;
        found = true;
      }
      if (base >= need) break;
    }
  }
  return found;
}

/** H9 (b): spend the largest die that does not exceed the damage left, repeatedly. */
export function pickNoWaste(st: FantasyState, s: number, D: number): void {
  let rem = D;
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  for (;;) {
    if (rem >= 3 && st.pool[s * 4 + 3] > k3) {
      k3++;
      rem -= 3;
    } else if (rem >= 2 && st.pool[s * 4 + 2] > k2) {
      k2++;
      rem -= 2;
    } else if (rem >= 1 && st.pool[s * 4 + 1] > k1) {
      k1++;
      rem -= 1;
    } else break;
  }
  st.pickD1 = k1;
  st.pickD2 = k2;
  st.pickD3 = k3;
}

export function spendPick(st: FantasyState, s: number): number {
  st.pool[s * 4 + 1] -= st.pickD1;
  st.pool[s * 4 + 2] -= st.pickD2;
  st.pool[s * 4 + 3] -= st.pickD3;
  return st.pickD1 + 2 * st.pickD2 + 3 * st.pickD3;
}

/**
 * Choose which of side s's shield dice to spend against damage D (H8, H9). The optimal and
 * threshold policies ask what the volley kills with p points cancelled (lossAt, killsAt: the
 * volley priceVolley got ready). Returns the points cancelled (≤ D); the chosen dice leave the
 * pool.
 */
export function spendShields(st: FantasyState, c: FantasyCompiled, s: number, D: number, phaseA: boolean): number {
  const c1 = st.pool[s * 4 + 1];
  const c2 = st.pool[s * 4 + 2];
  const c3 = st.pool[s * 4 + 3];
  if (D <= 0 || c1 + c2 + c3 === 0) return 0;
  let policy = c.shield;
  if (policy === 4) {
    if (phaseA) return 0; // H9 (e): save everything for the charge
    policy = 0;
  }
  if (policy === 1) {
    pickNoWaste(st, s, D);
  } else if (policy === 2) {
    // H9 (c): the subset with the smallest sum covering D, else no-waste
    if (c1 + 2 * c2 + 3 * c3 < D || !pickCover(st, s, D)) pickNoWaste(st, s, D);
  } else if (policy === 3) {
    // H9 (d): just enough to drop the damage below the next kill threshold
    const k0 = killsAt(st, 0);
    let need = -1;
    const top = c1 + 2 * c2 + 3 * c3 < D ? c1 + 2 * c2 + 3 * c3 : D;
    for (let p = 1; p <= top; p++) {
      if (killsAt(st, p) < k0) {
        need = p;
        break;
      }
    }
    if (need < 0 || c1 + 2 * c2 + 3 * c3 < need || !pickCover(st, s, need)) return 0;
  } else {
    // H9 DEFAULT (optimalPick). Spending nothing loses nothing: no other subset can win
    // (every cost is >= 0, and ties go to fewer dice), so none is priced.
    if (lossAt(st, 0) === 0) return 0;
    optimalPick(st, D, c1, c2, c3);
  }
  const spent = spendPick(st, s);
  return spent < D ? spent : D;
}

/**
 * H9 DEFAULT: the subset of k1 ones, k2 twos and k3 threes minimising the value lost (+ lambda
 * per pip reserved for a coming charge); ties: fewer dice, then the smaller sum, then the first
 * in (k3, k2, k1) order. A subset is priced only if it could still win: the value lost is
 * never negative, so lambda x pips bounds its cost from below (with lambda 0: once a subset
 * loses nothing, only one with fewer dice or a smaller sum is priced). Sets pickD1..3.
 */
function optimalPick(st: FantasyState, D: number, c1: number, c2: number, c3: number): void {
  const lambda = st.lambda[0]; // read here: a fractional argument would be boxed
  const t3 = ((D + 2) / 3) | 0;
  const t2 = ((D + 1) / 2) | 0;
  const m3 = c3 < t3 ? c3 : t3;
  const m2 = c2 < t2 ? c2 : t2;
  const m1 = c1 < D ? c1 : D;
  const seen = st.lossSeen;
  const tab = st.lossTab;
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
        const cost = (seen[p] === st.pxStamp ? tab[p] : lossAt(st, p)) + low;
        if (cost < best - 1e-9 || (cost < best + 1e-9 && tieWins)) {
          best = cost;
          bestN = nd;
          bestSum = sum;
          k1b = k1;
          k2b = k2;
          k3b = k3;
        }
      }
  st.pickD1 = k1b;
  st.pickD2 = k2b;
  st.pickD3 = k3b;
}

/**
 * Get ready to price a volley (M at type T, A free; per component, H8 (b), one of them is 0)
 * for side s's shield choice. With a sorting policy and no lasting wounds (H2 DEFAULT and (c))
 * or per-mage targets, the price of p points cancelled is a what-if `applyVolley` on the listed
 * targets (`dryAllocate`), made only for the p the shield policy asks about (`lossAt`).
 * Otherwise every p up to what the pool can cancel is priced at once, by the volley itself on a
 * copy of the side (tmp; with random allocation that rolls dice, so all of them, in order).
 */
export function priceVolley(st: FantasyState, c: FantasyCompiled, rng: RngState, s: number, M: number, T: number, A: number, typeMask: number, groupMask: number): void {
  st.pxM = M;
  st.pxT = T;
  st.pxA = A;
  st.pxSpill = c.mageTargeting === 2;
  st.pxArcherFirst = c.archerFirst === 1;
  if (++st.pxStamp === 1 << 30) {
    // a field past the small-integer range would be a boxed number, made anew at each change
    st.lossSeen.fill(0);
    st.pxStamp = 1;
  }
  if (!st.copyPricing && c.alloc !== P_RANDOM && c.alloc !== P_KNAPSACK && c.leftover !== 1 && c.mageTargeting !== 1) {
    // chooseMageType listed the same targets when M > 0 (the same policy: not random)
    if (M === 0) listTargets(st, st.cnt, s, typeMask, groupMask, c.alloc, 0);
    // the targets of type T, for the mage part
    const vl = st.vl;
    const n = st.vLen;
    let nt = 0;
    for (let i = 0; i < n; i++) if (vl[VS * i + 3] === T) st.pxt[nt++] = i;
    st.pxNT = nt;
    return;
  }
  let D = M + A;
  // No spending can cancel more than the pool holds: the table is only needed up to there.
  const poolSum = st.pool[s * 4 + 1] + 2 * st.pool[s * 4 + 2] + 3 * st.pool[s * 4 + 3];
  if (poolSum < D) D = poolSum;
  for (let p = 0; p <= D; p++) {
    st.killedValue = 0;
    st.killedUnits = 0;
    copySide(st.cnt, st.tmp, s);
    splitCancel(st, st.pxArcherFirst, M, A, p);
    applyVolley(st, c, rng, st.tmp, s, M, T, A, st.cut[0], st.cut[1], typeMask, groupMask);
    st.lossTab[p] = st.killedValue;
    st.killsTab[p] = st.killedUnits;
    st.lossSeen[p] = st.pxStamp;
  }
}

/** Value (x10) the priced volley kills with p points cancelled (and killsTab[p]: units). */
function lossAt(st: FantasyState, p: number): number {
  if (st.lossSeen[p] === st.pxStamp) return st.lossTab[p];
  // applyVolley's steps on the listed targets: the mage part at type T (the rest spills over
  // with H5 (c)), then the free part, each `allocate` with wasted leftovers. The shares never
  // exceed their parts, so nothing here goes below 0.
  splitCancel(st, st.pxArcherFirst, st.pxM, st.pxA, p);
  let m = st.pxM - st.cut[0];
  let ar = st.pxA - st.cut[1];
  const px = st.vl;
  const left = st.pxw; // units of type T the mage part leaves
  let value = 0;
  let units = 0;
  const mages = m > 0 && st.pxT >= 0;
  if (mages) {
    const nt = st.pxNT;
    for (let j = 0; j < nt; j++) {
      const b = VS * st.pxt[j];
      let k = px[b + 2];
      if (m > 0) {
        const h = px[b];
        const kill = m < h ? 0 : m >= k * h ? k : (m / h) | 0;
        k -= kill;
        m -= kill * h;
        value += kill * px[b + 1];
        units += kill;
      }
      left[st.pxt[j]] = k;
    }
    if (st.pxSpill) ar += m;
  }
  const n = st.vLen;
  for (let i = 0; i < n; i++) {
    const b = VS * i;
    if (ar < px[b + 4]) break; // nobody from here on dies of what is left
    const h = px[b];
    if (ar < h) continue;
    const k = mages && px[b + 3] === st.pxT ? left[i] : px[b + 2];
    const kill = ar >= k * h ? k : (ar / h) | 0;
    ar -= kill * h;
    value += kill * px[b + 1];
    units += kill;
  }
  st.lossTab[p] = value;
  st.killsTab[p] = units;
  st.lossSeen[p] = st.pxStamp;
  return value;
}

/** Units the priced volley kills with p points cancelled. */
function killsAt(st: FantasyState, p: number): number {
  lossAt(st, p);
  return st.killsTab[p];
}

/**
 * A volley (M mage points, A free points) arrives at side s: the dealer picks the mages' target
 * type, the receiver spends shields, then the damage is allocated (4.1 apply_shield_and_damage).
 * Returns the damage that got through the shields.
 */
export function receiveVolley(st: FantasyState, c: FantasyCompiled, rng: RngState, s: number, M: number, A: number, typeMask: number, groupMask: number, phaseA: boolean): number {
  if (!st.memoOn || st.lambda[0] !== 0) return decideVolley(st, c, rng, s, M, A, typeMask, groupMask, phaseA);
  if (c.leftover === 2 && st.carry[s] > 0) {
    A += st.carry[s]; // H2 (c): as decideVolley adds it (the mage target never reads A)
    st.carry[s] = 0;
  }
  const e = memoFind(st, s, M, A, typeMask, groupMask, phaseA);
  if (e < 0) return decideVolley(st, c, rng, s, M, A, typeMask, groupMask, phaseA); // a key too large to pack
  const memo = st.memo;
  if (memo[e] !== 0) {
    memoApply(st, e);
    if (c.leftover === 2) st.carry[s] += memo[e + MR + 2];
    return memo[e + MR + 1];
  }
  const through = decideVolley(st, c, rng, s, M, A, typeMask, groupMask, phaseA);
  memoStore(st, e, through, c.leftover === 2 ? st.carry[s] : 0);
  return through;
}

// === the volley table: receiveVolley's decisions, made once per state ======================
//
// With a sorting allocation policy, no lasting wounds and no per-mage targets, what a volley
// does to a side is a function of the side's legal classes' counts, the shield pool, the
// volley's M and A and the phase: the mage target, the shield dice spent and the kills involve
// no dice. So each such volley's result is kept in a table of the case (FantasyState.memo,
// in sets of two entries on a hash of the key, the older of a set dropped for a new key) and a
// volley met again costs a lookup: the decisions are the same ones, only made less often.
// Entry layout (MW ints): key words 0 .. MK - 1 (0 = empty slot): (s, masks, phase, the listed
// classes keyed as bits), M | A << 16, the pool's faces c1 | c2 << 8 | c3 << 16, then the keyed
// classes' counts, one byte each; result words from MR: the pool after, the damage through the
// shields, the points left over, then the losses of the classes that lost units (memoStore).

/** Key words (header 3, then up to 12 class counts, 4 a word) and the entry's stride. */
const MK = 6;
const MR = MK;
const MW = 16;
/** Words of losses (two a word) after the result's three: up to 12 losses and a 0 that ends them. */
const MD = MW - MR - 3;
/** log2 of the table's entries (2^13 entries of 64 bytes: half a MiB a case; FantasyState.memo). */
const MEMO_BITS = 13;
if (MW << MEMO_BITS !== 16 << 13) throw new Error('internal: the volley table\'s size differs from state.ts');

/**
 * Build the key of a volley in st.memoKey and find its slot: returns the entry's index in
 * st.memo (its word 0 is 0 when empty or another key), or -1 when a number does not fit its
 * field (pools, counts over 255, damage over 65535: decided directly then).
 *
 * The key holds the counts of the listed classes the volley can reach, not of every listed
 * class. The damage goes down the list (after the mage part at its type), so walking the list
 * with a bound u on the points that arrive (at first M + A; shields only take points away): a
 * class of more than u HP takes nothing whatever its count, and a class of k units of h HP
 * passes on at most u - k h + M points when it is emptied (the mage part may have taken up to
 * M points of it first) and less than h when it is not (the rest of a division by h). Only the
 * mage part (at most M points, at its own type) reaches past those bounds, so a class is keyed
 * when its HP is at most u or at most M. Which classes are keyed follows from the keyed counts
 * alone, and is in the key too (bits 13 up of its first word).
 * The classes left out are never touched: not by the kills, not by the mage target (with every
 * value above 0 a type M kills nothing at is worth nothing; when M kills nothing anywhere the
 * target type changes nothing) and not by the shields' pricing (every price is a volley of at
 * most M + A points). A side with a class of value 0 keys every class (legalList).
 */
function memoFind(st: FantasyState, s: number, M: number, A: number, typeMask: number, groupMask: number, phaseA: boolean): number {
  const pool = st.pool;
  const p1 = pool[s * 4 + 1];
  const p2 = pool[s * 4 + 2];
  const p3 = pool[s * 4 + 3];
  if (M > 0xffff || A > 0x7fff || p1 > 0xff || p2 > 0xff || p3 > 0xff) return -1;
  const n = legalList(st, s, typeMask, groupMask);
  if (n > 12) return -1;
  const a = st.cnt;
  const li = st.legalIdx;
  const lh = st.legalHp;
  const b = st.legalAt[s] * LMAX;
  // the keyed classes' counts, a byte each, four to a word
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  let u = M + A; // at most this many points arrive at the class (see above)
  let keyed = 0; // the listed classes keyed, as bits
  let j = 0;
  for (let i = 0; i < n; i++) {
    const h = lh[b + i];
    if (h > u && h > M) continue; // nothing that arrives kills one of them
    const k = a[li[b + i]];
    if (k > 0xff) return -1;
    const sh = (j & 3) << 3;
    if (j < 4) w0 |= k << sh;
    else if (j < 8) w1 |= k << sh;
    else w2 |= k << sh;
    j++;
    keyed |= 1 << i;
    // what goes on: what arrives less what the class holds (the mage part may have taken up
    // to M points of it), or, when it is not emptied, less than h points
    let on = u - k * h + M;
    if (on < h - 1) on = h - 1;
    if (on < u) u = on;
  }
  const k0 = 1 | (s << 1) | (typeMask << 2) | (groupMask << 9) | ((phaseA ? 1 : 0) << 12) | (keyed << 13);
  const k1 = M | (A << 16);
  const k2 = p1 | (p2 << 8) | (p3 << 16);
  // The words' products by odd constants are independent (no chain from word to word); the
  // final steps mix the high bits into the low ones the slot is taken from.
  let h = Math.imul(k0, 0x9e3779b1) ^ Math.imul(k1, 0x85ebca77) ^ Math.imul(k2, 0xc2b2ae3d) ^ Math.imul(w0, 0x27d4eb2f) ^ Math.imul(w1, 0x165667b1) ^ Math.imul(w2, 0x61c88647);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  // a set of two entries (the hash's low bit cleared): the newer key first
  const e = (h & ((1 << MEMO_BITS) - 2)) * MW;
  const memo = st.memo;
  if (memo[e] === k0 && memo[e + 1] === k1 && memo[e + 2] === k2 && memo[e + 3] === w0 && memo[e + 4] === w1 && memo[e + 5] === w2) return e;
  const e2 = e + MW;
  if (memo[e2] === k0 && memo[e2 + 1] === k1 && memo[e2 + 2] === k2 && memo[e2 + 3] === w0 && memo[e2 + 4] === w1 && memo[e2 + 5] === w2) return e2;
  // a miss: the set's newer key becomes its older (the older is dropped), and the first entry
  // is the new key's once memoStore fills it
  memo.copyWithin(e2, e, e2);
  memo[e] = 0;
  const key = st.memoKey;
  key[0] = k0;
  key[1] = k1;
  key[2] = k2;
  key[3] = w0;
  key[4] = w1;
  key[5] = w2;
  return e;
}

/** Entries of a list of legal classes (FantasyState.legalOrd): more than 12 are never tabled. */
const LMAX = 13;

/**
 * Side s's legal classes for these masks, in the allocation policy's order, as offsets into
 * st.ord, their indices in the count array and their HP (the list st.legalAt[s], from
 * st.legalAt[s] * LMAX); returns how many (up to LMAX: more is not tabled). A side keeps the
 * lists of the last two sets of masks it was asked for: it meets the same masks volley after
 * volley, and the defender two sets (its wall standing and fallen) trial after trial.
 */
function legalList(st: FantasyState, s: number, typeMask: number, groupMask: number): number {
  // the side's current list when it is for these masks (the common case: small enough to be
  // inlined where it is called), else the other list or a new one
  const want = 1 | (typeMask << 1) | (groupMask << 8);
  const q = st.legalAt[s];
  return st.legalMasks[q] === want ? st.legalN[q] : otherLegalList(st, s, typeMask, groupMask, want);
}

/** legalList when the side's current list is for other masks: its other list, made anew if it is for other masks too. */
function otherLegalList(st: FantasyState, s: number, typeMask: number, groupMask: number, want: number): number {
  const q = st.legalAt[s] ^ 1; // the side's other list
  st.legalAt[s] = q;
  if (st.legalMasks[q] === want) return st.legalN[q];
  const ord = st.ord;
  const pi = s * 3 + (st.c.alloc === P_RECEIVER ? 2 : st.c.alloc);
  const e1 = st.ordFrom[pi + 1] * OE;
  const b = q * LMAX;
  let n = 0;
  let valued = true;
  for (let e = st.ordFrom[pi] * OE; e < e1 && n < LMAX; e += OE) {
    if ((typeMask & ord[e + 1]) === 0 || (groupMask & ord[e + 2]) === 0) continue;
    if (ord[e + 4] <= 0) valued = false;
    st.legalIdx[b + n] = ord[e];
    st.legalTot[b + n] = ord[e + 5];
    st.legalTotG[b + n] = ord[e + 6];
    st.legalTyp[b + n] = TOT + s * G * NT + ord[e + 7];
    st.legalRec[b + n] = 2 + (s * NT + ord[e + 7]) * 2;
    st.legalHp[b + n] = ord[e + 3];
    st.legalOrd[b + n++] = e;
  }
  // a class of value 0: every class is keyed (HP 0 counts as reachable; memoFind)
  if (!valued) for (let i = 0; i < n; i++) st.legalHp[b + i] = 0;
  st.legalMasks[q] = want;
  st.legalN[q] = n;
  return n;
}

/**
 * Write a decided volley into the slot memoFind found: the key, then what the volley changed (the
 * pool after, and the units each keyed class lost, from the counts in the key). A volley only
 * kills, so a class's loss is its count in the key less its count now.
 */
function memoStore(st: FantasyState, e: number, through: number, left: number): void {
  const memo = st.memo;
  const key = st.memoKey;
  const s = (key[0] >> 1) & 1;
  const keyed = key[0] >>> 13;
  const b = st.legalAt[s] * LMAX; // the list memoFind keyed (decideVolley lists none)
  const n = st.legalN[st.legalAt[s]];
  const a = st.cnt;
  const li = st.legalIdx;
  for (let w = 0; w < MD; w++) memo[e + MR + 3 + w] = 0;
  let j = 0; // keyed classes so far
  let d = 0; // losses written so far
  for (let i = 0; i < n; i++) {
    if ((keyed & (1 << i)) === 0) continue;
    const before = (key[3 + (j >> 2)] >>> ((j & 3) << 3)) & 0xff;
    j++;
    const dead = before - a[li[b + i]];
    if (dead === 0) continue;
    if (dead < 0) return; // not a volley's change (never met): the slot stays empty
    memo[e + MR + 3 + (d >> 1)] |= (i | (dead << 4)) << ((d & 1) << 4);
    d++;
  }
  memo[e + MR] = st.pool[s * 4 + 1] | (st.pool[s * 4 + 2] << 8) | (st.pool[s * 4 + 3] << 16);
  memo[e + MR + 1] = through;
  memo[e + MR + 2] = left;
  for (let i = 0; i < MK; i++) memo[e + i] = key[i];
}

/**
 * Set the side and its pool to the state the volley in entry e leaves: each loss (list position
 * i, units dead, 16 bits) off its class and the class's two running totals; a 0 ends the list.
 */
function memoApply(st: FantasyState, e: number): void {
  const memo = st.memo;
  const s = (memo[e] >> 1) & 1;
  const b = st.legalAt[s] * LMAX; // the list memoFind keyed (the same masks)
  const a = st.cnt;
  const li = st.legalIdx;
  const lt = st.legalTot;
  const lg = st.legalTotG;
  const ly = st.legalTyp;
  const lr = st.legalRec;
  for (let w = e + MR + 3; ; w++) {
    const x = memo[w];
    if (x === 0) break;
    const i = b + (x & 15);
    const dead = (x >>> 4) & 0xfff;
    a[li[i]] -= dead;
    a[lt[i]] -= dead;
    a[lg[i]] -= dead;
    noteTypeLoss(st, ly[i], lr[i], dead);
    if (x >>> 16 === 0) break;
    const i2 = b + ((x >>> 16) & 15);
    const dead2 = x >>> 20;
    a[li[i2]] -= dead2;
    a[lt[i2]] -= dead2;
    a[lg[i2]] -= dead2;
    noteTypeLoss(st, ly[i2], lr[i2], dead2);
  }
  const pw = memo[e + MR];
  st.pool[s * 4 + 1] = pw & 0xff;
  st.pool[s * 4 + 2] = (pw >> 8) & 0xff;
  st.pool[s * 4 + 3] = (pw >> 16) & 0xff;
}

/** receiveVolley's decisions made directly (the volley table's misses, and what it cannot hold). */
function decideVolley(st: FantasyState, c: FantasyCompiled, rng: RngState, s: number, M: number, A: number, typeMask: number, groupMask: number, phaseA: boolean): number {
  st.vLen = -1; // no target list yet for this volley
  const T = M > 0 ? chooseMageType(st, c, rng, s, M, typeMask, groupMask) : -1;
  if (c.leftover === 2 && st.carry[s] > 0) {
    A += st.carry[s]; // H2 (c): last phase's leftover joins this phase's free damage
    st.carry[s] = 0;
  }
  let cm = 0;
  let ca = 0;
  const hasPool = st.pool[s * 4 + 1] + st.pool[s * 4 + 2] + st.pool[s * 4 + 3] > 0;
  // Only the optimal (H9 DEFAULT) and threshold (H9 (d)) policies look at the losses.
  const needLoss = c.shield === 0 || c.shield === 3 || (c.shield === 4 && !phaseA);
  if (hasPool && M + A > 0) {
    if (c.shieldPerComponent === 1) {
      // H8 (b): dice go to the mage part first, then the archer part, each whole
      if (M > 0) {
        if (needLoss) priceVolley(st, c, rng, s, M, T, 0, typeMask, groupMask);
        cm = spendShields(st, c, s, M, phaseA);
      }
      if (A > 0 && st.pool[s * 4 + 1] + st.pool[s * 4 + 2] + st.pool[s * 4 + 3] > 0) {
        if (needLoss) priceVolley(st, c, rng, s, 0, T, A, typeMask, groupMask);
        ca = spendShields(st, c, s, A, phaseA);
      }
    } else {
      if (needLoss) priceVolley(st, c, rng, s, M, T, A, typeMask, groupMask);
      splitCancel(st, c.archerFirst === 1, M, A, spendShields(st, c, s, M + A, phaseA));
      cm = st.cut[0];
      ca = st.cut[1];
    }
  }
  // The target list made for this volley (mage target, pricing) is what `allocate` would walk,
  // when it follows the allocation policy and nothing wounds: the damage goes down it directly.
  const listed = st.vLen >= 0 && st.vPolicy === c.alloc && c.leftover !== 1 && c.mageTargeting !== 1;
  const left = listed ? applyListed(st, c, M, T, A, cm, ca) : applyVolley(st, c, rng, st.cnt, s, M, T, A, cm, ca, typeMask, groupMask);
  if (c.leftover === 2) st.carry[s] += left;
  return M + A - cm - ca;
}

/** `applyVolley` down the volley's target list (no per-mage targets, no wounds). */
function applyListed(st: FantasyState, c: FantasyCompiled, M: number, T: number, A: number, cancelM: number, cancelA: number): number {
  let m = M - cancelM;
  let ar = A - cancelA;
  if (m < 0) m = 0;
  if (ar < 0) ar = 0;
  let left = 0;
  if (m > 0 && T >= 0) {
    const rest = killListed(st, m, T);
    if (c.mageTargeting === 2) ar += rest; // H5 (c): excess spills to other types
    else left += rest;
  } else left += m;
  return left + killListed(st, ar, -1);
}

/** `allocate` of D points down the target list (only type T when T >= 0); the points left over. */
function killListed(st: FantasyState, D: number, T: number): number {
  const a = st.cnt;
  const vl = st.vl;
  const len = st.vLen;
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
    noteLossTot(st, vl[b + 6], kill);
    D -= kill * h;
  }
  return D;
}

/**
 * Step 1 for both sides (the attacker's pool first): one draw of both pools' faces when the case
 * has the table, else rollPool for each.
 */
export function rollPools(st: FantasyState, c: FantasyCompiled, rng: RngState, accumulate: boolean): void {
  const na = countStaying(st.cnt, 0, CLE, ALL_GROUPS);
  const nd = countStaying(st.cnt, 1, CLE, ALL_GROUPS);
  if (st.perDie || st.poolND < 0) {
    rollPool(st, c, rng, 0, accumulate);
    rollPool(st, c, rng, 1, accumulate);
    return;
  }
  const pool = st.pool;
  const code = aliasDraw(rng, st.al, st.poolPairs[na * (st.poolND + 1) + nd]);
  const a1 = code & 0xff;
  const a2 = (code >>> 8) & 0xff;
  const d1 = (code >>> 16) & 0xff;
  const d2 = code >>> 24;
  if (accumulate) {
    pool[1] += a1;
    pool[2] += a2;
    pool[3] += na - a1 - a2;
    pool[5] += d1;
    pool[6] += d2;
    pool[7] += nd - d1 - d2;
  } else {
    // a new pool (faces 1..3 a side; words 0 and 4 stay 0)
    pool[1] = a1;
    pool[2] = a2;
    pool[3] = na - a1 - a2;
    pool[5] = d1;
    pool[6] = d2;
    pool[7] = nd - d1 - d2;
  }
}

/** Step 1: side s rolls its clerics' shield dice (H10 DEFAULT: a new pool; (b) unused dice accumulate). */
export function rollPool(st: FantasyState, c: FantasyCompiled, rng: RngState, s: number, accumulate: boolean): void {
  if (!accumulate) {
    st.pool[s * 4 + 1] = 0;
    st.pool[s * 4 + 2] = 0;
    st.pool[s * 4 + 3] = 0;
  }
  const n = countStaying(st.cnt, s, CLE, ALL_GROUPS);
  if (!st.perDie) {
    if (n === 0) return;
    // the faces of n d3: the 1s are Binomial(n, 1/3), the 2s Binomial(rest, 1/2); one draw of
    // the pair when the case has its table
    let ones: number;
    let twos: number;
    if (n < st.poolFaces.length) {
      const code = aliasDraw(rng, st.al, st.poolFaces[n]);
      ones = code & 0xff;
      twos = code >>> 8;
    } else {
      ones = aliasDraw(rng, st.al, st.third[n]);
      twos = aliasDraw(rng, st.al, st.half[n - ones]);
    }
    st.pool[s * 4 + 1] += ones;
    st.pool[s * 4 + 2] += twos;
    st.pool[s * 4 + 3] += n - ones - twos;
    return;
  }
  for (let i = 0; i < n; i++) st.pool[s * 4 + rollDie(rng, 3, c.t3)]++;
}
