/**
 * The diff verb: what moved between two runs of the same scenarios (e.g. before and after a
 * rules change), from their summary.json. Cases are matched by their swept parameters and
 * variant name, never by position; every metric of every matched case is tested (pooled
 * two-proportion z for a probability, Welch for a mean, on the two runs as independent
 * samples), and so is each variant's difference from the baseline (`diff_<metric>`: the
 * difference of the two runs' differences, z on √(se_before² + se_after²) of each run's own
 * paired or Welch SE). The p-values are Holm-corrected over all the comparisons together,
 * metrics and differences in one family, so that the chance of reporting any change when
 * nothing changed is at most `alpha` for the whole diff (two families would each spend alpha,
 * and --fail-on-change would then false-alarm up to twice as often). Touches no files.
 *
 * Two runs with the same seed roll the same dice, so their estimates are positively
 * correlated: treating them as independent overstates the noise of the change, which makes the
 * test conservative (never more false alarms), and two identical runs show no change at all.
 */
import { differenceInterval, holmAdjust, pTwoSided, Z95, zTwoProportions, type Estimate } from '../stats/intervals.js';
import { whereLabel } from './test.js';
import { tunedName } from './live.js';
import { conditionOf, eventShift } from '../systems/conditional.js';
import { systemById } from '../systems/registry.js';
import { MSG } from '../scenario/messages.js';

/** Default family-wise false-alarm rate of `diff`. */
export const DIFF_ALPHA = 0.001;

/** One metric as summary.json holds it (`kind` is absent in files written before it was added). */
export interface SummaryMetric {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n: number;
  kind?: 'probability' | 'mean';
  /**
   * A mean's standard error √(s²/n), before its interval was clamped to the mean's range (absent
   * in files written before it was added, and in history's points: the wider side of the
   * interval, over Z95, is read then, the side a clamp left alone unless both were clamped).
   */
  se?: number | null;
  /** A conditional mean's event (absent in files written before it was added: the system's own is read then). */
  conditional_on?: string;
}

/**
 * A variant's difference from the baseline as summary.json holds it; `se` and `paired` are
 * absent in files written before they were added (the SE is then read off the interval, which
 * is value ± Z95·se for paired and Welch differences alike).
 */
export interface SummaryDifference {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  se?: number | null;
  paired?: boolean;
}

/** What `diff` reads of a summary.json. */
export interface SummaryDoc {
  name: string;
  system: string;
  seed?: string | number;
  trials?: number;
  params: string[];
  variants: string[];
  cases: {
    case: number;
    variant: string;
    params: Record<string, unknown>;
    trials: number;
    metrics: Record<string, SummaryMetric>;
    /** The variants after the baseline: each metric's difference from the baseline. */
    differences?: Record<string, SummaryDifference>;
  }[];
  /**
   * The run's settings by dotted path (`scenarioSettings` of the scenario copy its report keeps,
   * scenario.yaml): not in summary.json, the reader adds it. Absent or null: not at hand, and the
   * diff then says the settings could not be compared.
   */
  settings?: Record<string, unknown> | null;
  /** Why `settings` is not at hand, when the reader knows (`scenario.yaml: cannot be read (no such file)`). */
  settingsUnknown?: string;
}

/**
 * Why `doc` (a parsed JSON file) is not a summary.json that diff and history can read, or
 * undefined: every field they read is checked for its type, so a damaged or hand-edited file is
 * said as such (`cases[0].metrics is not an object`), never met later as a TypeError.
 */
export function summaryShapeProblem(doc: unknown): string | undefined {
  if (!isMap(doc) || typeof doc.name !== 'string' || typeof doc.system !== 'string' || !Array.isArray(doc.cases) || !Array.isArray(doc.params) || !Array.isArray(doc.variants)) {
    return 'it needs name, system, params, variants and cases';
  }
  if (!doc.params.every((p) => typeof p === 'string')) return 'params is not a list of names';
  if (!doc.variants.every((v) => typeof v === 'string')) return 'variants is not a list of names';
  if (doc.trials !== undefined && typeof doc.trials !== 'number') return 'trials is not a number';
  if (doc.trials !== undefined && !(Number.isSafeInteger(doc.trials) && (doc.trials as number) >= 0)) return 'trials is not a count of trials';
  const numberOrNull = (x: unknown) => x === null || (typeof x === 'number' && Number.isFinite(x));
  const estimate = (e: unknown, where: string, probability: boolean): string | undefined => {
    if (!isMap(e)) return `${where} is not an object`;
    for (const k of ['value', 'ci_low', 'ci_high'] as const) {
      if (!numberOrNull(e[k])) return `${where}.${k} is not a number or null`;
      // a probability, or a difference of two: in [0, 1] or [-1, 1]
      if (probability && e[k] !== null && ((e[k] as number) < (where.includes('.differences.') ? -1 : 0) || (e[k] as number) > 1)) return `${where}.${k} is ${String(e[k])}, not a probability${where.includes('.differences.') ? "'s difference" : ''}`;
    }
    if (e.se !== undefined && !(numberOrNull(e.se) && (e.se === null || (e.se as number) >= 0))) return `${where}.se is not a standard error (a number, at least 0, or null)`;
    return undefined;
  };
  const isProbability = (m: string, e: unknown) => (isMap(e) && e.kind !== undefined ? e.kind === 'probability' : m.startsWith('p_'));
  const seen = new Map<string, number>();
  for (const [i, c] of doc.cases.entries()) {
    const at = `cases[${i}]`;
    if (!isMap(c)) return `${at} is not an object`;
    if (typeof c.case !== 'number') return `${at}.case is not a number`;
    if (typeof c.variant !== 'string') return `${at}.variant is not a name`;
    if (!isMap(c.params)) return `${at}.params is not an object`;
    if (!(Number.isSafeInteger(c.trials) && (c.trials as number) >= 0)) return `${at}.trials is not a count of trials`;
    const key = caseKey(c.params, c.variant);
    if (seen.has(key)) return `${at} is the same case as cases[${seen.get(key)}] (its variant and params)`;
    seen.set(key, i);
    if (!isMap(c.metrics)) return `${at}.metrics is not an object`;
    for (const [m, v] of Object.entries(c.metrics)) {
      const why = estimate(v, `${at}.metrics.${m}`, isProbability(m, v));
      if (why !== undefined) return why;
      const e = v as Record<string, unknown>;
      if (!(Number.isSafeInteger(e.n) && (e.n as number) >= 0)) return `${at}.metrics.${m}.n is not a count`;
      if (e.kind !== undefined && e.kind !== 'probability' && e.kind !== 'mean') return `${at}.metrics.${m}.kind is neither "probability" nor "mean"`;
      if (e.conditional_on !== undefined && typeof e.conditional_on !== 'string') return `${at}.metrics.${m}.conditional_on is not a metric's name`;
    }
    if (c.differences !== undefined) {
      if (!isMap(c.differences)) return `${at}.differences is not an object`;
      for (const [m, v] of Object.entries(c.differences)) {
        const why = estimate(v, `${at}.differences.${m}`, isProbability(m, isMap(c.metrics) ? c.metrics[m] : undefined));
        if (why !== undefined) return why;
      }
    }
  }
  return undefined;
}

/** One setting that differs between two runs: its dotted path, and its value before and after (null: not written, the rules' default). */
export interface SettingChange {
  key: string;
  before: unknown;
  after: unknown;
}

/** Top-level keys that are not settings of the game: what the scenario is called and says, and what `test` asserts of it. */
const NOT_SETTINGS = new Set(['name', 'description', 'headline', 'expect']);

/**
 * A scenario's settings as the file writes them, by dotted path (`wall.dc`, `sweep.wall.dc`,
 * `variants[above-dc].set.rules.climb_comparison`), for `diff` to say which differ; `seed` and
 * `trials` are the run's own (a flag may have overridden the file's).
 * @example scenarioSettings({ name: 'k', wall: { dc: 12 }, sweep: { 'wall.hp': [10, 20] } }, { seed: 1 }) // { 'wall.dc': 12, 'sweep.wall.hp': [10, 20], seed: 1 }
 */
export function scenarioSettings(scenario: unknown, run: { seed?: string | number; trials?: number } = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (x: unknown, key: string) => {
    if (Array.isArray(x)) {
      // a list of named items (variants) is keyed by name, so a variant added or edited reads as
      // itself (one that only names itself, the baseline, has no settings of its own: a variant
      // renamed shows as cases in one run only)
      const named = x.length > 0 && x.every((e) => isMap(e) && typeof e.name === 'string') && new Set(x.map((e) => (e as { name: string }).name)).size === x.length;
      if (!named) out[key] = x;
      else for (const e of x as Record<string, unknown>[]) for (const [k, v] of Object.entries(e)) if (k !== 'name') walk(v, `${key}[${e.name as string}].${k}`);
      return;
    }
    if (isMap(x) && Object.keys(x).length > 0) {
      for (const [k, v] of Object.entries(x)) walk(v, key ? `${key}.${k}` : k);
      return;
    }
    out[key] = x;
  };
  if (isMap(scenario)) for (const [k, v] of Object.entries(scenario)) if (!NOT_SETTINGS.has(k)) walk(v, k);
  if (run.seed !== undefined) out.seed = run.seed;
  if (run.trials !== undefined) out.trials = run.trials;
  return out;
}

function isMap(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The settings whose values differ, in the before run's order and then the after run's new ones (null: not written on that side). */
export function settingChanges(before: Record<string, unknown>, after: Record<string, unknown>): SettingChange[] {
  const keys = [...Object.keys(before), ...Object.keys(after).filter((k) => !(k in before))];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return keys.filter((k) => !same(before[k], after[k])).map((k) => ({ key: k, before: before[k] ?? null, after: after[k] ?? null }));
}

/** The two runs cannot be compared (exit 2): different scenario or system, nothing in common. */
export class DiffError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiffError';
  }
}

export interface DiffRow {
  scenario: string;
  /** Case number in the `after` run. */
  case: number;
  variant: string;
  params: Record<string, unknown>;
  /** `wall.hp=40, variant seed-reading` */
  where: string;
  /** A metric, or `diff_<metric>`: the variant's difference from the baseline (then `baseline` is set). */
  metric: string;
  /** The metric's kind (for a `diff_`, the kind of the metric differenced). */
  kind: 'probability' | 'mean';
  /** For a `diff_` row: the baseline variant the difference is from (the same in both runs). */
  baseline?: string;
  /** A `diff_` row's sides carry `se`, the run's SE of its difference (n is then the trials). */
  before: { value: number; ci_low: number; ci_high: number; n: number; trials: number; se?: number };
  after: { value: number; ci_low: number; ci_high: number; n: number; trials: number; se?: number };
  /**
   * after − before, with its 95% interval (Newcombe's square-and-add of the two intervals; for
   * a `diff_`, ± Z95·√(se_before² + se_after²)).
   */
  change: Estimate;
  /**
   * A conditional mean (a mean over the trials in which an event happened) whose event's
   * probability moved significantly between the runs: the two values average different trials.
   */
  over_different_trials?: { event: string; before: number; after: number };
  z: number;
  p: number;
  /** Holm-adjusted over every comparison of the diff. */
  p_holm: number;
  moved: boolean;
}

export interface DiffScenario {
  /** The scenario's name (in the `after` run). */
  name: string;
  /** The `before` run's name, when it differs (a scenario and its `-tuned` copy, or `ignoreName`). */
  before_name?: string;
  system: string;
  before_trials: number;
  after_trials: number;
  compared: number;
  /** Cases (by `where`) found in one run only. */
  only_before: string[];
  only_after: string[];
  /** Metrics (and `diff_` differences) that could not be tested: missing or undefined (no observations) in one run. */
  untestable: { metric: string; where: string }[];
  /**
   * Why the variants' differences from the baseline were not compared (the baseline variant is
   * not the same in the two runs: `"a" before, "b" after`); absent when they were.
   */
  differences_not_compared?: string;
  /**
   * The settings that differ between the two runs (`wall.dc: 12 -> 13`; seed and trials
   * included), from the scenario copies their reports keep; null when either run's is not at
   * hand (a summary.json alone, or a report written without scenario.yaml).
   */
  settings: SettingChange[] | null;
  /** When `settings` is null: each side whose settings are not at hand, and why (`after: scenario.yaml: ...`). */
  settings_unknown?: string[];
}

export interface DiffResult {
  alpha: number;
  scenarios: DiffScenario[];
  /** Every comparison, in scenario, case and metric order. */
  rows: DiffRow[];
  moved: number;
  unchanged: number;
  untestable: number;
  /** Scenarios (by name) in one set only, when folders of reports are compared. */
  only_before: string[];
  only_after: string[];
}

export interface DiffOptions {
  /** Family-wise false-alarm rate (default 0.001). */
  alpha?: number;
  /** Compare the two runs of `diffSummaries` whatever their scenarios' names (a copy renamed by hand). */
  ignoreName?: boolean;
}

/**
 * Whether two runs' names are one scenario's: the same name, or a scenario and the copy the
 * workbench saves of it, which it names `<name>-tuned` (api/live.ts tunedName) so that its report
 * never replaces the original's.
 */
export function sameScenario(before: string, after: string): boolean {
  return before === after || tunedName(before) === after || tunedName(after) === before;
}

/** Compare two runs of one scenario (or of a scenario and its `-tuned` copy; of any two with `ignoreName`). */
export function diffSummaries(before: SummaryDoc, after: SummaryDoc, opts: DiffOptions = {}): DiffResult {
  // the system first: no flag compares two systems, so the name's hint would not help
  if (before.system !== after.system) throw new DiffError(MSG.diffDifferentSystems(before.name, before.system, after.name, after.system));
  if (!opts.ignoreName && !sameScenario(before.name, after.name)) throw new DiffError(MSG.diffDifferentScenarios(before.name, after.name));
  if (before.name === after.name) return diffSets([before], [after], opts);
  // matched as one scenario under the after run's name; the before run's is said in the result
  const d = diffSets([{ ...before, name: after.name }], [after], opts);
  d.scenarios[0].before_name = before.name;
  return d;
}

/**
 * Compare two sets of runs (folders of reports), scenario by scenario (matched by name); the
 * Holm correction covers every comparison of every scenario.
 */
export function diffSets(before: readonly SummaryDoc[], after: readonly SummaryDoc[], opts: DiffOptions = {}): DiffResult {
  const alpha = opts.alpha ?? DIFF_ALPHA;
  // a name twice on one side: which report to compare would be a guess
  for (const [side, docs] of [['before', before], ['after', after]] as const) {
    const twice = docs.find((d, i) => docs.findIndex((e) => e.name === d.name) !== i);
    if (twice) throw new DiffError(`the ${side} side holds two reports of scenario "${twice.name}": name the report folders themselves`);
  }
  const afterByName = new Map(after.map((d) => [d.name, d]));
  const beforeNames = new Set(before.map((d) => d.name));
  const scenarios: DiffScenario[] = [];
  const rows: DiffRow[] = [];
  for (const b of before) {
    const a = afterByName.get(b.name);
    if (!a) continue;
    if (a.system !== b.system) throw new DiffError(MSG.diffDifferentSystems(b.name, b.system, a.name, a.system));
    scenarios.push(compareScenario(b, a, rows));
  }
  if (scenarios.length === 0) {
    throw new DiffError(
      `no scenario in common (before: ${before.map((d) => d.name).join(', ') || 'none'}; after: ${after.map((d) => d.name).join(', ') || 'none'})`,
    );
  }
  if (rows.length === 0 && scenarios.every((s) => s.untestable.length === 0)) {
    throw new DiffError(`no case in common: cases are matched by their swept parameters and variant names (${scenarios.map((s) => s.name).join(', ')})`);
  }
  const adjusted = holmAdjust(rows.map((r) => r.p));
  rows.forEach((r, i) => {
    r.p_holm = adjusted[i];
    r.moved = adjusted[i] <= alpha;
  });
  const moved = rows.filter((r) => r.moved).length;
  return {
    alpha,
    scenarios,
    rows,
    moved,
    unchanged: rows.length - moved,
    untestable: scenarios.reduce((n, s) => n + s.untestable.length, 0),
    only_before: before.filter((d) => !afterByName.has(d.name)).map((d) => d.name),
    only_after: after.filter((d) => !beforeNames.has(d.name)).map((d) => d.name),
  };
}

/** A case's identity: its swept values (by name, whatever their order) and its variant. */
function caseKey(params: Record<string, unknown>, variant: string): string {
  const p = Object.keys(params)
    .sort()
    .map((k) => `${k}=${JSON.stringify(params[k])}`);
  return `${p.join('\u0000')}\u0001${variant}`;
}

function compareScenario(b: SummaryDoc, a: SummaryDoc, rows: DiffRow[]): DiffScenario {
  const label = (d: SummaryDoc, c: SummaryDoc['cases'][number]) => whereLabel(d.params, c.params, d.variants.length > 1 ? c.variant : undefined);
  const beforeCases = new Map(b.cases.map((c) => [caseKey(c.params, c.variant), c]));
  const afterKeys = new Set<string>();
  const untestable: { metric: string; where: string }[] = [];
  let compared = 0;
  const sameBaseline = b.variants[0] === a.variants[0];
  for (const ca of a.cases) {
    const key = caseKey(ca.params, ca.variant);
    afterKeys.add(key);
    const cb = beforeCases.get(key);
    if (!cb) continue;
    const where = label(a, ca);
    const names = [...Object.keys(cb.metrics), ...Object.keys(ca.metrics).filter((m) => !(m in cb.metrics))];
    /** One compared row of this case (a metric, or a variant's difference from the baseline). */
    const push = (
      metric: string,
      kind: DiffRow['kind'],
      row: Compared,
      before: DiffRow['before'],
      after: DiffRow['after'],
      extra: { baseline?: string; over_different_trials?: DiffRow['over_different_trials'] } = {},
    ) => {
      compared++;
      rows.push({
        scenario: a.name,
        case: ca.case,
        variant: ca.variant,
        params: ca.params,
        where,
        metric,
        kind,
        ...extra,
        before,
        after,
        change: row.change,
        z: row.z,
        p: pTwoSided(row.z),
        p_holm: NaN,
        moved: false,
      });
    };
    for (const metric of names) {
      // own keys only: a summary.json's names are data, and `constructor` is on every object
      const mb = Object.hasOwn(cb.metrics, metric) ? cb.metrics[metric] : undefined;
      const ma = Object.hasOwn(ca.metrics, metric) ? ca.metrics[metric] : undefined;
      const row = mb && ma ? compareMetric(mb, ma, metric) : undefined;
      if (!row || !mb || !ma) {
        untestable.push({ metric, where });
        continue;
      }
      // a conditional mean's n counts its event: where the event moved, the two runs average different trials
      const shift = eventShift(ma.conditional_on ?? mb.conditional_on ?? conditionOf(systemById(a.system), metric), mb, cb.trials, ma, ca.trials);
      const over = shift ? { over_different_trials: { event: shift.event, before: shift.from, after: shift.to } } : {};
      push(metric, row.kind, row, { ...row.before, trials: cb.trials }, { ...row.after, trials: ca.trials }, over);
    }
    // each variant's difference from the baseline, when the baseline is the same variant in both
    // runs (a difference from another baseline is another quantity)
    if (!sameBaseline) continue;
    const db = cb.differences ?? {};
    const da = ca.differences ?? {};
    for (const m of [...Object.keys(db), ...Object.keys(da).filter((k) => !Object.hasOwn(db, k))]) {
      const metric = `diff_${m}`;
      const row = Object.hasOwn(db, m) && Object.hasOwn(da, m) ? compareDifference(db[m], da[m]) : undefined;
      if (!row) {
        untestable.push({ metric, where });
        continue;
      }
      const kind = (Object.hasOwn(ca.metrics, m) ? ca.metrics[m].kind : undefined) ?? (Object.hasOwn(cb.metrics, m) ? cb.metrics[m].kind : undefined) ?? (m.startsWith('p_') ? 'probability' : 'mean');
      push(metric, kind, row, { ...row.before, n: cb.trials, trials: cb.trials }, { ...row.after, n: ca.trials, trials: ca.trials }, { baseline: a.variants[0] });
    }
  }
  return {
    name: a.name,
    system: a.system,
    before_trials: Math.max(0, ...b.cases.map((c) => c.trials)),
    after_trials: Math.max(0, ...a.cases.map((c) => c.trials)),
    compared,
    only_before: b.cases.filter((c) => !afterKeys.has(caseKey(c.params, c.variant))).map((c) => label(b, c) || `case ${c.case}`),
    only_after: a.cases.filter((c) => !beforeCases.has(caseKey(c.params, c.variant))).map((c) => label(a, c) || `case ${c.case}`),
    untestable,
    // only when some case has differences to compare (a one-variant run has none)
    ...(!sameBaseline && [...b.cases, ...a.cases].some((c) => c.differences && Object.keys(c.differences).length > 0)
      ? { differences_not_compared: `the baseline variant is "${b.variants[0]}" before and "${a.variants[0]}" after` }
      : {}),
    settings: b.settings && a.settings ? settingChanges(b.settings, a.settings) : null,
    ...(b.settings && a.settings ? {} : { settings_unknown: ([['before', b], ['after', a]] as const).flatMap(([side, d]) => (d.settings ? [] : [`${side}: ${d.settingsUnknown ?? 'a summary.json alone, without the scenario.yaml its report folder keeps'}`])) }),
  };
}

/**
 * The test of one variant's difference from the baseline between the two runs: after − before
 * of the two differences, on √(se_b² + se_a²) with each run's own SE (paired on that run's
 * common dice, or Welch), the runs taken as independent as for the metrics. Undefined when
 * either side has no estimate.
 */
function compareDifference(db: SummaryDifference, da: SummaryDifference) {
  const sideOf = (d: SummaryDifference) => {
    if (d.value === null || d.ci_low === null || d.ci_high === null) return undefined;
    // files written before `se` was recorded: the interval is value ± Z95·se
    const se = typeof d.se === 'number' ? d.se : (d.ci_high - d.ci_low) / (2 * Z95);
    return Number.isFinite(se) ? { value: d.value, ci_low: d.ci_low, ci_high: d.ci_high, se } : undefined;
  };
  const before = sideOf(db);
  const after = sideOf(da);
  if (!before || !after) return undefined;
  const diff = after.value - before.value;
  const se = Math.hypot(before.se, after.se);
  const z = se > 0 ? diff / se : diff === 0 ? 0 : Math.sign(diff) * Infinity;
  return { z, before, after, change: { value: diff, ci_low: diff - Z95 * se, ci_high: diff + Z95 * se } };
}

type Defined = { value: number; ci_low: number; ci_high: number; n: number };
/** What comparing one metric or one difference between the runs gives. */
type Compared = NonNullable<ReturnType<typeof compareMetric> | ReturnType<typeof compareDifference>>;

/** The two-sample test of one metric, or undefined when either side has no estimate (also history's test between commits, api/history.ts). */
export function compareMetric(mb: SummaryMetric, ma: SummaryMetric, metric: string) {
  const defined = (m: SummaryMetric): m is SummaryMetric & Defined => m.value !== null && m.ci_low !== null && m.ci_high !== null && m.n > 0;
  if (!defined(mb) || !defined(ma)) return undefined;
  // summary.json files written before `kind` was recorded: every system names probabilities p_*.
  const kind = ma.kind ?? mb.kind ?? (metric.startsWith('p_') ? 'probability' : 'mean');
  const pick = (m: Defined) => ({ value: m.value, ci_low: m.ci_low, ci_high: m.ci_high, n: m.n });
  if (kind === 'probability') return { kind, z: zTwoProportions(mb.value, mb.n, ma.value, ma.n), before: pick(mb), after: pick(ma), change: differenceInterval(mb, ma) };
  // Welch: z on √(se_before² + se_after²), the interval ± Z95 times it, each se the mean's own
  // (its interval, value ± Z95·se before the clamp to the mean's range, is no measure of it once clamped)
  const se = Math.hypot(seOfMean(mb), seOfMean(ma));
  const d = ma.value - mb.value;
  const z = se > 0 ? d / se : d === 0 ? 0 : Math.sign(d) * Infinity;
  return { kind, z, before: pick(mb), after: pick(ma), change: { value: d, ci_low: d - Z95 * se, ci_high: d + Z95 * se } };
}

/** A mean's standard error: summary.json's `se`, else its interval's wider side over Z95 (SummaryMetric.se). */
function seOfMean(m: SummaryMetric & Defined): number {
  if (typeof m.se === 'number' && Number.isFinite(m.se)) return m.se;
  return Math.max(m.value - m.ci_low, m.ci_high - m.value) / Z95;
}
