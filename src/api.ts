/**
 * The API the CLI is a thin layer over, and that tests call in-process:
 * validate -> compile -> run -> summarize, and exact/check. Touches no files.
 */
import { loadScenarioText, type ScenarioIssue } from './scenario/load.js';
import { splitPath, validateCase, validateScenario, valueAtPath, type ValidScenario, type Validation } from './scenario/validate.js';
import { COMMON_KEYS, scenarioSchemaOf, schemaAt } from './scenario/schema.js';
import { SYSTEMS } from './systems/registry.js';
import type { CaseResult, ExactSummary, Metric, RulesSystem, ScenarioResult } from './systems/types.js';
import { halfWidth, pairedDifference, welchDifference, zMean, zProportion, type Estimate } from './stats/intervals.js';
import { chunkSize, runGroups, type GroupJob } from './engine/run.js';
import { deriveState } from './engine/rng.js';
import { resultLength } from './engine/chunk.js';
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
/** One job per sweep point: its variants' compiled cases, run together on the same dice. */
function jobsOf(v: ValidScenario, points: CompiledPoint[]): GroupJob[] {
  const sys = v.system;
  return points.map((p, i) => ({
    // Streams are keyed by sweep point: every variant of a point rolls the same dice.
    stream: `point-${i}`,
    system: sys.id,
    compiled: p.compiled,
    accLengths: p.compiled.map((c) => sys.kernel.accLength(c)),
    pairedSlots: p.compiled.map((c) => sys.pairedSlots(c).map((s) => s.slot)),
  }));
}

export async function runScenario(v: ValidScenario, opts: RunScenarioOptions = {}): Promise<ScenarioResult> {
  const sys = v.system;
  const seed = opts.seed ?? v.seed;
  const trials = opts.trials ?? v.trials;
  const points = compilePoints(v);
  const jobs = jobsOf(v, points);
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
  return assembleResult(v, points, jobs, outcomes, { seed, trials, threads: exec.threads, seconds, precision: opts.precision });
}

/** Summaries, differences and provenance from merged buffers (shared by run and merge). */
function assembleResult(
  v: ValidScenario,
  points: CompiledPoint[],
  jobs: GroupJob[],
  outcomes: { merged: Float64Array; trials: number }[],
  meta: { seed: string | number; trials: number; threads: number; seconds: number; precision?: number },
): ScenarioResult {
  const sys = v.system;
  const { seed, trials, seconds } = meta;
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
      threads: meta.threads,
      seconds: round(seconds, 3),
      trials_per_second: seconds > 0 ? Math.round(totalTrials / seconds) : 0,
      ...(meta.precision !== undefined ? { precision: meta.precision } : {}),
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
        rows.push(zRow(c, `${curve}[${key}]`, m, pt.value, pt.variance));
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

// ---------------------------------------------------------------------------------------------
// solve: the smallest integer value of a parameter whose metric reaches a target

export interface SolveOptions {
  param: string;
  metric: string;
  target: number;
  from?: number;
  to?: number;
  trials?: number;
  seed?: string | number;
  executor?: Executor;
  signal?: AbortSignal;
  /** Trials multiplier for the final look at the answer and its neighbour. */
  refine?: number;
  onStep?: (value: number, m: Metric) => void;
}

export interface SolveResult {
  param: string;
  metric: string;
  target: number;
  from: number;
  to: number;
  increasing: boolean;
  reachable: boolean;
  /** The answer (undefined when the target is not reachable in [from, to]). */
  value?: number;
  at?: Metric;
  /** The neighbour just before the answer (value - 1), when it is in range. */
  neighbour?: { value: number; metric: Metric };
  /** Every evaluation made, in order. */
  evaluations: { value: number; trials: number; metric: Metric }[];
  ends: { from: Metric; to: Metric };
}

/** A user-facing problem with a solve request (the CLI prints it and exits 2). */
export class SolveInputError extends Error {}

/**
 * Find the smallest integer value v in [from, to] of `param` whose `metric` reaches `target`
 * (≥ target when the metric grows with v, ≤ when it falls), assuming the metric is monotone.
 * Every candidate rolls the same dice (one stream for all values: common random numbers), so
 * the comparison between neighbours is as tight as it can be; the answer and its neighbour are
 * then re-run with `refine` times the trials, and the answer is moved if the closer look
 * disagrees.
 */
export async function solveScenario(v: ValidScenario, o: SolveOptions): Promise<SolveResult> {
  const sys = v.system;
  if (!sys.metricOrder.includes(o.metric)) {
    throw new SolveInputError(`unknown metric "${o.metric}" for system ${sys.id} (one of: ${sys.metricOrder.join(', ')})`);
  }
  const node = schemaAt(scenarioSchemaOf(sys), splitPath(o.param));
  const kind = node ? (node as unknown as { _zod: { def: { type: string } } })._zod.def.type : undefined;
  if (COMMON_KEYS.has(splitPath(o.param)[0]) || kind !== 'number') {
    throw new SolveInputError(`"${o.param}" is not a numeric setting of system ${sys.id}`);
  }
  const baseCase = validateCase(v, {});
  const base = baseCase.ok ? valueAtPath(baseCase.scenario, o.param) : undefined;
  const from = o.from ?? 0;
  const to = o.to ?? Math.max(10, 2 * (typeof base === 'number' ? base : 0));
  if (!Number.isInteger(from) || !Number.isInteger(to) || from >= to) throw new SolveInputError(`need integers --from < --to (got ${from}, ${to})`);
  const trials = o.trials ?? v.trials;
  const seed = o.seed ?? v.seed;
  const exec = o.executor ?? new InlineExecutor();
  const evaluations: SolveResult['evaluations'] = [];

  const evaluate = async (value: number, n: number): Promise<Metric> => {
    const c = validateCase(v, { [o.param]: value });
    if (!c.ok) throw new SolveInputError(`${o.param} = ${value} is not valid: ${c.messages.join('; ')} (use --from/--to)`);
    const compiled = sys.compile(c.scenario);
    const job: GroupJob = {
      stream: 'solve', // the same dice for every candidate value
      system: sys.id,
      compiled: [compiled],
      accLengths: [sys.kernel.accLength(compiled)],
      pairedSlots: [[]],
    };
    const [out] = await runGroups([job], { seed, trials: n, chunkTrials: sys.chunkTrials, signal: o.signal }, exec);
    const m = sys.summarize(compiled, out.merged).metrics[o.metric];
    if (!m) throw new SolveInputError(`metric "${o.metric}" is not produced for this scenario`);
    evaluations.push({ value, trials: n, metric: m });
    o.onStep?.(value, m);
    return m;
  };

  const fFrom = await evaluate(from, trials);
  const fTo = await evaluate(to, trials);
  const increasing = fTo.value >= fFrom.value;
  const meets = (m: Metric) => (increasing ? m.value >= o.target : m.value <= o.target);
  const result: SolveResult = { param: o.param, metric: o.metric, target: o.target, from, to, increasing, reachable: false, evaluations, ends: { from: fFrom, to: fTo } };
  if (!meets(fTo)) return result;
  result.reachable = true;
  let lo = from;
  let hi = to;
  const seen = new Map<number, Metric>([
    [from, fFrom],
    [to, fTo],
  ]);
  if (meets(fFrom)) hi = from;
  else {
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const m = await evaluate(mid, trials);
      seen.set(mid, m);
      if (meets(m)) hi = mid;
      else lo = mid;
    }
  }
  // A closer look at the answer and its neighbour; move if it disagrees (at most a few steps).
  const big = trials * (o.refine ?? 4);
  let answer = hi;
  let at = await evaluate(answer, big);
  for (let guard = 0; guard < 8 && !meets(at) && answer < to; guard++) {
    answer++;
    at = await evaluate(answer, big);
  }
  let neighbour = answer > from ? await evaluate(answer - 1, big) : undefined;
  for (let guard = 0; guard < 8 && neighbour && meets(neighbour) && answer > from; guard++) {
    answer--;
    at = neighbour;
    neighbour = answer > from ? await evaluate(answer - 1, big) : undefined;
  }
  result.reachable = meets(at);
  result.value = answer;
  result.at = at;
  if (neighbour) result.neighbour = { value: answer - 1, metric: neighbour };
  return result;
}

// ---------------------------------------------------------------------------------------------
// shards: `run --shard k/n` and `merge` (DESIGN.md "Scaling past one machine")

/** One shard's work: every n-th chunk of every sweep point, kept chunk by chunk. */
export interface ShardData {
  k: number;
  n: number;
  seed: string | number;
  trials: number;
  /** Per sweep point: [chunk index, its buffer]. */
  chunks: [number, Float64Array][][];
}

/** Chunks of a run, and which of them shard k of n runs (chunk i goes to shard i mod n + 1). */
export function shardChunks(v: ValidScenario, trials: number, k: number, n: number): number[] {
  const total = Math.ceil(trials / v.system.chunkTrials);
  const out: number[] = [];
  for (let i = k - 1; i < total; i += n) out.push(i);
  return out;
}

/** Run shard k of n: the same dice each chunk would roll in one big run. */
export async function runShard(
  v: ValidScenario,
  k: number,
  n: number,
  opts: Pick<RunScenarioOptions, 'trials' | 'seed' | 'executor' | 'signal' | 'onProgress'> = {},
): Promise<ShardData> {
  const sys = v.system;
  const seed = opts.seed ?? v.seed;
  const trials = opts.trials ?? v.trials;
  const jobs = jobsOf(v, compilePoints(v));
  const exec = opts.executor ?? new InlineExecutor();
  const mine = shardChunks(v, trials, k, n);
  const planned = mine.length * jobs.length;
  let done = 0;
  const chunks = await Promise.all(
    jobs.map(async (job) =>
      Promise.all(
        mine.map(async (i): Promise<[number, Float64Array]> => {
          if (opts.signal?.aborted) throw new Error('cancelled');
          const size = chunkSize(i, trials, sys.chunkTrials);
          const buf = await exec.run({
            system: job.system,
            compiled: job.compiled,
            accLengths: job.accLengths,
            pairedSlots: job.pairedSlots,
            state: deriveState(seed, job.stream, i),
            trials: size,
          });
          opts.onProgress?.(++done, planned);
          return [i, buf];
        }),
      ),
    ),
  );
  return { k, n, seed, trials, chunks };
}

/** A problem with a set of shards (the CLI prints it and exits 2). */
export class ShardError extends Error {}

/**
 * Merge shards into the result one run would give, byte for byte: every chunk present once,
 * summed in chunk order.
 */
export function mergeShards(v: ValidScenario, shards: ShardData[], meta: { threads: number; seconds: number }): ScenarioResult {
  if (shards.length === 0) throw new ShardError('no shards given');
  const { seed, trials, n } = shards[0];
  for (const s of shards) {
    if (s.seed !== seed || s.trials !== trials || s.n !== n) throw new ShardError(`shard ${s.k}/${s.n} was run with another seed, trial count or shard count`);
  }
  const points = compilePoints(v);
  const jobs = jobsOf(v, points);
  const total = Math.ceil(trials / v.system.chunkTrials);
  const outcomes = jobs.map((job, g) => {
    const byIndex = new Map<number, Float64Array>();
    for (const s of shards) {
      const list = s.chunks[g];
      if (!list) throw new ShardError(`shard ${s.k}/${s.n} has no chunks for sweep point ${g + 1}`);
      for (const [i, buf] of list) {
        if (byIndex.has(i)) throw new ShardError(`chunk ${i} of sweep point ${g + 1} is in two shards`);
        byIndex.set(i, buf);
      }
    }
    const missing: number[] = [];
    for (let i = 0; i < total; i++) if (!byIndex.has(i)) missing.push(i);
    if (missing.length > 0) {
      const shardsMissing = [...new Set(missing.map((i) => (i % n) + 1))].sort((a, b) => a - b);
      throw new ShardError(`missing chunks ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', ...' : ''} of sweep point ${g + 1}: shard(s) ${shardsMissing.join(', ')} of ${n} not given`);
    }
    const merged = new Float64Array(resultLength(job));
    for (let i = 0; i < total; i++) {
      const r = byIndex.get(i)!;
      for (let x = 0; x < merged.length; x++) merged[x] += r[x];
    }
    return { merged, trials };
  });
  return assembleResult(v, points, jobs, outcomes, { seed, trials, threads: meta.threads, seconds: meta.seconds });
}
