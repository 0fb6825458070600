/**
 * The fantasy kernel (seed 001, docs/rules/fantasy.md 4.1-4.3): the trial loop. Its phases live
 * in their own modules, each a set of functions of the case's explicit state (state.ts
 * FantasyState, made once per compiled case):
 *   allocation.ts  H2-H4   damage points assigned to a side's units under a policy
 *   volley.ts      4.1 RANGED_VOLLEY, H5, H8, H9: volleys, mage targets, shields, cleric pools
 *   open-field.ts  4.1 OPEN_FIELD_BATTLE: phases 2-4, then the melee of phase 5
 *   siege.ts       4.2 SIEGE_ROUND: wall, climbs, breach, melee
 *   record.ts      the end of a trial and the per-round records
 * The accumulator's layout is in accumulator.ts; the dice tables of the table mode in
 * kernel-tables.ts.
 */
import { nextTrialState, type RngState } from '../../engine/rng.js';
import type { Kernel, Trace } from '../types.js';
import { accLengthFantasy, histBase, ROUND_STRIDE, roundBase } from './accumulator.js';
import * as AC from './accumulator.js';
import type { FantasyCompiled } from './compile.js';
import { openField } from './open-field.js';
import { checkEnd, flushRecords } from './record.js';
import { siege } from './siege.js';
import { FantasyState } from './state.js';

// The layout constants this module uses, as its own constants (V8 folds a module's own `const`;
// an imported binding is read and checked at every use), held to their definitions here.
const A_ATT_WINS = 1;
const A_DEF_WINS = 2;
const A_ROUNDS = 4;
const A_ROUNDS2 = 5;
const A_TRIALS = 0;
const A_UNDECIDED = 3;
if ([A_ATT_WINS, A_DEF_WINS, A_ROUNDS, A_ROUNDS2, A_TRIALS, A_UNDECIDED].join() !== [AC.A_ATT_WINS, AC.A_DEF_WINS, AC.A_ROUNDS, AC.A_ROUNDS2, AC.A_TRIALS, AC.A_UNDECIDED].join()) {
  throw new Error('internal: layout constants differ from state.ts and accumulator.ts');
}

export * from './accumulator.js';
export { prepareFantasy, FantasyState, type PrepareOptions } from './state.js';

/**
 * Each compiled case's state, made on its first run. Keyed by the case object, so a case
 * dropped by the engine takes its state with it.
 */
const STATES = new WeakMap<FantasyCompiled, FantasyState>();

/** The state the kernel runs case c on (made once per case). */
export function stateOf(c: FantasyCompiled): FantasyState {
  let st = STATES.get(c);
  if (st === undefined) {
    st = new FantasyState(c);
    STATES.set(c, st);
  }
  return st;
}

/**
 * Run `trials` trials of the case of `st` (see Kernel, systems/types.ts). With `trace`, after
 * trial t the traced slots' values: the outcome and breach counters are added in the trial
 * itself (the round records, kept as changes in `st.recD`, are never paired).
 */
export function runFantasyState(st: FantasyState, stream: RngState, trials: number, acc: Float64Array, trace?: Trace): void {
  const c = st.c;
  const rng = st.rng;
  st.cnt.set(st.start);
  const wall0 = c.siege === 1 ? c.wallHp : 0;
  const hb = histBase(c);
  // Every round's record starts from the state before the battle, the same in every trial: added
  // once for all of them (each trial's changes follow in st.recD: record.ts).
  const slots = st.slots;
  for (let r = 0; r <= c.maxRounds; r++) {
    const b0 = roundBase(c) + r * ROUND_STRIDE;
    acc[b0] += trials * wall0;
    acc[b0 + 1] += trials * wall0 * wall0;
    for (let j = 0; j < slots.length; j++) {
      const n = c.units[slots[j]];
      acc[b0 + 2 + slots[j] * 2] += trials * n;
      acc[b0 + 3 + slots[j] * 2] += trials * n * n;
    }
  }
  acc[A_TRIALS] += trials; // before the loop: nothing may follow it (the Kernel contract, systems/types.ts)
  const cnt = st.cnt;
  const pool = st.pool;
  const reset = st.reset;
  const resetVal = st.resetVal;
  const accumulate = c.poolAccumulates === 1;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    // four entries a step (the list is padded to a multiple of four with its last entry)
    for (let j = 0; j < reset.length; j += 4) {
      cnt[reset[j]] = resetVal[j];
      cnt[reset[j + 1]] = resetVal[j + 1];
      cnt[reset[j + 2]] = resetVal[j + 2];
      cnt[reset[j + 3]] = resetVal[j + 3];
    }
    if (accumulate) for (let k = 0; k < 8; k++) pool[k] = 0; // a new pool is written whole at the first roll (volley.ts rollPools)
    st.carry[0] = 0;
    st.carry[1] = 0;
    st.outcome = 0;
    st.killedValue = 0; // only what-if runs read these: kept small (a field past the
    st.killedUnits = 0; // small-integer range would be a boxed number, made anew at each change)
    st.endRound = 0;
    st.breachRound = 0;
    st.recRound = 0;
    st.wallHp = wall0;
    if (checkEnd(st)) {
      st.endRound = 0;
      // no Phase A: the first volley's damage is 0, in its histogram as in its mean (volley_damage.csv sums to 1)
      if (c.siege === 0) acc[hb] += 1;
    } else if (c.siege === 1) siege(st, c, rng, acc);
    else openField(st, c, rng, acc, 1);
    if (st.outcome === 1) acc[A_ATT_WINS] += 1;
    else if (st.outcome === 2) acc[A_DEF_WINS] += 1;
    else acc[A_UNDECIDED] += 1;
    acc[A_ROUNDS] += st.endRound;
    acc[A_ROUNDS2] += st.endRound * st.endRound;
    if ((i & 1023) === 1023 || i === trials - 1) flushRecords(st, c, acc); // the last trial flushes too: nothing may follow the loop
    if (trace !== undefined) {
      const ts = trace.slots;
      const out = trace.out;
      const row = i * ts.length;
      for (let p = 0; p < ts.length; p++) out[row + p] = acc[ts[p]];
    }
  }
}

export function runFantasy(c: FantasyCompiled, stream: RngState, trials: number, acc: Float64Array, trace?: Trace): void {
  runFantasyState(stateOf(c), stream, trials, acc, trace);
}

export const fantasyKernel: Kernel<FantasyCompiled> = {
  run: runFantasy,
  accLength: accLengthFantasy,
  release: (c) => void STATES.delete(c),
};
