/** Summarize phase: accumulator -> metrics with Wilson / normal intervals (seed 002 metrics). */
import { mean, probability } from '../metrics.js';
import type { CaseSummary, CurvePoint } from '../types.js';
import type { SurrenderCompiled } from './compile.js';
import { ACC_BY_TURN, ACC_PROBE, ACC_SUM_T, ACC_SUM_T2, ACC_SURRENDERED, ACC_TRIALS } from './kernel.js';

export function summarizeSurrender(c: SurrenderCompiled, acc: Float64Array): CaseSummary {
  const n = acc[ACC_TRIALS];
  const s = acc[ACC_SURRENDERED];
  const curve: CurvePoint[] = [];
  let cum = 0;
  for (let t = 1; t <= c.turns; t++) {
    cum += acc[ACC_BY_TURN + t - 1];
    curve.push({ x: { turn: t }, m: probability(cum, n) });
  }
  return {
    metrics: {
      p_test: probability(acc[ACC_PROBE], n),
      p_surrender: probability(s, n),
      mean_turns: mean(s, acc[ACC_SUM_T], acc[ACC_SUM_T2], [1, c.turns]),
    },
    curves: { surrender_by_turn: curve },
  };
}
