/**
 * The test verb: judge a scenario's `expect:` assertions on intervals that cannot flake.
 *
 * Each assertion (one `expect:` item at one sweep point and variant) is judged on the metric's
 * interval at `confidence` (default 99.9%): **pass** when the interval lies inside the bound,
 * **fail** when it lies wholly outside, and when it straddles the bound the sweep point runs
 * more chunks and is looked at again at about 2×, 4×, 8× and 16× its trials (the first chunk
 * boundary at or past each), up to `maxTrials`; still straddling there, it is **inconclusive**.
 * `exact: true` is judged on check's z (exact.ts zRow, zDiffRow), not on the interval: it
 * passes when |z| ≤ z of the confidence and fails when |z| > max(that z, 4.5) (check's limit);
 * between the two it runs more trials the same way. A cap below the first look's trials is
 * raised to them: the first look is always run whole. Where a run stops depends only on its merged results, so a verdict is as
 * reproducible as the dice. The false-alarm rates are worked out in docs/ci.md ("Choosing
 * bounds").
 */
import type { Expectation, Bound } from '../scenario/expect.js';
import type { ScenarioIssue } from '../scenario/load.js';
import type { ValidScenario } from '../scenario/validate.js';
import { MSG } from '../scenario/messages.js';
import { EXACT_LIMITS, type CaseResult, type ExactBudget, type ExactMetric, type ScenarioResult } from '../systems/types.js';
import { meanInterval, pairedDifference, rescaleInterval, wilson, zForConfidence, type Estimate } from '../stats/intervals.js';
import { CHECK_Z_LIMIT, solveExactOrWhy, zDiffRow, zRow } from './exact.js';
import { alignPairedSlots, runScenario, type RunScenarioOptions } from './run.js';

/** Default confidence of the interval an assertion is judged on. */
export const TEST_CONFIDENCE = 0.999;
/** Default cap on trials per case: this many times the first look's trials (looks at 1, 2, 4, 8, 16×). */
export const TEST_MAX_FACTOR = 16;

export type Verdict = 'pass' | 'fail' | 'inconclusive';

/** One assertion's outcome. */
export interface AssertionResult {
  /** The `expect:` item's index, and where it is in the file. */
  index: number;
  line: number;
  col: number;
  metric: string;
  case: number;
  variant: string;
  /** The sweep point's parameter values (empty without a sweep). */
  params: Record<string, unknown>;
  /** `wall.hp=40, wall.dc=12, variant seed-reading` (empty for a one-case scenario). */
  where: string;
  bound: Bound;
  /** `between [0.45, 0.55]`, `at least 0.9`, `at most -0.05`, `exact 0.4213 (z = 1.2)`. */
  boundText: string;
  verdict: Verdict;
  /** The estimate and its interval at `confidence`. */
  value: number;
  ci_low: number;
  ci_high: number;
  confidence: number;
  trials: number;
  /** For `exact: true`: the exact answer and the z-score of the estimate against it. */
  exact?: { value: number; z: number };
  /** A mean with no interval (fewer than 2 observations): how many trials gave it a value. */
  observations?: number;
  /** A mean over the trials of an event (`mean_breach_round` over those with `p_breach`): the event, and how many of the case's trials it averages. */
  over?: { event: string; n: number };
  /** Its interval straddled the bound at the first look, so its case ran on past the file's trials (other assertions of that case then ran on with it). */
  ranOn?: boolean;
}

export interface ScenarioTestResult {
  name: string;
  file: string;
  system: string;
  confidence: number;
  /** Trials per case at the first look, and the cap. */
  trials: number;
  maxTrials: number;
  assertions: AssertionResult[];
  result: ScenarioResult;
}

export interface TestOptions extends Pick<RunScenarioOptions, 'seed' | 'executor' | 'signal' | 'onProgress'> {
  /** Trials per case at the first look (default: the scenario's). */
  trials?: number;
  /** Cap on trials per case (default: 16 × trials). */
  maxTrials?: number;
  /** Confidence of the interval each assertion is judged on (default 0.999). */
  confidence?: number;
}

/**
 * Exact answers the scenario's `exact: true` assertions need, by `${point}:${variant}`; a
 * `diff_<metric>` item's is the exact difference variant − baseline, under its diff_ name.
 */
export type ExactAnswers = Map<string, Record<string, ExactMetric>>;

/**
 * Solve exactly every case an `exact: true` assertion names, before anything runs. A case
 * without an exact answer for the metric is a problem with the scenario (exit 2), placed at
 * the item's `exact` key; so is an item the scenario no longer matches (`staleExpect`, when it
 * was validated with staleExpect 'warn'), which test cannot judge.
 */
export function prepareExact(v: ValidScenario): { answers: ExactAnswers; issues: ScenarioIssue[] } {
  const answers: ExactAnswers = new Map();
  // expect: items the scenario no longer matches (validated with staleExpect 'warn'): test cannot judge them
  const issues: ScenarioIssue[] = [...(v.staleExpect ?? [])];
  const sys = v.system;
  const compiled = new Map<string, unknown>();
  const compileAt = (point: number, variant: number) => {
    const key = `${point}:${variant}`;
    if (!compiled.has(key)) compiled.set(key, sys.compile(v.points[point].variants[variant].scenario));
    return compiled.get(key);
  };
  const solved = new Map<string, Record<string, ExactMetric>>();
  /** Why a case's exact answer was not computed (its chain too large), by case. */
  const unsolved = new Map<string, string>();
  const budget: ExactBudget = { work: EXACT_LIMITS.exactWork };
  const solve = (point: number, variant: number) => {
    const key = `${point}:${variant}`;
    if (!solved.has(key)) {
      const { exact, unsolved: why } = solveExactOrWhy(sys, compileAt(point, variant), budget);
      if (why !== undefined) unsolved.set(key, why);
      solved.set(key, exact?.metrics ?? {});
    }
    return solved.get(key)!;
  };
  for (const e of v.expect) {
    if (e.bound.kind !== 'exact') continue;
    for (const t of e.targets) {
      const key = `${t.point}:${t.variant}`;
      if (!answers.has(key)) answers.set(key, { ...solve(t.point, t.variant) });
      const where = whereText(v, t.point, t.variant) || 'this case';
      const issue = (message: string) => issues.push({ file: v.file, line: e.line, col: e.col, path: `expect[${e.index}]`, message });
      if (!e.diff) {
        if (!answers.get(key)![e.base]) issue(MSG.exactUnavailable(e.metric, where, unsolved.get(key)));
        continue;
      }
      // a diff_: the exact difference variant − baseline, judged on the paired difference's SE,
      // so both exact answers are needed and the difference must be paired trial by trial
      const variant = solve(t.point, t.variant)[e.base];
      const baseline = solve(t.point, 0)[e.base];
      if (!variant || !baseline) {
        const side = !baseline ? `the baseline "${v.variantNames[0]}"` : `variant "${v.variantNames[t.variant]}"`;
        const why = unsolved.get(!baseline ? `${t.point}:0` : key);
        issue(MSG.exactOfDiff(e.metric, where, `"${e.base}" for ${side}${why !== undefined ? ` (${why})` : ''}`));
      } else if (!pairedDifferenceOf(sys, compileAt(t.point, 0), compileAt(t.point, t.variant), e.base)) {
        issue(MSG.exactOfDiff(e.metric, where));
      } else answers.get(key)![e.metric] = { value: variant.value - baseline.value };
    }
  }
  return { answers, issues };
}

/** Whether a variant's difference from the baseline in `metric` is paired trial by trial (as run.ts assembleCases measures it). */
function pairedDifferenceOf(sys: ValidScenario['system'], baseline: unknown, variant: unknown, metric: string): boolean {
  const p = sys.pairedSlots(baseline).findIndex((s) => s.metric === metric);
  return p >= 0 && alignPairedSlots(sys, [baseline, variant])[1][p] >= 0;
}

/** Run a scenario for its assertions and judge them (see the module comment for the rule). */
export async function testScenario(v: ValidScenario, opts: TestOptions = {}, exact: ExactAnswers = prepareExact(v).answers): Promise<ScenarioTestResult> {
  const confidence = opts.confidence ?? TEST_CONFIDENCE;
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  const z = zForConfidence(confidence);
  const n0 = opts.trials ?? v.trials;
  const cap = Math.max(n0, opts.maxTrials ?? TEST_MAX_FACTOR * n0);
  const C = v.system.chunkTrials;
  const nV = v.variantNames.length;
  // The assertions of each sweep point.
  const byPoint: { e: Expectation; variant: number }[][] = v.points.map(() => []);
  for (const e of v.expect) for (const t of e.targets) byPoint[t.point].push({ e, variant: t.variant });

  /** Looks: the first look, the first chunk boundary at or past 2^k × n0, and the cap. */
  const isLook = (T: number): boolean => {
    if (T <= n0 || T >= cap) return true;
    for (let t = 2 * n0; t <= T; t *= 2) if (t > T - C) return true;
    return false;
  };

  /** The assertions (`expect:` index, variant) undecided at each sweep point's first look. */
  const firstLook: (Set<string> | undefined)[] = v.points.map(() => undefined);
  const result = await runScenario(v, {
    trials: n0,
    maxTrials: cap,
    seed: opts.seed,
    executor: opts.executor,
    signal: opts.signal,
    onProgress: opts.onProgress,
    more: (g, T, cases) => {
      if (byPoint[g].length === 0) return false;
      if (!isLook(T)) return true; // between looks: an earlier look found it undecided
      const cs = cases();
      const open = byPoint[g].filter(({ e, variant }) => judge(e, cs[variant], z, exact.get(`${g}:${variant}`)).state === 'undecided');
      firstLook[g] ??= new Set(open.map(({ e, variant }) => `${e.index}:${variant}`));
      return open.length > 0;
    },
  });

  const assertions: AssertionResult[] = [];
  for (const e of v.expect) {
    for (const t of e.targets) {
      const c = result.cases[t.point * nV + t.variant];
      const j = judge(e, c, z, exact.get(`${t.point}:${t.variant}`));
      assertions.push({
        index: e.index,
        line: e.line,
        col: e.col,
        metric: e.metric,
        case: c.case,
        variant: c.variant,
        params: c.params,
        where: whereText(v, t.point, t.variant),
        bound: e.bound,
        boundText: boundText(e.bound, j.exact),
        verdict: j.state === 'undecided' ? 'inconclusive' : j.state,
        value: j.interval.value,
        ci_low: j.interval.ci_low,
        ci_high: j.interval.ci_high,
        confidence,
        trials: c.trials,
        ...(j.exact ? { exact: j.exact } : {}),
        ...(observationsOf(e, c) ?? {}),
        ...overOf(v, e, c),
        ...(c.trials > n0 && firstLook[t.point]?.has(`${e.index}:${t.variant}`) ? { ranOn: true } : {}),
      });
    }
  }
  return { name: v.name, file: v.file, system: v.system.id, confidence, trials: n0, maxTrials: cap, assertions, result };
}

interface Judgement {
  state: 'pass' | 'fail' | 'undecided';
  interval: Estimate;
  exact?: { value: number; z: number };
}

/** One assertion on one case at one look. */
export function judge(e: Expectation, c: CaseResult, z: number, exact?: Record<string, ExactMetric>): Judgement {
  const interval = intervalOf(e, c, z);
  if (e.bound.kind === 'exact') {
    const m = c.metrics[e.base];
    // a diff_'s exact answer is the exact difference, under the diff_ name (prepareExact)
    const ex = exact?.[e.diff ? e.metric : e.base];
    const d = e.diff ? c.differences[e.base] : undefined;
    if (!m || !ex || (e.diff && !d)) return { state: 'undecided', interval };
    const zz = d ? zDiffRow(c, e.base, m.kind, d, ex.value).z : zRow(c, e.base, m, ex.value, ex.variance).z;
    const az = Math.abs(zz);
    const state = az <= z ? 'pass' : az > Math.max(z, CHECK_Z_LIMIT) ? 'fail' : 'undecided';
    return { state, interval, exact: { value: ex.value, z: zz } };
  }
  const { ci_low: lo, ci_high: hi } = interval;
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return { state: 'undecided', interval };
  const low = e.bound.kind === 'at_most' ? -Infinity : e.bound.low;
  const high = e.bound.kind === 'at_least' ? Infinity : e.bound.high;
  if (lo >= low && hi <= high) return { state: 'pass', interval };
  if (hi < low || lo > high) return { state: 'fail', interval };
  return { state: 'undecided', interval };
}

/**
 * The metric's interval at z: Wilson for a probability, normal for a mean (undefined below
 * two observations), and for `diff_` the paired difference's interval (pairedDifference, drawn at z) or Welch's.
 */
function intervalOf(e: Expectation, c: CaseResult, z: number): Estimate {
  const none = { value: NaN, ci_low: NaN, ci_high: NaN };
  if (e.diff) {
    const d = c.differences[e.base];
    if (!d) return none;
    // a paired difference's interval drawn again at z (not rescaled: its centre is not the value)
    return d.pairedMoments ? pairedDifference(d.pairedMoments, z, d.spread) : rescaleInterval(d, z);
  }
  const m = c.metrics[e.base];
  if (!m) return none;
  if (m.kind === 'probability') return wilson(m.k ?? 0, m.n, z);
  if (m.n < 2) return { ...none, value: m.value };
  return meanInterval({ n: m.n, sum: m.sum ?? 0, sumSq: m.sumSq ?? 0 }, z, m.range);
}

/** A mean over the trials of an event (a metric, not a `diff_`): its event and observations, said beside its trials. */
function overOf(v: ValidScenario, e: Expectation, c: CaseResult): { over?: { event: string; n: number } } {
  const event = e.diff ? undefined : v.system.conditionalOn?.[e.base];
  const m = c.metrics[e.base];
  return event !== undefined && m !== undefined ? { over: { event, n: m.n } } : {};
}

/** A mean's observations when they are too few for an interval (a metric, not a `diff_`). */
function observationsOf(e: Expectation, c: CaseResult): { observations: number } | undefined {
  const m = e.diff ? undefined : c.metrics[e.base];
  return m && m.kind !== 'probability' && m.n < 2 ? { observations: m.n } : undefined;
}

/** `wall.hp=40, wall.dc=12, variant seed-reading`: the sweep point and the variant when there are several. */
function whereText(v: ValidScenario, point: number, variant: number): string {
  return whereLabel(v.params, v.points[point].params, v.variantNames.length > 1 ? v.variantNames[variant] : undefined);
}

/** `wall.hp=40, wall.dc=12, variant seed-reading`: swept values in order, then the variant if given. */
export function whereLabel(order: readonly string[], params: Record<string, unknown>, variant?: string): string {
  const parts = order.map((p) => `${p}=${String(params[p])}`);
  if (variant !== undefined) parts.push(`variant ${variant}`);
  return parts.join(', ');
}

/**
 * A number as assertions print it: five significant digits, tiny ones in exponent form, and
 * near 1 enough decimals to tell it from 1.
 * @example fmtTest(0.96967) // '0.96967'; fmtTest(2.7e-5) // '2.70e-5'; fmtTest(0.99999812) // '0.99999812'
 */
export function fmtTest(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'n/a' : x > 0 ? '∞' : '-∞';
  const a = Math.abs(x);
  if (x !== 0 && a < 1e-3) return x.toExponential(2);
  if (a < 1 && 1 - a < 1e-3) return String(Number(x.toFixed(Math.min(15, Math.ceil(-Math.log10(1 - a)) + 2))));
  return String(Number(x.toPrecision(5)));
}

function boundText(b: Bound, exact?: { value: number; z: number }): string {
  switch (b.kind) {
    case 'between':
      return `between [${b.low}, ${b.high}]`;
    case 'at_least':
      return `at least ${b.low}`;
    case 'at_most':
      return `at most ${b.high}`;
    case 'exact':
      // a mean no trial gave a value has no z: never print one (a 0.00 would read as agreement)
      return exact ? `exact ${fmtTest(exact.value)} (${Number.isNaN(exact.z) ? 'no z' : `z = ${exact.z.toFixed(2)}`})` : 'exact';
  }
}
