/**
 * The surrender kernel (seed 002): one test per turn until the structure surrenders or the
 * turns run out. Allocation-free: integers, one typed array, no closures in the loop.
 *
 * Accumulator layout (Float64Array, merged by element-wise addition):
 *   [0] trials
 *   [1] p_test probe successes (one test from a roll of its own, the constant modifiers, no cards)
 *   [2] trials that surrendered by the last turn
 *   [3] Σ turn of surrender      [4] Σ turn²    (over the trials that surrendered)
 *   [5 + t - 1] surrenders in turn t, t = 1..turns
 * (A shard file with another accumulator length, from an older layout, is refused by merge.)
 */
import { nextTrialState, type RngState } from '../../engine/rng.js';
import { rollChance, rollDie } from '../../engine/dice.js';
import { testSucceeds, type SurrenderCompiled } from './compile.js';
import { setOutcomeTable, writeTrace } from '../trace.js';
import type { Kernel, Trace } from '../types.js';

/** The current trial's generator state, drawn from the chunk's stream at each trial's start. */
const TRIAL: RngState = new Int32Array(4);

export const ACC_TRIALS = 0;
export const ACC_PROBE = 1;
export const ACC_SURRENDERED = 2;
export const ACC_SUM_T = 3;
export const ACC_SUM_T2 = 4;
export const ACC_BY_TURN = 5;

/**
 * Outcome mode (Trace.outcome): a trial's code is its probe's success + 2 x whether it
 * surrendered, which fix both paired slots' changes: row k of OUTCOMES is (p_test, p_surrender).
 */
const OUTCOMES = new Int32Array([0, 0, 1, 0, 0, 1, 1, 1]);
const OUTCOME_SLOTS = [ACC_PROBE, ACC_SURRENDERED];

export function runSurrender(c: SurrenderCompiled, stream: RngState, trials: number, acc: Float64Array, trace?: Trace): void {
  const outc = trace?.outcome;
  playTrials(c, stream, trials, acc, outc === undefined ? trace : undefined, outc);
  if (outc !== undefined) setOutcomeTable(trace!, OUTCOMES, 2, OUTCOME_SLOTS, [], 'surrender');
  acc[ACC_TRIALS] += trials;
  acc[ACC_PROBE] += oProbe;
  acc[ACC_SURRENDERED] += oSurrendered;
  acc[ACC_SUM_T] += oSumT;
  acc[ACC_SUM_T2] += oSumT2;
}

/** One call's sums (playTrials leaves them here for runSurrender). */
let oProbe = 0;
let oSurrendered = 0;
let oSumT = 0;
let oSumT2 = 0;

/**
 * The trials, in a function that ends with its loop. V8 compiles a hot loop on stack (OSR)
 * during the first call, before any code after the loop has run; code after the loop without
 * type feedback (the accumulator stores) then deoptimised the compiled loop at the end of every
 * call in about half of all processes (a third slower on town-basic; `node --trace-deopt`:
 * "Insufficient type feedback for generic keyed access" once a call).
 */
function playTrials(c: SurrenderCompiled, stream: RngState, trials: number, acc: Float64Array, trace: Trace | undefined, outc: Int32Array | undefined): void {
  const rng = TRIAL;
  const die = c.die | 0;
  const dieT = c.dieT;
  const turns = c.siege === 0 ? 0 : c.turns | 0; // seed rule 1: no siege, no test
  const tests = c.testsPerTurn | 0;
  const base = c.baseMod | 0;
  let probe = 0;
  let surrendered = 0;
  let sumT = 0;
  let sumT2 = 0;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    // p_test: one test from the trial's first roll, with the constant modifiers and no cards.
    const pr = testSucceeds(c, rollDie(rng, die, dieT), base) ? 1 : 0;
    probe += pr;
    let gone = 0; // 2 once it surrendered (its outcome code's part)
    for (let t = 1; t <= turns; t++) {
      // Seed 002 section C: a port is only tested while the blockade holds.
      if (c.port === 1 && !rollChance(rng, c.blockadeT)) continue;
      let m = base;
      // Cards are played at random per turn with their chance; a draw is made only
      // when the chance is not zero, so scenarios without cards keep their dice.
      if (c.cardBT >= 0 && rollChance(rng, c.cardBT)) m += c.cardBMod;
      if (c.cardDT >= 0 && rollChance(rng, c.cardDT)) m += c.cardDMod;
      let fell = false;
      for (let k = 0; k < tests; k++) {
        if (testSucceeds(c, rollDie(rng, die, dieT), m)) {
          fell = true;
          break;
        }
      }
      if (fell) {
        gone = 2;
        surrendered++;
        sumT += t;
        sumT2 += t * t;
        acc[ACC_BY_TURN + t - 1] += 1;
        break;
      }
    }
    if (outc !== undefined) outc[i] = pr + gone;
    else if (trace !== undefined) {
      // the sums kept in locals, added trial by trial so that the traced slots run
      acc[ACC_PROBE] += probe;
      acc[ACC_SURRENDERED] += surrendered;
      acc[ACC_SUM_T] += sumT;
      acc[ACC_SUM_T2] += sumT2;
      probe = surrendered = sumT = sumT2 = 0;
      writeTrace(trace, i, acc);
    }
  }
  oProbe = probe;
  oSurrendered = surrendered;
  oSumT = sumT;
  oSumT2 = sumT2;
}

export const surrenderKernel: Kernel<SurrenderCompiled> = {
  run: runSurrender,
  accLength: (c) => ACC_BY_TURN + c.turns,
  outcomes: () => true,
};
