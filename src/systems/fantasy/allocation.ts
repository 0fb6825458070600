/**
 * The fantasy kernel's allocation phase (seed 001, docs/rules/fantasy.md H2-H4): a pool of
 * damage points assigned to a side's units under a policy, on a count array of classes
 * (state.ts). Kills are also added to FantasyState.killedValue and killedUnits (what-if runs read them).
 */
import type { RngState } from '../../engine/rng.js';
import * as S from './state.js';
import type { FantasyCompiled } from './compile.js';
import { noteLoss, noteLossAt } from './record.js';
import { addCount, off, rollN, type FantasyState } from './state.js';

// The layout constants this module uses, as its own constants (V8 folds a module's own `const`;
// an imported binding is read and checked at every use), held to their definitions here.
const G = 3;
const OE = 8;
const P_KNAPSACK = 2;
const P_RANDOM = 3;
const P_RECEIVER = 4;
if ([G, OE, P_KNAPSACK, P_RANDOM, P_RECEIVER].join() !== [S.G, S.OE, S.P_KNAPSACK, S.P_RANDOM, S.P_RECEIVER].join()) {
  throw new Error('internal: layout constants differ from state.ts and accumulator.ts');
}

const NT = 7; // compile.ts NT as this module's own constant (state.ts checks it)

// === H2-H4: allocating a pool of damage points =============================================
/**
 * Assign D damage points to side s's units of the legal types and groups, under a policy.
 * A unit dies when the points given to it reach its current HP; returns the points left over
 * (H2 DEFAULT: wasted by the caller; persistent wounds are applied here).
 */
export function allocate(st: FantasyState, c: FantasyCompiled, rng: RngState, a: Int32Array, s: number, D: number, typeMask: number, groupMask: number, policy: number): number {
  if (D <= 0) return 0;
  if (policy === P_RANDOM || policy === P_KNAPSACK) {
    const n = listClasses(st, c, a, s, typeMask, groupMask);
    if (n === 0) return D;
    return policy === P_RANDOM ? allocateRandom(st, rng, a, n, D, c.leftover === 1) : allocateKnapsack(st, a, n, D, c.leftover === 1);
  }
  // A sorting policy: walk the case's order (FantasyState.ord), skipping empty and illegal classes.
  const ord = st.ord;
  const pi = s * 3 + (policy === P_RECEIVER ? 2 : policy);
  const e0 = st.ordFrom[pi] * OE;
  const e1 = st.ordFrom[pi + 1] * OE;
  let value = 0;
  let units = 0;
  const live = a === st.cnt; // the battle's counts (recorded), not a what-if copy
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
    if (live) noteLoss(st, s, ord[e + 7], kill);
    D -= kill * h;
    value += kill * ord[e + 4];
    units += kill;
  }
  st.killedValue += value;
  st.killedUnits += units;
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
export function kills(D: number, h: number, n: number): number {
  if (D < h) return 0;
  if (D >= n * h) return n;
  return (D / h) | 0;
}

/** Side s's non-empty legal classes in class order, into clsIdx / clsH / clsV; returns how many. */
export function listClasses(st: FantasyState, c: FantasyCompiled, a: Int32Array, s: number, typeMask: number, groupMask: number): number {
  let n = 0;
  for (let g = 0; g < G; g++) {
    if ((groupMask & (1 << g)) === 0) continue;
    for (let t = 0; t < NT; t++) {
      if ((typeMask & (1 << t)) === 0) continue;
      const b = off(s, g, t);
      for (let h = 1; h <= st.hmax; h++) {
        if (a[b + h] > 0) {
          st.clsIdx[n] = b + h;
          st.clsH[n] = h;
          st.clsV[n] = c.value[s * NT + t];
          n++;
        }
      }
    }
  }
  return n;
}

/** H4 (d): targets in random order, each killed if the points left reach its HP. */
function allocateRandom(st: FantasyState, rng: RngState, a: Int32Array, n: number, D: number, wounds: boolean): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    st.clsLeft[i] = a[st.clsIdx[i]];
    total += st.clsLeft[i];
  }
  // Every unit is drawn at most once: the loop is bounded by the number of units.
  while (total > 0 && D > 0) {
    let r = rollN(rng, total) - 1;
    let i = 0;
    while (r >= st.clsLeft[i]) {
      r -= st.clsLeft[i];
      i++;
    }
    st.clsLeft[i]--;
    total--;
    const idx = st.clsIdx[i];
    const h = st.clsH[i];
    if (h <= D) {
      addCount(a, idx, -1);
      if (a === st.cnt) noteLossAt(st, idx, 1);
      D -= h;
      st.killedValue += st.clsV[i];
      st.killedUnits++;
    } else if (wounds) {
      a[idx]--;
      a[idx - D]++;
      return 0;
    }
  }
  return D;
}

/** H4 (c): exact 0/1 knapsack over units (binary-split classes): most value killed with Σ HP ≤ D. */
function allocateKnapsack(st: FantasyState, a: Int32Array, n: number, D: number, wounds: boolean): number {
  let totalHp = 0;
  let items = 0;
  for (let i = 0; i < n; i++) {
    totalHp += a[st.clsIdx[i]] * st.clsH[i];
    for (let left = a[st.clsIdx[i]], k = 1; left > 0; k *= 2) {
      items++;
      left -= Math.min(k, left);
    }
  }
  const W = D < totalHp ? D : totalHp;
  if (st.knapItemCls.length < items) {
    // grows to the largest case seen, then never again (not per trial)
    st.knapItemCls = new Int32Array(items * 2);
    st.knapItemK = new Int32Array(items * 2);
  }
  if (st.knapTake.length < items * (W + 1)) st.knapTake = new Uint8Array(items * (W + 1) * 2);
  if (st.knapDp.length < W + 1) st.knapDp = new Int32Array((W + 1) * 2);
  let m = 0;
  for (let i = 0; i < n; i++) {
    for (let left = a[st.clsIdx[i]], k = 1; left > 0; k *= 2) {
      const take = Math.min(k, left);
      st.knapItemCls[m] = i;
      st.knapItemK[m] = take;
      m++;
      left -= take;
    }
  }
  for (let w = 0; w <= W; w++) st.knapDp[w] = 0;
  for (let it = 0; it < m; it++) {
    const i = st.knapItemCls[it];
    const wt = st.clsH[i] * st.knapItemK[it];
    const val = st.clsV[i] * st.knapItemK[it];
    const row = it * (W + 1);
    for (let w = W; w >= 0; w--) {
      st.knapTake[row + w] = 0;
      if (w >= wt && st.knapDp[w - wt] + val > st.knapDp[w]) {
        st.knapDp[w] = st.knapDp[w - wt] + val;
        st.knapTake[row + w] = 1;
      }
    }
  }
  let w = W;
  for (let it = m - 1; it >= 0; it--) {
    if (st.knapTake[it * (W + 1) + w] === 1) {
      const i = st.knapItemCls[it];
      addCount(a, st.clsIdx[i], -st.knapItemK[it]);
      if (a === st.cnt) noteLossAt(st, st.clsIdx[i], st.knapItemK[it]);
      w -= st.clsH[i] * st.knapItemK[it];
      st.killedValue += st.clsV[i] * st.knapItemK[it];
      st.killedUnits += st.knapItemK[it];
    }
  }
  let left = D - (W - w); // points not spent on kills
  if (left > 0 && wounds) {
    for (let i = 0; i < n; i++) {
      const idx = st.clsIdx[i];
      if (a[idx] > 0 && st.clsH[i] > left) {
        a[idx]--;
        a[idx - left]++;
        left = 0;
        break;
      }
    }
  }
  return left;
}
