/**
 * Validate phase, `expect:` blocks: each balance assertion is checked against what the
 * expanded scenario really has — its metrics (found by summarizing an empty accumulator of
 * every compiled case, so names that only some cases have are known exactly; cases that cannot
 * be built are answered by the system's metricNames of the file as written), its variants and
 * its swept parameters — and resolved to the (sweep point, variant) pairs it applies to. A
 * metric the scenario cannot produce is always a problem, never left for the run to find.
 * `siegesim test` (src/api/test.ts) judges them.
 */
import type { PathSegments } from './load.js';
import { LIMITS } from './limits.js';
import { MSG } from './messages.js';
import { suggest } from '../text/suggest.js';
import type { MetricKind, RulesSystem } from '../systems/types.js';

/** The one bound of an assertion. Bounds are inclusive. */
export type Bound =
  | { kind: 'between'; low: number; high: number }
  | { kind: 'at_least'; low: number }
  | { kind: 'at_most'; high: number }
  | { kind: 'exact' };

/** One `expect:` item, resolved. */
export interface Expectation {
  /** Its index in the `expect:` list. */
  index: number;
  /** As written: a summary metric or `diff_<metric>`. */
  metric: string;
  /** The summary metric it is about (`metric` without `diff_`). */
  base: string;
  /** True for `diff_<metric>`: the variant's paired difference against the baseline. */
  diff: boolean;
  bound: Bound;
  variant?: string;
  where?: Record<string, unknown[]>;
  /** The (sweep point, variant) pairs it applies to, in case order. */
  targets: { point: number; variant: number }[];
  /** Where the item is in the file. */
  line: number;
  col: number;
}

/** What the expect check needs of the expanded scenario. */
export interface ExpectContext {
  system: RulesSystem;
  /**
   * Every sweep point's variants' validated scenarios (a variant that failed validation is
   * absent); undefined when the scenario itself has problems: `names` then stands in, and
   * whether a metric exists at the points selected is not judged.
   */
  points?: { params: Record<string, unknown>; variants: { variant: string; scenario: Record<string, unknown> }[] }[];
  /**
   * The metrics the cases that could not be built would produce once fixed (the system's
   * metricNames of each as written; validate.ts writtenMetrics): every case's when `points` is
   * undefined, the missing ones' when `partial`.
   */
  names?: readonly string[];
  axes: { path: string; values: unknown[] }[];
  variantNames: string[];
  /** Swept paths left out of `axes` for their own problems: a `where` on them is not judged. */
  unjudged?: readonly string[];
  /** Some cases are missing for their own problems: a metric absent at the selected points is not judged. */
  partial?: boolean;
}

export interface ExpectIssue {
  path: PathSegments;
  message: string;
  where: 'key' | 'value';
  /**
   * The item no longer matches the scenario (a metric, variant, swept path or value it names is
   * not there): the scenario changed under it. Not set for an item wrong in itself (no bound or
   * two, low > high, a probability's bound outside [0, 1]).
   */
  stale?: true;
}

interface RawItem {
  metric: string;
  between?: [number, number];
  at_least?: number;
  at_most?: number;
  exact?: true;
  variant?: string;
  where?: Record<string, unknown>;
}

/** Same sweep value: numbers compared as the sweep expands them (12 significant digits). */
export function sameSweepValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Number(a.toPrecision(12)) === Number(b.toPrecision(12));
  return a === b;
}

/**
 * Check every `expect:` item and resolve it; problems come back with the path they are about
 * (`expect[i].metric`, `expect[i].where.wall.hp`, ...). `pos` gives an item's line and column.
 */
export function validateExpect(
  /** The `expect:` items; an item that failed its shape (already reported) is undefined and skipped. */
  raw: readonly (RawItem | undefined)[],
  ctx: ExpectContext,
  pos: (path: PathSegments) => { line: number; col: number },
): { expectations: Expectation[]; issues: ExpectIssue[] } {
  const issues: ExpectIssue[] = [];
  const expectations: Expectation[] = [];
  const metricsAt = ctx.points ? metricCatalogue(ctx, ctx.points) : undefined;
  const allMetrics = new Set<string>();
  const probabilities = new Set<string>();
  // The names the scenario can produce: its cases' summaries, and for the cases that could not
  // be built (all of them when the scenario has problems of its own) what the system says the
  // file as written would produce. A name outside them is a problem either way.
  for (const row of [...(metricsAt ?? []), [metricKinds(ctx.names ?? [])]]) {
    for (const kinds of row) {
      for (const [n, kind] of kinds ?? []) {
        allMetrics.add(n);
        if (kind === 'probability') probabilities.add(n);
      }
    }
  }
  const nVariants = ctx.variantNames.length;
  const pending: { i: number; item: RawItem; bound: Bound; base: string; diff: boolean; variant?: number; where: Record<string, unknown[]>; count: number }[] = [];
  // The points are the sweep's grid, axes in file order, the last varying fastest (validate.ts
  // expands them so): a point's index is its values' indices in mixed radix, so the points a
  // `where` selects are enumerated, never searched for among all of them.
  const grid = ctx.points !== undefined && ctx.points.length === ctx.axes.reduce((n, a) => n * a.values.length, 1);
  const selectedIndices = (where: Record<string, unknown[]>): number[][] =>
    ctx.axes.map((a) => (Object.hasOwn(where, a.path) ? a.values.flatMap((s, j) => (where[a.path].some((x) => sameSweepValue(s, x)) ? [j] : [])) : a.values.map((_, j) => j)));
  /** How many cases an item applies to at most (its metric may be missing at some). */
  const judgments = (where: Record<string, unknown[]>, variant: number | undefined, diff: boolean): number =>
    selectedIndices(where).reduce((n, l) => n * l.length, 1) * (variant !== undefined ? 1 : Math.max(0, nVariants - (diff ? 1 : 0)));
  function* selectedPoints(where: Record<string, unknown[]>): Generator<number> {
    if (!grid) {
      // not a whole grid (never from validate.ts): look at every point
      for (let pi = 0; pi < (ctx.points ?? []).length; pi++) {
        const p = ctx.points![pi];
        if (Object.entries(where).every(([k, vs]) => vs.some((v) => sameSweepValue(p.params[k], v)))) yield pi;
      }
      return;
    }
    const lists = selectedIndices(where);
    if (lists.some((l) => l.length === 0)) return;
    const at = lists.map(() => 0);
    for (;;) {
      let pi = 0;
      for (let a = 0; a < lists.length; a++) pi = pi * ctx.axes[a].values.length + lists[a][at[a]];
      yield pi;
      let a = lists.length - 1;
      while (a >= 0 && ++at[a] === lists[a].length) at[a--] = 0;
      if (a < 0) return;
    }
  }

  raw.forEach((item, i) => {
    if (item === undefined) return;
    const at = (...rest: (string | number)[]): PathSegments => ['expect', i, ...rest];
    const problem = (path: PathSegments, message: string, where: 'key' | 'value' = 'value') => issues.push({ path, message, where });
    const stale = (path: PathSegments, message: string, where: 'key' | 'value' = 'value') => issues.push({ path, message, where, stale: true });
    const before = issues.length;

    // --- the bound: exactly one ---
    const given = (['between', 'at_least', 'at_most', 'exact'] as const).filter((k) => item[k] !== undefined);
    let bound: Bound | undefined;
    if (given.length !== 1) problem(given.length === 0 ? at() : at(given[1]), MSG.expectOneBound(given), given.length === 0 ? 'value' : 'key');
    else if (item.between) {
      const [low, high] = item.between;
      if (!(low <= high)) problem(at('between'), MSG.expectBetweenOrder(low, high));
      bound = { kind: 'between', low, high };
    } else if (item.at_least !== undefined) bound = { kind: 'at_least', low: item.at_least };
    else if (item.at_most !== undefined) bound = { kind: 'at_most', high: item.at_most };
    else bound = { kind: 'exact' };

    // --- the metric ---
    const diff = item.metric.startsWith('diff_') && !allMetrics.has(item.metric);
    const base = diff ? item.metric.slice('diff_'.length) : item.metric;
    if (!allMetrics.has(base)) {
      const names = [...allMetrics, ...(nVariants > 1 ? [...allMetrics].map((m) => `diff_${m}`) : [])];
      stale(at('metric'), MSG.unknownMetric(item.metric, suggest(item.metric, names), [...allMetrics]));
    } else if (diff && nVariants < 2) stale(at('metric'), MSG.diffNeedsVariants(item.metric));
    // exact: true on a diff_ is judged against the exact difference (variant − baseline); whether
    // both sides have an exact answer, and the difference is paired, is `test`'s to say
    // (api/test.ts prepareExact), as it is for a summary metric's exact answer
    // a probability's bound lies in [0, 1] (a difference of two: [-1, 1])
    if (bound && bound.kind !== 'exact' && probabilities.has(base)) {
      const ends = bound.kind === 'between' ? [bound.low, bound.high] : [bound.kind === 'at_least' ? bound.low : bound.high];
      const what = bound.kind === 'between' ? `between [${ends.join(', ')}]` : `${bound.kind}: ${ends[0]}`;
      if (!ends.every((b) => b >= (diff ? -1 : 0) && b <= 1)) problem(at(bound.kind), MSG.outsideProbability(what, item.metric, diff));
    }

    // --- the variant ---
    let variant: number | undefined;
    if (item.variant !== undefined) {
      variant = ctx.variantNames.indexOf(item.variant);
      if (variant < 0) stale(at('variant'), MSG.unknownVariant(item.variant, suggest(item.variant, ctx.variantNames), ctx.variantNames));
      else if (diff && variant === 0) stale(at('variant'), MSG.diffOfBaseline(item.metric, item.variant));
    }

    // --- where: swept paths, values in the sweep ---
    const where: Record<string, unknown[]> = {};
    for (const [key, value] of Object.entries(item.where ?? {})) {
      const axis = ctx.axes.find((a) => a.path === key);
      if (!axis && ctx.unjudged?.includes(key)) continue;
      if (!axis) {
        const swept = ctx.axes.map((a) => a.path);
        stale(at('where', key), MSG.whereNotSwept(key, suggest(key, swept), swept), 'key');
        continue;
      }
      const values = Array.isArray(value) ? value : [value];
      values.forEach((v, j) => {
        if (!axis.values.some((s) => sameSweepValue(s, v))) {
          stale(Array.isArray(value) ? at('where', key, j) : at('where', key), MSG.whereValueNotSwept(key, v, axis.values));
        }
      });
      where[key] = values;
    }
    if (issues.length > before || !bound || !metricsAt) return;
    pending.push({ i, item, bound, base, diff, variant, where, count: judgments(where, variant, diff) });
  });

  // Judgments (an item at each case it applies to) are counted before any is made: each costs
  // memory here and work in `test`, and items x cases is unbounded by the file's size.
  const total = pending.reduce((n, p) => n + p.count, 0);
  if (total > LIMITS.expectJudgments) {
    issues.push({ path: ['expect'], message: MSG.expectTooManyJudgments(total, pending.length, LIMITS.expectJudgments), where: 'key' });
    return { expectations, issues };
  }
  // items that select the same cases (they differ only in their bound) share one list
  const resolved = new Map<string, { targets: { point: number; variant: number }[]; noBaseline: boolean }>();
  for (const { i, item, bound, base, diff, variant, where } of pending) {
    const at = (...rest: (string | number)[]): PathSegments => ['expect', i, ...rest];
    const key = JSON.stringify([base, diff, variant ?? null, ctx.axes.map((a) => where[a.path]?.map((x) => ctx.axes.find((b) => b.path === a.path)!.values.findIndex((s) => sameSweepValue(s, x))) ?? null)]);
    let r = resolved.get(key);
    if (!r) {
      // --- resolve: the (point, variant) pairs that have this metric (a diff_: the baseline too) ---
      const targets: { point: number; variant: number }[] = [];
      let noBaseline = false;
      for (const pi of selectedPoints(where)) {
        for (let vi = diff ? 1 : 0; vi < nVariants; vi++) {
          if (variant !== undefined && vi !== variant) continue;
          if (!metricsAt![pi][vi]?.has(base)) continue;
          if (diff && !metricsAt![pi][0]?.has(base)) noBaseline = true;
          else targets.push({ point: pi, variant: vi });
        }
      }
      resolved.set(key, (r = { targets, noBaseline }));
    }
    if (r.targets.length === 0) {
      if (ctx.partial) continue;
      issues.push({ path: at('metric'), message: r.noBaseline ? MSG.diffWithoutBaseline(item.metric, ctx.variantNames[0]) : MSG.metricNotThere(item.metric, item.variant), where: 'value', stale: true });
      continue;
    }
    const p = pos(at());
    expectations.push({
      index: i,
      metric: item.metric,
      base,
      diff,
      bound,
      ...(item.variant !== undefined ? { variant: item.variant } : {}),
      ...(item.where ? { where } : {}),
      targets: r.targets,
      line: p.line,
      col: p.col,
    });
  }
  return { expectations, issues };
}

/**
 * Metric names with each one's kind by its name, for names known without a case (metricNames):
 * p_ a probability, mean_ a mean (the systems' convention, which a test checks against the
 * summaries of every bundled scenario).
 */
export function metricKinds(names: Iterable<string>): Map<string, MetricKind> {
  return new Map([...names].map((n) => [n, n.startsWith('p_') ? 'probability' : 'mean']));
}

/** The metrics (name -> kind) of every (point, variant): a summary of an empty accumulator lists them. */
function metricCatalogue(ctx: ExpectContext, points: NonNullable<ExpectContext['points']>): (Map<string, MetricKind> | undefined)[][] {
  const sys = ctx.system;
  return points.map((p) =>
    ctx.variantNames.map((name) => {
      const vc = p.variants.find((x) => x.variant === name);
      if (!vc) return undefined;
      const c = sys.compile(vc.scenario);
      return new Map(Object.entries(sys.summarize(c, new Float64Array(sys.kernel.accLength(c))).metrics).map(([n, m]) => [n, m.kind]));
    }),
  );
}
