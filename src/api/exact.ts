/** The exact and check verbs: exact answers per (case, variant), and Monte Carlo held to them by z-scores. */
import type { ValidScenario } from '../scenario/validate.js';
import type { CaseResult, ExactSummary, Metric, ScenarioResult } from '../systems/types.js';
import { zMean, zProportion } from '../stats/intervals.js';
import { compilePoints } from './run.js';

export interface ExactCase {
  case: number;
  variant: string;
  params: Record<string, unknown>;
  exact: ExactSummary | null;
}

/** Exact answers for every (case, variant) that has one. */
export function exactScenario(v: ValidScenario): ExactCase[] {
  const points = compilePoints(v);
  const out: ExactCase[] = [];
  v.points.forEach((p, g) => {
    p.variants.forEach((vc, vi) => {
      const c = points[g].compiled[vi];
      out.push({ case: g + 1, variant: vc.variant, params: p.params, exact: v.system.exact ? v.system.exact(c) : null });
    });
  });
  return out;
}

export interface CheckRow {
  case: number;
  variant: string;
  metric: string;
  simulated: number;
  exact: number;
  n: number;
  z: number;
}

/** Largest |z| `check` accepts: a false alarm about once in 150,000 metrics (two-sided normal). */
export const CHECK_Z_LIMIT = 4.5;

/** Compare a run with the exact answers, metric by metric and point by point of every curve. */
export function checkScenario(result: ScenarioResult, exact: ExactCase[]): CheckRow[] {
  const rows: CheckRow[] = [];
  result.cases.forEach((c, i) => {
    const e = exact[i]?.exact;
    if (!e) return;
    for (const [metric, em] of Object.entries(e.metrics)) {
      const m = c.metrics[metric];
      if (!m) continue;
      rows.push(zRow(c, metric, m, em.value, em.variance));
    }
    for (const [curve, points] of Object.entries(e.curves)) {
      const sim = c.curves[curve] ?? [];
      points.forEach((pt, j) => {
        const m = sim[j]?.m;
        if (!m) return;
        const key = Object.entries(pt.x).map(([k, x]) => `${k}=${x}`).join(',');
        rows.push(zRow(c, `${curve}[${key}]`, m, pt.value, pt.variance));
      });
    }
  });
  return rows;
}

/** One metric of a case against its exact value: the z-score `check` judges (also `expect: exact`). */
export function zRow(c: CaseResult, metric: string, m: Metric, exact: number, variance: number | undefined): CheckRow {
  let z: number;
  if (m.kind === 'probability') z = zProportion(m.k ?? 0, m.n, exact);
  // No trial gave the mean a value: there is nothing to compare, so no z (NaN, null in JSON),
  // never a 0 that reads as agreement. The event's probability, on its own row, carries the evidence.
  else if (m.n === 0) z = NaN;
  else z = zMean(m.value, m.n, exact, variance ?? NaN);
  return { case: c.case, variant: c.variant, metric, simulated: m.value, exact, n: m.n, z };
}
