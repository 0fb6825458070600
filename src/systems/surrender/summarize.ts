/** Summarize phase: accumulator -> metrics with Wilson / normal intervals (seed 002 metrics). */
import { mean, probability } from '../metrics.js';
import type { CaseSummary, CurvePoint } from '../types.js';
import type { SurrenderCompiled } from './compile.js';
import { ACC_BY_TURN, ACC_PROBE, ACC_SUM_T, ACC_SUM_T2, ACC_SURRENDERED, ACC_TRIALS } from './kernel.js';

/** What each metric counts (RulesSystem.metricDocs), as kernel.ts counts it (seed 002, docs/rules/surrender.md). */
export const METRIC_DOCS_SURRENDER: Readonly<Record<string, string>> = {
  p_test: "one surrender test succeeds: a roll of its own against structure.surrender_level with the constant modifiers (the same every turn) and no card (rolled even when there is no siege)",
  p_surrender:
    'the structure surrendered by the end of the last turn: a test succeeded in some turn (rules.tests_per_turn a turn, cards at their chance, a port only while the blockade holds); 0 without a siege (fewer besieging combat units than rules.min_besieging_units)',
  mean_turns: 'the turn the structure surrendered, over the trials in which it did',
};

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
