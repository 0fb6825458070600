/**
 * The tune verb: integer values of one to three settings that put several metrics in their
 * target intervals at once. The search is deterministic and runs every candidate on the same
 * dice (common random numbers, one stream for all: the one `run` rolls for the case), so neighbouring candidates differ by the
 * setting, not by luck:
 *
 *   coarse   an even grid over the ranges (9 points on one axis, 5 x 5 on two, 4 x 4 x 4 on three);
 *   refine   around the best candidates so far (two, one for three parameters or once the steps
 *            are single), the 3^k neighbours at half the last spacing, until the spacing is 1 and
 *            the best candidate's neighbourhood is all evaluated;
 *   confirm  the best three re-run with `refine` times the trials (the same dice, extended), then
 *            a walk at that precision from the best confirmed candidate to its neighbours until
 *            none is better; the best confirmed candidate is the answer.
 *
 * A candidate's score: when every target's estimate is inside its interval, minus the smallest
 * margin to an edge (in target widths: the most central candidate wins); otherwise the distance,
 * the sum over targets of how far the estimate is outside, in target widths. `budget` caps the
 * trials run in all. Touches no files, prints nothing; cancel with `signal`.
 */
import type { ValidScenario } from '../scenario/validate.js';
import type { Metric } from '../systems/types.js';
import type { Estimate } from '../stats/intervals.js';
import { inlineExecutor } from './executors.js';
import { VERSION } from '../version.js';
import { plateauAround, type Plateau } from './plateau.js';
import { conditionOf } from '../systems/conditional.js';
import { baseCaseOf, boundProblem, resultHead, compileSetting, metricOf, producedMetrics, rangeFault, runCases, selectTunables, TuningInputError, type BaseCase, type CaseOptions } from './tunables.js';
import { MSG } from '../scenario/messages.js';

/** One target: `<metric> in [lo, hi]`. */
export interface TuneTarget {
  metric: string;
  lo: number;
  hi: number;
}

const NUM = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?`;
const TARGET_RE = new RegExp(String.raw`^\s*([A-Za-z_][A-Za-z0-9_]*)\s+in\s+\[\s*(${NUM})\s*,\s*(${NUM})\s*\]\s*$`, 'i');

/** Parse `"<metric> in [lo, hi]"`. */
export function parseTarget(text: string): TuneTarget {
  const m = TARGET_RE.exec(text);
  if (!m) throw new TuningInputError(`a target is "<metric> in [lo, hi]", e.g. "p_attacker_wins in [0.45, 0.55]" (got "${text}")`);
  const lo = Number(m[2]);
  const hi = Number(m[3]);
  if (!(lo < hi)) throw new TuningInputError(`target "${text}": need lo < hi`);
  return { metric: m[1], lo, hi };
}

/** Parse `--range a=LO..HI`. */
export function parseRange(text: string): { param: string; lo: number; hi: number } {
  const m = /^\s*([^=\s]+)\s*=\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$/.exec(text);
  if (!m) throw new TuningInputError(`a range is <param>=LO..HI with integers, e.g. wall.hp=10..60 (got "${text}")`);
  return { param: m[1], lo: Number(m[2]), hi: Number(m[3]) };
}

export interface TuneOptions extends CaseOptions {
  /** One to three integer settings (dotted paths). */
  params: string[];
  targets: TuneTarget[];
  /** Search ranges (default: the schema bounds; see `defaultRange`). */
  ranges?: Record<string, [number, number]>;
  /** Most trials run in all, confirmations included (default 200 x trials). */
  budget?: number;
  /**
   * The values each setting is swept at in the file the case comes from, for the default ranges
   * (`defaultRange`; default: the sweep of `v`). The workbench searches its case as a scenario of
   * its own, without the file's sweep, and passes the file's here.
   */
  swept?: Record<string, readonly number[]>;
  /** Trials multiplier for the confirmation of the best candidates (default 4). */
  refine?: number;
  /** Trials run so far against the budget. */
  onProgress?: (trialsUsed: number, budget: number) => void;
  /** Each candidate as it is evaluated. */
  onEvaluate?: (e: TuneEvaluation) => void;
  /**
   * Called once the request is known to be valid (parameters, ranges, targets, budget), before
   * any trial runs, with the ranges to search and the case's `note` (the result's: the settings
   * it holds at). Throwing here stops the search before it starts.
   */
  onPlan?: (plan: { params: TuneParam[]; trials: number; budget: number; note?: string }) => void;
}

/**
 * What is wrong with a tune request where the front ends name their own controls (each words it:
 * the CLI's flags, the page's fields): `params-count` (not one to three settings), `params-twice`
 * (a setting listed twice), `no-target`, `target-order` (a target's low not below its high),
 * `range-order` (a given range not integers lo < hi), `range-bounds` (outside the values the
 * setting allows, `min`..`max`), `no-start` (no value in the case to search around and no range
 * given), `range-stray` (a range for a setting not searched), `budget` (too small to search:
 * `least` is the smallest that is not).
 */
export type TuneProblem =
  | { code: 'params-count'; count: number }
  | { code: 'params-twice' }
  | { code: 'no-target' }
  | { code: 'target-order'; target: TuneTarget }
  | { code: 'range-order'; param: string; lo: number; hi: number }
  | { code: 'range-bounds'; param: string; lo: number; hi: number; min: number; max: number }
  | { code: 'no-start'; param: string; min: number; max: number }
  | { code: 'range-stray'; param: string }
  | { code: 'budget'; budget: number; least: number };

/** A tune request refused for a `TuneProblem` (a TuningInputError: the user can fix it); the message only names the problem. */
export class TuneInputError extends TuningInputError {
  constructor(readonly problem: TuneProblem) {
    super(`tune request refused: ${JSON.stringify(problem)}`);
    this.name = 'TuneInputError';
  }
}

/** One target judged at one candidate. */
export interface TargetCheck extends TuneTarget, Estimate {
  /** The estimate is inside [lo, hi]. */
  met: boolean;
  /** Its whole 95% interval is inside [lo, hi]. */
  sure: boolean;
  /** How far the estimate is outside [lo, hi], in target widths (0 when met). */
  distance: number;
  /** How far the estimate is outside [lo, hi], in the metric's own units (0 when met): below lo or above hi. */
  gap: number;
  /**
   * The observations behind the estimate: the candidate's trials, or for a mean over the trials
   * in which an event happened (`TuneResult.conditional_on`), those trials (0 when unknown).
   */
  n: number;
}

/** A missed target's gap in the metric's own units: "5.885 below 8" ("" when met or unknown). `num` formats a number. */
export function gapText(c: Pick<TargetCheck, 'value' | 'lo' | 'hi' | 'gap'>, num: (x: number) => string): string {
  if (!(c.gap > 0) || !Number.isFinite(c.gap)) return '';
  return `${num(c.gap)} ${c.value < c.lo ? `below ${num(c.lo)}` : `above ${num(c.hi)}`}`;
}

/** A missed target's gap in target widths and in the metric's units: "2.942 target widths (5.885 below 8)". */
export function missedBy(c: Pick<TargetCheck, 'value' | 'lo' | 'hi' | 'gap' | 'distance'>, num: (x: number) => string): string {
  const gap = gapText(c, num);
  return `${num(c.distance)} target widths${gap ? ` (${gap})` : ''}`;
}

export type TuneStage = 'coarse' | 'refine' | 'confirm';

export interface TuneEvaluation {
  /** 1, 2, ... in the order run. */
  index: number;
  stage: TuneStage;
  values: Record<string, number>;
  trials: number;
  /** Undefined when the candidate is not a valid case (then `invalid` says why). */
  checks?: TargetCheck[];
  invalid?: string;
  /** Targets met. */
  met: number;
  /** Σ distances over the targets (0 when all are met; Infinity when invalid). */
  distance: number;
  /** Lower is better (see the module comment). */
  score: number;
}

export interface TuneParam {
  path: string;
  lo: number;
  hi: number;
  /** The value in the case: written, the schema's default, or the one the rules derive for a setting the file leaves out (a palisade's 15 HP). */
  loaded?: number;
}

/**
 * The answer sits at an end of the range searched for one parameter: the best may lie beyond it
 * (the ends of a range are where a search finds what it cannot look past).
 */
export interface TuneEdge {
  param: string;
  /** The answer's value: the range's `lo` or `hi`. */
  value: number;
  end: 'lo' | 'hi';
  /** That end is also the setting's own bound (its schema's): nothing beyond it to try. */
  bound: boolean;
  /** The range to search next (`--range param=LO..HI`): the range's span again past that end, within the schema's bounds; absent when `bound`. */
  range?: [number, number];
}

export interface TuneResult {
  name: string;
  system: string;
  file: string;
  seed: string | number;
  trials: number;
  budget: number;
  trialsUsed: number;
  /** The budget stopped the search before it finished. */
  exhausted: boolean;
  params: TuneParam[];
  targets: TuneTarget[];
  /** The settings the case holds at (see `baseCaseOf`): every swept one, the searched ones where the search started. */
  where: Record<string, unknown>;
  note?: string;
  /**
   * The target metrics that are means over the trials in which an event happened (metric ->
   * event, `mean_breach_round` -> `p_breach`): their checks' `n` counts those trials, not the
   * candidate's. Absent when no target is one.
   */
  conditional_on?: Record<string, string>;
  /** Every target met by the best candidate at its confirmation. */
  found: boolean;
  /** The answer: the best candidate at the most trials it was run with (the closest one when none meets every target). */
  best: TuneEvaluation;
  evaluations: TuneEvaluation[];
  /**
   * The parameters the answer sits on a plateau of: values next to the answer's (the others
   * held) whose results are identical to the answer's, so the targets do not depend on it there.
   */
  plateaus: Plateau[];
  /**
   * The parameters whose answer sits at an end of the range searched (not those on a plateau,
   * which says more): the best may lie beyond it, or the setting allows nothing further.
   */
  edges: TuneEdge[];
  provenance: { version: string; threads: number; seconds: number; trials_per_second: number };
}

/** Widest schema range searched whole when the case has no value for the setting: see `defaultRange`. */
const WIDE = 1000;

/**
 * A parameter's default range: the span of the file's sweep of it when it sweeps it (`swept`,
 * two values or more: the range the designer asked about, wall.hp 10..80 for [10, 20, ..., 80]);
 * else around the value v in the case, from v - max(5, |v|/2) to v + max(5, |v|) (half the
 * value to twice it from 10 up; 3..16 for a DC of 8, 15..60 for a wall of 30 HP); inside the
 * schema's bounds [min, max] either way. A designer tunes near what is written: the whole schema
 * range (a DC 1..40, a count 0..200, HP 0..100000) put the answer at its corners, an artefact of
 * the range. With neither: the schema bounds when they span 1000 values or fewer, else
 * undefined (ask for --range).
 */
export function defaultRange(min: number, max: number, loaded: number | undefined, swept: readonly number[] = []): [number, number] | undefined {
  const ends = [Math.max(min, Math.ceil(Math.min(...swept))), Math.min(max, Math.floor(Math.max(...swept)))];
  if (swept.length > 1 && ends[0] < ends[1]) return [ends[0], ends[1]];
  if (loaded === undefined) return max - min <= WIDE ? [min, max] : undefined;
  const a = Math.abs(loaded);
  return [Math.max(min, Math.ceil(loaded - Math.max(5, a / 2))), Math.min(max, Math.floor(loaded + Math.max(5, a)))];
}

/** Judge one candidate's metrics against the targets. */
export function judge(targets: TuneTarget[], metrics: Record<string, Metric>): { checks: TargetCheck[]; met: number; distance: number; score: number } {
  const checks = targets.map((t): TargetCheck => {
    const m = Object.hasOwn(metrics, t.metric) ? metrics[t.metric] : undefined;
    const value = m?.value ?? NaN;
    const width = t.hi - t.lo;
    const met = value >= t.lo && value <= t.hi;
    const gap = Number.isFinite(value) ? Math.max(0, t.lo - value, value - t.hi) : Infinity;
    return {
      ...t,
      value,
      ci_low: m?.ci_low ?? NaN,
      ci_high: m?.ci_high ?? NaN,
      met,
      sure: met && m !== undefined && m.ci_low >= t.lo && m.ci_high <= t.hi,
      distance: gap / width,
      gap,
      n: m?.n ?? 0,
    };
  });
  const met = checks.filter((c) => c.met).length;
  const distance = checks.reduce((s, c) => s + c.distance, 0);
  const margin = Math.min(...checks.map((c) => Math.min(c.value - c.lo, c.hi - c.value) / (c.hi - c.lo)));
  return { checks, met, distance, score: met === checks.length ? -margin : distance };
}

/**
 * Search the integer grid of `params` for values meeting every target.
 * @example tuneScenario(v, { params: ['wall.hp', 'wall.dc'], targets: [parseTarget('p_attacker_wins in [0.45, 0.55]')], trials: 2000 })
 */
export async function tuneScenario(v: ValidScenario, o: TuneOptions): Promise<TuneResult> {
  const sys = v.system;
  // the searched settings' values at the working point are where the search starts: the note names the others
  const base = baseCaseOf(v, o.where, o.params);
  if (o.params.length < 1 || o.params.length > 3) throw new TuneInputError({ code: 'params-count', count: o.params.length });
  if (new Set(o.params).size !== o.params.length) throw new TuneInputError({ code: 'params-twice' });
  if (o.targets.length === 0) throw new TuneInputError({ code: 'no-target' });
  for (const t of o.targets) if (!(t.lo < t.hi)) throw new TuneInputError({ code: 'target-order', target: t });

  // --- parameters and their ranges ---
  const bounds = new Map<string, [number, number]>(); // each parameter's schema bounds
  const params: TuneParam[] = o.params.map((p) => {
    const [t] = selectTunables(base.tunables, [p], sys).filter((x) => x.path === p);
    if (!t) throw new TuningInputError(`"${p}" is a group of settings, not one: name one of ${selectTunables(base.tunables, [p], sys).slice(0, 4).map((x) => x.path).join(', ')}, ...`);
    if (t.kind !== 'int') throw new TuningInputError(`"${p}" is not an integer setting (it is ${t.kind === 'number' ? 'a decimal' : `an ${t.kind}`}); tune searches integers (compare options with sensitivity)`);
    const loaded = typeof t.value === 'number' ? t.value : undefined;
    bounds.set(p, [t.min!, t.max!]);
    const r = o.ranges?.[p];
    if (r) {
      const [lo, hi] = r;
      const fault = rangeFault(lo, hi, t.min!, t.max!);
      if (fault === 'order') throw new TuneInputError({ code: 'range-order', param: p, lo, hi });
      if (fault === 'bounds') throw new TuneInputError({ code: 'range-bounds', param: p, lo, hi, min: t.min!, max: t.max! });
      return { path: p, lo, hi, loaded };
    }
    const swept = o.swept ? (o.swept[p] ?? []) : sweptValues(v, p);
    const d = defaultRange(t.min!, t.max!, loaded, swept);
    if (!d) throw new TuneInputError({ code: 'no-start', param: p, min: t.min!, max: t.max! });
    if (d[0] >= d[1]) throw new TuningInputError(`"${p}" has a single value in its range ${d[0]}..${d[1]}`);
    return { path: p, lo: d[0], hi: d[1], loaded };
  });
  for (const p of Object.keys(o.ranges ?? {})) if (!o.params.includes(p)) throw new TuneInputError({ code: 'range-stray', param: p });
  const baseCompiled = sys.compile(base.scenario);
  const produced = producedMetrics(sys, baseCompiled);
  for (const t of o.targets) {
    metricOf(sys, produced, t.metric);
    const outside = boundProblem(produced, t.metric, `target "${t.metric} in [${t.lo}, ${t.hi}]"`, [t.lo, t.hi]);
    if (outside) throw new TuningInputError(outside);
    // a mean with a known range (none for a probability, checked above): the target must meet it
    const range = produced.metrics[t.metric].range && (meanRangeOver(v, base, params, t.metric) ?? produced.metrics[t.metric].range);
    if (range && (t.hi < range[0] || t.lo > range[1])) throw new TuningInputError(MSG.outsideRange(`target "${t.metric} in [${t.lo}, ${t.hi}]"`, t.metric, range[0], range[1]));
  }

  const conditional = Object.fromEntries(targetMetricsOf(o.targets).flatMap((m) => (conditionOf(sys, m) !== undefined ? [[m, conditionOf(sys, m)!]] : [])));
  const trials = o.trials ?? v.trials;
  const refine = o.refine ?? 4;
  const budget = o.budget ?? 200 * trials;
  const seed = o.seed ?? v.seed;
  const exec = o.executor ?? inlineExecutor();
  const k = params.length;
  const key = (x: number[]) => x.join(',');
  const evaluations: TuneEvaluation[] = [];
  const seen = new Map<string, TuneEvaluation>(); // at the search's trials
  let used = 0;
  let exhausted = false;
  const t0 = performance.now();

  /** Run candidates (in the order given) at n trials, as many as the budget allows. */
  const evaluate = async (cands: number[][], n: number, stage: TuneStage, cap = budget): Promise<TuneEvaluation[]> => {
    const fit = Math.max(0, Math.floor((cap - used) / n));
    if (fit < cands.length) exhausted = true;
    const run = cands.slice(0, fit);
    const done: TuneEvaluation[] = [];
    const compiled: { i: number; c: unknown }[] = [];
    const evs = run.map((x, i): TuneEvaluation => {
      const values = Object.fromEntries(params.map((p, j) => [p.path, x[j]]));
      const c = compileSetting(v, base, values);
      const e: TuneEvaluation = { index: 0, stage, values, trials: n, met: 0, distance: Infinity, score: Infinity };
      if (c.ok) compiled.push({ i, c: c.compiled });
      else e.invalid = c.reason;
      return e;
    });
    const before = used;
    const outs = compiled.length
      ? await runCases(sys, compiled.map((x) => ({ compiled: [x.c], pairedSlots: [[]] })), {
          seed,
          trials: n,
          stream: base.stream, // every candidate on the same dice: run's for the case (its loaded values come out as run has them)
          executor: exec,
          signal: o.signal,
          onProgress: (d) => o.onProgress?.(before + d, budget),
        })
      : [];
    used += compiled.length * n;
    compiled.forEach((x, j) => Object.assign(evs[x.i], judge(o.targets, sys.summarize(x.c, outs[j].accs[0]).metrics)));
    for (const e of evs) {
      e.index = evaluations.length + 1;
      evaluations.push(e);
      done.push(e);
      o.onEvaluate?.(e);
    }
    o.onProgress?.(used, budget);
    return done;
  };
  const coords = (e: TuneEvaluation) => params.map((p) => e.values[p.path]);
  const better = (a: TuneEvaluation, b: TuneEvaluation) => a.score - b.score || cmpCoords(coords(a), coords(b));
  const searchEvaluate = async (cands: number[][], stage: TuneStage, cap: number) => {
    const fresh = uniq(cands.map(key)).filter((c) => !seen.has(c)).map((c) => c.split(',').map(Number));
    for (const e of await evaluate(fresh, trials, stage, cap)) seen.set(key(coords(e)), e);
  };

  // Keep room for confirming the best three at `refine` x trials (up to a quarter of the budget).
  const confirmCost = Math.min(3 * refine * trials, Math.floor(budget / 4));
  const searchCap = budget - confirmCost;
  if (searchCap < trials) throw new TuneInputError({ code: 'budget', budget, least: Math.ceil((trials * 4) / 3) });
  o.onPlan?.({ params, trials, budget, ...(base.note ? { note: base.note } : {}) });

  // --- coarse ---
  const G = k === 1 ? 9 : k === 2 ? 5 : 4;
  await searchEvaluate(cartesian(params.map((p) => spread(p.lo, p.hi, G))), 'coarse', searchCap);
  let spacing = params.map((p) => (p.hi - p.lo) / (G - 1));

  // --- refine: the 3^k neighbours of the best candidates at half the spacing ---
  for (let round = 0; round < 64 && !exhausted; round++) {
    spacing = spacing.map((s) => Math.max(1, s / 2));
    const h = spacing.map((s) => Math.max(1, Math.round(s)));
    // two centres while the grid is coarse (a second basin), one once it is down to single steps
    const centres = k <= 2 && h.some((x) => x > 1) ? 2 : 1;
    const best = [...seen.values()].filter((e) => !e.invalid).sort(better).slice(0, centres);
    const cands: number[][] = [];
    for (const c of best) {
      const at = coords(c);
      for (const d of cartesian(params.map(() => [-1, 0, 1]))) {
        cands.push(at.map((x, j) => Math.min(params[j].hi, Math.max(params[j].lo, x + d[j] * h[j]))));
      }
    }
    const before = seen.size;
    await searchEvaluate(cands, 'refine', searchCap);
    if (seen.size === before && h.every((x) => x === 1)) break; // the best neighbourhoods are all known
  }

  // --- confirm the best few with more trials (the same dice, extended), then walk from the
  // best confirmed one to its neighbours at that precision until none is better: the search's
  // best at few trials is partly luck (the best of many noisy scores), and this undoes it ---
  const n1 = trials * refine;
  const confirmed = new Map<string, TuneEvaluation>();
  const confirm = async (cands: number[][]) => {
    const fresh = uniq(cands.map(key)).filter((c) => !confirmed.has(c)).map((c) => c.split(',').map(Number));
    for (const e of await evaluate(fresh, n1, 'confirm')) confirmed.set(key(coords(e)), e);
    return fresh.length;
  };
  await confirm([...seen.values()].filter((e) => !e.invalid).sort(better).slice(0, 3).map(coords));
  for (let round = 0; round < 64 && !exhausted && confirmed.size > 0; round++) {
    const at = coords([...confirmed.values()].filter((e) => !e.invalid).sort(better)[0]);
    const around = cartesian(params.map(() => [-1, 0, 1])).map((d) => at.map((x, j) => Math.min(params[j].hi, Math.max(params[j].lo, x + d[j]))));
    if ((await confirm(around)) === 0) break; // its whole neighbourhood is confirmed: a local best
  }
  const pool = confirmed.size > 0 ? [...confirmed.values()] : [...seen.values()];
  const best = pool.filter((e) => !e.invalid).sort(better)[0] ?? evaluations[0];
  const seconds = (performance.now() - t0) / 1000;
  const plateaus = plateausOf(params, o.targets, best, evaluations);
  return {
    ...resultHead(v, seed, trials),
    budget,
    trialsUsed: used,
    exhausted,
    params,
    targets: o.targets,
    where: base.where,
    note: base.note,
    ...(Object.keys(conditional).length > 0 ? { conditional_on: conditional } : {}),
    found: best !== undefined && best.met === o.targets.length,
    best,
    evaluations,
    plateaus,
    edges: edgesOf(params, bounds, best, plateaus),
    provenance: { version: VERSION, threads: exec.threads, seconds: Math.round(seconds * 1000) / 1000, trials_per_second: seconds > 0 ? Math.round(used / seconds) : 0 },
  };
}

/** The plateaus of each parameter around the answer, from the evaluations made (see `plateauAround`). */
export function plateausOf(params: readonly TuneParam[], targets: readonly TuneTarget[], best: TuneEvaluation | undefined, evaluations: readonly TuneEvaluation[]): Plateau[] {
  if (!best?.checks) return [];
  const metrics = [...new Set(targets.map((t) => t.metric))];
  return params.flatMap((p) => {
    const line = evaluations.filter((e) => e.checks && params.every((q) => q === p || e.values[q.path] === best.values[q.path]));
    const points = line.map((e) => ({ value: e.values[p.path], trials: e.trials, key: JSON.stringify(e.checks!.map((c) => [c.value, c.ci_low, c.ci_high])) }));
    const found = plateauAround(p.path, metrics, best.values[p.path], points);
    return found ? [found] : [];
  });
}

/** The parameters whose answer is an end of the range searched, and how to widen it (see `TuneEdge`); none on a plateau. */
function edgesOf(params: readonly TuneParam[], bounds: Map<string, [number, number]>, best: TuneEvaluation | undefined, plateaus: readonly Plateau[]): TuneEdge[] {
  if (!best?.checks) return [];
  return params.flatMap((p): TuneEdge[] => {
    const x = best.values[p.path];
    if ((x !== p.lo && x !== p.hi) || plateaus.some((q) => q.param === p.path)) return [];
    const [min, max] = bounds.get(p.path)!;
    const end = x === p.hi ? 'hi' : 'lo';
    const span = p.hi - p.lo;
    const bound = end === 'hi' ? p.hi >= max : p.lo <= min;
    const range: [number, number] = end === 'hi' ? [p.lo, Math.min(max, p.hi + span)] : [Math.max(min, p.lo - span), p.hi];
    return [{ param: p.path, value: x, end, bound, ...(bound ? {} : { range }) }];
  });
}

/**
 * The values a mean can take over the search (its `range`, known to the system: `mean_rounds`
 * between 0 and the round cap), read at the corners of the box searched, since a searched
 * setting may move it (`max_rounds` is the round cap); undefined when the metric has no range
 * or no corner is a valid case.
 */
function meanRangeOver(v: ValidScenario, base: BaseCase, params: readonly TuneParam[], metric: string): readonly [number, number] | undefined {
  const ranges: (readonly [number, number])[] = [];
  for (const corner of cartesian(params.map((p) => [p.lo, p.hi]))) {
    const c = compileSetting(v, base, Object.fromEntries(params.map((p, j) => [p.path, corner[j]])));
    const m = c.ok ? producedMetrics(v.system, c.compiled).metrics[metric] : undefined;
    if (m?.range) ranges.push(m.range);
  }
  return ranges.length === 0 ? undefined : [Math.min(...ranges.map((r) => r[0])), Math.max(...ranges.map((r) => r[1]))];
}

/** The values `v`'s sweep gives setting `p` (none when it does not sweep it). */
export function sweptValues(v: ValidScenario, p: string): number[] {
  return v.params.includes(p) ? v.points.map((pt) => pt.params[p]).filter((x): x is number => typeof x === 'number') : [];
}

/** The target metrics, each once, in the order given. */
function targetMetricsOf(targets: readonly TuneTarget[]): string[] {
  return [...new Set(targets.map((t) => t.metric))];
}

/** n evenly spaced integers from lo to hi (fewer when the range is short). */
function spread(lo: number, hi: number, n: number): number[] {
  return uniq(Array.from({ length: n }, (_, i) => String(Math.round(lo + (i * (hi - lo)) / (n - 1))))).map(Number);
}

function uniq(xs: string[]): string[] {
  return [...new Set(xs)];
}

function cartesian(lists: number[][]): number[][] {
  let out: number[][] = [[]];
  for (const list of lists) out = out.flatMap((prefix) => list.map((x) => [...prefix, x]));
  return out;
}

function cmpCoords(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}
