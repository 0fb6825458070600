/**
 * The solve verb: the smallest value of a parameter whose metric reaches a target, on one
 * variant, at one sweep point (`solveScenario`) or at every point of the scenario's sweep over
 * its other parameters (`solveSweep`). The values tried are a grid: the whole numbers of an
 * integer setting, the multiples of a resolution (`step`) for a decimal one (0.01 for a chance
 * in [0, 1], see `decimalResolution`), so a decimal's answer is stated to that resolution.
 *
 * Every candidate value rolls the same dice (one stream for all values: common random numbers).
 * Bisection on the scenario's trials finds a candidate; the answer and its neighbour are then
 * run with `refine` times the trials and, while the 95% interval of either still holds the
 * target, with more, chunk by chunk, up to `maxTrials`. Where each stops depends only on its
 * own merged dice, so the answer is as deterministic as a run. An answer whose interval and its
 * neighbour's do not separate the target by then is returned with `resolved: false` (the CLI
 * exits 4): never as if it were one. The same goes for "not reachable": it is resolved only
 * when the top of the range is clearly short of the target.
 *
 * No console output: progress goes to the callbacks, cancellation comes by the signal.
 */
import { splitPath, validateCase, valueAtPath, type ValidScenario } from '../scenario/validate.js';
import { COMMON_KEYS, scenarioSchemaOf, schemaAt } from '../scenario/schema.js';
import type { Metric } from '../systems/types.js';
import { runGroups, type GroupJob } from '../engine/run.js';
import type { Executor } from '../engine/executor.js';
import { inlineExecutor } from './executors.js';
import { suggest } from '../text/suggest.js';
import { decimalResolution, effectiveValues, numberBounds, producedMetrics, rangeFault, streamOfCase, tidy, tunablesOf, variantSet } from './tunables.js';
import { conditionOf } from '../systems/conditional.js';
import { pointStream } from './run.js';
import { plateauAround, type Plateau } from './plateau.js';

export interface SolveOptions {
  param: string;
  metric: string;
  target: number;
  /**
   * How close counts as on target (default 0): a value whose metric is within `within` of the
   * target reaches it, so the search looks for the smallest value with metric >= target - within
   * (<= target + within when the metric falls). A practical tolerance: 0.005 takes 0.4994 as 0.5.
   */
  within?: number;
  from?: number;
  to?: number;
  /**
   * The resolution: the values tried are the multiples of `step` in [from, to] (default 1 for
   * an integer setting, whose step must be a whole number; for a decimal one
   * `decimalResolution(from, to)`, e.g. 0.01 for a chance in [0, 1]).
   */
  step?: number;
  /** Trials per candidate during the bisection (default: the scenario's). */
  trials?: number;
  seed?: string | number;
  /** The variant to solve on (default: the baseline, the first). */
  variant?: string;
  /**
   * Values of the scenario's other swept parameters (one sweep point); default: none, the
   * scenario's own values. `solveSweep` sets it for each point.
   */
  point?: Record<string, unknown>;
  executor?: Executor;
  signal?: AbortSignal;
  /** Trials multiplier for the closer look at the answer and its neighbour (default 4). */
  refine?: number;
  /** Cap on trials per candidate while resolving (default 32 x trials). */
  maxTrials?: number;
  /** Each evaluation as it is made (`trials` it ran; `phase` of the search). */
  onStep?: (value: number, m: Metric, info: { trials: number; phase: SolvePhase; point: Record<string, unknown> }) => void;
  /**
   * Evaluations made and planned so far (for a progress bar). The plan is the usual count (both
   * ends, the bisection, the answer and its neighbour) and grows when the search needs more.
   */
  onProgress?: (done: number, planned: number) => void;
}

export type SolvePhase = 'ends' | 'bisect' | 'resolve';

export interface SolveResult {
  param: string;
  metric: string;
  target: number;
  /** The tolerance: the target ± `within` counts as reached (0: the target itself). */
  within: number;
  from: number;
  to: number;
  /** The resolution: the values tried are the multiples of `step` from `from` to `to`. */
  step: number;
  /** The setting's kind: `int` (whole numbers) or `number` (a decimal, answered to `step`). */
  kind: 'int' | 'number';
  /** The values the setting allows (its schema's bounds): how far `from`/`to` could be widened. */
  allowed: { min: number; max: number };
  /** The variant solved on. */
  variant: string;
  /** The sweep point (values of the other swept parameters); {} without a sweep. */
  point: Record<string, unknown>;
  /**
   * Every other setting the scenario sweeps, at its value in the case solved: the point's, or
   * without one (`sweep: false`) the scenario's own (the file's value, or the default). {} when
   * the scenario sweeps nothing else.
   */
  held: Record<string, unknown>;
  /**
   * The event the metric is a mean over the trials of (`p_breach` for `mean_breach_round`): a
   * metric's `n` then counts those trials, not the trials run (each evaluation's `trials`).
   * Absent for a metric over every trial.
   */
  conditional_on?: string;
  increasing: boolean;
  reachable: boolean;
  /**
   * True when the intervals decide the answer: the answer's 95% interval is on the target's
   * side and its neighbour's (if in range) on the other; for "not reachable", the top of the
   * range's interval is short of the target. False: the best estimate, not an answer.
   */
  resolved: boolean;
  /** The cap on trials per candidate that resolving may use. */
  max_trials: number;
  /** The answer (undefined when the target is not reachable in [from, to]). */
  value?: number;
  /** The metric at the answer. */
  at?: Metric;
  /** The neighbour just before the answer (value - step), when it is in range. */
  neighbour?: { value: number; metric: Metric };
  /**
   * The answer sits on a plateau: other values tried next to it give results identical to the
   * answer's (on the same dice), so the metric does not depend on the setting there.
   */
  plateau?: Plateau;
  /** Every evaluation made, in order. */
  evaluations: { value: number; trials: number; phase: SolvePhase; metric: Metric }[];
  ends: { from: Metric; to: Metric };
  /**
   * When the target is not reached (`value` undefined): the end of the range whose estimate came
   * closest to it (`to` but when the metric hardly moves), with its estimate and interval.
   */
  closest?: { end: 'from' | 'to'; value: number; metric: Metric };
  /**
   * What to try next (see `SolveNext`) when the target is not reached, and when the answer is the
   * bottom of a range that could start lower (the target is met from `from` on: a lower `from`
   * may find a smaller value; `widen: "from"`).
   */
  next?: SolveNext;
}

/**
 * The next step when the target is not reached in the range, or when the answer is the bottom of
 * a range that could start lower. `widen`: `to` (a higher end: the metric moves towards the
 * target as the setting grows), `from` (a lower start: only the low end can still be widened
 * while the metric hardly moves; or an answer at the bottom of the range, where the value that
 * first reaches the target may lie below), `both` (it hardly moves between the ends: either way,
 * or another setting), `none` (the range already ends where the setting's allowed values end
 * that way: no value of this setting reaches the target). `suggest`: a concrete value for that
 * end (the range's span again, kept inside the allowed values) for `to` or `from`. `reason`, why:
 * `bottom` (the answer is the range's bottom), `flat` (the metric hardly moves between the
 * ends), `towards` (it moves towards the target as the setting grows: a higher end may reach it),
 * `out-of-reach` (it moves, but the range's top is the highest value the setting allows). The
 * rest of what the advice says (the metric, the setting, the range, the allowed values, the
 * direction) is on the result; each front end phrases it in its own words.
 */
export type SolveNext =
  | { widen: 'from'; suggest: number; reason: 'bottom' }
  | { widen: 'to' | 'from' | 'both' | 'none'; suggest?: number; reason: 'flat' }
  | { widen: 'to'; suggest: number; reason: 'towards' }
  | { widen: 'none'; reason: 'out-of-reach' };

/**
 * One answer as JSON: `value: null` when there is none, the key never left out. `next` stays the
 * api's reason; the front ends' JSON (`solve --json`, the workbench's sweep) words it with
 * `solveJsonIn` (src/report/solve-text.ts).
 */
export function solveJson(r: SolveResult): SolveResult | (Omit<SolveResult, 'value'> & { value: null }) {
  return r.value === undefined ? { ...r, value: null } : r;
}

/** One answer per sweep point of the scenario's other swept parameters. */
export interface SolveSweepResult {
  param: string;
  metric: string;
  target: number;
  variant: string;
  /** The other swept parameters (empty without a sweep: one point). */
  params: string[];
  points: SolveResult[];
  /** Every point resolved. */
  resolved: boolean;
  /** Every point reachable. */
  reachable: boolean;
}

/**
 * What is wrong with a solve request, as data (each front end words it, naming its own controls):
 * - `invalid-value`: the case at `param` = `value` does not validate (the validator's `messages`);
 * - `unknown-metric`: `metric` is not one the scenario produces (`guess`: the nearest, `known`: all);
 * - `not-produced`: `metric` is missing from a candidate's summary;
 * - `target-outside`: a probability's `target` outside [0, 1];
 * - `target-range`: a mean's `target` (less `within`) outside the values it can take in the case
 *   (`range`, e.g. `mean_rounds` 0..12 under `max_rounds: 12`), at every value of the range searched;
 * - `within`: a tolerance that is not a number >= 0;
 * - `not-a-number`: `param` is a choice (`enum`, with its `options`) or a yes/no (`boolean`) setting;
 * - `not-numeric`: `param` is not a numeric setting of `system` (`guess`: the nearest numeric one);
 * - `no-variant`: no variant `name` in `scenario` (its `variants`);
 * - `no-start`: `param` has no value in the case to start a default range from (it allows `min`..`max`);
 * - `order`: not `from` < `to` (`int`: an integer setting, whose ends must be whole numbers);
 * - `bounds`: the range `from`..`to` outside the values `param` allows (`min`..`max`);
 * - `step`: a resolution that is not a positive number (a whole one for an integer setting);
 * - `few-values`: the range holds fewer than two multiples of `step`.
 */
export type SolveProblem =
  | { code: 'invalid-value'; param: string; value: number; messages: string[] }
  | { code: 'unknown-metric'; metric: string; guess?: string; known: string[] }
  | { code: 'not-produced'; metric: string }
  | { code: 'target-outside'; metric: string; target: number }
  | { code: 'target-range'; metric: string; target: number; range: readonly [number, number] }
  | { code: 'within'; within: number }
  | { code: 'not-a-number'; param: string; kind: 'enum' | 'boolean'; options?: string[] }
  | { code: 'not-numeric'; param: string; system: string; guess?: string }
  | { code: 'no-variant'; name: string; scenario: string; variants: string[] }
  | { code: 'no-start'; param: string; min: number; max: number }
  | { code: 'order'; int: boolean; from: number; to: number }
  | { code: 'bounds'; param: string; from: number; to: number; min: number; max: number }
  | { code: 'step'; param: string; int: boolean; step: number }
  | { code: 'few-values'; from: number; to: number; step: number }
  | { code: 'max-trials'; maxTrials: number; needed: number; trials: number };

/**
 * A problem with a solve request the user can fix (the CLI words it and exits 2; the workbench
 * sends it as the sweep's `solveError`). `problem` is what is wrong; the message only names it.
 */
export class SolveInputError extends Error {
  constructor(readonly problem: SolveProblem) {
    super(`solve request refused: ${JSON.stringify(problem)}`);
    this.name = 'SolveInputError';
  }
}

/** The closer look's trials multiplier, and the default cap as a multiple of the trials. */
const REFINE = 4;
const CAP_FACTOR = 32;

/**
 * Find the smallest value v on the grid of [from, to] (multiples of `step`) of `param` whose
 * `metric` reaches `target` (≥ target when the metric grows with v, ≤ when it falls), assuming
 * the metric is monotone.
 * @example await solveScenario(v, { param: 'wall.hp', metric: 'p_defender_wins', target: 0.5, from: 5, to: 60 })
 */
export async function solveScenario(v: ValidScenario, o: SolveOptions): Promise<SolveResult> {
  const { variant, set, ranged } = checkRequest(v, o);
  return solveAt(v, o, variant, planPoint(v, o, set, o.point ?? {}, ranged));
}

/** One sweep point of a checked request: its range, and the dice its candidates roll. */
interface PlannedPoint {
  point: Record<string, unknown>;
  from: number;
  to: number;
  step: number;
  kind: 'int' | 'number';
  allowed: { min: number; max: number };
  /**
   * Every candidate rolls the dice `run` rolls at this sweep point (point-0 when the point is
   * none of the file's; a swept setting the case leaves out at the rules' value, `streamOfCase`),
   * so the value at the file's own setting is run's, byte for byte, and
   * candidates share their dice (their differences are smooth in the value).
   */
  stream: string;
  /** The variant's `set` as written (the point's values go on top of it). */
  set: Record<string, unknown>;
  /** See `SolveResult.held`. */
  held: Record<string, unknown>;
}

/** A point of the request `checkRequest` passed: the case there, its range (`solveRange`) and stream. */
function planPoint(
  v: ValidScenario,
  o: Pick<SolveOptions, 'param' | 'from' | 'to' | 'step' | 'metric' | 'target' | 'within'>,
  set: Record<string, unknown>,
  point: Record<string, unknown>,
  /** The metric is a mean with a range (checkRequest's `ranged`): check the target against it. */
  ranged: boolean,
): PlannedPoint {
  const c = validateCase(v, point, set);
  const range = solveRange(v, o, c.ok ? c.scenario : undefined);
  const auto = c.ok ? effectiveValues(v.system, c.scenario) : {};
  const held = Object.fromEntries(v.params.filter((p) => p !== o.param).map((p) => [p, Object.hasOwn(point, p) ? point[p] : c.ok ? (valueAtPath(c.scenario, p) ?? auto[p]) : undefined]));
  if (ranged) checkReach(v, o, set, point, range);
  return { point, ...range, stream: c.ok ? streamOfCase(v, c.scenario) : pointStream(0), set, held };
}

/**
 * A mean's target must lie within the values the mean can take (its `range`, known to the
 * system: `mean_rounds` between 0 and the round cap): else no value of the parameter can reach
 * it and the search would end by advising a wider one. The range is read at both ends of the
 * range searched (the parameter may move it: `max_rounds` is the round cap), so the target is
 * refused only when it lies beyond the values the mean can take at either end, by more than
 * `within`. A case that does not validate at an end is left to the search to report.
 */
function checkReach(
  v: ValidScenario,
  o: Pick<SolveOptions, 'param' | 'metric' | 'target' | 'within'>,
  set: Record<string, unknown>,
  point: Record<string, unknown>,
  at: { from: number; to: number },
): void {
  const sys = v.system;
  const ranges: (readonly [number, number])[] = [];
  for (const value of [at.from, at.to]) {
    const c = validateCase(v, { ...point, [o.param]: value }, set);
    if (!c.ok) return;
    const m = producedMetrics(sys, sys.compile(c.scenario)).metrics[o.metric];
    if (!m?.range) return;
    ranges.push(m.range);
  }
  const lo = Math.min(...ranges.map((r) => r[0]));
  const hi = Math.max(...ranges.map((r) => r[1]));
  const within = o.within ?? 0;
  if (o.target < lo - within || o.target > hi + within) throw new SolveInputError({ code: 'target-range', metric: o.metric, target: o.target, range: [lo, hi] });
}

/** The search at one planned point (the request already checked). */
async function solveAt(v: ValidScenario, o: Omit<SolveOptions, 'point'>, variant: string, at: PlannedPoint): Promise<SolveResult> {
  const sys = v.system;
  const { point, from, to, step, kind, allowed, stream, set, held } = at;
  /** The grid: index k is the value k x step (the whole numbers themselves at step 1). */
  const valueAt = (k: number) => (step === 1 ? k : tidy(k * step));
  const kFrom = Math.round(from / step);
  const kTo = Math.round(to / step);
  const within = o.within ?? 0;
  const trials = o.trials ?? v.trials;
  const big = trials * (o.refine ?? REFINE);
  const cap = Math.max(big, o.maxTrials ?? trials * CAP_FACTOR);
  const seed = o.seed ?? v.seed;
  const exec = o.executor ?? inlineExecutor();
  const evaluations: SolveResult['evaluations'] = [];
  const planned = 2 + Math.ceil(Math.log2(Math.max(2, kTo - kFrom))) + 2;

  const compile = (value: number) => {
    const c = validateCase(v, { ...point, [o.param]: value }, set);
    if (!c.ok) throw new SolveInputError({ code: 'invalid-value', param: o.param, value, messages: c.messages });
    return sys.compile(c.scenario);
  };
  const metricOf = (compiled: unknown, merged: Float64Array): Metric => {
    const all = sys.summarize(compiled, merged).metrics;
    const m = Object.hasOwn(all, o.metric) ? all[o.metric] : undefined;
    if (!m) throw new SolveInputError({ code: 'not-produced', metric: o.metric });
    return m;
  };

  /**
   * Run candidates on the point's stream (the same dice for every value): `n` trials each, then,
   * with `open`, chunk by chunk until the candidate's interval no longer holds the target (each
   * decides on its own dice alone, so where it stops is deterministic), up to the cap.
   */
  const evaluate = async (values: number[], n: number, phase: SolvePhase, open = false): Promise<Metric[]> => {
    const compiled = values.map(compile);
    const jobs: GroupJob[] = compiled.map((c) => ({
      stream,
      system: sys.id,
      compiled: [c],
      accLengths: [sys.kernel.accLength(c)],
      pairedSlots: [[]],
    }));
    const outcomes = await runGroups(
      jobs,
      {
        seed,
        trials: n,
        chunkTrials: sys.chunkTrials,
        signal: o.signal,
        inline: exec.inline ?? inlineExecutor(),
        release: true, // the candidates compiled above are this evaluation's alone
        ...(open ? { more: (g: number, merged: Float64Array) => straddles(metricOf(compiled[g], merged)), maxTrials: cap } : {}),
      },
      exec,
    );
    return outcomes.map((out, i) => {
      const m = metricOf(compiled[i], out.merged);
      evaluations.push({ value: values[i], trials: out.trials, phase, metric: m });
      o.onStep?.(values[i], m, { trials: out.trials, phase, point });
      o.onProgress?.(evaluations.length, Math.max(planned, evaluations.length));
      return m;
    });
  };

  let [fFrom, fTo] = await evaluate([from, to], trials, 'ends');
  const increasing = fTo.value >= fFrom.value;
  /** What counts as reached: the target, less the tolerance on the way to it. */
  const goal = increasing ? o.target - within : o.target + within;
  const meets = (m: Metric) => (increasing ? m.value >= goal : m.value <= goal);
  /** The whole interval on the goal's side, or the whole interval short of it. */
  const clearlyMeets = (m: Metric) => (increasing ? m.ci_low >= goal : m.ci_high <= goal);
  const clearlyShort = (m: Metric) => (increasing ? m.ci_high < goal : m.ci_low > goal);
  const straddles = (m: Metric) => !clearlyMeets(m) && !clearlyShort(m);

  const result: SolveResult = {
    param: o.param,
    metric: o.metric,
    target: o.target,
    within,
    from,
    to,
    step,
    kind,
    allowed,
    variant,
    point,
    held,
    ...(conditionOf(sys, o.metric) !== undefined ? { conditional_on: conditionOf(sys, o.metric) } : {}),
    increasing,
    reachable: false,
    resolved: false,
    max_trials: cap,
    evaluations,
    ends: { from: fFrom, to: fTo },
  };
  // The closer look: more trials for a value until its interval is clear of the target (or the cap).
  const decided = new Map<number, Metric>();
  const decide = async (values: number[]) => {
    const todo = values.filter((x) => !decided.has(x));
    if (todo.length > 0) (await evaluate(todo, big, 'resolve', true)).forEach((m, i) => decided.set(todo[i], m));
    return values.map((x) => decided.get(x)!);
  };
  if (!meets(fTo) && straddles(fTo)) {
    // "not reachable" is an answer too: look closer before saying it
    [fTo] = await decide([to]);
    result.ends.to = fTo;
  }
  if (!meets(fTo)) {
    result.resolved = clearlyShort(fTo);
    return notReached(result, goal);
  }
  result.reachable = true;

  // bisection over the grid's indices
  let lo = kFrom;
  let hi = kTo;
  if (meets(fFrom)) hi = kFrom;
  else {
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const [m] = await evaluate([valueAt(mid)], trials, 'bisect');
      if (meets(m)) hi = mid;
      else lo = mid;
    }
  }

  // The closer look at the answer and its neighbour; move while it disagrees with the bisection.
  let k = hi;
  const look = () => decide(k > kFrom ? [valueAt(k), valueAt(k - 1)] : [valueAt(k)]);
  for (let guard = 0; guard < 16; guard++) {
    const [atAnswer, below] = await look();
    if (!meets(atAnswer) && k < kTo) k++;
    else if (below && meets(below)) k--;
    else break;
  }
  const answer = valueAt(k);
  const [atAnswer, below] = await look();
  if (!meets(atAnswer) && k === kTo) {
    // the closer look at the top of the range falls short after all: not reachable
    result.ends.to = atAnswer;
    result.reachable = false;
    result.resolved = clearlyShort(atAnswer);
    return notReached(result, goal);
  }
  result.reachable = meets(atAnswer);
  result.resolved = clearlyMeets(atAnswer) && (below === undefined || clearlyShort(below));
  result.value = answer;
  result.at = atAnswer;
  if (below) result.neighbour = { value: valueAt(k - 1), metric: below };
  else if (from > allowed.min) {
    // met from the bottom of the range on: the value that first reaches it may lie below
    const down = step === 1 ? Math.max(allowed.min, from - (to - from)) : tidy(Math.ceil(Math.max(allowed.min, from - (to - from)) / step - 1e-9) * step);
    result.next = { widen: 'from', suggest: down, reason: 'bottom' };
  }
  const plateau = plateauAround(
    o.param,
    [o.metric],
    answer,
    evaluations.map((e) => ({ value: e.value, trials: e.trials, key: JSON.stringify([e.metric.value, e.metric.ci_low, e.metric.ci_high]) })),
    step,
  );
  if (plateau) result.plateau = plateau;
  return result;
}

/**
 * A result with no answer completed: the end of the range that came closest to `goal` (the
 * target less the tolerance) and the next step (`SolveNext`). The metric is read as moving
 * towards the target as the setting grows (that is how the search reads its direction), so the
 * top of the range is the closest end unless the two ends' intervals overlap (the metric hardly
 * moves: the nearer estimate, the top on a tie).
 */
function notReached(r: SolveResult, goal: number): SolveResult {
  const { from: a, to: b } = r.ends;
  const end = Math.abs(a.value - goal) < Math.abs(b.value - goal) ? 'from' : 'to';
  r.closest = { end, value: end === 'from' ? r.from : r.to, metric: end === 'from' ? a : b };
  r.next = nextStep(r);
  return r;
}

/** The next step for a result whose target is not reached (see `SolveNext`). */
function nextStep(r: SolveResult): SolveNext {
  const { from: a, to: b } = r.ends;
  const flat = a.ci_low <= b.ci_high && b.ci_low <= a.ci_high;
  const span = r.to - r.from;
  const onGrid = (x: number) => (r.step === 1 ? x : tidy(Math.round(x / r.step) * r.step));
  const up = r.to < r.allowed.max ? onGrid(Math.min(r.allowed.max, r.to + span)) : undefined;
  const down = r.from > r.allowed.min ? onGrid(Math.max(r.allowed.min, r.from - span)) : undefined;
  if (flat) {
    const widen = down !== undefined && up !== undefined ? 'both' : up !== undefined ? 'to' : down !== undefined ? 'from' : 'none';
    const suggest = widen === 'to' ? up : widen === 'from' ? down : undefined;
    return { widen, ...(suggest !== undefined ? { suggest } : {}), reason: 'flat' };
  }
  if (up === undefined) return { widen: 'none', reason: 'out-of-reach' };
  return { widen: 'to', suggest: up, reason: 'towards' };
}

/**
 * Solve at every sweep point of the scenario's other swept parameters (the solved parameter's
 * own axis, if swept, is what is searched): one answer per point, in sweep order.
 * @example await solveSweep(v, { param: 'wall.hp', metric: 'p_defender_wins', target: 0.5 }) // the HP for 50% at each DC
 */
export async function solveSweep(
  v: ValidScenario,
  o: Omit<SolveOptions, 'point'> & {
    /** false: solve once at the scenario's own values, as if it had no sweep (default true). */
    sweep?: boolean;
    /**
     * Called once the request is known to be valid, before any trial runs, with what will be
     * searched (what `solvePlan` returns). Throwing here stops the solve before it starts.
     */
    onPlan?: (plan: SolvePlan) => void;
    onPoint?: (index: number, of: number, r: SolveResult) => void;
  },
): Promise<SolveSweepResult> {
  const { variant, params, points: plan } = planOf(v, o);
  o.onPlan?.(publicPlan({ variant, params, points: plan }));
  const points: SolveResult[] = [];
  let before = 0; // evaluations of the points done
  for (const at of plan) {
    const left = plan.length - points.length - 1; // points after this one, planned as this one
    const onProgress = o.onProgress && ((done: number, planned: number) => o.onProgress!(before + done, before + planned * (1 + left)));
    const r = await solveAt(v, { ...o, onProgress }, variant, at);
    before += r.evaluations.length;
    points.push(r);
    o.onPoint?.(points.length - 1, plan.length, r);
  }
  return {
    param: o.param,
    metric: o.metric,
    target: o.target,
    variant,
    params,
    points,
    resolved: points.every((r) => r.resolved),
    reachable: points.every((r) => r.reachable),
  };
}

/** What `solveSweep` will search: the variant, the other swept parameters, and each point's range. */
export interface SolvePlan {
  variant: string;
  params: string[];
  points: { point: Record<string, unknown>; from: number; to: number; step: number }[];
}

/**
 * Check a solve request and say what it will search, running nothing: throws SolveInputError
 * for a bad metric, target, parameter, variant or range (so a caller can refuse before it
 * prints or starts anything). Each point's range is `from`/`to` as given, else the default of
 * `solveRange`.
 */
export function solvePlan(v: ValidScenario, o: Omit<SolveOptions, 'point'> & { sweep?: boolean }): SolvePlan {
  return publicPlan(planOf(v, o));
}

/** The request checked once and every point planned: what `solveSweep` runs and `solvePlan` shows. */
function planOf(v: ValidScenario, o: Omit<SolveOptions, 'point'> & { sweep?: boolean }): { variant: string; params: string[]; points: PlannedPoint[] } {
  const { variant, set, ranged } = checkRequest(v, o);
  const params = o.sweep === false ? [] : v.params.filter((p) => p !== o.param);
  const seen = new Set<string>();
  const points: PlannedPoint[] = [];
  for (const pt of v.points) {
    const point = Object.fromEntries(params.map((p) => [p, pt.params[p]]));
    const key = JSON.stringify(point);
    if (seen.has(key)) continue;
    seen.add(key);
    points.push(planPoint(v, o, set, point, ranged));
  }
  return { variant, params, points };
}

function publicPlan(p: { variant: string; params: string[]; points: PlannedPoint[] }): SolvePlan {
  return { variant: p.variant, params: p.params, points: p.points.map(({ point, from, to, step }) => ({ point, from, to, step })) };
}

/**
 * The range searched and its resolution: `from`/`to` when given, else from 0 (or the schema's
 * lowest value, if higher) to twice the setting's value in the case, at least 10 (or the
 * schema's highest value, if lower: a chance in [0, 1] is searched from 0 to 1). The value is
 * the one the case uses: written, the schema's default, or the one the rules derive for a
 * setting the file leaves out (a palisade's 15 HP, see `effectiveValues`). The values tried
 * are the multiples of `step` in that range (an integer setting: whole numbers, step 1 unless
 * given; a decimal one: `step`, else `decimalResolution` of the range), and `from`/`to` are
 * the lowest and highest of them. Throws SolveInputError for a range outside the schema's
 * bounds, empty or with fewer than two values on the grid, a step that is not a positive
 * number (a whole one for an integer setting), and when the case has no value to start from
 * and no range is given. Tune's default (`defaultRange`) is another on purpose: a bisection
 * needs only a bracket from 0 past the value, while tune's coarse grid is laid around the value
 * (half to twice it) or over the file's sweep of the setting; the test of a given integer range
 * (`rangeFault`) is the one both use.
 */
export function solveRange(
  v: ValidScenario,
  o: Pick<SolveOptions, 'param' | 'from' | 'to' | 'step'>,
  scenario: Record<string, unknown> | undefined,
): { from: number; to: number; step: number; kind: 'int' | 'number'; allowed: { min: number; max: number } } {
  const node = schemaAt(scenarioSchemaOf(v.system), splitPath(o.param));
  const b = node ? numberBounds(node) : { kind: 'number' as const, min: -Infinity, max: Infinity };
  const int = b.kind === 'int';
  const lo = int ? Math.ceil(b.min) : b.min;
  const hi = int ? Math.floor(b.max) : b.max;
  const t = scenario ? tunablesOf(v.system, scenario).find((x) => x.path === o.param) : undefined;
  const value = typeof t?.value === 'number' ? t.value : undefined;
  if (value === undefined && (o.from === undefined || o.to === undefined)) {
    throw new SolveInputError({ code: 'no-start', param: o.param, min: lo, max: hi });
  }
  const from = o.from ?? Math.min(hi, Math.max(0, lo));
  let to = o.to ?? Math.min(hi, Math.max(10, 2 * Math.abs(value!)));
  if (o.to === undefined && to <= from) to = Math.min(hi, from + 10);
  if (int) {
    const fault = rangeFault(from, to, lo, hi);
    if (fault === 'order') throw new SolveInputError({ code: 'order', int, from, to });
    if (fault === 'bounds') throw new SolveInputError({ code: 'bounds', param: o.param, from, to, min: lo, max: hi });
  } else {
    if (!(Number.isFinite(from) && Number.isFinite(to) && from < to)) throw new SolveInputError({ code: 'order', int, from, to });
    if (from < lo || to > hi) throw new SolveInputError({ code: 'bounds', param: o.param, from, to, min: lo, max: hi });
  }
  const step = o.step ?? (int ? 1 : decimalResolution(from, to));
  if (!(step > 0 && Number.isFinite(step)) || (int && !Number.isInteger(step))) {
    throw new SolveInputError({ code: 'step', param: o.param, int, step });
  }
  // the grid's ends: the multiples of the step inside the range (a hair of rounding allowed)
  const kFrom = Math.ceil(from / step - 1e-9);
  const kTo = Math.floor(to / step + 1e-9);
  if (kTo - kFrom < 1) {
    throw new SolveInputError({ code: 'few-values', from, to, step });
  }
  return { from: tidy(kFrom * step), to: tidy(kTo * step), step, kind: b.kind, allowed: { min: lo, max: hi } };
}

/**
 * The metric is one the scenario has, a probability's target lies in [0, 1], the parameter is a
 * numeric setting of the system (with a "did you mean" among the scenario's numeric settings),
 * and the variant is one of the scenario's: its name and `set`, and whether the metric is a mean
 * whose values have a known range (`ranged`: each point's target is checked against it, `checkReach`).
 */
function checkRequest(v: ValidScenario, o: Pick<SolveOptions, 'metric' | 'param' | 'target' | 'variant' | 'within' | 'trials' | 'maxTrials' | 'refine'>): { variant: string; set: Record<string, unknown>; ranged: boolean } {
  const sys = v.system;
  if (o.within !== undefined && !(o.within >= 0 && Number.isFinite(o.within))) throw new SolveInputError({ code: 'within', within: o.within });
  // a cap below the closer look's trials cannot be kept: the answer and its neighbour are run with them (solveAt's `big`)
  const trials = o.trials ?? v.trials;
  const needed = trials * (o.refine ?? REFINE);
  if (o.maxTrials !== undefined && o.maxTrials < needed) throw new SolveInputError({ code: 'max-trials', maxTrials: o.maxTrials, needed, trials });
  const loaded = v.points[0].variants[0].scenario;
  const produced = producedMetrics(sys, sys.compile(loaded));
  if (!Object.hasOwn(produced.metrics, o.metric)) {
    const known = Object.keys(produced.metrics);
    const guess = suggest(o.metric, known);
    throw new SolveInputError({ code: 'unknown-metric', metric: o.metric, ...(guess ? { guess } : {}), known });
  }
  if (produced.metrics[o.metric].kind === 'probability' && !(o.target >= 0 && o.target <= 1)) throw new SolveInputError({ code: 'target-outside', metric: o.metric, target: o.target });
  const node = schemaAt(scenarioSchemaOf(sys), splitPath(o.param));
  const kind = node ? (node as unknown as { _zod: { def: { type: string } } })._zod.def.type : undefined;
  if (!COMMON_KEYS.has(splitPath(o.param)[0]) && (kind === 'enum' || kind === 'boolean')) {
    const t = tunablesOf(sys, loaded).find((x) => x.path === o.param);
    throw new SolveInputError({ code: 'not-a-number', param: o.param, kind, ...(t?.options ? { options: t.options.map(String) } : {}) });
  }
  if (COMMON_KEYS.has(splitPath(o.param)[0]) || kind !== 'number') {
    const numeric = tunablesOf(sys, loaded).filter((t) => t.kind === 'int' || t.kind === 'number');
    const guess = suggest(o.param, numeric.map((t) => t.path));
    throw new SolveInputError({ code: 'not-numeric', param: o.param, system: sys.id, ...(guess ? { guess } : {}) });
  }
  const index = variantIndexOf(v, o.variant);
  return { variant: v.variantNames[index], set: variantSet(v, index), ranged: produced.metrics[o.metric].range !== undefined };
}

function variantIndexOf(v: ValidScenario, name: string | undefined): number {
  if (name === undefined) return 0;
  const i = v.variantNames.indexOf(name);
  if (i < 0) throw new SolveInputError({ code: 'no-variant', name, scenario: v.name, variants: v.variantNames });
  return i;
}

