/**
 * The contract between the generic engine and a rules system. A rules system is one folder
 * under src/systems/ with schema, compile, kernel, summarize, charts, exact and index files;
 * its `index.ts` exports one `RulesSystem`.
 */
import type * as z from 'zod';
import type { Kernel } from '../engine/kernel.js';
import type { Estimate } from '../stats/intervals.js';
import type { EventShift } from './conditional.js';

export type { Kernel, Trace } from '../engine/kernel.js';

export type MetricKind = 'probability' | 'mean';

/** A metric with its interval and the raw counts it came from (for checks and differences). */
export interface Metric extends Estimate {
  kind: MetricKind;
  /** Trials (probability) or observations (mean) behind the estimate. */
  n: number;
  /** Successes, for a probability. */
  k?: number;
  /** Σx and Σx², for a mean. */
  sum?: number;
  sumSq?: number;
  /** For a mean: the values each observation can take, when the system knows them (its interval is clamped to them). */
  range?: readonly [number, number];
}

/**
 * A variant's difference from its baseline with its 95% interval: paired on common dice where
 * the metric is per trial (from Σd and Σd² of the per-trial differences, with two more trials
 * at ±`spread`: stats/intervals.ts pairedDifference), else Welch (value ± Z95·se; the two means
 * taken as independent: its SE ignores that the variants share dice, so it is not the SE of the
 * difference and nothing judges a z on it). `se` is the plain standard error √(s²/n) either way
 * (what `check` judges a paired difference's z on). `se` and `paired` are absent only in
 * hand-made results (tests).
 */
export interface Difference extends Estimate {
  se?: number;
  paired?: boolean;
  /** A paired difference's moments of d over the trials, and its spread (pairedDifference's), to draw its interval at another level (`siegesim test --confidence`). Not written to files. */
  pairedMoments?: { n: number; sum: number; sumSq: number };
  spread?: number;
  /** A conditional metric's event, where its probability differs significantly from the baseline's (the two means average different trials). */
  overDifferentTrials?: EventShift;
}

/** One point of a curve (`<curve>.csv` row): its key columns and its estimate. */
export interface CurvePoint {
  x: Record<string, number | string>;
  m: Metric;
}

/** How a curve file is laid out: `case,variant,<keys...>,<valueName>,ci_low,ci_high`. */
export interface CurveDef {
  file: string;
  keys: string[];
  valueName: string;
}

/** What `summarize` returns for one (case, variant). */
export interface CaseSummary {
  metrics: Record<string, Metric>;
  curves: Record<string, CurvePoint[]>;
}

/** An exact answer for one (case, variant): each metric's true value (and variance of one observation, for means). */
export interface ExactMetric {
  value: number;
  variance?: number;
}
export interface ExactSummary {
  metrics: Record<string, ExactMetric>;
  /** Curve points in the order the summary lists them; a mean's point carries its variance. */
  curves: Record<string, { x: Record<string, number | string>; value: number; variance?: number }[]>;
  /**
   * Metrics (and curve files) of the case that this exact answer does not give, each group with
   * why, so `exact` can say so rather than leave them out silently.
   */
  omitted?: { metrics: string[]; why: string }[];
}

/**
 * An exact chain that would hold more than `EXACT_LIMITS.exactStates` states at once, or a file whose
 * exact chains would advance more than `EXACT_LIMITS.exactWork` states in all: the case is not solved
 * (it has no exact answer, and says why) rather than run for minutes into the end of the heap.
 */
/**
 * Crusader Rex's exact chain (systems/crusader-rex/exact.ts, the whole battle): most states held
 * at once (the next step's and the finished ones: about 2.4 KB each, so ~2 GB), and most
 * advanced in all a file's cases (about 60,000 a second here: ~70 s). A case past either has no exact answer,
 * said with why (ExactTooLarge), instead of minutes into the end of the heap. Measured: every
 * bundled case solves in under 3 s; 10 blocks over 2 game turns solves (13 s, 0.6 GB); over 3
 * turns, and test/fixtures/slow-exact.yaml (20 turns), ran out of memory without the bounds and
 * are now refused after 20-30 s and about 1 GB. Mutable only for the tests that lower them.
 */
export const EXACT_LIMITS = {
  exactStates: 800_000,
  exactWork: 4_000_000,
};

/** What is left of a file's exact work (EXACT_LIMITS.exactWork states, advanced in all its cases). */
export interface ExactBudget {
  work: number;
}

export class ExactTooLarge extends Error {
  constructor(
    readonly states: number,
    readonly limit: number,
    readonly atOnce: boolean,
  ) {
    super(
      `${atOnce ? `its exact chain holds more than ${limit.toLocaleString('en-US')} states at once` : `the file's exact chains advance more than ${limit.toLocaleString('en-US')} states in all`} ` +
        `(${atOnce ? 'it grows' : 'they grow'} with the blocks and the game turns): too large to solve here; siegesim run estimates it`,
    );
  }
}

/** A Vega-Lite chart for the report. */
export interface ChartSpec {
  name: string;
  title: string;
  spec: Record<string, unknown>;
  /** What the chart shows, in a line under it (how to read it). */
  caption?: string;
  /** The chart answers the scenario's question: the report shows it first. */
  lead?: boolean;
  /** The metric the chart is about, and the target drawn on it (a sweep's answer is read against it). */
  metric?: string;
  target?: number;
}

/** One (case, variant) of a finished run, as the report and charts see it. */
export interface CaseResult {
  case: number;
  variant: string;
  params: Record<string, unknown>;
  trials: number;
  metrics: Record<string, Metric>;
  differences: Record<string, Difference>;
  curves: Record<string, CurvePoint[]>;
  /** With `--precision`: the target, the widest headline half-width reached, and whether it met the target. */
  precision?: { target: number; half_width: number; reached: boolean };
}

/** A finished run of one scenario. */
export interface ScenarioResult {
  name: string;
  system: string;
  description?: string;
  file: string;
  seed: string | number;
  trials: number;
  params: string[];
  variants: string[];
  /**
   * The scenario's `headline:`: the metrics its Answer shows, in this order (report/html.ts
   * answerMetrics), and the lead charts' (chart-kit leadMetric); absent when the file has none.
   */
  headline?: string[];
  metricOrder: string[];
  /** What each metric some case produces counts (describeMetric), by name; absent in results made before definitions existed. */
  metricDocs?: Record<string, string>;
  /** The conditional metrics some case produces, with their events (RulesSystem.conditionalOn); absent when none. */
  conditionalOn?: Record<string, string>;
  /**
   * Who the metrics' attacker and defender are (RulesSystem.sides): one line when every case
   * agrees, else one per group of cases that agree, each led by the variants (and sweep cases)
   * it is about; absent where the system names no sides.
   */
  sides?: string[];
  /** How far each trial runs (RulesSystem.horizon), when every case runs as far; absent otherwise (a sweep of it names it per case). */
  horizon?: string;
  curveDefs: CurveDef[];
  cases: CaseResult[];
  provenance: {
    version: string;
    threads: number;
    seconds: number;
    trials_per_second: number;
    /** `--precision` target, how many cases did not reach it (stopped by the cap), and the cap. */
    precision?: number;
    precision_missed?: number;
    max_trials?: number;
    /**
     * A report `merge` made: n of `--shard k/n` and how many shard files were given. Its
     * threads, seconds and trials_per_second are then 0: no shard file records its own.
     */
    merged?: { shards: number; given: number };
  };
}

/** A paired metric: its per-trial value is the change of one accumulator slot. */
export interface PairedSlot {
  metric: string;
  slot: number;
}

/**
 * Paired metrics that are one-hot in every trial (at most one of them counts 1, the rest 0): the
 * kernel traces the trial's code k (0 <= k < metrics.length) instead of each metric's slot, and
 * `metrics[k]` is the metric that code counts in ('' a code that counts in none of them). Every
 * metric named is also in `pairedSlots`, whose slot changes by exactly 1 in the trials of its code
 * and by 0 in all others.
 */
export interface PairedGroup {
  metrics: readonly string[];
}

export interface RulesSystem<C = unknown> {
  id: string;
  title: string;
  /** The system's own top-level keys (strict objects), merged with the common scenario keys. */
  shape: Record<string, z.ZodType>;
  /** Fixed trials per chunk: part of the stream layout, so changing it changes results. */
  chunkTrials: number;
  /** Metrics whose intervals `--precision` narrows. */
  headline: string[];
  /**
   * The outcome partitions: each a list of probability metrics that share every trial between
   * them (each trial counts in exactly one, so they sum to 1), in the order the report's Answer
   * shows them. A case shows the first partition whose metrics it produces; a system whose
   * answer is one yes-or-no probability (its complement is the rest) has none.
   */
  outcomes?: string[][];
  /** Metric names in report order. */
  metricOrder: string[];
  /**
   * The metric names a case of this scenario produces: exactly the keys of its summary's
   * `metrics` (summary.csv; `diff_<name>` is made from them), including names built from the
   * scenario (Cry Havoc's `p_first_<letter>` by the table the defender starts on). `scenario`
   * is a validated case, or the file as written when it has problems of its own (any key may
   * be missing or wrong): then a key that decides which names there are and cannot be read
   * counts every reading. Must not throw on any data. `expect:` metrics are checked against it
   * when the cases cannot be built (scenario/expect.ts); a test holds it to the summaries of
   * every bundled case.
   */
  metricNames(scenario: Record<string, unknown>): readonly string[];
  /**
   * What each metric counts, in one line a player can check against the rules: exactly what
   * the kernel and `summarize` count (rule numbers where the code cites them). Keys are metric
   * names; a name built from the scenario (Cry Havoc's `p_first_<letter>`) is answered by
   * `metricDocFor`. Read through `describeMetric` (systems/metric-docs.ts): the report page, the
   * printed answer and summary.json's `metric_docs` show them; a test holds every metric of every
   * bundled case to having one.
   */
  metricDocs: Readonly<Record<string, string>>;
  /** The definition of a metric whose name is built from the scenario (not a key of `metricDocs`), or undefined. */
  metricDocFor?(name: string): string | undefined;
  /**
   * The conditional metrics: a mean over the trials in which an event happened, by name, with
   * that event (a probability metric of the same case whose count is the mean's n, or a sum of
   * them). Comparisons say where the event itself moved (systems/conditional.ts); summary.json
   * carries it as `conditional_on`. A test holds every bundled mean whose n is not the trials to
   * being listed.
   */
  conditionalOn?: Readonly<Record<string, string>>;
  /**
   * Who the metrics' "attacker" and "defender" are in this validated case, in one line (Crusader
   * Rex: the besieger of an existing siege, with its blocks; fantasy: the `attacker:` army), or
   * undefined where the metrics name no side. Shown at the head of the printed answer and near
   * the page's Answer. Must not throw on a validated case.
   */
  sides?(scenario: Record<string, unknown>): string | undefined;
  /**
   * How far each trial of this validated case runs, the cap every probability is read at (`1 game
   * turn`, `6 combat turns`, `at most 20 rounds`), or undefined where no cap applies. Said with the
   * seed and trials (the printed answer, the page, summary.json's `horizon`). Must not throw.
   */
  horizon?(scenario: Record<string, unknown>): string | undefined;
  curveDefs: CurveDef[];
  /**
   * Checks that need more than one key (run after the schema on every case); each problem
   * names the path it is about.
   */
  refine?(scenario: Record<string, unknown>): { path: (string | number)[]; message: string }[];
  /**
   * Checks that can be made on the file as written, before its schema passes (names the system
   * must know, such as Crusader Rex roster blocks), so that they are reported in the same pass
   * as the schema's problems. Must not throw on any data; `refine` repeats them once it passes.
   */
  precheck?(raw: Record<string, unknown>): { path: (string | number)[]; message: string }[];
  /**
   * Why a key the schema does not know is not taken at that place, when the system can say more
   * than "unknown key" (a Crusader Rex roster block given a `rating`, which only a block given in
   * full takes): appended to the unknown-key message. `path` is the mapping the key is in.
   */
  unknownKeyHint?(path: readonly (string | number)[], key: string): string | undefined;
  /**
   * Settings a valid case writes that change nothing in it (the surrender system's
   * `blockade_chance` with `port: false`): warnings, never refusals. `written` is the case as
   * written (the file with its sweep point's values and its variant's `set`, before defaults),
   * `scenario` the validated case; each warning names the written path it is about.
   */
  deadSettings?(written: Record<string, unknown>, scenario: Record<string, unknown>): { path: string[]; message: string }[];
  /**
   * The values the system fills in itself where a validated scenario leaves a key out ("auto"),
   * by dotted path: Crusader Rex blocks' `steps`, their full strength; a fantasy wall's `hp` and
   * `dc` from its type (read off the compiled case). Read through `effectiveValues`
   * (api/tunables.ts): the workbench shows them as the loaded value of such a control, and
   * solve's default range, sensitivity's steps and tune's ranges start from them. A key the case
   * does not use (a threshold another rule replaces) is left out.
   */
  autoValues?(scenario: Record<string, unknown>): Record<string, number | string | boolean>;
  /** A validated scenario (common keys + the system's keys, defaults filled) -> flat data. */
  compile(scenario: Record<string, unknown>): C;
  kernel: Kernel<C>;
  pairedSlots(c: C): PairedSlot[];
  /**
   * Optional: the case's one-hot groups of paired metrics, in the order the kernel writes their
   * codes to a trace's `codes` (the Trace contract, engine/kernel.ts). The engine pairs a metric
   * from codes when every case of the comparison has it in a group: per block of trials, a count
   * of each (variant's code, baseline's code) pair gives Σd and Σd² of every metric of the group.
   */
  pairedGroups?(c: C): PairedGroup[];
  summarize(c: C, acc: Float64Array): CaseSummary;
  /**
   * Optional: what one chunk's accumulator (acc[0] already its trial count) must hold beyond
   * what its summary shows (slots no metric reads), as a short problem naming the slot, or
   * undefined. `merge` refuses a shard whose chunk fails it (api/shard.ts checkChunkMeaning).
   */
  checkAccumulator?(c: C, acc: Float64Array): string | undefined;
  /**
   * Exact answer, or null when this case has no exact form. `budget`: the states an exact chain
   * may still advance, shared by the cases of one file (it counts them down; past 0,
   * ExactTooLarge); a system whose answers are closed forms leaves it alone.
   */
  exact?(c: C, budget?: ExactBudget): ExactSummary | null;
  charts(result: ScenarioResult): ChartSpec[];
}
