/**
 * The sensitivity verb: which settings move a metric. Every tunable setting (or the listed
 * ones) is turned one step down and one step up within its schema bounds (an enum to each of its
 * other options, a boolean to the other value), and each turned case is played trial by trial on
 * the same dice as the baseline (common random numbers: baseline and turned cases are variants of
 * one job, in batches that all roll the same dice), so each effect is a paired difference with
 * its paired interval. Settings are ranked by their largest absolute effect. Touches no files,
 * prints nothing; cancel with `signal`.
 */
import type { ValidScenario } from '../scenario/validate.js';
import type { Metric, MetricKind } from '../systems/types.js';
import { pairedDifference, pairedSpread, welchDifference, type Estimate } from '../stats/intervals.js';
import { conditionOf, eventShift } from '../systems/conditional.js';
import { inlineExecutor } from './executors.js';
import { VERSION } from '../version.js';
import { moments } from './run.js';
import {
  baseCaseOf,
  resultHead,
  compileSetting,
  metricOf,
  producedMetrics,
  runCases,
  selectTunables,
  tidy,
  TuningInputError,
  type CaseGroup,
  type CaseOptions,
  type Tunable,
  type TunableKind,
} from './tunables.js';

/** `--step`: an absolute step, or a percentage of the loaded value. */
export type Step = { abs: number } | { percent: number };

/** Parse `--step N|P%`. */
export function parseStep(text: string): Step {
  const m = /^\s*([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)\s*(%?)\s*$/i.exec(text);
  const x = m ? Number(m[1]) : NaN;
  if (!m || !(x > 0) || !Number.isFinite(x)) throw new TuningInputError(`--step must be a positive number or a percentage, e.g. 2 or 10% (got "${text}")`);
  return m[2] ? { percent: x } : { abs: x };
}

export interface SensitivityOptions extends CaseOptions {
  /** Metric to rank by (default: the first headline metric this case produces, the scenario's `headline:` first). */
  metric?: string;
  /** Settings to turn (paths, or object paths for everything under them); default all. */
  params?: string[];
  /**
   * Settings to choose from without naming them (the workbench's "written in the file"): the
   * ranking turns those of them the case has, and like the default leaves out one that changes
   * the kind of game (`params` naming it turns it). Ignored when `params` is given.
   */
  among?: string[];
  /** Default: integers ±1, decimals ±10% of their value. */
  step?: Step;
  /**
   * Case trials run so far of those planned (`planned` is `onPlan`'s: every turned case's trials
   * and each job's baseline's); the last call has done = planned.
   */
  onProgress?: (done: number, planned: number) => void;
  /** Turned cases per job beside the baseline (results do not depend on it). */
  batch?: number;
  /**
   * Called once the request is known to be valid (settings, metric, turned cases), before any
   * trial runs: the turned cases, the trials planned in all, and the case's `note` (the result's:
   * which case it is, when it is not simply the file as loaded). Throwing here stops the ranking
   * before it starts (the workbench refuses a plan over its cap).
   */
  onPlan?: (plan: { metric: string; cases: number; skipped: number; trials: number; planned: number; note?: string }) => void;
}

export type Direction = 'down' | 'up' | 'option';

/** One turned case: the setting's change and the metric's paired change. */
export interface SensitivityRow {
  param: string;
  kind: TunableKind;
  direction: Direction;
  from: number | string | boolean;
  to: number | string | boolean;
  metric: string;
  /** metric(to) − metric(from), with its 95% interval. */
  effect: number;
  ci_low: number;
  ci_high: number;
  /** Paired interval (per-trial differences) or Welch (a metric that is not per trial). */
  paired: boolean;
  /**
   * A conditional mean (over the trials in which an event happened) whose event's probability
   * moved significantly with the step (from the loaded value to `to`): the effect compares
   * averages over different trials.
   */
  over_different_trials?: { event: string; from: number; to: number };
  /** The metric at `to`. */
  at: Estimate;
  /**
   * The value was 0, so a P% step (`--step P%`, or a decimal's default 10%) is P% of the
   * setting's allowed range instead (0 → 20 for a count allowing 0..200): not a small change.
   * Such settings are ranked after every other (see `ranking`).
   */
  from_zero: boolean;
  /** 1 = the setting with the largest absolute effect; both directions of a setting share it. */
  rank: number;
}

/** A setting (or one direction of it) that was not run, and why. */
export interface SensitivitySkip {
  param: string;
  to?: number | string | boolean;
  reason: string;
}

export interface SensitivityResult {
  name: string;
  system: string;
  file: string;
  seed: string | number;
  trials: number;
  metric: string;
  metricKind: MetricKind;
  /** The case the settings were turned from (dotted settings on top of the file: every swept one, and --where's; see `baseCaseOf`). */
  where: Record<string, unknown>;
  /**
   * The event the metric is a mean over the trials of (`p_breach` for `mean_breach_round`): its
   * `n` counts those trials, not `trials`. Absent for a metric over every trial.
   */
  conditional_on?: string;
  note?: string;
  step?: Step;
  /** The metric at the loaded settings. */
  baseline: Metric;
  /** Rows in rank order (down, up, then options in schema order, within a setting). */
  rows: SensitivityRow[];
  /**
   * One entry per ranked setting: its largest effect (signed). Settings stepped by a share of
   * their range from 0 (`from_zero`) come after all the others, so the top is small changes.
   */
  ranking: { rank: number; param: string; kind: TunableKind; effect: number; ci_low: number; ci_high: number; from_zero: boolean }[];
  skipped: SensitivitySkip[];
  provenance: { version: string; threads: number; seconds: number; trials_per_second: number };
}

/** The values a setting is turned to, or why it is not turned. */
export function stepsOf(t: Tunable, step?: Step): { to: number | string | boolean; direction: Direction; from_zero?: true }[] | string {
  if (t.value === undefined) return 'not set in the scenario (its default depends on other keys): set it in the file or with --where';
  if (t.kind === 'enum' || t.kind === 'boolean') {
    return (t.options ?? []).filter((o) => o !== t.value).map((to) => ({ to, direction: 'option' as const }));
  }
  const v = t.value as number;
  const lo = t.min ?? -Infinity;
  const hi = t.max ?? Infinity;
  const span = Number.isFinite(hi - lo) ? hi - lo : 1;
  let d: number;
  let fromZero = false;
  if (step && 'abs' in step) d = step.abs;
  else {
    const p = (step && 'percent' in step ? step.percent : 10) / 100;
    fromZero = v === 0 && !(t.kind === 'int' && step === undefined);
    d = v !== 0 ? Math.abs(v) * p : span * p;
  }
  if (t.kind === 'int') d = step === undefined ? 1 : Math.max(1, Math.round(d));
  const out: { to: number; direction: Direction; from_zero?: true }[] = [];
  const down = tidy(Math.max(lo, v - d));
  const up = tidy(Math.min(hi, v + d));
  const flag = fromZero ? { from_zero: true as const } : {};
  if (down < v) out.push({ to: down, direction: 'down', ...flag });
  if (up > v) out.push({ to: up, direction: 'up', ...flag });
  return out.length > 0 ? out : 'no room to step within its schema bounds';
}

/**
 * Rank the scenario's settings by their effect on a metric. Every effect is a paired
 * difference on common random numbers (Welch for a metric that is not per trial, such as a
 * mean over the trials that breached).
 * @example sensitivityScenario(v, { metric: 'p_attacker_wins', params: ['wall'], trials: 2000 })
 */
export async function sensitivityScenario(v: ValidScenario, o: SensitivityOptions = {}): Promise<SensitivityResult> {
  const sys = v.system;
  const base = baseCaseOf(v, o.where);
  const within = (t: { path: string }, names: string[]) => names.some((n) => t.path === n || t.path.startsWith(n + '.'));
  const tunables = o.params || !o.among ? selectTunables(base.tunables, o.params, sys) : base.tunables.filter((t) => within(t, o.among!));
  const baseCompiled = sys.compile(base.scenario);
  const metric = metricOf(sys, producedMetrics(sys, baseCompiled), o.metric, v.headline);
  const trials = o.trials ?? v.trials;
  const seed = o.seed ?? v.seed;

  // --- plan: every turned case, validated and compiled ---
  const skipped: SensitivitySkip[] = [];
  const metricsOf = (compiled: unknown) => Object.keys(producedMetrics(sys, compiled).metrics).join(',');
  const baseMetrics = metricsOf(baseCompiled);
  const turned: { t: Tunable; to: number | string | boolean; direction: Direction; fromZero: boolean; compiled: unknown }[] = [];
  for (const t of tunables) {
    const steps = stepsOf(t, o.step);
    if (typeof steps === 'string') {
      skipped.push({ param: t.path, reason: steps });
      continue;
    }
    for (const s of steps) {
      const c = compileSetting(v, base, { [t.path]: s.to });
      if (!c.ok) skipped.push({ param: t.path, to: s.to, reason: `not a valid case: ${c.reason}` });
      else if (!o.params?.includes(t.path) && changesGame(t) && metricsOf(c.compiled) !== baseMetrics) skipped.push({ param: t.path, to: s.to, reason: OTHER_GAME });
      else turned.push({ t, to: s.to, direction: s.direction, fromZero: 'from_zero' in s, compiled: c.compiled });
    }
  }
  if (turned.length === 0) throw new TuningInputError(`nothing to turn: ${skipped.map((s) => `${s.param}: ${s.reason}`).join('; ') || 'no tunable settings'}`);

  // --- run: the baseline and a batch of turned cases per job, all on the same dice ---
  const slotIn = (c: unknown, m: string | undefined) => (m === undefined ? undefined : sys.pairedSlots(c).find((s) => s.metric === m)?.slot);
  const slotOf = (c: unknown) => slotIn(c, metric);
  const baseSlot = slotOf(baseCompiled);
  // a conditional mean (over the trials of an event) cannot be paired; its event can, on the same
  // dice, and says whether the two sides average different trials (over_different_trials)
  const event = conditionOf(sys, metric);
  const baseEventSlot = slotIn(baseCompiled, event);
  const batch = Math.max(1, o.batch ?? 8);
  /** paired: the metric's per-trial differences are summed; eventPaired: the event's are (a conditional mean's). */
  const groups: (CaseGroup & { members: number[]; paired: boolean; eventPaired: boolean })[] = [];
  // Cases whose metric is per trial in both (pairable) share jobs; the rest go in jobs of their own
  // kind, those whose event is per trial in both (its differences summed) apart from any other.
  const kindOf = (i: number): 0 | 1 | 2 =>
    baseSlot !== undefined && slotOf(turned[i].compiled) !== undefined ? 0 : baseEventSlot !== undefined && slotIn(turned[i].compiled, event) !== undefined ? 1 : 2;
  for (const kind of [0, 1, 2] as const) {
    const members = turned.map((_, i) => i).filter((i) => kindOf(i) === kind);
    for (let k = 0; k < members.length; k += batch) {
      const m = members.slice(k, k + batch);
      groups.push({
        members: m,
        paired: kind === 0,
        eventPaired: kind === 1,
        compiled: [baseCompiled, ...m.map((i) => turned[i].compiled)],
        pairedSlots:
          kind === 0 ? [[baseSlot!], ...m.map((i) => [slotOf(turned[i].compiled)!])] : kind === 1 ? [[baseEventSlot!], ...m.map((i) => [slotIn(turned[i].compiled, event)!])] : [[], ...m.map(() => [])],
      });
    }
  }
  // Planned and done count case trials (each turned case and each job's baseline), one unit for
  // the plan and the progress: the jobs report job trials (a job plays its 1 + batch cases at
  // once), scaled here so that the last report is exactly the plan.
  const planned = trials * (turned.length + groups.length);
  o.onPlan?.({ metric, cases: turned.length, skipped: skipped.length, trials, planned, ...(base.note ? { note: base.note } : {}) });
  const jobTrials = trials * groups.length;
  const onProgress = o.onProgress && ((done: number) => o.onProgress!(done >= jobTrials ? planned : Math.floor((done * planned) / jobTrials), planned));
  const exec = o.executor ?? inlineExecutor();
  const t0 = performance.now();
  const outs = await runCases(sys, groups, { seed, trials, stream: base.stream, executor: exec, signal: o.signal, onProgress });
  const seconds = (performance.now() - t0) / 1000;

  // --- effects ---
  const baseline = sys.summarize(baseCompiled, outs[0].accs[0]).metrics[metric];
  const rows: SensitivityRow[] = new Array(turned.length);
  groups.forEach((g, gi) => {
    const out = outs[gi];
    g.members.forEach((i, j) => {
      const tc = turned[i];
      const at = sys.summarize(tc.compiled, out.accs[j + 1]).metrics[metric];
      let d: Estimate;
      if (g.paired) {
        // a turned setting always differs from the baseline's (even one the case never reads, whose
        // effect is 0 with the interval of what the trials cannot rule out): R from the ranges
        const spread = at && baseline ? pairedSpread(at.kind, at.range, baseline.range) : undefined;
        d = pairedDifference({ n: out.trials, sum: out.pairs[j * 2], sumSq: out.pairs[j * 2 + 1] }, undefined, spread);
      }
      else d = at && baseline ? welchDifference(moments(at), moments(baseline)) : { value: NaN, ci_low: NaN, ci_high: NaN };
      rows[i] = {
        param: tc.t.path,
        kind: tc.t.kind,
        direction: tc.direction,
        from: tc.t.value!,
        to: tc.to,
        metric,
        effect: d.value,
        ci_low: d.ci_low,
        ci_high: d.ci_high,
        paired: g.paired,
        from_zero: tc.fromZero,
        at: at ? { value: at.value, ci_low: at.ci_low, ci_high: at.ci_high } : { value: NaN, ci_low: NaN, ci_high: NaN },
        rank: 0,
      };
      // the event's own paired difference (a probability: R = 1), where its trials were paired
      const eventDiff = g.eventPaired ? pairedDifference({ n: out.trials, sum: out.pairs[j * 2], sumSq: out.pairs[j * 2 + 1] }, undefined, 1) : undefined;
      const shift = eventShift(event, baseline, outs[0].trials, at, out.trials, eventDiff);
      if (shift) rows[i].over_different_trials = shift;
    });
  });

  // --- rank settings by their largest absolute effect (ties: schema order), those stepped
  // by a share of their range from 0 after all the others (their jumps are not small changes) ---
  const order = tunables.map((t) => t.path);
  const biggest = new Map<string, SensitivityRow>();
  for (const r of rows) {
    const cur = biggest.get(r.param);
    if (!cur || size(r) > size(cur)) biggest.set(r.param, r);
  }
  const ranked = [...biggest.values()].sort((a, b) => Number(a.from_zero) - Number(b.from_zero) || size(b) - size(a) || order.indexOf(a.param) - order.indexOf(b.param));
  const rankOf = new Map(ranked.map((r, i) => [r.param, i + 1]));
  for (const r of rows) r.rank = rankOf.get(r.param)!;
  rows.sort((a, b) => a.rank - b.rank); // stable: directions stay in plan order

  return {
    ...resultHead(v, seed, trials),
    metric,
    metricKind: baseline?.kind ?? 'probability',
    where: base.where,
    ...(conditionOf(sys, metric) !== undefined ? { conditional_on: conditionOf(sys, metric) } : {}),
    note: base.note,
    step: o.step,
    baseline,
    rows,
    ranking: ranked.map((r) => ({ rank: r.rank, param: r.param, kind: r.kind, effect: r.effect, ci_low: r.ci_low, ci_high: r.ci_high, from_zero: r.from_zero })),
    skipped,
    provenance: {
      version: VERSION,
      threads: exec.threads,
      seconds: Math.round(seconds * 1000) / 1000,
      trials_per_second: seconds > 0 ? Math.round((trials * (turned.length + groups.length)) / seconds) : 0,
    },
  };
}

/**
 * Why a setting that changes the kind of game is not ranked: a top-level choice (the fantasy
 * `mode`, Cry Havoc's `kind`) whose other option plays another game, with other metrics (a
 * siege's breach against an open field's volleys). Its "effect" is the gap between two games,
 * which would swamp every real change at the top of the ranking; `--params` naming it turns it.
 */
export const OTHER_GAME = 'changes the kind of game (the case has other metrics): not ranked unless named in --params';

/** A top-level choice of the scenario (no dots): the kind of setting that can select another game. */
function changesGame(t: Tunable): boolean {
  return t.kind === 'enum' && !t.path.includes('.');
}

/** The size of an effect for ranking (an undefined effect ranks last). */
function size(r: SensitivityRow): number {
  return Number.isFinite(r.effect) ? Math.abs(r.effect) : -1;
}
