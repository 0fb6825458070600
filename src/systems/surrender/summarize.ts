/** Summarize phase: accumulator -> metrics with Wilson / normal intervals (seed 002 metrics). */
import { meanInterval, wilson } from '../../stats/intervals.js';
import type { CaseSummary, CurvePoint, Metric } from '../types.js';
import type { SurrenderCompiled } from './compile.js';
import { ACC_BY_TURN, ACC_PROBE, ACC_SUM_T, ACC_SUM_T2, ACC_SURRENDERED, ACC_TRIALS } from './kernel.js';

export function probability(k: number, n: number): Metric {
  return { ...wilson(k, n), kind: 'probability', n, k };
}

export function mean(n: number, sum: number, sumSq: number): Metric {
  return { ...meanInterval({ n, sum, sumSq }), kind: 'mean', n, sum, sumSq };
}

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
      mean_turns: mean(s, acc[ACC_SUM_T], acc[ACC_SUM_T2]),
    },
    curves: { surrender_by_turn: curve },
  };
}
