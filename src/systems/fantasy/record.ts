/**
 * The end of a fantasy trial and its records (seed 001, docs/rules/fantasy.md 4.1-4.3): who won,
 * and the state after every round into the accumulator (layout: accumulator.ts).
 */
import { roundBase } from './accumulator.js';
import * as S from './state.js';
import * as AC from './accumulator.js';
import type { FantasyCompiled } from './compile.js';
import { hpSide, type FantasyState } from './state.js';

// The layout constants this module uses, as its own constants (V8 folds a module's own `const`;
// an imported binding is read and checked at every use), held to their definitions here.
const G = 3;
const TOTG = 2 * 3 * 7 * 31 + 2 * 3 * 7;
const ROUND_STRIDE = 2 + 2 * 7 * 2;
if ([G, TOTG, ROUND_STRIDE].join() !== [S.G, S.TOTG, AC.ROUND_STRIDE].join()) {
  throw new Error('internal: layout constants differ from state.ts and accumulator.ts');
}

const NT = 7; // compile.ts NT as this module's own constant (state.ts checks it)

function sideOut(st: FantasyState, s: number): boolean {
  const i = TOTG + s * G;
  return st.cnt[i] + st.cnt[i + 1] + st.cnt[i + 2] === 0;
}

/** Set `outcome` if a side is gone (both gone: undecided). */
export function checkEnd(st: FantasyState): boolean {
  const a = sideOut(st, 0);
  const d = sideOut(st, 1);
  if (!a && !d) return false;
  st.outcome = a && d ? 3 : a ? 2 : 1;
  return true;
}

/** The round cap is reached: the outcome per `rules.round_cap_result` (H7, H27: more HP, the defender, or undecided). */
export function capOutcome(st: FantasyState, c: FantasyCompiled): void {
  if (c.capResult === 2) st.outcome = 2;
  else if (c.capResult === 3) st.outcome = 3;
  else {
    const ha = hpSide(st.cnt, 0, st.hmax);
    const hd = hpSide(st.cnt, 1, st.hmax);
    st.outcome = ha > hd ? 1 : hd > ha ? 2 : 3;
  }
}

/** Add the state after round r to the accumulator. */
export function record(st: FantasyState, c: FantasyCompiled, acc: Float64Array, r: number): void {
  addState(st, acc, roundBase(c) + r * ROUND_STRIDE);
}

/** Add the current state (wall HP, alive per side and type, and their squares) to dst at b. */
export function addState(st: FantasyState, dst: Float64Array, b: number): void {
  const w = st.wallHp > 0 ? st.wallHp : 0;
  dst[b] += w;
  dst[b + 1] += w * w;
  const slots = st.slots;
  const tot = st.slotTot;
  const a = st.cnt;
  const grouped = st.slotsGrouped;
  for (let j = 0; j < grouped; j++) {
    const i = tot[j];
    const n = a[i] + a[i + NT] + a[i + 2 * NT];
    const k = b + 2 + slots[j] * 2;
    dst[k] += n;
    dst[k + 1] += n * n;
  }
  for (let j = grouped; j < slots.length; j++) {
    const n = a[tot[j]]; // group 0 only: the other groups of these types stay empty
    const k = b + 2 + slots[j] * 2;
    dst[k] += n;
    dst[k + 1] += n * n;
  }
}

/** The battle ends in round r: that round's state is also every later round's (fillRecords). */
export function endTrial(st: FantasyState, c: FantasyCompiled, r: number): void {
  st.endRound = r;
  fillRecords(st, c, r - 1);
}

/**
 * Rounds r+1..R keep the state the battle ended with (after round r + 1: endTrial). Rather than adding it
 * to every later round of the accumulator trial by trial, a trial adds it once to tail[r], and
 * `flushTail` adds each tail[r] to rounds r+1..R (running sums) every 1024 trials and at the
 * end of the kernel call. Every value is an integer (counts, wall HP, their squares), so the
 * sums are the same exactly. (Flushing often also keeps flushTail hot enough to be optimised:
 * run once per call it would stay in the interpreter, which boxes every number it adds.)
 */
export function fillRecords(st: FantasyState, c: FantasyCompiled, r: number): void {
  if (r >= c.maxRounds) return;
  addState(st, st.tail, r * ROUND_STRIDE);
  if (r < st.tailFrom) st.tailFrom = r;
}

/** Add the trials' tails (fillRecords) to the accumulator's later rounds. */
export function flushTail(st: FantasyState, c: FantasyCompiled, acc: Float64Array): void {
  const R = c.maxRounds;
  if (st.tailFrom >= R) return;
  const base = roundBase(c);
  for (let k = 0; k < ROUND_STRIDE; k++) {
    let run = 0;
    for (let r = st.tailFrom; r < R; r++) {
      const i = r * ROUND_STRIDE + k;
      run += st.tail[i];
      st.tail[i] = 0;
      if (run !== 0) acc[base + (r + 1) * ROUND_STRIDE + k] += run;
    }
  }
  st.tailFrom = R;
}
