/**
 * The workbench's "what matters" panel: `sensitivity` (which settings of the
 * tuned case move a metric: a tornado of paired effects) and `tune` (whole-number values of one to
 * three settings meeting several targets), streamed like the sweeps: `start` once the request is
 * known to be valid, `progress` (throttled), then `done` or `error`. Everything the api refuses
 * before a trial runs (an unknown setting or metric, a bad range, a budget too small) is a 422
 * with the api's message (a search's refusal worded in the page's controls: `TUNE_NAMES`), never a stream. Each tab has one ranking and one search at a time: a
 * newer one cancels the older, a closed connection cancels its own.
 */
import { commandCase, describeControls, OTHER_GAME, sensitivityScenario, sweptValues, tunedScenario, tuneScenario, TuneInputError, TuningInputError, type TuneResult, type TuneTarget, type ValidScenario, type SensitivityResult, CancelledError } from '../api.js';
import { regionChart } from '../report/region-chart.js';
import { tornadoChart } from '../report/tornado-chart.js';
import { PRIORITY } from './gate.js';
import { shellWord } from '../text/shell.js';
import { admit, invalidValues, scenarioOf, Stream, throttle, tunedFileName, type JobContext, type JobKind, type JobRequest, type JobResponse } from './jobs.js';
import { FIELDS, LIMITS, onlyKnown, optInt, optSeed, optString, optValues, RequestError, reqString } from './requests.js';
import { showCount } from '../report/format.js';
import { tuneProblemText, type TuneNames } from '../report/tune-text.js';
import type { Progress, Reproduce, SensitivityDone, SensitivityStart, TuneDone, TuneStart } from '../api/protocol.js';

/** A message's body as the api hands it over: the stream adds its `type` and `ms`. */
type Body<M> = M extends unknown ? Omit<M, 'type' | 'ms'> : never;

/** Settings ranked in the page, and drawn in its tornado (the CLI's report has them all). */
const RANKED_SENT = 40;
const TORNADO_SHOWN = 12;

/** The search's inputs as the page names them (its "from"/"to" and "at most" budget), never the CLI's flags. */
const TUNE_NAMES: TuneNames = {
  params: 'the settings to search',
  target: 'target (a metric in [low, high])',
  range: (p, lo, hi) => `${p} from ${lo} to ${hi}`,
  askRange: (p) => `a "from" and a "to" for ${p}`,
  order: 'whole numbers with "from" below "to"',
  bounds: (p, min, max) => `the values ${p} allows (${min}..${max})`,
  ranges: 'a range',
  budget: (b) => `a budget of at most ${showCount(b)} trials`,
  targetOrder: (t) => `target ${t.metric} in [${t.lo}, ${t.hi}]: its low must be below its high`,
};

const DOTTED = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

const bad = (path: string, message: string) => new RequestError(400, `${path}: ${message}`, [{ path, message }]);
/** A 400 on what the page lets a person type (a range's ends, a target's), said in the page's words only (TUNE_NAMES); `path` names the field for other clients. */
const typed = (path: string, message: string) => new RequestError(400, message, [{ path, message }]);

/** A list of distinct dotted paths (1 to `max`), or undefined when absent. */
function optPaths(body: Record<string, unknown>, key: string, max: number): string[] | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length < 1 || v.length > max || v.some((p) => typeof p !== 'string' || p.length > 200 || !DOTTED.test(p))) {
    throw bad(key, `a list of 1 to ${max} dotted paths of settings`);
  }
  if (new Set(v).size !== v.length) throw bad(key, 'a setting is listed twice');
  return v as string[];
}

/** `{ "wall.hp": [10, 60], ... }`: a search range per parameter (whole numbers; the api checks the bounds). */
function optRanges(body: Record<string, unknown>, params: string[]): Record<string, [number, number]> | undefined {
  const v = body.ranges;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw bad('ranges', 'an object of setting -> [from, to]');
  const out: Record<string, [number, number]> = {};
  for (const [k, r] of Object.entries(v as Record<string, unknown>)) {
    if (!params.includes(k)) throw bad('ranges', `"${k.slice(0, 200)}" is not one of the settings searched`);
    if (!Array.isArray(r) || r.length !== 2 || r.some((x) => typeof x !== 'number' || !Number.isFinite(x))) throw bad(`ranges.${k}`, 'must be [from, to], two numbers');
    // whole numbers, from below to: as the api says it to the page ("wall.dc from 20 to 10 must be whole numbers with "from" below "to"")
    if (!(Number.isSafeInteger(r[0]) && Number.isSafeInteger(r[1]) && r[0] < r[1])) throw typed(`ranges.${k}`, `${TUNE_NAMES.range(k, r[0], r[1])} must be ${TUNE_NAMES.order}`);
    out[k] = [r[0], r[1]];
  }
  return out;
}

/** `[{ metric, lo, hi }, ...]`: one to four targets, each lo < hi (the api checks the metric). */
function targetsOf(raw: unknown): TuneTarget[] {
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > LIMITS.maxTargets) throw bad('targets', `one to ${LIMITS.maxTargets} of { metric, lo, hi }`);
  return raw.map((t, i) => {
    const o = (t !== null && typeof t === 'object' && !Array.isArray(t) ? t : {}) as Record<string, unknown>;
    onlyKnown(o, FIELDS.target, `targets.${i}.`);
    if (typeof o.metric !== 'string' || o.metric.length === 0 || o.metric.length > 100 || typeof o.lo !== 'number' || typeof o.hi !== 'number' || !Number.isFinite(o.lo) || !Number.isFinite(o.hi)) {
      throw bad(`targets.${i}`, 'must be { metric, lo, hi } with a metric name and two numbers');
    }
    if (!(o.lo < o.hi)) throw typed(`targets.${i}`, TUNE_NAMES.targetOrder({ metric: o.metric, lo: o.lo, hi: o.hi }));
    return { metric: o.metric, lo: o.lo, hi: o.hi };
  });
}

/** The tuned case as a scenario of its own (both verbs start from its baseline), or a 422. */
function tunedCase(v: ValidScenario, body: Record<string, unknown>): ValidScenario {
  const tv = tunedScenario(v, { variant: optString(body, 'variant'), values: optValues(body) });
  if (!tv.ok) throw invalidValues(tv.issues);
  return tv.value;
}

/**
 * Run one of the verbs as a stream. `go` calls the api with `onPlan` (the request is valid: the
 * stream starts), `onProgress`, the tab's signal and the shared pool; what it returns is sent as
 * `done`. Before the plan, a refusal is an HTTP 4xx (a TuningInputError is a 422 with its message);
 * after it, a failure is an `error` event and a cancellation ends the stream quietly.
 */
async function streamVerb<R>(
  ctx: JobContext,
  kind: JobKind,
  client: string,
  req: JobRequest,
  res: JobResponse,
  t0: number,
  go: (h: {
    signal: AbortSignal;
    executor: ReturnType<JobContext['gate']['for']>;
    started: (start: Body<SensitivityStart | TuneStart>) => void;
    progress: (done: number, planned: number, extra?: { evaluated: number }) => void;
  }) => Promise<R>,
  done: (r: R) => Body<SensitivityDone | TuneDone>,
): Promise<void> {
  const ac = admit(ctx, client, kind, req, res);
  const out = new Stream(res);
  const ms = () => Math.round(performance.now() - t0);
  let started = false;
  let latest: Body<Progress> = { done: 0, planned: 0 };
  const tick = throttle(250, () => out.send({ type: 'progress', ...latest, ms: ms() }));
  try {
    const r = await go({
      signal: ac.signal,
      executor: ctx.gate.for(ac.signal, PRIORITY.sweep),
      started: (start) => {
        started = true;
        out.start();
        out.send({ type: 'start', ...start, ms: ms() });
      },
      progress: (d, planned, extra) => {
        latest = { done: d, planned, ...extra };
        if (started) tick.tick();
      },
    });
    // the last progress the throttle held back, so that the stream ends at the final count
    if (tick.pending) out.send({ type: 'progress', ...latest, ms: ms() });
    out.send({ type: 'done', ...done(r), ms: ms() });
  } catch (e) {
    if (!started) {
      if (e instanceof TuningInputError) throw new RequestError(422, e.message, [{ path: '', message: e.message }]);
      if (e instanceof CancelledError) return void res.end(); // the tab went away before it started
      throw e; // a RequestError of the plan's cap, or an internal error (500, logged)
    }
    if (!(e instanceof CancelledError)) {
      ctx.log(`siegesim serve: ${kind} failed: ${(e as Error).stack ?? String(e)}`);
      out.send({ type: 'error', message: `the ${kind === 'tune' ? 'search' : 'ranking'} failed (the server log has the details)` });
    }
  } finally {
    if (started) out.end();
    ac.abort();
  }
}

/** POST /api/sensitivity: rank the tuned case's settings by their effect on a metric (a tornado). */
export async function streamSensitivity(ctx: JobContext, client: string, body: Record<string, unknown>, req: JobRequest, res: JobResponse, t0: number): Promise<void> {
  const { scenario: v, display } = await scenarioOf(ctx, reqString(body, 'scenario'));
  const tv = tunedCase(v, body);
  const where = commandCase(v, { variant: optString(body, 'variant'), values: optValues(body) });
  const metric = optString(body, 'metric', 100);
  const params = optPaths(body, 'params', LIMITS.maxRankedSettings);
  // "written in the file": the settings the file (or the chosen variant) writes, chosen from as the
  // api's default chooses from all of them (a setting that changes the kind of game left out), not named
  const scope = optString(body, 'scope', 10);
  if (scope !== undefined && scope !== 'file' && scope !== 'all') throw bad('scope', 'must be "file" (the settings written in the file) or "all"');
  if (scope !== undefined && params) throw bad('scope', 'give params or scope, not both');
  let among: string[] | undefined;
  if (scope === 'file') {
    const d = describeControls(v, optString(body, 'variant'));
    if ('issues' in d) throw invalidValues(d.issues);
    among = d.controls.filter((c) => c.inFile).map((c) => c.path);
  }
  const seed = optSeed(body);
  const trials = optInt(body, 'trials', 1, LIMITS.maxSweepTrials) ?? v.system.chunkTrials;
  await streamVerb(
    ctx,
    'sensitivity',
    client,
    req,
    res,
    t0,
    (h) =>
      sensitivityScenario(tv, {
        metric,
        params,
        among,
        trials,
        seed,
        executor: h.executor,
        signal: h.signal,
        onPlan: (plan) => {
          if (plan.planned > LIMITS.maxSweepTotal) {
            throw bad('trials', `${plan.cases} turned cases (and their baselines) x ${showCount(trials)} trials is more than ${showCount(LIMITS.maxSweepTotal)} in all: fewer trials or fewer settings`);
          }
          h.started(plan);
        },
        onProgress: (d, planned) => h.progress(d, planned),
      }),
    (r) => ({
      metric: r.metric,
      metricKind: r.metricKind,
      baseline: { value: r.baseline.value, ci_low: r.baseline.ci_low, ci_high: r.baseline.ci_high },
      trials: r.trials,
      settings: r.ranking.length,
      ranking: r.ranking.slice(0, RANKED_SENT),
      rows: r.rows
        .filter((x) => x.rank <= RANKED_SENT)
        // over_different_trials: a conditional mean's event moved with the step (the page says so beside the effect)
        .map((x) => ({
          param: x.param,
          kind: x.kind,
          direction: x.direction,
          from: x.from,
          to: x.to,
          effect: x.effect,
          ci_low: x.ci_low,
          ci_high: x.ci_high,
          paired: x.paired,
          rank: x.rank,
          ...(x.over_different_trials ? { over_different_trials: x.over_different_trials } : {}),
        })),
      skipped: r.skipped,
      chart: tornadoChart(r, TORNADO_SHOWN) ?? null, // null: nothing moved, no tornado
      reproduce: sensitivityLine(display, where, r, { params, among }),
      seconds: r.provenance.seconds,
    }),
  );
}

/** The case the page's ranking or search ran on, as the command line names it (`commandCase`), or why none does. */
type CaseOfLine = ReturnType<typeof commandCase>;

/** Why no command line gives the case (commandCase's refusal, or its values' issues). */
function refusal(at: Exclude<CaseOfLine, { ok: true }>): Reproduce {
  return { command: null, reason: 'reason' in at ? at.reason : at.issues.map((i) => i.message).join('; ') };
}

/**
 * `npx siegesim <verb> <file> [--where ...] <flags>` for the case `c`: the file as the page names
 * it, or the page's saved copy when its sweep must gain the case's point (`tuned`), and `--where`
 * for the case; `flags` are the verb's own, each word already a shell word.
 */
function verbLine(verb: 'sensitivity' | 'tune', display: string, c: Extract<CaseOfLine, { ok: true }>['value'], flags: string[]): Reproduce {
  const file = c.tuned ? tunedFileName(display) : display;
  const where = Object.entries(c.where)
    .map(([p, x]) => `${p}=${String(x)}`)
    .join(',');
  const words = [`npx siegesim ${verb}`, shellWord(file), ...(where ? ['--where', shellWord(where)] : []), ...flags];
  return { command: words.join(' '), file, where: c.where, tuned: c.tuned, gains: c.gains, ...(c.first ? { first: c.first } : {}) };
}

/**
 * The `siegesim sensitivity` line that gives a ranking of the page, number for number: the file
 * (or the page's saved copy, when its sweep must gain the case's point), `--where` for the case,
 * and the metric, trials and seed it ran with. "Written in the file" is `--params` with the
 * settings it chose from; a setting it left out because it changes the kind of game stays out
 * (named in `--params`, the command would turn it).
 */
export function sensitivityLine(display: string, at: CaseOfLine, r: SensitivityResult, asked: { params?: string[]; among?: string[] }): Reproduce {
  if (!at.ok) return refusal(at);
  let params = asked.params;
  if (!params && asked.among) {
    const games = new Set(r.skipped.filter((x) => x.reason === OTHER_GAME).map((x) => x.param));
    const part = r.rows.find((x) => games.has(x.param));
    if (part) return { command: null, reason: `${part.param} is ranked by those of its options that keep the kind of game, which --params cannot say` };
    const turned = new Set([...r.rows.map((x) => x.param), ...r.skipped.map((x) => x.param)]);
    params = asked.among.filter((p) => turned.has(p) && !games.has(p));
  }
  return verbLine('sensitivity', display, at.value, [
    '--metric',
    shellWord(r.metric),
    '--trials',
    String(r.trials),
    '--seed',
    shellWord(String(r.seed)),
    ...(params ? ['--params', shellWord(params.join(','))] : []),
  ]);
}

/**
 * The `siegesim tune` line that gives a search of the page, candidate for candidate: the file (or
 * the saved copy) and `--where` as for the ranking, the settings searched, each target, and the
 * trials, budget and seed it ran with. Every setting's range is written as searched, also one the
 * page left to its default: that default spans the file's sweep of a swept setting, where the
 * command on the saved copy would span the copy's sweep, which may have gained a point beyond it
 * (the case's), so only the range itself gives the same candidates wherever the line runs.
 */
export function tuneLine(display: string, at: CaseOfLine, r: Pick<TuneResult, 'params' | 'targets' | 'trials' | 'budget' | 'seed'>): Reproduce {
  if (!at.ok) return refusal(at);
  return verbLine('tune', display, at.value, [
    '--params',
    shellWord(r.params.map((p) => p.path).join(',')),
    // String(x) is the shortest text that reads back as the same number (parseTarget's Number())
    ...r.targets.flatMap((t) => ['--target', shellWord(`${t.metric} in [${String(t.lo)}, ${String(t.hi)}]`)]),
    ...r.params.flatMap((p) => ['--range', shellWord(`${p.path}=${p.lo}..${p.hi}`)]),
    '--trials',
    String(r.trials),
    '--budget',
    String(r.budget),
    '--seed',
    shellWord(String(r.seed)),
  ]);
}

/** POST /api/tune: whole-number values of one to three settings of the tuned case meeting every target. */
export async function streamTune(ctx: JobContext, client: string, body: Record<string, unknown>, req: JobRequest, res: JobResponse, t0: number): Promise<void> {
  const { scenario: v, display } = await scenarioOf(ctx, reqString(body, 'scenario'));
  const tv = tunedCase(v, body);
  const where = commandCase(v, { variant: optString(body, 'variant'), values: optValues(body) });
  const params = optPaths(body, 'params', 3);
  if (!params) throw bad('params', 'one to three settings to search');
  const ranges = optRanges(body, params);
  const targets = targetsOf(body.targets);
  const seed = optSeed(body);
  const trials = optInt(body, 'trials', 1, LIMITS.maxSweepTrials) ?? v.system.chunkTrials;
  const budget = optInt(body, 'budget', 1, LIMITS.maxSweepTotal) ?? Math.min(LIMITS.maxSweepTotal, 200 * trials);
  let evaluated = 0;
  await streamVerb(
    ctx,
    'tune',
    client,
    req,
    res,
    t0,
    (h) =>
      tuneScenario(tv, {
        params,
        ranges,
        targets,
        trials,
        budget,
        // a range left empty: the file's sweep of the setting (the page's words, and tune's on the
        // file), not the tuned case's, which is a scenario of its own without it
        swept: Object.fromEntries(params.map((p) => [p, sweptValues(v, p)])),
        seed,
        executor: h.executor,
        signal: h.signal,
        onPlan: (plan) => h.started({ params: plan.params, targets, trials: plan.trials, budget: plan.budget }),
        onEvaluate: () => evaluated++,
        onProgress: (used, planned) => h.progress(used, planned, { evaluated }),
      }).catch((e: unknown) => {
        // a refusal in the page's words (a TuningInputError: a 422 before the plan)
        throw e instanceof TuneInputError ? new TuningInputError(tuneProblemText(e.problem, TUNE_NAMES)) : e;
      }),
    (r) => ({
      found: r.found,
      exhausted: r.exhausted,
      best: r.best,
      edges: r.edges,
      params: r.params,
      targets: r.targets,
      evaluated: r.evaluations.length,
      trialsUsed: r.trialsUsed,
      budget: r.budget,
      chart: regionChart(r),
      reproduce: tuneLine(display, where, r),
      seconds: r.provenance.seconds,
    }),
  );
}
