/** The exact and check verbs: exact answers per (case, variant), and Monte Carlo held to them by z-scores. */
import type { ValidScenario } from '../scenario/validate.js';
import { EXACT_LIMITS, ExactTooLarge, type ExactBudget, type CaseResult, type Difference, type ExactSummary, type Metric, type RulesSystem, type ScenarioResult } from '../systems/types.js';
import { zMean, zPairedDifference, zProportion } from '../stats/intervals.js';
import { compilePoints } from './run.js';

export interface ExactCase {
  case: number;
  variant: string;
  params: Record<string, unknown>;
  exact: ExactSummary | null;
  /** Why a case of a system with an exact form has none: its chain is too large (ExactTooLarge's words). */
  unsolved?: string;
  /**
   * A variant after the baseline: its exact difference from the baseline, metric by metric
   * (variant − baseline, the `diff_<metric>` of summary.csv), for the metrics both exact answers
   * have; null when either side has no exact form. Absent on the baseline.
   */
  differences?: Record<string, number> | null;
}

/** Exact answers for every (case, variant) that has one, and each variant's exact difference from the baseline. */
export function exactScenario(v: ValidScenario): ExactCase[] {
  const points = compilePoints(v);
  const out: ExactCase[] = [];
  // one budget for the file's cases (EXACT_LIMITS.exactWork): a sweep of large cases is bounded too
  const budget: ExactBudget = { work: EXACT_LIMITS.exactWork };
  v.points.forEach((p, g) => {
    let base: ExactSummary | null = null;
    p.variants.forEach((vc, vi) => {
      const c = points[g].compiled[vi];
      const { exact, unsolved } = solveExactOrWhy(v.system, c, budget);
      if (vi === 0) base = exact;
      out.push({ case: g + 1, variant: vc.variant, params: p.params, exact, ...(unsolved !== undefined ? { unsolved } : {}), ...(vi > 0 ? { differences: exactDifferences(exact, base) } : {}) });
    });
  });
  return out;
}

/** solveExact, with a chain past its bounds (ExactTooLarge) as no answer and why, for exact, check and test alike. */
export function solveExactOrWhy<C>(system: RulesSystem<C>, compiled: C, budget: ExactBudget): { exact: ExactSummary | null; unsolved?: string } {
  try {
    return { exact: solveExact(system, compiled, budget) };
  } catch (e) {
    if (!(e instanceof ExactTooLarge)) throw e;
    return { exact: null, unsolved: e.message };
  }
}

/** A system's exact answer for a compiled case, its probabilities held to [0, 1] and its variances to at least 0 (clampToRange); null when it has none. */
export function solveExact<C>(system: RulesSystem<C>, compiled: C, budget: ExactBudget = { work: EXACT_LIMITS.exactWork }): ExactSummary | null {
  const exact = system.exact ? system.exact(compiled, budget) : null;
  return exact && clampToRange(system, exact);
}

/**
 * The answer with every probability in it held to [0, 1]: a probability summed, or taken as
 * the complement of others (p_undecided = 1 − the rest), in floating point can land a few ulps
 * outside (-8.9e-16, 1.0000000000000002), which a reader takes for a defect and a client's
 * √(p(1 − p)) turns into NaN. The probabilities are the `p_` metrics (the systems' naming
 * convention, as metricKinds reads it) and the points of a curve whose value is `p` or `p_...`;
 * means, and every value already inside [0, 1], are left exactly as they are. A variance is held
 * to at least 0 likewise: E[X²] − E[X]² of a mean that is the same in every trial comes out a
 * few ulps either side of 0 (-1.4e-14 for a mean_rounds of 3), and √variance would be NaN.
 * @example clampToRange(sys, { metrics: { p_undecided: { value: -8.9e-16 } }, curves: {} }).metrics.p_undecided.value // 0
 */
export function clampToRange(system: Pick<RulesSystem, 'curveDefs'>, exact: ExactSummary): ExactSummary {
  // a value (and its variance) as it is when already in range, else a copy held to it
  const held = <T extends { value: number; variance?: number }>(x: T, probability: boolean): T => {
    const v = x.variance !== undefined && x.variance < 0 ? { ...x, variance: 0 } : x;
    return probability && (v.value < 0 || v.value > 1) ? { ...v, value: v.value < 0 ? 0 : 1 } : v;
  };
  const metrics: ExactSummary['metrics'] = {};
  for (const [k, m] of Object.entries(exact.metrics)) metrics[k] = held(m, k.startsWith('p_'));
  const curves: ExactSummary['curves'] = {};
  for (const [file, points] of Object.entries(exact.curves)) {
    const value = system.curveDefs.find((d) => d.file === file)?.valueName ?? '';
    const probability = value === 'p' || value.startsWith('p_');
    curves[file] = points.map((pt) => held(pt, probability));
  }
  return { ...exact, metrics, curves };
}

/**
 * variant − baseline for every metric both exact answers have (NaN where either is undefined,
 * a mean of an event that cannot happen); null when either has no exact form.
 * @example exactDifferences({ metrics: { p_x: { value: 0.9 } }, curves: {} }, { metrics: { p_x: { value: 0.7 } }, curves: {} }) // { p_x: 0.2 }
 */
export function exactDifferences(variant: ExactSummary | null, baseline: ExactSummary | null): Record<string, number> | null {
  if (!variant || !baseline) return null;
  const out: Record<string, number> = {};
  for (const [m, e] of Object.entries(variant.metrics)) {
    const b = baseline.metrics[m];
    if (b) out[m] = e.value - b.value;
  }
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
  /** A variant's paired difference from the baseline (`metric` is `diff_<metric>`). */
  difference?: true;
}

/** Largest |z| `check` accepts: a false alarm about once in 150,000 metrics (two-sided normal). */
export const CHECK_Z_LIMIT = 4.5;

/**
 * Compare a run with the exact answers, metric by metric, each variant's paired difference from
 * the baseline with the exact difference (a `diff_<metric>` row), and point by point of every
 * curve. A difference that is not paired (Welch: a metric that is not per trial) is not
 * compared: its two sides share dice, so the Welch SE is not the SE of the difference
 * (`unpairedDifferences` names them).
 */
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
    for (const [metric, value] of Object.entries(exact[i].differences ?? {})) {
      const d = c.differences[metric];
      const m = c.metrics[metric];
      if (!d?.paired || !m) continue;
      rows.push(zDiffRow(c, metric, m.kind, d, value));
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

/**
 * A comparison's verdict: `no_data` for a mean no trial gave a value (n = 0 and no z: nothing to
 * compare, neither a pass nor a fail); else `fail` when |z| is over the limit or undefined (an
 * exact answer with no value where the trials gave one).
 */
export type CheckVerdict = 'pass' | 'fail' | 'no_data';

export function checkVerdict(r: CheckRow, limit: number): CheckVerdict {
  if (r.n === 0 && Number.isNaN(r.z)) return 'no_data';
  return Math.abs(r.z) <= limit ? 'pass' : 'fail';
}

/** A check's comparisons counted: what its verdict line, its JSON and its exit code say. */
export interface CheckTally {
  compared: number;
  failed: number;
  /** Rows with verdict `no_data`. */
  noData: number;
  /** Rows that compare a variant's paired difference from the baseline. */
  differences: number;
  /** Largest |z| over the rows with data (Infinity where one's z is undefined; 0 when there are none). */
  maxAbsZ: number;
}

export const emptyCheckTally = (): CheckTally => ({ compared: 0, failed: 0, noData: 0, differences: 0, maxAbsZ: 0 });

/** Each row's verdict, counted into `tallies` (a scenario's own, the whole check's). */
export function judgeCheck(rows: readonly CheckRow[], limit: number, ...tallies: CheckTally[]): CheckVerdict[] {
  return rows.map((r) => {
    const verdict = checkVerdict(r, limit);
    const az = Math.abs(r.z);
    for (const t of tallies) {
      t.compared++;
      if (r.difference) t.differences++;
      if (verdict === 'no_data') t.noData++;
      if (verdict === 'fail') t.failed++;
      if (verdict !== 'no_data' && (az > t.maxAbsZ || Number.isNaN(az))) t.maxAbsZ = Number.isNaN(az) ? Infinity : Math.max(t.maxAbsZ, az);
    }
    return verdict;
  });
}

/**
 * Whether a check passed: nothing failed, and something was compared. Nothing compared is not
 * a pass unless allowed: a CI gate over scenarios without an exact form would otherwise stay
 * green while proving nothing.
 */
export function checkPassed(t: CheckTally, allowEmpty: boolean): boolean {
  return t.compared === 0 ? allowEmpty : t.failed === 0;
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

/**
 * A variant's paired difference from the baseline against the exact difference: the row
 * `check` judges as `diff_<metric>` (also `expect: exact` on a `diff_`). The z is on the paired
 * SE (√(s_d²/n) of the per-trial differences on common dice), floored for a probability as
 * `zPairedDifference` explains; n is the pairs (trials).
 */
export function zDiffRow(c: CaseResult, metric: string, kind: Metric['kind'], d: Difference, exact: number): CheckRow {
  const z = Number.isNaN(exact) || Number.isNaN(d.value) ? NaN : zPairedDifference(d.value, d.se ?? NaN, c.trials, exact, kind);
  return { case: c.case, variant: c.variant, metric: `diff_${metric}`, simulated: d.value, exact, n: c.trials, z, difference: true };
}

/** The metrics whose exact difference `check` has but does not compare: their Monte Carlo difference is not paired (Welch). */
export function unpairedDifferences(result: ScenarioResult, exact: ExactCase[]): string[] {
  const out = new Set<string>();
  result.cases.forEach((c, i) => {
    if (!exact[i]?.exact) return;
    for (const metric of Object.keys(exact[i].differences ?? {})) {
      const d = c.differences[metric];
      if (d && !d.paired && c.metrics[metric]) out.add(`diff_${metric}`);
    }
  });
  return [...out];
}
