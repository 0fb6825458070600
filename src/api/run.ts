/**
 * The run verb: validate -> compile -> run -> summarize, and the assembly of merged buffers into
 * a ScenarioResult (shared with shard merging). Touches no files.
 */
import { loadScenarioText } from '../scenario/load.js';
import { validateScenario, type ValidateOptions, type ValidScenario, type Validation } from '../scenario/validate.js';
import { metricKinds } from '../scenario/expect.js';
import { SYSTEMS } from '../systems/registry.js';
import { metricDocsOf, sidesLines } from '../systems/metric-docs.js';
import { conditionOf, eventShift } from '../systems/conditional.js';
import type { CaseResult, Difference, Metric, RulesSystem, ScenarioResult } from '../systems/types.js';
import { halfWidth, meanSe, pairedDifference, pairedSpread, welchDifference, welchSe } from '../stats/intervals.js';
import { sameCase } from './same-case.js';
import { runGroups, type GroupJob } from '../engine/run.js';
import type { PairedCodes } from '../engine/chunk.js';
import type { Executor } from '../engine/executor.js';
import { inlineExecutor } from './executors.js';
import { VERSION } from '../version.js';

/** Parse and validate one scenario's text (`opts.staleExpect`: whether an expect: item the scenario no longer matches is an error or a warning). */
export function validateText(file: string, text: string, opts: ValidateOptions = {}): Validation {
  return validateLoaded(loadScenarioText(file, text), opts);
}

/** Validate a scenario's text already parsed (loadScenarioText): a reader that needs the parse for itself too parses once. */
export function validateLoaded(loaded: ReturnType<typeof loadScenarioText>, opts: ValidateOptions = {}): Validation {
  return validateScenario(loaded, SYSTEMS, opts);
}

/**
 * Where the value at `path` sits in a scenario's text (line and column from 1; else its nearest
 * ancestor's): for a problem found across files after each was validated (a name: two files use).
 */
export function valuePosition(file: string, text: string, path: (string | number)[]): { line: number; col: number } {
  return loadScenarioText(file, text).positions.valueOf(path);
}

export interface RunScenarioOptions {
  trials?: number;
  seed?: string | number;
  /** Keep adding chunks until every headline 95% half-width is <= this (after `trials`). */
  precision?: number;
  /** Cap on trials per case (with `precision`, or any open-ended run). */
  maxTrials?: number;
  /** Where chunks run; default: in this thread. */
  executor?: Executor;
  onProgress?: (done: number, planned: number) => void;
  /**
   * A sweep point's cases as merged so far (after each chunk merged in order): `cases()`
   * summarizes on demand, so a caller that throttles pays only when it looks.
   */
  onPartial?: (point: number, trials: number, cases: () => CaseResult[]) => void;
  /**
   * Open-ended runs decided by the caller (`siegesim test`): asked at every chunk boundary once
   * a sweep point's first `trials` are merged; true runs one more chunk (up to `maxTrials`). It
   * must depend only on its arguments, so the stopping point stays deterministic.
   */
  more?: (point: number, trials: number, cases: () => CaseResult[]) => boolean;
  signal?: AbortSignal;
}

export interface CompiledPoint {
  compiled: unknown[];
  /**
   * sameAsBaseline[v]: variant v's settings, every DEFAULT filled in (its validated scenario),
   * equal the baseline's (api/same-case.ts), so it is the baseline's case and no trial can
   * differ: its paired differences are 0 [0, 0] exactly. Judged on the settings, not on what they
   * compile to, so that a reader of docs/cli.md can tell which variants these are: two settings
   * that compile alike (a rule the case never reads) still get the interval of what the trials
   * cannot rule out.
   */
  sameAsBaseline: boolean[];
}

export function compilePoints(v: ValidScenario): CompiledPoint[] {
  return v.points.map((p) => {
    const compiled = p.variants.map((vc) => v.system.compile(vc.scenario));
    // once per run: assembleCases reads it at every look of an open-ended run
    return { compiled, sameAsBaseline: p.variants.map((vc) => sameCase(vc.scenario, p.variants[0].scenario)) };
  });
}

/** The dice sweep point i rolls in `run` (sensitivity and tune give their loaded case the same). */
export function pointStream(i: number): string {
  return `point-${i}`;
}

/** One job per sweep point: its variants' compiled cases, run together on the same dice. */
export function jobsOf(v: ValidScenario, points: CompiledPoint[]): GroupJob[] {
  const sys = v.system;
  return points.map((p, i) => ({
    // Streams are keyed by sweep point: every variant of a point rolls the same dice.
    stream: v.dice !== undefined && points.length === 1 ? v.dice : pointStream(i),
    system: sys.id,
    compiled: p.compiled,
    accLengths: p.compiled.map((c) => sys.kernel.accLength(c)),
    pairedSlots: alignPairedSlots(sys, p.compiled),
    ...(sys.pairedGroups !== undefined ? { pairedCodes: alignPairedCodes(sys, p.compiled) } : {}),
  }));
}

/**
 * pairedSlots[v][p]: case v's accumulator slot of the baseline's p-th paired metric, matched by
 * name (-1 where case v does not pair that metric). A variant that changes the kind of game
 * (a Cry Havoc kind, a fantasy siege turned open field) pairs other metrics, or fewer: matched
 * by position, its p-th slot could be another quantity, differenced under the baseline's name.
 */
export function alignPairedSlots(sys: Pick<RulesSystem, 'pairedSlots'>, compiled: readonly unknown[]): number[][] {
  const names = sys.pairedSlots(compiled[0]).map((s) => s.metric);
  return compiled.map((c) => {
    const own = new Map(sys.pairedSlots(c).map((s) => [s.metric, s.slot]));
    return names.map((n) => own.get(n) ?? -1);
  });
}

/**
 * Where each of the baseline's paired metrics is a code of a one-hot group in case v (matched by
 * name, as alignPairedSlots): the engine pairs a metric from codes when every case that pairs it
 * has it in a group, and by its slot otherwise (engine/chunk.ts).
 */
export function alignPairedCodes(sys: Pick<RulesSystem, 'pairedSlots' | 'pairedGroups'>, compiled: readonly unknown[]): PairedCodes {
  const names = sys.pairedSlots(compiled[0]).map((s) => s.metric);
  const sizes: number[][] = [];
  const at: ([number, number] | null)[][] = [];
  for (const c of compiled) {
    const groups = sys.pairedGroups?.(c) ?? [];
    const own = new Map<string, [number, number]>();
    groups.forEach((g, gi) => g.metrics.forEach((m, k) => m !== '' && own.set(m, [gi, k])));
    sizes.push(groups.map((g) => g.metrics.length));
    at.push(names.map((n) => own.get(n) ?? null));
  }
  return { sizes, at };
}

/** Run a validated scenario and summarize every (case, variant). */
export async function runScenario(v: ValidScenario, opts: RunScenarioOptions = {}): Promise<ScenarioResult> {
  const sys = v.system;
  const seed = opts.seed ?? v.seed;
  const trials = opts.trials ?? v.trials;
  const points = compilePoints(v);
  const jobs = jobsOf(v, points);
  const exec = opts.executor ?? inlineExecutor();
  const t0 = performance.now();
  const E = opts.precision;
  const aimed = precisionMetrics(sys, v.headline);
  const ran = { tasks: 0 };
  const outcomes = await runGroups(
    jobs,
    {
      seed,
      trials,
      chunkTrials: sys.chunkTrials,
      more:
        E === undefined && !opts.more
          ? undefined
          : (g, merged, n) =>
              (E !== undefined && widestHeadline(sys, aimed, points[g].compiled, jobs[g], merged) > E) ||
              (opts.more !== undefined && opts.more(g, n, () => assembleCases(v, points, jobs, g, merged, n))),
      maxTrials: opts.maxTrials,
      onProgress: opts.onProgress,
      onPartial: opts.onPartial && ((g, merged, n) => opts.onPartial!(g, n, () => assembleCases(v, points, jobs, g, merged, n))),
      signal: opts.signal,
      inline: exec.inline ?? inlineExecutor(),
      release: true, // the points compiled above are this run's alone
      ran,
    },
    exec,
  );
  const seconds = (performance.now() - t0) / 1000;
  // a pool that ran none of this run's tasks (never started: a short run done in this thread
  // before it was seen to run long; or a run of one chunk, done here whatever the pool) ran
  // nothing: the run's threads are this one, not the pool's it was allowed
  const threads = exec.readiness !== undefined && ran.tasks === 0 ? 1 : exec.threads;
  return assembleResult(v, points, jobs, outcomes, { seed, trials, threads, seconds, precision: E, maxTrials: opts.maxTrials });
}

/** Summaries, differences and provenance from merged buffers (shared by run and merge). */
export function assembleResult(
  v: ValidScenario,
  points: CompiledPoint[],
  jobs: GroupJob[],
  outcomes: { merged: Float64Array; trials: number }[],
  meta: { seed: string | number; trials: number; threads: number; seconds: number; precision?: number; maxTrials?: number },
): ScenarioResult {
  const sys = v.system;
  const { seed, trials, seconds } = meta;
  const cases: CaseResult[] = [];
  let totalTrials = 0;
  outcomes.forEach((o, g) => {
    for (const c of assembleCases(v, points, jobs, g, o.merged, o.trials)) {
      if (meta.precision !== undefined) {
        const w = widestOf(precisionMetrics(sys, v.headline), c.metrics);
        c.precision = { target: meta.precision, half_width: w, reached: !(w > meta.precision) };
      }
      totalTrials += c.trials;
      cases.push(c);
    }
  });
  const missed = cases.filter((c) => c.precision && !c.precision.reached).length;
  // what the metrics count, and who the attacker and defender are, said with the numbers
  const metricDocs = metricDocsOf(sys, sys.metricOrder.filter((m) => cases.some((c) => m in c.metrics)).concat(...cases.map((c) => Object.keys(c.metrics))));
  const conditionalOn = Object.fromEntries(Object.keys(metricDocs).flatMap((m) => (conditionOf(sys, m) !== undefined ? [[m, conditionOf(sys, m)!]] : [])));
  const sides = sys.sides ? sidesLines(v.points.flatMap((p, g) => p.variants.map((vc) => ({ case: g + 1, variant: vc.variant, text: sys.sides!(vc.scenario) })))) : [];
  // how far each trial runs, when every case runs as far (a sweep or variant of it: said per case by its params)
  const horizons = sys.horizon ? [...new Set(v.points.flatMap((p) => p.variants.map((vc) => sys.horizon!(vc.scenario))))] : [];
  const horizon = horizons.length === 1 ? horizons[0] : undefined;
  return {
    name: v.name,
    system: sys.id,
    description: v.description,
    file: v.file,
    seed,
    trials,
    params: v.params,
    variants: v.variantNames,
    ...(v.headline ? { headline: v.headline } : {}),
    metricOrder: sys.metricOrder,
    metricDocs,
    ...(Object.keys(conditionalOn).length > 0 ? { conditionalOn } : {}),
    ...(sides.length > 0 ? { sides } : {}),
    ...(horizon !== undefined ? { horizon } : {}),
    curveDefs: sys.curveDefs,
    cases,
    provenance: {
      version: VERSION,
      threads: meta.threads,
      seconds: round(seconds, 3),
      trials_per_second: seconds > 0 ? Math.round(totalTrials / seconds) : 0,
      ...(meta.precision !== undefined
        ? { precision: meta.precision, precision_missed: missed, ...(meta.maxTrials !== undefined ? { max_trials: meta.maxTrials } : {}) }
        : {}),
    },
  };
}

/** The cases (one per variant) of sweep point g from its merged buffer. */
export function assembleCases(v: ValidScenario, points: CompiledPoint[], jobs: GroupJob[], g: number, merged: Float64Array, trials: number): CaseResult[] {
  const sys = v.system;
  const point = v.points[g];
  const split = splitResult(jobs[g], merged);
  const summaries = points[g].compiled.map((c, vi) => sys.summarize(c, split.accs[vi]));
  const pairedNames = sys.pairedSlots(points[g].compiled[0]).map((s) => s.metric);
  const base = summaries[0].metrics;
  return summaries.map((s, vi) => {
    const differences: Record<string, Difference> = {};
    if (vi > 0) {
      for (const [metric, m] of Object.entries(s.metrics)) {
        // a metric the baseline does not produce (a variant that turns on breaches, changes the
        // kind of combat...) has nothing to differ from: no difference, rather than an empty one
        if (!(metric in base)) continue;
        const p = pairedNames.indexOf(metric);
        if (p >= 0 && jobs[g].pairedSlots[vi][p] >= 0) {
          const k = ((vi - 1) * pairedNames.length + p) * 2;
          const d = { n: trials, sum: split.pairs[k], sumSq: split.pairs[k + 1] };
          // the baseline's own settings on the same dice: no trial can differ (0 [0, 0], exactly)
          const spread = points[g].sameAsBaseline[vi] ? 0 : pairedSpread(m.kind, m.range, base[metric].range);
          differences[metric] = { ...pairedDifference(d, undefined, spread), se: meanSe(d), paired: true, pairedMoments: d, ...(spread !== undefined ? { spread } : {}) };
        } else {
          const [a, b] = [moments(m), moments(base[metric])];
          differences[metric] = { ...welchDifference(a, b), se: welchSe(a, b), paired: false };
        }
      }
    }
    // a conditional mean whose event moved averages other trials than the baseline's: said beside its difference
    for (const [metric, d] of Object.entries(differences)) {
      const event = conditionOf(sys, metric);
      const shift = eventShift(event, base[metric], trials, s.metrics[metric], trials, event !== undefined ? differences[event] : undefined);
      if (shift) d.overDifferentTrials = shift;
    }
    return {
      case: g + 1,
      variant: point.variants[vi].variant,
      params: point.params,
      trials,
      metrics: s.metrics,
      differences,
      curves: s.curves,
    };
  });
}

export function splitResult(job: GroupJob, merged: Float64Array): { accs: Float64Array[]; pairs: Float64Array } {
  const accs: Float64Array[] = [];
  let off = 0;
  for (const len of job.accLengths) {
    accs.push(merged.subarray(off, off + len));
    off += len;
  }
  return { accs, pairs: merged.subarray(off) };
}

/** Widest headline 95% half-width over a point's variants (what `--precision` narrows). */
function widestHeadline(sys: RulesSystem, aimed: readonly string[], compiled: unknown[], job: GroupJob, merged: Float64Array): number {
  const { accs } = splitResult(job, merged);
  let w = 0;
  compiled.forEach((c, vi) => {
    w = Math.max(w, widestOf(aimed, sys.summarize(c, accs[vi]).metrics));
  });
  return w;
}

/**
 * The metrics `--precision` narrows: the probabilities among the scenario's `headline:` when it
 * names any (its half-width is on the probability scale: a mean's, in rounds or turns, is not),
 * else the system's headline.
 */
export function precisionMetrics(sys: RulesSystem, headline: readonly string[] | undefined): readonly string[] {
  const own = (headline ?? []).filter((m) => metricKinds([m]).get(m) === 'probability');
  return own.length > 0 ? own : sys.headline;
}

/** Widest 95% half-width among one case's metrics of `names` (undefined values are not counted). */
export function widestOf(names: readonly string[], metrics: Record<string, Metric>): number {
  let w = 0;
  for (const h of names) {
    const m = metrics[h];
    if (m && Number.isFinite(m.ci_low)) w = Math.max(w, halfWidth(m));
  }
  return w;
}

/** A metric's mergeable moments (n, Σx, Σx²) for a Welch difference. */
export function moments(m: Metric | undefined): { n: number; sum: number; sumSq: number } {
  if (!m) return { n: 0, sum: 0, sumSq: 0 };
  if (m.kind === 'probability') return { n: m.n, sum: m.k ?? 0, sumSq: m.k ?? 0 };
  return { n: m.n, sum: m.sum ?? 0, sumSq: m.sumSq ?? 0 };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
