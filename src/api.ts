/**
 * The API the CLI is a thin layer over, and that tests call in-process:
 * validate -> compile -> run -> summarize, and exact/check. Touches no files.
 */
import { loadScenarioText, type ScenarioIssue } from './scenario/load.js';
import { validateScenario, type ValidScenario, type Validation } from './scenario/validate.js';
import { SYSTEMS } from './systems/registry.js';
import type { CaseResult, ExactSummary, Metric, RulesSystem, ScenarioResult } from './systems/types.js';
import { halfWidth, pairedDifference, welchDifference, zMean, zProportion, type Estimate } from './stats/intervals.js';
import { runGroups, type GroupJob } from './engine/run.js';
import { InlineExecutor, type Executor } from './engine/executor.js';
import { VERSION } from './version.js';

export type { ScenarioIssue, ValidScenario, ScenarioResult };

/** Parse and validate one scenario's text. */
export function validateText(file: string, text: string): Validation {
  return validateScenario(loadScenarioText(file, text), SYSTEMS);
}

export interface RunScenarioOptions {
  trials?: number;
  seed?: string | number;
  precision?: number;
  maxTrials?: number;
  /** Where chunks run; default: in this thread. */
  executor?: Executor;
  onProgress?: (done: number, planned: number) => void;
  signal?: AbortSignal;
}

interface CompiledPoint {
  compiled: unknown[];
}

function compilePoints(v: ValidScenario): CompiledPoint[] {
  return v.points.map((p) => ({ compiled: p.variants.map((vc) => v.system.compile(vc.scenario)) }));
}

/** Run a validated scenario and summarize every (case, variant). */
export async function runScenario(v: ValidScenario, opts: RunScenarioOptions = {}): Promise<ScenarioResult> {
  const sys = v.system;
  const seed = opts.seed ?? v.seed;
  const trials = opts.trials ?? v.trials;
  const points = compilePoints(v);
  const jobs: GroupJob[] = points.map((p, i) => ({
    // Streams are keyed by sweep point: every variant of a point rolls the same dice.
    stream: `point-${i}`,
    system: sys.id,
    compiled: p.compiled,
    accLengths: p.compiled.map((c) => sys.kernel.accLength(c)),
    pairedSlots: p.compiled.map((c) => sys.pairedSlots(c).map((s) => s.slot)),
  }));
  const exec = opts.executor ?? new InlineExecutor();
  const t0 = performance.now();
  const outcomes = await runGroups(
    jobs,
    {
      seed,
      trials,
      chunkTrials: sys.chunkTrials,
      precision: opts.precision,
      maxTrials: opts.maxTrials,
      widest: (g, merged) => widestHeadline(sys, points[g].compiled, jobs[g], merged),
      onProgress: opts.onProgress,
      signal: opts.signal,
    },
    exec,
  );
  const seconds = (performance.now() - t0) / 1000;

  const cases: CaseResult[] = [];
  let totalTrials = 0;
  outcomes.forEach((o, g) => {
    const point = v.points[g];
    const split = splitResult(jobs[g], o.merged);
    const summaries = points[g].compiled.map((c, vi) => sys.summarize(c, split.accs[vi]));
    const pairedNames = sys.pairedSlots(points[g].compiled[0]).map((s) => s.metric);
    summaries.forEach((s, vi) => {
      const differences: Record<string, Estimate> = {};
      if (vi > 0) {
        for (const [metric, m] of Object.entries(s.metrics)) {
          const p = pairedNames.indexOf(metric);
          if (p >= 0) {
            const k = ((vi - 1) * pairedNames.length + p) * 2;
            differences[metric] = pairedDifference({ n: o.trials, sum: split.pairs[k], sumSq: split.pairs[k + 1] });
          } else {
            differences[metric] = welchDifference(moments(m), moments(summaries[0].metrics[metric]));
          }
        }
      }
      totalTrials += o.trials;
      cases.push({
        case: g + 1,
        variant: point.variants[vi].variant,
        params: point.params,
        trials: o.trials,
        metrics: s.metrics,
        differences,
        curves: s.curves,
      });
    });
  });
  return {
    name: v.name,
    system: sys.id,
    description: v.description,
    file: v.file,
    seed,
    trials,
    params: v.params,
    variants: v.variantNames,
    metricOrder: sys.metricOrder,
    curveDefs: sys.curveDefs,
    cases,
    provenance: {
      version: VERSION,
      threads: exec.threads,
      seconds: round(seconds, 3),
      trials_per_second: seconds > 0 ? Math.round(totalTrials / seconds) : 0,
      ...(opts.precision !== undefined ? { precision: opts.precision } : {}),
    },
  };
}

function splitResult(job: GroupJob, merged: Float64Array): { accs: Float64Array[]; pairs: Float64Array } {
  const accs: Float64Array[] = [];
  let off = 0;
  for (const len of job.accLengths) {
    accs.push(merged.subarray(off, off + len));
    off += len;
  }
  return { accs, pairs: merged.subarray(off) };
}

function widestHeadline(sys: RulesSystem, compiled: unknown[], job: GroupJob, merged: Float64Array): number {
  const { accs } = splitResult(job, merged);
  let w = 0;
  compiled.forEach((c, vi) => {
    const s = sys.summarize(c, accs[vi]);
    for (const h of sys.headline) {
      const m = s.metrics[h];
      if (m && Number.isFinite(m.ci_low)) w = Math.max(w, halfWidth(m));
    }
  });
  return w;
}

function moments(m: Metric | undefined): { n: number; sum: number; sumSq: number } {
  if (!m) return { n: 0, sum: 0, sumSq: 0 };
  if (m.kind === 'probability') return { n: m.n, sum: m.k ?? 0, sumSq: m.k ?? 0 };
  return { n: m.n, sum: m.sum ?? 0, sumSq: m.sumSq ?? 0 };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

// ---------------------------------------------------------------------------------------------
// exact and check

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
        rows.push(zRow(c, `${curve}[${key}]`, m, pt.value, undefined));
      });
    }
  });
  return rows;
}

function zRow(c: CaseResult, metric: string, m: Metric, exact: number, variance: number | undefined): CheckRow {
  let z: number;
  if (m.kind === 'probability') z = zProportion(m.k ?? 0, m.n, exact);
  else if (m.n === 0) z = 0; // nothing observed: the probability rows carry the evidence
  else z = zMean(m.value, m.n, exact, variance ?? NaN);
  return { case: c.case, variant: c.variant, metric, simulated: m.value, exact, n: m.n, z };
}
