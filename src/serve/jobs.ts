/**
 * The workbench's streamed jobs. A live run is the tuned case against the scenario as loaded on
 * the same dice, refined chunk by chunk to a precision (or run to a fixed trial count); a sweep
 * runs the tuned case over one or two parameters, and with a target also asks solve. Results go
 * out as NDJSON lines as they are merged: `start`, `partial` (throttled), `done` or `error`.
 * Each client (a browser tab) has at most one job of each kind (a live run, a sweep, a ranking, a
 * tuning search): a newer one cancels the older at once, and a closed connection cancels its own.
 */
import { shellWord } from '../text/shell.js';
import {
  answerMetrics,
  describeControls,
  liveScenario,
  MAX_SWEEP_POINTS,
  runScenario,
  solveAfterSweep,
  sweepScenario,
  type CaseResult,
  type ScenarioResult,
  type ValidScenario,
  type SweepAxis,
  type ValueIssue,
  CancelledError,
  suggest,
  MSG,
} from '../api.js';
import { solveJsonIn, solveProblemText, solveTrialsOf, type SolveNames } from '../report/solve-text.js';
import { precisionMetrics, widestOf } from '../api/run.js';
import { producedMetrics, tidy } from '../api/tunables.js';
import type { RulesSystem } from '../api.js';
import type { Entry, Loaded } from './catalogue.js';
import { Gate, PRIORITY } from './gate.js';
import { ADMISSION, type Admission } from './admission.js';
import { FIELDS, LIMITS, onlyKnown, optInt, optNumber, optNumbers, optSeed, optString, optValues, RequestError, reqString } from './requests.js';
import { sweepChart } from './sweep-chart.js';
import { VERSION } from '../version.js';
import { showCount } from '../report/format.js';
import type { LiveCase, StreamMessage, WireCase } from '../api/protocol.js';

/** Where a job's scenarios come from: the served files (catalogue.ts), or the static site's (src/site/workbench-worker.ts). */
export interface ScenarioSource {
  find(name: unknown): Entry | undefined;
  loadAsync(entry: Entry): Promise<Loaded>;
}

/**
 * What a job needs of its request and its response: an HTTP request and response on the server
 * (node:http's satisfy these), a message channel to the page in the static site's worker.
 */
export interface JobRequest {
  on(event: 'aborted', listener: () => void): unknown;
}
export interface JobResponse {
  on(event: 'close', listener: () => void): unknown;
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: string): unknown;
  end(): unknown;
}

/** A tab's jobs: one of each kind at a time. */
export type JobKind = 'live' | 'sweep' | 'sensitivity' | 'tune';

export interface JobContext<C extends ScenarioSource = ScenarioSource> {
  catalogue: C;
  gate: Gate;
  /** Open jobs by client id and kind. */
  clients: Map<string, Partial<Record<JobKind, AbortController>>>;
  /** Every open job (for the global cap, and to end them all on shutdown). */
  open: Set<AbortController>;
  log: (line: string) => void;
  /** Job requests admitted and being prepared, one at a time (admission.ts). */
  admission: Admission;
  /** A request's "prepared" signal: `admit` calls it when its job starts, so the next may be prepared. */
  started: WeakMap<JobResponse, () => void>;
}

/** The scenario a request names, validated; a 404 for a name not served, a 422 for a broken file. */
export async function scenarioOf(ctx: JobContext, name: string): Promise<{ scenario: ValidScenario; text: string; display: string; name: string }> {
  const entry = ctx.catalogue.find(name);
  if (!entry) throw new RequestError(404, `unknown scenario "${name.slice(0, 200)}" (not one of the served files)`);
  const loaded = await ctx.catalogue.loadAsync(entry);
  if (!loaded.ok) {
    throw new RequestError(
      422,
      `${entry.name} is not a valid scenario`,
      loaded.issues.map((i) => ({ path: i.path, message: `${i.line > 0 ? `${i.file}:${i.line}:${i.col}  ` : ''}${i.message}` })),
    );
  }
  return { scenario: loaded.scenario, text: loaded.text, display: entry.display, name: entry.name };
}

export function invalidValues(issues: ValueIssue[]): RequestError {
  return new RequestError(422, issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '), issues);
}

/** A metric as the page needs it (no raw counts). NaN (nothing to estimate) travels as null. */
function wireMetric(m: { value: number; ci_low: number; ci_high: number; kind?: string; n?: number }) {
  return { value: m.value, ci_low: m.ci_low, ci_high: m.ci_high, ...(m.kind ? { kind: m.kind } : {}), ...(m.n !== undefined ? { n: m.n } : {}) };
}

export function wireCase(c: CaseResult): WireCase {
  return {
    case: c.case,
    variant: c.variant,
    params: c.params,
    trials: c.trials,
    metrics: Object.fromEntries(Object.entries(c.metrics).map(([k, m]) => [k, wireMetric(m)])),
    // over_different_trials: a conditional mean's event moved (as loaded -> tuned): the two values average different trials
    differences: Object.fromEntries(
      Object.entries(c.differences).map(([k, m]) => [
        k,
        { ...wireMetric(m), ...(m.paired !== undefined ? { paired: m.paired } : {}), ...(m.overDifferentTrials ? { over_different_trials: m.overDifferentTrials } : {}) },
      ]),
    ),
  };
}

/** A live run's case on the wire, with the columns its answer shows (the workbench's cards, as the report's Answer). */
function liveCase(sys: RulesSystem, c: CaseResult, headline?: readonly string[]): LiveCase {
  return { ...wireCase(c), answer: answerMetrics(sys.headline, sys.outcomes ?? [], (m) => c.metrics[m] !== undefined, sys.metricOrder, headline) };
}

/** A ScenarioResult around cases merged so far, for the system's charts. */
function resultOf(v: ValidScenario, cases: CaseResult[], trials: number): ScenarioResult {
  return {
    name: v.name,
    system: v.system.id,
    description: v.description,
    file: v.file,
    seed: v.seed,
    trials,
    params: v.params,
    variants: v.variantNames,
    ...(v.headline ? { headline: v.headline } : {}),
    metricOrder: v.system.metricOrder,
    curveDefs: v.system.curveDefs,
    cases,
    provenance: { version: VERSION, threads: 0, seconds: 0, trials_per_second: 0 },
  };
}

function chartsOf(v: ValidScenario, cases: CaseResult[], trials: number) {
  try {
    return v.system.charts(resultOf(v, cases, trials)).map((c) => ({ name: c.name, title: c.title, spec: c.spec }));
  } catch {
    return []; // a chart that cannot be drawn from a partial result waits for the next one
  }
}

/** An NDJSON response; writes stop quietly once the client has gone. */
export class Stream {
  private closed = false;
  constructor(private readonly res: JobResponse) {
    res.on('close', () => (this.closed = true));
  }
  start(): void {
    this.res.writeHead(200, {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
  }
  send(event: StreamMessage): void {
    if (!this.closed) this.res.write(JSON.stringify(event) + '\n');
  }
  end(): void {
    if (!this.closed) this.res.end();
    this.closed = true;
  }
}

/**
 * Register a job for a client: cancels the client's previous job of the same kind, refuses when
 * too many are open, and cancels this one when the connection closes.
 */
export function admit(ctx: JobContext, client: string, kind: JobKind, req: JobRequest, res: JobResponse): AbortController {
  const slot = ctx.clients.get(client) ?? {};
  slot[kind]?.abort(); // the older job of this tab stops now (its release runs on abort)
  if (ctx.open.size >= LIMITS.maxStreams) {
    throw new RequestError(503, `the workbench has ${LIMITS.maxStreams} runs open; close a tab or wait`, [], { 'Retry-After': String(ADMISSION.retryServerSeconds) });
  }
  // prepared: the next request's preparation may begin (admission.ts)
  ctx.started.get(res)?.();
  const ac = new AbortController();
  slot[kind] = ac;
  ctx.clients.set(client, slot);
  ctx.open.add(ac);
  const release = () => {
    ctx.open.delete(ac);
    const s = ctx.clients.get(client);
    if (s && s[kind] === ac) {
      delete s[kind];
      if (Object.values(s).every((x) => x === undefined)) ctx.clients.delete(client);
    }
  };
  ac.signal.addEventListener('abort', release, { once: true });
  const close = () => ac.abort();
  res.on('close', close);
  req.on('aborted', close);
  return ac;
}

/** Calls `f` at most every `ms` (the first call at once); `pending` says a call was skipped. */
export function throttle(ms: number, f: () => void) {
  let last = -Infinity;
  let pending = false;
  return {
    tick(): void {
      const now = performance.now();
      if (now - last >= ms) {
        last = now;
        pending = false;
        f();
      } else pending = true;
    },
    get pending() {
      return pending;
    },
  };
}

/** POST /api/run: the live job. */
export async function streamLive(ctx: JobContext, client: string, body: Record<string, unknown>, req: JobRequest, res: JobResponse, t0: number): Promise<void> {
  const { scenario: v, display } = await scenarioOf(ctx, reqString(body, 'scenario'));
  const values = optValues(body);
  const variant = optString(body, 'variant');
  const seed = optSeed(body);
  const fixed = optInt(body, 'trials', 1, LIMITS.maxTrials);
  // a fixed count or a refinement, not both: one of them would be dropped in silence (the second new-user audit)
  const refining = ['precision', 'maxTrials'].filter((k) => body[k] !== undefined);
  if (fixed !== undefined && refining.length > 0) {
    const message = `give trials (a fixed count) or ${refining.join(' and ')} (to refine), not both`;
    throw new RequestError(400, message, [{ path: refining[0], message }]);
  }
  const precision = fixed === undefined ? (optNumber(body, 'precision', LIMITS.minPrecision, LIMITS.maxPrecision) ?? LIMITS.defaultPrecision) : undefined;
  const maxTrials = optInt(body, 'maxTrials', 1, LIMITS.maxTrials) ?? LIMITS.defaultMaxTrials;
  const live = liveScenario(v, { variant, values });
  if (!live.ok) throw invalidValues(live.issues);
  const lv = live.value;
  const sys = lv.system;
  const aimed = precisionMetrics(sys, lv.headline);
  const ac = admit(ctx, client, 'live', req, res);
  const out = new Stream(res);
  out.start();
  const ms = () => Math.round(performance.now() - t0);
  const changed = Object.keys(live.changed);
  out.send({
    type: 'start',
    variants: lv.variantNames,
    changed: live.changed,
    seed: seed ?? v.seed,
    precision: precision ?? null,
    maxTrials: fixed ?? maxTrials,
    chunkTrials: sys.chunkTrials,
    headline: aimed, // what the precision aims at (the status line's widest interval)
    command: commandOf(display, changed.length > 0, seed),
    // a file with a sweep: the command runs its grid; the case shown is its point `at` (null: not one of the
    // file's points, nothing tuned), and the saved copy's sweep gains `gains` so that it is
    ...(live.sweep
      ? { sweep: { at: changed.length > 0 || Object.keys(live.sweep.added).length === 0 ? live.sweep.at : null, gains: changed.length > 0 ? live.sweep.added : {} } }
      : {}),
    ms: ms(),
  });
  let latest: { trials: number; cases: () => CaseResult[] } | undefined;
  let lastCharts = -Infinity;
  let finished = false;
  const sendPartial = () => {
    if (!latest || finished) return;
    const cases = latest.cases();
    const now = performance.now();
    const withCharts = now - lastCharts >= 500;
    if (withCharts) lastCharts = now;
    out.send({ type: 'partial', trials: latest.trials, cases: cases.map((c) => liveCase(sys, c, lv.headline)), ...(withCharts ? { charts: chartsOf(lv, cases, latest.trials) } : {}), ms: ms() });
  };
  const partials = throttle(100, sendPartial);
  /**
   * The run's answer is known at the chunk boundary where it stops (the precision is met, or the
   * trials or the cap are reached): send it then and cancel the chunks run ahead, so the threads
   * are free for the next change at once. It is the same answer runScenario would return.
   */
  const finish = (trials: number, cases: CaseResult[], reached: boolean | undefined) => {
    finished = true;
    out.send({
      type: 'done',
      trials,
      cases: cases.map((c) => liveCase(sys, c, lv.headline)),
      charts: chartsOf(lv, cases, trials),
      precision: precision === undefined ? null : { target: precision, half_width: Math.max(...cases.map((c) => widestOf(aimed, c.metrics))), reached },
      ms: ms(),
    });
    ac.abort();
  };
  const initial = Math.min(fixed ?? sys.chunkTrials, fixed ?? maxTrials);
  try {
    const result = await runScenario(lv, {
      trials: fixed ?? sys.chunkTrials,
      seed,
      precision,
      maxTrials: fixed === undefined ? maxTrials : undefined,
      executor: ctx.gate.for(ac.signal, PRIORITY.live),
      signal: ac.signal,
      onPartial: (_point, trials, cases) => {
        if (finished) return;
        latest = { trials, cases };
        if (trials >= initial) {
          const list = cases();
          const met = precision !== undefined && list.every((c) => !(widestOf(aimed, c.metrics) > precision));
          if (fixed !== undefined ? trials >= fixed : met || trials >= maxTrials) return finish(trials, list, precision === undefined ? undefined : met);
        }
        partials.tick();
      },
    });
    if (!finished) {
      const c0 = result.cases[0];
      finish(c0?.trials ?? 0, result.cases, c0?.precision?.reached);
    }
  } catch (e) {
    if (!(e instanceof CancelledError)) {
      ctx.log(`siegesim serve: live run of ${display} failed: ${(e as Error).stack ?? String(e)}`);
      out.send({ type: 'error', message: 'the run failed (the server log has the details)' });
    }
  } finally {
    out.end();
    ac.abort();
  }
}

/**
 * The `siegesim run` that reproduces the live view at a given trial count: the tuned file (as
 * saved by the page) or the file itself when nothing is tuned; the page appends `--trials N`.
 */
function commandOf(display: string, tuned: boolean, seed: string | number | undefined): string {
  const file = tuned ? tunedFileName(display) : display;
  const seedFlag = seed === undefined ? '' : ` --seed ${shellWord(String(seed))}`;
  return `npx siegesim run ${shellWord(file)}${seedFlag}`;
}

/** `scenarios/fantasy/stone-wall-siege.yaml` -> `stone-wall-siege.tuned.yaml` (the name the page saves under). */
export function tunedFileName(display: string): string {
  const base = display.split(/[\\/]/).pop() ?? display;
  return base.replace(/(\.ya?ml)?$/i, '.tuned.yaml');
}

/**
 * The page's controls, as solve's messages name them (never the CLI's flags): its problems and
 * `next.text` ('try a higher "to" for the sweep (wall.hp allows up to 100000), e.g. "to" 18',
 * where the CLI's says 'try a higher --to ..., e.g. --to 18').
 */
export const SOLVE_NAMES: SolveNames = {
  from: 'the sweep\'s "from"',
  to: 'the sweep\'s "to"',
  higher: 'a higher "to" for the sweep',
  lower: 'a lower "from" for the sweep',
  set: (end, value) => `"${end}" ${value}`,
};

/** The distinct values a sweep gives one path, ascending (the chart's cells and ticks). */
function sweptValues(v: ValidScenario, path: string): number[] {
  return [...new Set(v.points.map((p) => Number(p.params[path])))].sort((a, b) => a - b);
}

/**
 * The settings a sweep can take: the scenario's number settings, as the page's sweep offers them
 * (undefined for an unknown variant, which the sweep's own check names).
 */
function sweepablePaths(v: ValidScenario, variant: string | undefined): string[] | undefined {
  const d = describeControls(v, variant);
  return 'controls' in d ? d.controls.filter((c) => c.kind === 'int' || c.kind === 'number').map((c) => c.path) : undefined;
}

/**
 * A sweep request checked before anything runs: the axes, metric, target and trials, and the
 * swept scenario they make. Every problem is a RequestError naming its field (the page's link
 * is checked with this too, through POST /api/check, before its sweep is run).
 */
export async function sweepRequest(ctx: JobContext, body: Record<string, unknown>) {
  const { scenario: v } = await scenarioOf(ctx, reqString(body, 'scenario'));
  const values = optValues(body);
  const variant = optString(body, 'variant');
  const rawAxes = body.axes;
  const AXIS = '{ path, values } or { path, from, to, step }';
  if (!Array.isArray(rawAxes) || rawAxes.length < 1 || rawAxes.length > 2) {
    throw new RequestError(400, `axes: one or two of ${AXIS}`, [{ path: 'axes', message: `one or two of ${AXIS}` }]);
  }
  const sweepable = sweepablePaths(v, variant);
  const axes: SweepAxis[] = rawAxes.map((a, i) => {
    if (a === null || typeof a !== 'object') throw new RequestError(400, `axes[${i}] must be ${AXIS}`);
    const o = a as Record<string, unknown>;
    onlyKnown(o, FIELDS.axis, `axes.${i}.`);
    // the path first (a link's misspelt one is checked with its path alone): one of the page's number settings
    const path = reqString(o, 'path', 200);
    if (sweepable && !sweepable.includes(path)) {
      const message = MSG.notSweepable(path, suggest(path, sweepable));
      throw new RequestError(422, `${path.slice(0, 200)}: ${message}`, [{ path, message }]);
    }
    const values = optNumbers(o, 'values', -1e9, 1e9, MAX_SWEEP_POINTS);
    // an explicit list is swept as given, in its order (a file's `wall.hp: [10, 20, 30, 40, 60, 80]`)
    if (values) return { path, values };
    return {
      path,
      from: optNumber(o, 'from', -1e9, 1e9) ?? NaN,
      to: optNumber(o, 'to', -1e9, 1e9) ?? NaN,
      // a step of 0 or below is the range's problem, said for its axis in the page's words (MSG.sweepRange: "wall.hp: a range needs from <= to and step > 0"), not "step: must be a number from 1e-9 ..."
      step: optNumber(o, 'step', -1e9, 1e9) ?? NaN,
    };
  });
  const metric = optString(body, 'metric') ?? v.headline?.[0] ?? v.system.headline[0];
  // the metrics this scenario produces (a siege never has mean_volley_a_damage), with a "did you mean"
  const unknownMetric = (own: readonly string[]) => {
    const guess = suggest(metric, own);
    const message = `unknown metric "${metric.slice(0, 100)}"${guess ? ` (did you mean "${guess}"?)` : ''} (this scenario's: ${own.join(', ')})`;
    return new RequestError(400, `metric: ${message}`, [{ path: 'metric', message }]);
  };
  if (!v.system.metricOrder.includes(metric)) throw unknownMetric(v.system.metricNames(v.points[0]?.variants[0]?.scenario ?? {}));
  const given = optNumber(body, 'target', -1e12, 1e12);
  const trials = optInt(body, 'trials', 1, LIMITS.maxSweepTrials) ?? v.system.chunkTrials;
  const sv = sweepScenario(v, { variant, values, axes });
  if (!sv.ok) throw invalidValues(sv.issues);
  const points = sv.value.points.length;
  if (points * trials > LIMITS.maxSweepTotal) {
    throw new RequestError(400, `trials: ${points} points x ${showCount(trials)} trials is more than ${showCount(LIMITS.maxSweepTotal)} in all`, [
      { path: 'trials', message: 'too many trials for this sweep' },
    ]);
  }
  const first = sv.value.points[0]?.variants[0]?.scenario;
  const produced = first ? producedMetrics(v.system, v.system.compile(first)).metrics : undefined;
  // a metric of the system that this case does not produce (another mode's) would sweep empty cells
  if (produced && !Object.hasOwn(produced, metric)) throw unknownMetric(Object.keys(produced));
  const kind = produced && Object.hasOwn(produced, metric) ? produced[metric].kind : undefined;
  // a probability's target lies in [0, 1], as solve takes it (and a contour at 1.5 would mark nothing)
  if (given !== undefined && kind === 'probability' && !(given >= 0 && given <= 1)) {
    const message = MSG.outsideProbability(String(given), metric);
    throw new RequestError(400, `target: ${message}`, [{ path: 'target', message }]);
  }
  const { target, targetFrom } = given !== undefined ? { target: given, targetFrom: 'given' } : axes.length === 2 ? contourTarget(v, metric, kind) : { target: undefined, targetFrom: undefined };
  return { v, values, variant, axes, metric, target, targetFrom, trials, swept: sv.value, points };
}

/**
 * The level a two-parameter sweep's contour is drawn at when the request gives none: the file's
 * `expect:` on that metric (the middle of its first `between`, else its first at_least or at_most
 * bound), else 0.5 for a probability (where run's answer looks), else none: 0.5 rounds means
 * nothing, so a mean's heatmap is drawn on its own scale without a contour. `targetFrom` says
 * which, for the page: `the middle of the file's expect: between [0.955, 0.985], line 29`,
 * `no target given: even odds`.
 */
export function contourTarget(v: ValidScenario, metric: string, kind: string | undefined): { target?: number; targetFrom?: string } {
  // a band the metric should sit in says the level aimed at best (its middle); a one-sided bound (often a corner's check) else
  const own = v.expect.filter((x) => !x.diff && x.metric === metric && x.bound.kind !== 'exact');
  const e = own.find((x) => x.bound.kind === 'between') ?? own[0];
  if (e) {
    const b = e.bound;
    const [target, said] =
      b.kind === 'between'
        ? [tidy((b.low + b.high) / 2), `the middle of the file's expect: between [${b.low}, ${b.high}]`]
        : b.kind === 'at_least'
          ? [b.low, `the file's expect: at_least ${b.low}`]
          : b.kind === 'at_most'
            ? [b.high, `the file's expect: at_most ${b.high}`]
            : [NaN, ''];
    return { target, targetFrom: `${said}, line ${e.line}` };
  }
  return kind === 'probability' ? { target: 0.5, targetFrom: 'no target given: even odds' } : {};
}

/** POST /api/sweep: the tuned case over one or two parameters, with solve when a target is set. */
export async function streamSweep(ctx: JobContext, client: string, body: Record<string, unknown>, req: JobRequest, res: JobResponse, t0: number): Promise<void> {
  const { v, values, variant, axes, metric, target, targetFrom, trials, swept, points } = await sweepRequest(ctx, body);
  const seed = optSeed(body);
  const ac = admit(ctx, client, 'sweep', req, res);
  const out = new Stream(res);
  out.start();
  const ms = () => Math.round(performance.now() - t0);
  const probability = (m: { kind?: string } | undefined) => m?.kind !== 'mean';
  const cells = new Map<number, CaseResult>();
  const chartOpts = { axes: axes.map((a) => ({ path: a.path, values: sweptValues(swept, a.path) })), metric, probability: true, target };
  const snapshot = () => {
    const list = [...cells.values()].sort((a, b) => a.case - b.case);
    chartOpts.probability = probability(list[0]?.metrics[metric]);
    return list;
  };
  out.send({ type: 'start', points, trials, metric, axes, ...(target !== undefined ? { target, targetFrom } : {}), ms: ms() });
  const partials = throttle(250, () => {
    const list = snapshot();
    out.send({ type: 'partial', done: list.length, points, chart: sweepChart(list.map((c) => ({ params: c.params, metric: c.metrics[metric] })), chartOpts), ms: ms() });
  });
  try {
    const result = await runScenario(swept, {
      trials,
      seed,
      executor: ctx.gate.for(ac.signal, PRIORITY.sweep),
      signal: ac.signal,
      onPartial: (point, n, cases) => {
        if (n < trials) return; // a point counts once all its trials are in
        cells.set(point, cases()[0]);
        partials.tick();
      },
    });
    for (const c of result.cases) cells.set(c.case - 1, c);
    const list = snapshot();
    const after = await solveAfterSweep(
      { v, variant, values, axes, metric, target },
      { trials, seed, executor: ctx.gate.for(ac.signal, PRIORITY.sweep), signal: ac.signal, onSolving: () => out.send({ type: 'solving', ms: ms() }) },
    );
    const solve = after?.kind === 'solved' ? after.result : undefined;
    // one value swept (a list of one, or from = to): nothing to solve between, said in the page's words (solve's would name a from and a to a list does not have)
    const solveError =
      after?.kind === 'one-value' ? `${after.path} has one value in this sweep (${after.value}): sweep two or more to find where ${metric} reaches ${target}` : after?.kind === 'input' ? solveProblemText(after.problem, SOLVE_NAMES) : after?.kind === 'invalid' ? after.messages.join('; ') : undefined;
    out.send({
      type: 'done',
      points,
      trials,
      seed: result.seed,
      cases: list.map(wireCase),
      chart: sweepChart(list.map((c) => ({ params: c.params, metric: c.metrics[metric] })), { ...chartOpts, solve }),
      // the trials behind the answer and its neighbour (the closer look runs them with more than a point's)
      ...(solve
        ? {
            solve: {
              ...solveJsonIn(solve, SOLVE_NAMES),
              evaluations: undefined,
              ...(solve.at ? { at_trials: solveTrialsOf(solve, solve.at) } : {}),
              ...(solve.neighbour ? { neighbour_trials: solveTrialsOf(solve, solve.neighbour.metric) } : {}),
            },
          }
        : {}),
      ...(solveError ? { solveError } : {}),
      // the level the chart marks (a contour or a line) and where it comes from; absent: none
      ...(target !== undefined ? { target, targetFrom } : {}),
      ms: ms(),
    });
  } catch (e) {
    if (!(e instanceof CancelledError)) {
      ctx.log(`siegesim serve: sweep failed: ${(e as Error).stack ?? String(e)}`);
      out.send({ type: 'error', message: 'the sweep failed (the server log has the details)' });
    }
  } finally {
    out.end();
    ac.abort();
  }
}
