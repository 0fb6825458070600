/**
 * The workbench's wire protocol: what the page asks (the request bodies and query strings) and
 * what the server answers, as JSON or as NDJSON streams (one message a line). Types only, with
 * no imports, so the page (src/serve/page/, built for the browser) and the server (src/serve/)
 * share one definition and either side's drift is a type error on the other.
 *
 * Each stream ends with `done` or `error`; a request refused before its stream starts is an HTTP
 * 4xx answered with `ErrorAnswer`.
 */

// ---------- values on the wire ----------

/** A metric's estimate and 95% interval; NaN (nothing to estimate) travels as null. */
export interface WireMetric {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  /** `mean` for a mean; absent or another kind for a probability. */
  kind?: string;
  n?: number;
}

/** A conditional mean's difference whose event moved: the two values average different trials. */
export interface OverDifferentTrials {
  event: string;
  from: number;
  to: number;
}

/** A difference (tuned − as loaded): paired, or Welch's (`paired: false`) for a mean over the trials of an event. */
export interface WireDifference extends WireMetric {
  paired?: boolean;
  over_different_trials?: OverDifferentTrials;
}

/** One case of a run or a sweep. */
export interface WireCase {
  case: number;
  variant: string;
  params: Record<string, unknown>;
  trials: number;
  metrics: Record<string, WireMetric>;
  differences: Record<string, WireDifference>;
}

/** The columns of a live case's answer, as the report's Answer shows them. */
export interface AnswerColumns {
  lead: string[];
  outcome: string[];
  also: string[];
}

export interface LiveCase extends WireCase {
  answer: AnswerColumns;
}

/** A Vega-Lite spec, drawn by vega-embed as it comes. */
export type ChartSpec = object;

export interface NamedChart {
  name: string;
  title: string;
  spec: ChartSpec;
}

/** A problem with one value (`path` is the value's dotted path, or '' when it concerns several). */
export interface Issue {
  path: string;
  message: string;
}

// ---------- JSON answers ----------

/** Any 4xx/5xx answer. */
export interface ErrorAnswer {
  error: string;
  issues?: Issue[];
}

/** GET /api/scenarios: one served file. */
export type ScenarioEntry =
  | { path: string; pending: true }
  | { path: string; name: string; system: string; description: string; variants: string[] }
  | { path: string; error: string };

export interface ScenarioList {
  scenarios: ScenarioEntry[];
}

export type ControlKind = 'int' | 'number' | 'enum' | 'boolean';

/** One tunable value, generated from the scenario's schema. */
export interface WireControl {
  path: string;
  group: string;
  kind: ControlKind;
  min?: number;
  max?: number;
  options?: string[];
  value: unknown;
  auto?: number | string | boolean;
  inFile: boolean;
  description?: string;
  slider?: { lo: number; hi: number; step: number };
}

export interface WireControlGroup {
  path: string;
  label: string;
  inFile: boolean;
}

/** A file's own sweep of one setting: a list of values or an even range. */
export interface FileSweep {
  path: string;
  spec: unknown;
}

/** GET /api/scenario?path=…&variant=…: a scenario with its controls. */
export interface ScenarioInfo {
  path: string;
  file: string;
  name: string;
  tunedName: string;
  system: string;
  title: string;
  description: string;
  seed: string | number;
  trials: number;
  variants: string[];
  variant: string;
  sweep: FileSweep[];
  headline: readonly string[];
  /** The system's outcome partitions (every way a trial ends, one list each). */
  outcomes: readonly (readonly string[])[];
  metrics: readonly string[];
  metricDocs: Record<string, string>;
  sides: string[];
  chunkTrials: number;
  limits: Record<string, number>;
  controls: WireControl[];
  groups: WireControlGroup[];
}

/** Tuned values by dotted path (only those that differ from the file). */
export type Values = Record<string, unknown>;

/** A sweep's axis as the page sends it: a list of values, or an even range. */
export type AxisRequest = { path: string; values: readonly number[] } | { path: string; from: number; to: number; step: number };

/** POST /api/check: are these values (and, with `axes`, this sweep) valid? A 200 either way. */
export interface CheckRequest {
  scenario: string;
  variant?: string;
  values?: Values;
  axes?: { path: string }[] | AxisRequest[];
  metric?: string;
  trials?: number;
  target?: number;
}

export interface CheckAnswer {
  ok: boolean;
  issues: Issue[];
}

/** POST /api/save: the tuned case as a YAML file of its own. */
export interface SaveRequest {
  scenario: string;
  variant?: string;
  values?: Values;
}

export interface StaleExpect {
  index: number;
  metric: string;
  message: string;
  commented: boolean;
}

export interface SaveAnswer {
  yaml: string;
  filename: string;
  name: string;
  changed: boolean;
  gains: Record<string, unknown>;
  stale: StaleExpect[];
}

// ---------- streams ----------

/** Every stream's failure after it started. */
export interface StreamError {
  type: 'error';
  message: string;
}

/** POST /api/run: the live run (to a precision, or a fixed number of trials). */
export interface RunRequest {
  scenario: string;
  variant?: string;
  values?: Values;
  seed?: number | string;
  trials?: number;
  precision?: number;
  maxTrials?: number;
}

export interface RunStart {
  type: 'start';
  variants: string[];
  changed: Record<string, unknown>;
  seed: string | number;
  precision: number | null;
  maxTrials: number;
  chunkTrials: number;
  /** What the precision aims at (the status line's widest interval). */
  headline: readonly string[];
  command: string;
  /** A file with a sweep: the case shown is its point `at` (null: none of them); the saved copy's sweep gains `gains`. */
  sweep?: { at: Record<string, unknown> | null; gains: Record<string, unknown> };
  ms: number;
}

export interface RunPartial {
  type: 'partial';
  trials: number;
  cases: LiveCase[];
  charts?: NamedChart[];
  ms: number;
}

export interface RunDone {
  type: 'done';
  trials: number;
  cases: LiveCase[];
  charts: NamedChart[];
  precision: { target: number; half_width: number; reached: boolean | undefined } | null;
  ms: number;
}

export type RunMessage = RunStart | RunPartial | RunDone | StreamError;

/** POST /api/sweep: the tuned case over one or two settings, solved for `target` when one is given. */
export interface SweepRequest {
  scenario: string;
  variant?: string;
  values?: Values;
  axes: AxisRequest[];
  metric: string;
  trials: number;
  target?: number;
  seed?: number | string;
}

export interface SweepStart {
  type: 'start';
  points: number;
  trials: number;
  metric: string;
  axes: readonly AxisRequest[];
  target?: number;
  targetFrom?: string;
  ms: number;
}

export interface SweepPartial {
  type: 'partial';
  done: number;
  points: number;
  chart: ChartSpec;
  ms: number;
}

export interface SweepSolving {
  type: 'solving';
  ms: number;
}

/** A metric as solve reports it. */
export interface SolveMetric {
  value: number;
  ci_low: number;
  ci_high: number;
  kind?: string;
}

/** Solve's answer over a one-setting sweep (`value: null`: the target is not reached). */
export interface SolveAnswer {
  param: string;
  metric: string;
  target: number;
  from: number;
  to: number;
  step: number;
  kind: 'int' | 'number';
  allowed: { min: number; max: number };
  increasing: boolean;
  reachable: boolean;
  resolved: boolean;
  max_trials: number;
  value?: number | null;
  at?: SolveMetric;
  neighbour?: { value: number; metric: SolveMetric };
  ends: { from: SolveMetric; to: SolveMetric };
  closest?: { end: 'from' | 'to'; value: number; metric: SolveMetric };
  next?: { widen: 'to' | 'from' | 'both' | 'none'; suggest?: number; text: string };
  /** Every evaluation solve made: left out on the wire. */
  evaluations?: undefined;
  /** The trials `at` and the neighbour's metric were run with (the closer look's, more than a point's). */
  at_trials?: number;
  neighbour_trials?: number;
}

export interface SweepDone {
  type: 'done';
  points: number;
  trials: number;
  /** The seed every point's dice come from (the file's, or the link's). */
  seed?: string | number;
  cases: WireCase[];
  chart: ChartSpec;
  solve?: SolveAnswer;
  solveError?: string;
  target?: number;
  targetFrom?: string;
  ms: number;
}

export type SweepMessage = SweepStart | SweepPartial | SweepSolving | SweepDone | StreamError;

/** The progress of a ranking or a search: trials done of those planned. */
export interface Progress {
  type: 'progress';
  done: number;
  planned: number;
  /** A search's candidates evaluated so far. */
  evaluated?: number;
  ms: number;
}

/** POST /api/sensitivity: rank the tuned case's settings by their effect on a metric. */
export interface SensitivityRequest {
  scenario: string;
  variant?: string;
  values?: Values;
  metric?: string;
  params?: string[];
  /** `file`: the settings written in the file; `all`: every setting. */
  scope?: string;
  trials?: number;
  seed?: number | string;
}

export interface SensitivityStart {
  type: 'start';
  metric: string;
  cases: number;
  skipped: number;
  trials: number;
  planned: number;
  ms: number;
}

export interface RankingRow {
  param: string;
  kind: string;
  direction: string;
  from: number | string | boolean;
  to: number | string | boolean;
  effect: number;
  ci_low: number;
  ci_high: number;
  paired: boolean;
  rank: number;
  over_different_trials?: OverDifferentTrials;
}

export interface SensitivityDone {
  type: 'done';
  metric: string;
  metricKind: string;
  baseline: { value: number; ci_low: number; ci_high: number };
  trials: number;
  /** Settings ranked in all (the ranking sent may be shorter). */
  settings: number;
  ranking: { param: string; rank: number }[];
  rows: RankingRow[];
  skipped: { param: string; to?: number | string | boolean; reason: string }[];
  /** The tornado; null when nothing moved. */
  chart: { spec: ChartSpec } | null;
  /** The `siegesim sensitivity` line that gives this ranking, and the case it holds for. */
  reproduce: Reproduce;
  seconds: number;
  ms: number;
}

/**
 * How the command line gives a ranking or a search: `command`, to run where the scenario files
 * are (on the page's saved copy when `tuned`: its sweep gains `gains`, the point whose dice the
 * page rolled), its `--where` (the case: swept settings at their values, the variant's and the
 * tuned settings) and the file's first sweep point, `first`, which the command starts from
 * without `--where`. `command` is null when no command line gives the answer, and `reason` says
 * why.
 */
export type Reproduce =
  | { command: string; file: string; where: Record<string, unknown>; tuned: boolean; gains: Record<string, number>; first?: Record<string, unknown> }
  | { command: null; reason: string };

export type SensitivityMessage = SensitivityStart | Progress | SensitivityDone | StreamError;

export interface TuneTarget {
  metric: string;
  lo: number;
  hi: number;
}

/** POST /api/tune: whole-number values of one to three settings meeting every target. */
export interface TuneRequest {
  scenario: string;
  variant?: string;
  values?: Values;
  params: string[];
  ranges?: Record<string, [number, number]>;
  /** A target's end left empty on the page is sent as null (the server refuses it, saying why). */
  targets: { metric: string; lo: number | null; hi: number | null }[];
  trials?: number;
  budget?: number;
  seed?: number | string;
}

export interface TuneParamRange {
  path: string;
  lo: number;
  hi: number;
}

export interface TuneStart {
  type: 'start';
  params: TuneParamRange[];
  targets: TuneTarget[];
  trials: number;
  budget: number;
  ms: number;
}

export interface TargetCheck {
  metric: string;
  lo: number;
  hi: number;
  value: number;
  ci_low: number;
  ci_high: number;
  met: boolean;
  sure: boolean;
  distance: number;
  gap?: number | null;
}

export interface TuneDone {
  type: 'done';
  found: boolean;
  exhausted: boolean;
  best: { values: Record<string, number>; trials: number; checks?: TargetCheck[]; met: number; distance: number | null };
  edges: { param: string; value: number; end: 'lo' | 'hi'; bound: boolean; range?: [number, number] }[];
  params: TuneParamRange[];
  targets: TuneTarget[];
  evaluated: number;
  trialsUsed: number;
  budget: number;
  chart: { spec: ChartSpec };
  /** The `siegesim tune` line that gives this answer (every candidate's numbers), and the case it holds for. */
  reproduce: Reproduce;
  seconds: number;
  ms: number;
}

export type TuneMessage = TuneStart | Progress | TuneDone | StreamError;

/** The streamed routes: each one's request and the messages it streams. */
export interface StreamRoutes {
  run: { request: RunRequest; message: RunMessage };
  sweep: { request: SweepRequest; message: SweepMessage };
  sensitivity: { request: SensitivityRequest; message: SensitivityMessage };
  tune: { request: TuneRequest; message: TuneMessage };
}

export type StreamRoute = keyof StreamRoutes;

/** Any message of any stream. */
export type StreamMessage = StreamRoutes[StreamRoute]['message'];

/** The `type`s a stream's message can have. */
export type MessageType = StreamMessage['type'];

/** The most characters a scenario of your own may have on the static site's workbench (a scenario is a few kilobytes; the index page's drop takes as much). */
export const MAX_OWN_TEXT = 1_000_000;
