/**
 * The history verb: results kept per commit, and what moved between commits. Touches no files:
 * the CLI reads and writes the store and asks git; this module turns documents into records,
 * records into the store's text and back, and the store into series with their moves.
 *
 * The store is a folder a workflow commits to a branch (as github-action-benchmark keeps its
 * data on `gh-pages`): `siegesim-history.json` says what it is (tool and format), and
 * `commits.jsonl` holds one line per commit, oldest first:
 *
 *   {"sha":"…","date":"…","subject":"…","branch":"main","recorded":"…","sources":{"test":["t.json"]},
 *    "metrics":{"test:balance-climbers · p_breach":{"v":0.9704,"lo":0.9657,"hi":0.9745,"n":16384,"k":"p","b":[0.955,0.985]}, …}}
 *
 * One line per commit, because a commit is the unit a rerun replaces (a rerun of `add` for a
 * commit replaces the metrics of the sources it brings, and keeps the others, so `test` and
 * `bench` can be recorded in two steps), and because a branch of JSON lines diffs, merges and
 * reads in any git host: every push adds or replaces one line. SQLite was the other choice; it
 * would need a native module (Node 20 has no `node:sqlite`) in every CI job, and a binary file
 * on a branch neither diffs nor merges. A 1 000-commit × 100-metric store is ~12 MB of text and
 * parses in ~0.1 s, so a database buys nothing at this size.
 *
 * Each metric at each commit keeps its estimate and its 99.9% interval (`lo`, `hi`), the
 * observations behind it (`n`: the trials of a probability) and its kind (`p` probability, `m`
 * mean or difference, `r` a bench rate), and an assertion's bound (`b`, null for an open side;
 * `x` the exact answer of `exact: true`). Whether a metric moved between two commits is `diff`'s
 * test (api/diff.ts compareMetric: pooled two-proportion z for a probability, z on the two SEs for
 * a mean), Holm-corrected over every metric compared at that commit, at `diff`'s alpha (0.001).
 * A bench rate has no interval (bench/run.mjs keeps the best of three paired runs, relative to
 * the calibration loop): it moved when the ratio to the previous commit is beyond the tolerance
 * `siegesim bench --baseline` fails at (0.15), as github-action-benchmark alerts on a ratio.
 */
import { compareMetric, DIFF_ALPHA, summaryShapeProblem, type SummaryDoc, type SummaryMetric } from './diff.js';
import { whereLabel } from './test.js';
import { holmAdjust, pTwoSided, wilson, Z95, zForConfidence } from '../stats/intervals.js';

/** The store's format; a store of another format is refused (never rewritten). */
export const HISTORY_FORMAT = 1;
/** The file that marks a folder as a history store. */
export const HISTORY_MARKER = 'siegesim-history.json';
/** The file of records, one line per commit. */
export const HISTORY_LOG = 'commits.jsonl';
/** What the marker file holds. */
export const HISTORY_MARKER_DOC = { tool: 'siegesim history', format: HISTORY_FORMAT, log: HISTORY_LOG };
/** The confidence of the interval kept per commit (test's, api/test.ts TEST_CONFIDENCE). */
export const HISTORY_CONFIDENCE = 0.999;
/** A bench rate moved when its ratio to the previous commit is below 1 − this or above 1/(1 − this) (bench --baseline's default tolerance). */
export const BENCH_TOLERANCE = 0.15;

const Z999 = zForConfidence(HISTORY_CONFIDENCE);

/** A bad store or a document history cannot read (exit 2). */
export class HistoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HistoryError';
  }
}

/** Which commit a record belongs to. */
export interface CommitInfo {
  sha: string;
  /** ISO 8601, the committer date. */
  date: string;
  subject: string;
  branch: string;
}

/** One metric at one commit. */
export interface HistoryPoint {
  /** The estimate (null: none, e.g. a mean no trial gave a value). */
  v: number | null;
  /** Its 99.9% interval, when it has one. */
  lo?: number;
  hi?: number;
  /** Observations: the trials of a probability, the trials of a mean's case. */
  n?: number;
  /** `p` probability, `m` mean (or a variant's difference), `r` bench rate (relative to the calibration loop). */
  k: 'p' | 'm' | 'r';
  /** An assertion's bound [low, high], null on an open side. */
  b?: [number | null, number | null];
  /** An `exact: true` assertion's exact answer. */
  x?: number;
  /** A mean over the trials of an event (or such a mean's difference): the event (`p_surrender`). */
  c?: string;
}

/** One line of the store: a commit and what was recorded of it. */
export interface HistoryRecord extends CommitInfo {
  /** When it was recorded (ISO 8601). */
  recorded: string;
  /** The files recorded, by source (`test`, `bench`, `run`). */
  sources: Record<string, string[]>;
  /** `<source>:<name>` → the metric at this commit. */
  metrics: Record<string, HistoryPoint>;
}

/** What one result file brings: its source and its metrics (keys without the source prefix). */
export interface HistoryInput {
  source: 'test' | 'bench' | 'run';
  metrics: Record<string, HistoryPoint>;
}

// === reading result documents ===================================================================

/** Eight significant digits: the store stays small, and no estimate has more that mean anything. */
function r8(x: number): number {
  return Number(x.toPrecision(8));
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** `balance-climbers · p_breach [wall.dc=12]` */
function seriesName(scenario: string, metric: string, where: string): string {
  return `${scenario} · ${metric}${where ? ` [${where}]` : ''}`;
}

/**
 * What a result file holds, read from its parsed JSON: `siegesim test --json` (every assertion's
 * metric with its interval and bound), `siegesim bench`'s JSON (every rate relative to the
 * calibration loop) or a run's `summary.json` (every metric of every case, its 95% interval
 * widened to 99.9%). `file` names it in a message.
 */
export function readResult(doc: unknown, file: string): HistoryInput {
  if (isObject(doc) && Array.isArray(doc.assertions) && typeof doc.passed === 'boolean') return readTest(doc, file);
  if (isObject(doc) && isObject(doc.calibration) && isObject(doc.results)) return readBench(doc, file);
  if (isObject(doc) && Array.isArray(doc.cases) && typeof doc.system === 'string' && typeof doc.name === 'string') {
    // (params and variants may be absent: readSummary reads none then)
    const why = summaryShapeProblem({ params: [], variants: [], ...doc });
    if (why !== undefined) throw new HistoryError(`${file}: a damaged summary.json (${why})`);
    return readSummary(doc as unknown as SummaryDoc);
  }
  throw new HistoryError(`${file}: not a result history records (the JSON of \`siegesim test --json\` or \`siegesim bench\`, or a run's summary.json)`);
}

function readTest(doc: Record<string, unknown>, file: string): HistoryInput {
  const metrics: Record<string, HistoryPoint> = {};
  for (const a of doc.assertions as Record<string, unknown>[]) {
    if (!isObject(a) || typeof a.scenario !== 'string' || typeof a.metric !== 'string') throw new HistoryError(`${file}: an assertion without scenario or metric`);
    const key = seriesName(a.scenario, a.metric, typeof a.where === 'string' ? a.where : '');
    const p = (metrics[key] ??= pointOfAssertion(a));
    if (typeof a.conditional_on === 'string') p.c = a.conditional_on;
    // several assertions on one metric at one case (a bound and exact: true): one series, every bound kept
    const bound = a.bound as { kind?: string; low?: number; high?: number } | undefined;
    if (bound?.kind === 'exact' && isObject(a.exact) && typeof a.exact.value === 'number') p.x = r8(a.exact.value);
    else if (bound && p.b === undefined) {
      if (bound.kind === 'between') p.b = [bound.low ?? null, bound.high ?? null];
      else if (bound.kind === 'at_least') p.b = [bound.low ?? null, null];
      else if (bound.kind === 'at_most') p.b = [null, bound.high ?? null];
    }
  }
  return { source: 'test', metrics };
}

function pointOfAssertion(a: Record<string, unknown>): HistoryPoint {
  const metric = a.metric as string;
  const kind = metric.startsWith('p_') ? 'p' : 'm';
  const value = typeof a.value === 'number' ? a.value : null;
  const p: HistoryPoint = { v: value === null ? null : r8(value), k: kind };
  if (typeof a.trials === 'number') p.n = a.trials;
  if (value !== null && typeof a.ci_low === 'number' && typeof a.ci_high === 'number') {
    // kept at 99.9% whatever --confidence judged it on (the half-widths rescaled)
    const c = typeof a.confidence === 'number' && a.confidence > 0 && a.confidence < 1 ? a.confidence : HISTORY_CONFIDENCE;
    const s = Z999 / zForConfidence(c);
    p.lo = r8(value - (value - a.ci_low) * s);
    p.hi = r8(value + (a.ci_high - value) * s);
  }
  return p;
}

function readBench(doc: Record<string, unknown>, file: string): HistoryInput {
  const relative = doc.relative;
  if (!isObject(relative)) throw new HistoryError(`${file}: a bench document without "relative" (written by a bench older than history: run \`siegesim bench\` again)`);
  const metrics: Record<string, HistoryPoint> = {};
  for (const [name, v] of Object.entries(relative)) if (typeof v === 'number' && Number.isFinite(v)) metrics[name] = { v: r8(v), k: 'r' };
  return { source: 'bench', metrics };
}

function readSummary(doc: SummaryDoc): HistoryInput {
  const metrics: Record<string, HistoryPoint> = {};
  const variants = doc.variants ?? [];
  for (const c of doc.cases) {
    const where = whereLabel(doc.params ?? [], c.params ?? {}, variants.length > 1 ? c.variant : undefined);
    // a mean over the trials of an event: its event, as summary.json gives it beside the metric
    const on = (m: string) => (c.metrics && Object.hasOwn(c.metrics, m) && typeof c.metrics[m].conditional_on === 'string' ? c.metrics[m].conditional_on : undefined);
    for (const [m, s] of Object.entries(c.metrics ?? {})) {
      const p = pointOfSummary(m, s);
      const event = on(m);
      if (event !== undefined) p.c = event;
      metrics[seriesName(doc.name, m, where)] = p;
    }
    for (const [m, d] of Object.entries(c.differences ?? {})) {
      if (d.value === null) continue;
      const p: HistoryPoint = { v: r8(d.value), k: 'm', n: c.trials };
      const event = on(m);
      if (event !== undefined) p.c = event;
      // the run's 95% interval, each side widened about the value (a Welch one is value ± Z999·se
      // then; a paired one keeps the width of its two trials at ±R: never 0 [0, 0] for a variant
      // whose settings differ, however few trials came out differently)
      if (d.ci_low !== null && d.ci_high !== null) {
        const k = Z999 / Z95;
        Object.assign(p, { lo: r8(d.value - (d.value - d.ci_low) * k), hi: r8(d.value + (d.ci_high - d.value) * k) });
      }
      metrics[seriesName(doc.name, `diff_${m}`, where)] = p;
    }
  }
  return { source: 'run', metrics };
}

/** A summary.json metric at 99.9%: a probability's Wilson interval again at that z, a mean's normal interval widened. */
function pointOfSummary(metric: string, s: SummaryMetric): HistoryPoint {
  const kind = (s.kind ?? (metric.startsWith('p_') ? 'probability' : 'mean')) === 'probability' ? 'p' : 'm';
  if (s.value === null) return { v: null, k: kind, n: s.n };
  const p: HistoryPoint = { v: r8(s.value), k: kind, n: s.n };
  if (kind === 'p' && s.n > 0) {
    const w = wilson(Math.round(s.value * s.n), s.n, Z999);
    Object.assign(p, { lo: r8(w.ci_low), hi: r8(w.ci_high) });
  } else if (s.ci_low !== null && s.ci_high !== null) {
    const k = Z999 / Z95;
    Object.assign(p, { lo: r8(s.value - (s.value - s.ci_low) * k), hi: r8(s.value + (s.ci_high - s.value) * k) });
  }
  return p;
}

// === the store ==================================================================================

/** Check the marker file's content: a store of this tool and format, or a HistoryError that says why not. */
export function checkMarker(text: string, where: string): void {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new HistoryError(`${where}: ${HISTORY_MARKER} is damaged (not JSON); a history store is never rewritten over it`);
  }
  if (!isObject(doc) || doc.tool !== HISTORY_MARKER_DOC.tool) throw new HistoryError(`${where}: ${HISTORY_MARKER} is not siegesim's (a foreign store); refused`);
  if (doc.format !== HISTORY_FORMAT) throw new HistoryError(`${where}: a history store of format ${String(doc.format)}; this siegesim reads and writes format ${HISTORY_FORMAT}`);
}

/** The records of `commits.jsonl`, every line checked (a damaged line is refused with its number, never skipped). */
export function parseStore(text: string, where: string): HistoryRecord[] {
  const out: HistoryRecord[] = [];
  const seen = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '') continue;
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      throw new HistoryError(`${where}:${i + 1}: damaged (not a JSON line); fix or remove that line, the store is left as it is`);
    }
    const bad = recordProblem(r);
    if (bad) throw new HistoryError(`${where}:${i + 1}: damaged (${bad}); fix or remove that line, the store is left as it is`);
    const rec = r as HistoryRecord;
    if (seen.has(rec.sha)) throw new HistoryError(`${where}:${i + 1}: commit ${rec.sha} a second time; the store is left as it is`);
    seen.add(rec.sha);
    out.push(rec);
  }
  return out;
}

function recordProblem(r: unknown): string | undefined {
  if (!isObject(r)) return 'not an object';
  if (typeof r.sha !== 'string' || !/^[0-9a-f]{7,64}$/.test(r.sha)) return 'no commit sha';
  for (const k of ['date', 'subject', 'branch', 'recorded']) if (typeof r[k] !== 'string') return `no ${k}`;
  if (!isObject(r.sources)) return 'no sources';
  if (!isObject(r.metrics)) return 'no metrics';
  for (const [k, p] of Object.entries(r.metrics)) {
    if (!isObject(p) || (p.v !== null && typeof p.v !== 'number') || (p.k !== 'p' && p.k !== 'm' && p.k !== 'r')) return `metric "${k}" is not a point`;
  }
  return undefined;
}

/** The store's text: one line per record. */
export function storeText(records: readonly HistoryRecord[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : '');
}

/**
 * Add one commit's results: a commit already in the store keeps its place and the metrics of
 * sources not brought again, and loses (is replaced in) those of the sources brought; a new
 * commit goes in date order: after the commits of the same date already there, but before the
 * first of them it is an ancestor of, when `isAncestorOf(sha)` says (git's ancestry: commits made in
 * the same second, by a script or a rebase, recorded child first in a backfill, would otherwise
 * stand child before parent, and a change be blamed on the parent, read backwards).
 */
export function addRecord(
  records: readonly HistoryRecord[],
  commit: CommitInfo,
  inputs: readonly (HistoryInput & { file: string })[],
  recorded = new Date().toISOString(),
  isAncestorOf: (sha: string) => boolean = () => false,
): { records: HistoryRecord[]; replaced: boolean } {
  const brought = new Set(inputs.map((i) => i.source));
  const old = records.find((r) => r.sha === commit.sha);
  const metrics: Record<string, HistoryPoint> = {};
  const sources: Record<string, string[]> = {};
  if (old) {
    for (const [k, p] of Object.entries(old.metrics)) if (!brought.has(sourceOf(k) as HistoryInput['source'])) metrics[k] = p;
    for (const [s, f] of Object.entries(old.sources)) if (!brought.has(s as HistoryInput['source'])) sources[s] = f;
  }
  for (const i of inputs) {
    (sources[i.source] ??= []).push(i.file);
    for (const [k, p] of Object.entries(i.metrics)) metrics[`${i.source}:${k}`] = p;
  }
  const rec: HistoryRecord = { ...commit, recorded, sources, metrics };
  if (old) return { records: records.map((r) => (r === old ? rec : r)), replaced: true };
  const t = Date.parse(commit.date);
  let at = records.length;
  while (at > 0 && Date.parse(records[at - 1].date) > t) at--;
  // the commits of the same date (together, before `at`): before the first of them it is an ancestor of
  let g = at;
  while (g > 0 && Date.parse(records[g - 1].date) === t) g--;
  for (let i = g; i < at; i++) {
    if (isAncestorOf(records[i].sha)) {
      at = i;
      break;
    }
  }
  return { records: [...records.slice(0, at), rec, ...records.slice(at)], replaced: false };
}

/** `test`, `bench` or `run`: the part of a series key before the first colon. */
export function sourceOf(key: string): string {
  const i = key.indexOf(':');
  return i < 0 ? '' : key.slice(0, i);
}

// === series and moves ===========================================================================

/** One metric across the commits. */
export interface HistorySeries {
  /** `test:balance-climbers · p_breach` */
  key: string;
  source: string;
  /** The key without its source. */
  name: string;
  kind: HistoryPoint['k'];
  /** One entry per commit of the analysis (null where the commit did not record it). */
  points: (HistoryPoint | null)[];
  /** The bound of its latest commit that has one. */
  bound?: [number | null, number | null];
  /** A mean over the trials of an event: the event, as its latest commit that says recorded it. */
  conditionalOn?: string;
  /** The commits (indices) at which it moved from its previous recorded commit. */
  moved: number[];
  /** The first of them, or null. */
  firstMoved: number | null;
}

/** One metric that moved at one commit. */
export interface HistoryMove {
  key: string;
  /** The commit it moved at, and the earlier commit it is compared with (indices). */
  at: number;
  from: number;
  before: number;
  after: number;
  /** For a probability or a mean: z and Holm-adjusted p; for a rate: the ratio after/before. */
  z?: number;
  p_holm?: number;
  ratio?: number;
}

export interface HistoryAnalysis {
  alpha: number;
  tolerance: number;
  commits: CommitInfo[];
  series: HistorySeries[];
  moves: HistoryMove[];
  /**
   * The series compared at least once (against an earlier commit of these records): a metric
   * recorded at one commit only, or without an estimate to test, is in `series` but was never
   * compared, and no move can be found in it.
   */
  compared: number;
}

/** Summary-metric form of a point, for diff's test: its 95% interval from the 99.9% one kept. */
function asSummary(p: HistoryPoint): SummaryMetric | undefined {
  if (p.v === null || p.lo === undefined || p.hi === undefined || !(p.n !== undefined && p.n > 0)) return undefined;
  const k = Z95 / Z999;
  return { value: p.v, ci_low: p.v - (p.v - p.lo) * k, ci_high: p.v + (p.hi - p.v) * k, n: p.n, kind: p.k === 'p' ? 'probability' : 'mean' };
}

/**
 * Every series of the records and where each moved: each metric at each commit against its
 * previous recorded commit, `diff`'s test, Holm-corrected over all the metrics compared at that
 * commit (one family per commit, as one `diff` of the two runs would be); a bench rate by its
 * ratio against `tolerance`.
 */
export function analyzeHistory(records: readonly HistoryRecord[], opts: { alpha?: number; tolerance?: number } = {}): HistoryAnalysis {
  const alpha = opts.alpha ?? DIFF_ALPHA;
  const tolerance = opts.tolerance ?? BENCH_TOLERANCE;
  const keys = new Map<string, number>();
  for (const r of records) for (const k of Object.keys(r.metrics)) if (!keys.has(k)) keys.set(k, keys.size);
  const series: HistorySeries[] = [...keys.keys()].map((key) => ({
    key,
    source: sourceOf(key),
    name: key.slice(sourceOf(key).length + 1),
    kind: 'm',
    points: new Array<HistoryPoint | null>(records.length).fill(null),
    moved: [],
    firstMoved: null,
  }));
  records.forEach((r, i) => {
    for (const [k, p] of Object.entries(r.metrics)) {
      const s = series[keys.get(k)!];
      s.points[i] = p;
      s.kind = p.k;
      if (p.b) s.bound = p.b;
      if (p.c) s.conditionalOn = p.c;
    }
  });
  const moves: HistoryMove[] = [];
  const last = new Int32Array(series.length).fill(-1);
  const compared = new Uint8Array(series.length);
  for (let i = 0; i < records.length; i++) {
    const family: { s: number; from: number; z: number; p: number }[] = [];
    for (let j = 0; j < series.length; j++) {
      const p = series[j].points[i];
      if (!p) continue;
      const from = last[j];
      last[j] = i;
      if (from < 0) continue;
      const q = series[j].points[from]!;
      if (p.v === null || q.v === null) continue;
      if (p.k === 'r') {
        const ratio = q.v > 0 ? p.v / q.v : NaN;
        if (q.v > 0) compared[j] = 1;
        if (ratio < 1 - tolerance || ratio > 1 / (1 - tolerance)) moves.push({ key: series[j].key, at: i, from, before: q.v, after: p.v, ratio });
        continue;
      }
      const a = asSummary(q);
      const b = asSummary(p);
      const row = a && b ? compareMetric(a, b, series[j].name) : undefined;
      if (row) {
        compared[j] = 1;
        family.push({ s: j, from, z: row.z, p: pTwoSided(row.z) });
      }
    }
    const adjusted = holmAdjust(family.map((f) => f.p));
    family.forEach((f, n) => {
      if (adjusted[n] > alpha) return;
      const s = series[f.s];
      moves.push({ key: s.key, at: i, from: f.from, before: s.points[f.from]!.v!, after: s.points[i]!.v!, z: f.z, p_holm: adjusted[n] });
    });
  }
  const index = new Map(series.map((s, j) => [s.key, j]));
  moves.sort((x, y) => x.at - y.at || index.get(x.key)! - index.get(y.key)!);
  for (const m of moves) {
    const s = series[index.get(m.key)!];
    s.moved.push(m.at);
    if (s.firstMoved === null) s.firstMoved = m.at;
  }
  const commits = records.map((r) => ({ sha: r.sha, date: r.date, subject: r.subject, branch: r.branch }));
  return { alpha, tolerance, commits, series, moves, compared: compared.reduce((n, c) => n + c, 0) };
}
