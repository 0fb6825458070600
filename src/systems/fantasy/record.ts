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
const H1 = 31;
const TOT = 2 * 3 * 7 * 31;
const TOTG = 2 * 3 * 7 * 31 + 2 * 3 * 7;
const ROUND_STRIDE = 2 + 2 * 7 * 2;
if ([G, H1, TOT, TOTG, ROUND_STRIDE].join() !== [S.G, S.H1, S.TOT, S.TOTG, AC.ROUND_STRIDE].join()) {
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

/**
 * The records of the state after every round (the wall's HP, the alive per side and type, and
 * their squares: accumulator.ts) are kept as changes. Each trial's record of round r is its
 * start state plus every change made in rounds 1..r (a battle that has ended changes nothing
 * more, so its later rounds keep its last state). The kernel adds the start state to every
 * round once for all trials of a call (runFantasyState); each loss and each blow to the wall
 * adds its change to `recD` at the round it happens in (`noteLoss`, `noteWall`), and
 * `flushRecords` adds the running sums over the rounds to the accumulator. Every value is an
 * integer (counts, wall HP, their squares), so the sums are exactly those of adding each
 * round's state trial by trial, at a few adds per loss instead of every slot every round.
 */

/** Side s's type t lost `dead` units in the current round (its running totals already updated). */
export function noteLoss(st: FantasyState, s: number, t: number, dead: number): void {
  noteTypeLoss(st, TOT + s * G * NT + t, 2 + (s * NT + t) * 2, dead);
}

/**
 * noteLoss by the type's first running total (`tb`, its group 0's, TOT + s * G * NT + t) and its
 * record's offset in a round (`rec`, 2 + (s * NT + t) * 2): the volley's memo keeps both per class.
 */
export function noteTypeLoss(st: FantasyState, tb: number, rec: number, dead: number): void {
  const a = st.cnt;
  const n = a[tb] + a[tb + NT] + a[tb + 2 * NT]; // after the loss
  const m = n + dead; // before it
  const k = st.recRound * ROUND_STRIDE + rec;
  const d = st.recD;
  d[k] -= dead;
  d[k + 1] += n * n - m * m;
}

/** noteLoss for a loss read from a (side, group, type) running total's index. */
export function noteLossTot(st: FantasyState, tot: number, dead: number): void {
  const q = tot - TOT; // (side * G + group) * NT + type
  noteLoss(st, q < G * NT ? 0 : 1, q % NT, dead);
}

/** noteLoss for a loss read from a class's index in the count array. */
export function noteLossAt(st: FantasyState, idx: number, dead: number): void {
  noteLossTot(st, TOT + ((idx / H1) | 0), dead);
}

/** The wall went from `before` to `after` HP (both at least 0) in the current round. */
export function noteWall(st: FantasyState, before: number, after: number): void {
  const k = st.recRound * ROUND_STRIDE;
  const d = st.recD;
  d[k] += after - before;
  d[k + 1] += after * after - before * before;
}

/** The battle ends in round r (its records: noteLoss). */
export function endTrial(st: FantasyState, r: number): void {
  st.endRound = r;
}

/** Add the changes since the last flush to the accumulator's rounds (each round: those of rounds 1..it). */
export function flushRecords(st: FantasyState, c: FantasyCompiled, acc: Float64Array): void {
  const R = c.maxRounds;
  const base = roundBase(c);
  const d = st.recD;
  for (let k = 0; k < ROUND_STRIDE; k++) {
    let run = 0;
    for (let r = 1; r <= R; r++) {
      const i = r * ROUND_STRIDE + k;
      run += d[i];
      d[i] = 0;
      if (run !== 0) acc[base + i] += run;
    }
  }
}
