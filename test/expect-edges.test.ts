/**
 * `expect:` items resolved by validateExpect (src/scenario/expect.ts) on a small stand-in system,
 * where the bundled scenarios never go: `between: [x, x]`, `at_most`, sweep values equal to 12
 * digits, `where` keys left unjudged, partial scenarios, a diff_ whose baseline lacks the metric
 * (each test here fails on a mutant of expect.ts that the other tests let survive; docs/mutation.md).
 */
import { describe, expect, it } from 'vitest';
import { metricKinds, sameSweepValue, validateExpect, type ExpectContext } from '../src/scenario/expect.js';
import { MSG } from '../src/scenario/messages.js';
import { suggest } from '../src/text/suggest.js';
import type { RulesSystem } from '../src/systems/types.js';

/** A system whose "scenario" is the list of metrics its summary has: [name, kind][]. */
const SYSTEM = {
  compile: (s: Record<string, unknown>) => s,
  summarize: (c: { metrics: [string, string][] }) => ({ metrics: Object.fromEntries(c.metrics.map(([n, kind]) => [n, { kind }])) }),
  kernel: { accLength: () => 1 },
} as unknown as RulesSystem;

const BOTH: [string, string][] = [
  ['p_win', 'probability'],
  ['mean_rounds', 'mean'],
];

/** Two sweep points (wall.hp 10 and 0.3) × variants a (baseline) and b; `bOnly` metrics exist in b only. */
function context(over: Partial<ExpectContext> = {}, bOnly: [string, string][] = []): ExpectContext {
  const point = (hp: number) => ({
    params: { 'wall.hp': hp },
    variants: [
      { variant: 'a', scenario: { metrics: BOTH } },
      { variant: 'b', scenario: { metrics: [...BOTH, ...bOnly] } },
    ],
  });
  return { system: SYSTEM, points: [point(10), point(0.3)], axes: [{ path: 'wall.hp', values: [10, 0.3] }], variantNames: ['a', 'b'], ...over };
}

const pos = () => ({ line: 7, col: 3 });

function check(items: Record<string, unknown>[], ctx = context()) {
  return validateExpect(items as unknown as Parameters<typeof validateExpect>[0], ctx, pos);
}

describe('expect: bounds', () => {
  it('between [x, x] is a bound (inclusive at both ends); low above high is a problem', () => {
    const r = check([{ metric: 'p_win', between: [0.5, 0.5] }]);
    expect(r.issues).toEqual([]);
    expect(r.expectations[0].bound).toEqual({ kind: 'between', low: 0.5, high: 0.5 });
    const bad = check([{ metric: 'p_win', between: [0.6, 0.5] }]);
    expect(bad.issues).toEqual([{ path: ['expect', 0, 'between'], message: MSG.expectBetweenOrder(0.6, 0.5), where: 'value' }]);
  });

  it('at_most, at_least and exact each give their bound', () => {
    const r = check([{ metric: 'mean_rounds', at_most: 3 }, { metric: 'mean_rounds', at_least: 1 }, { metric: 'mean_rounds', exact: true }]);
    expect(r.issues).toEqual([]);
    expect(r.expectations.map((e) => e.bound)).toEqual([{ kind: 'at_most', high: 3 }, { kind: 'at_least', low: 1 }, { kind: 'exact' }]);
    expect(r.expectations[0]).toMatchObject({ index: 0, metric: 'mean_rounds', base: 'mean_rounds', diff: false, line: 7, col: 3 });
    expect(r.expectations[0].targets).toEqual([
      { point: 0, variant: 0 },
      { point: 0, variant: 1 },
      { point: 1, variant: 0 },
      { point: 1, variant: 1 },
    ]);
  });

  it("a probability's at_most and at_least lie in [0, 1], a difference's in [-1, 1]; a mean's anywhere", () => {
    expect(check([{ metric: 'p_win', at_most: 1 }, { metric: 'p_win', at_least: 0 }]).issues).toEqual([]);
    expect(check([{ metric: 'p_win', at_most: 1.5 }]).issues).toEqual([{ path: ['expect', 0, 'at_most'], message: MSG.outsideProbability('at_most: 1.5', 'p_win', false), where: 'value' }]);
    expect(check([{ metric: 'p_win', at_least: -0.1 }]).issues).toEqual([{ path: ['expect', 0, 'at_least'], message: MSG.outsideProbability('at_least: -0.1', 'p_win', false), where: 'value' }]);
    expect(check([{ metric: 'p_win', between: [0.2, 1.2] }]).issues[0].message).toBe(MSG.outsideProbability('between [0.2, 1.2]', 'p_win', false));
    expect(check([{ metric: 'diff_p_win', at_least: -1 }]).issues).toEqual([]);
    expect(check([{ metric: 'diff_p_win', at_least: -1.01 }]).issues[0].message).toBe(MSG.outsideProbability('at_least: -1.01', 'diff_p_win', true));
    expect(check([{ metric: 'mean_rounds', at_most: 40 }, { metric: 'mean_rounds', at_least: -4 }]).issues).toEqual([]);
  });

  it('no bound or two is a problem at the item or at the second key', () => {
    expect(check([{ metric: 'p_win' }]).issues).toEqual([{ path: ['expect', 0], message: MSG.expectOneBound([]), where: 'value' }]);
    expect(check([{ metric: 'p_win', at_least: 0.1, at_most: 0.2 }]).issues).toEqual([{ path: ['expect', 0, 'at_most'], message: MSG.expectOneBound(['at_least', 'at_most']), where: 'key' }]);
    expect(check([undefined as unknown as Record<string, unknown>, { metric: 'p_win', at_most: 0.2 }]).expectations.map((e) => e.index)).toEqual([1]);
  });
});

describe('expect: sweep values and where', () => {
  it('sameSweepValue compares numbers to 12 significant digits and anything else exactly', () => {
    expect(sameSweepValue(0.1 + 0.2, 0.3)).toBe(true);
    expect(sameSweepValue(1, 1 + 1e-13)).toBe(true);
    expect(sameSweepValue(1, 1 + 1e-10)).toBe(false);
    expect(sameSweepValue(10, 10)).toBe(true);
    expect(sameSweepValue('lt', 'lt')).toBe(true);
    expect(sameSweepValue('lt', 'le')).toBe(false);
    expect(sameSweepValue(1, '1')).toBe(false);
    expect(sameSweepValue('1', 1)).toBe(false);
    expect(sameSweepValue(true, true)).toBe(true);
  });

  it('where picks the points whose value matches to 12 digits (one value or a list); a value not swept is stale', () => {
    const r = check([{ metric: 'p_win', at_most: 0.5, where: { 'wall.hp': 0.1 + 0.2 } }, { metric: 'p_win', at_most: 0.5, where: { 'wall.hp': [10] }, variant: 'b' }]);
    expect(r.issues).toEqual([]);
    expect(r.expectations[0].targets).toEqual([
      { point: 1, variant: 0 },
      { point: 1, variant: 1 },
    ]);
    expect(r.expectations[0].where).toEqual({ 'wall.hp': [0.1 + 0.2] });
    expect(r.expectations[1]).toMatchObject({ variant: 'b', targets: [{ point: 0, variant: 1 }] });
    const bad = check([{ metric: 'p_win', at_most: 0.5, where: { 'wall.hp': [10, 20] } }, { metric: 'p_win', at_most: 0.5, where: { 'wall.hp': 20 } }]);
    expect(bad.issues).toEqual([
      { path: ['expect', 0, 'where', 'wall.hp', 1], message: MSG.whereValueNotSwept('wall.hp', 20, [10, 0.3]), where: 'value', stale: true },
      { path: ['expect', 1, 'where', 'wall.hp'], message: MSG.whereValueNotSwept('wall.hp', 20, [10, 0.3]), where: 'value', stale: true },
    ]);
    expect(bad.expectations).toEqual([]);
    // a swept number written in quotes is a string, which no number matches: the message says so
    const quoted = check([{ metric: 'p_win', at_most: 0.5, where: { 'wall.hp': '10' } }, { metric: 'p_win', at_most: 0.5, where: { 'wall.hp': 'ten' } }]);
    expect(quoted.issues.map((i) => i.message)).toEqual([
      '"10" is not one of the values "wall.hp" is swept over (10, 0.3) (it is written as a string: write it without quotes)',
      '"ten" is not one of the values "wall.hp" is swept over (10, 0.3)',
    ]);
  });

  it('a where on a swept path left out for its own problems is not judged; on one never swept it is stale', () => {
    const ctx = context({ unjudged: ['wall.dc'] });
    const r = check([{ metric: 'p_win', at_most: 0.5, where: { 'wall.dc': 12 } }], ctx);
    expect(r.issues).toEqual([]);
    expect(r.expectations[0].where).toEqual({});
    expect(r.expectations[0].targets).toHaveLength(4);
    const stale = check([{ metric: 'p_win', at_most: 0.5, where: { 'wall.dc': 12 } }]);
    expect(stale.issues).toHaveLength(1);
    expect(stale.issues[0]).toMatchObject({ path: ['expect', 0, 'where', 'wall.dc'], where: 'key', stale: true });
    expect(stale.expectations).toEqual([]);
  });
});

describe('expect: metrics that only some cases have', () => {
  it('a metric no selected case has is stale, unless some cases are missing (partial): then it is not judged', () => {
    // p_extra exists for variant b only: asking it of variant a finds no case
    const bOnly: [string, string][] = [['p_extra', 'probability']];
    const r = check([{ metric: 'p_extra', at_most: 0.5, variant: 'a' }], context({}, bOnly));
    expect(r.issues).toEqual([{ path: ['expect', 0, 'metric'], message: MSG.metricNotThere('p_extra', 'a'), where: 'value', stale: true }]);
    const partial = check([{ metric: 'p_extra', at_most: 0.5, variant: 'a' }], context({ partial: true }, bOnly));
    expect(partial).toEqual({ expectations: [], issues: [] });
    // where it exists it resolves, partial or not
    expect(check([{ metric: 'p_extra', at_most: 0.5 }], context({ partial: true }, bOnly)).expectations[0].targets).toEqual([
      { point: 0, variant: 1 },
      { point: 1, variant: 1 },
    ]);
  });

  it("a diff_ of a metric the baseline lacks says so; a diff_ of the baseline itself, or without variants, is stale", () => {
    const bOnly: [string, string][] = [['p_extra', 'probability']];
    const r = check([{ metric: 'diff_p_extra', at_most: 0.5 }], context({}, bOnly));
    expect(r.issues).toEqual([{ path: ['expect', 0, 'metric'], message: MSG.diffWithoutBaseline('diff_p_extra', 'a'), where: 'value', stale: true }]);
    const d = check([{ metric: 'diff_p_win', at_most: 0.5 }]);
    expect(d.expectations[0]).toMatchObject({ metric: 'diff_p_win', base: 'p_win', diff: true, targets: [{ point: 0, variant: 1 }, { point: 1, variant: 1 }] });
    expect(check([{ metric: 'diff_p_win', at_most: 0.5, variant: 'a' }]).issues[0]).toEqual({ path: ['expect', 0, 'variant'], message: MSG.diffOfBaseline('diff_p_win', 'a'), where: 'value', stale: true });
    const one = context({ variantNames: ['a'] });
    expect(check([{ metric: 'diff_p_win', at_most: 0.5 }], one).issues[0]).toEqual({ path: ['expect', 0, 'metric'], message: MSG.diffNeedsVariants('diff_p_win'), where: 'value', stale: true });
    expect(check([{ metric: 'p_win', at_most: 0.5, variant: 'c' }]).issues[0]).toMatchObject({ path: ['expect', 0, 'variant'], stale: true });
  });

  it('without the cases (a scenario with problems), names from the file as written stand in and nothing is resolved', () => {
    const ctx: ExpectContext = { system: SYSTEM, names: ['p_win', 'mean_rounds'], axes: [], variantNames: ['a'] };
    expect(check([{ metric: 'p_win', at_most: 0.5 }], ctx)).toEqual({ expectations: [], issues: [] });
    expect(check([{ metric: 'p_win', at_most: 1.5 }], ctx).issues[0].message).toBe(MSG.outsideProbability('at_most: 1.5', 'p_win', false));
    expect(check([{ metric: 'mean_rounds', at_most: 1.5 }], ctx).issues).toEqual([]);
    expect(check([{ metric: 'p_nope', at_most: 0.5 }], ctx).issues[0]).toMatchObject({ path: ['expect', 0, 'metric'], stale: true });
  });

  it('metricKinds: p_ is a probability, anything else a mean', () => {
    expect([...metricKinds(['p_a', 'mean_b', 'x'])]).toEqual([
      ['p_a', 'probability'],
      ['mean_b', 'mean'],
      ['x', 'mean'],
    ]);
  });
});

describe('expect: the rest of what survived the first run of npm run mutate', () => {
  it("an unknown metric's message lists exactly the scenario's metrics and suggests among them and, with variants, their diff_ forms", () => {
    const known = ['p_win', 'mean_rounds'];
    const r = check([{ metric: 'diff_p_wn', at_most: 0.5 }]);
    expect(r.issues).toEqual([{ path: ['expect', 0, 'metric'], message: MSG.unknownMetric('diff_p_wn', 'diff_p_win', known), where: 'value', stale: true }]);
    const one = check([{ metric: 'diff_p_wn', at_most: 0.5 }], context({ variantNames: ['a'] }));
    expect(one.issues[0].message).toBe(MSG.unknownMetric('diff_p_wn', suggest('diff_p_wn', known), known));
    expect(one.issues[0].message).not.toBe(r.issues[0].message);
    // without the cases: the names given, and only those
    const ctx: ExpectContext = { system: SYSTEM, names: known, axes: [], variantNames: ['a'] };
    expect(check([{ metric: 'p_nope', at_most: 0.5 }], ctx).issues[0].message).toBe(MSG.unknownMetric('p_nope', suggest('p_nope', known), known));
  });

  it('only a name that starts with diff_ and is not itself a metric is a difference', () => {
    // 'diffxp_win' is not 'diff_' + p_win
    expect(check([{ metric: 'diffxp_win', at_most: 0.5 }]).issues[0]).toMatchObject({ path: ['expect', 0, 'metric'], stale: true });
    // a metric that happens to be called diff_x is that metric
    const own = context({}, [['diff_x', 'mean']]);
    const r = check([{ metric: 'diff_x', at_most: 5, variant: 'b' }], own);
    expect(r.issues).toEqual([]);
    expect(r.expectations[0]).toMatchObject({ metric: 'diff_x', base: 'diff_x', diff: false });
  });

  it('where with several values takes every point that has one of them; an item without a variant has no variant key', () => {
    const r = check([{ metric: 'p_win', at_most: 0.5, where: { 'wall.hp': [10, 0.3] } }]);
    expect(r.expectations[0].targets).toHaveLength(4);
    expect(r.expectations[0]).not.toHaveProperty('variant');
    expect(check([{ metric: 'p_win', at_most: 0.5 }]).expectations[0]).not.toHaveProperty('where');
  });

  it('a variant that failed validation at a point is skipped there; a diff_ is not resolved where the baseline failed', () => {
    const ctx = context();
    ctx.points![1].variants = [ctx.points![1].variants[0]]; // b failed at point 1
    expect(check([{ metric: 'p_win', at_most: 0.5 }], ctx).expectations[0].targets).toEqual([
      { point: 0, variant: 0 },
      { point: 0, variant: 1 },
      { point: 1, variant: 0 },
    ]);
    expect(check([{ metric: 'p_nope', at_most: 0.5 }], ctx).issues[0].message).toBe(MSG.unknownMetric('p_nope', suggest('p_nope', ['p_win', 'mean_rounds', 'diff_p_win', 'diff_mean_rounds']), ['p_win', 'mean_rounds']));
    const noBase = context();
    noBase.points![0].variants = [noBase.points![0].variants[1]]; // the baseline failed at point 0
    expect(check([{ metric: 'diff_p_win', at_most: 0.5 }], noBase).expectations[0].targets).toEqual([{ point: 1, variant: 1 }]);
  });
});

describe('expect: how many judgments, and which cases an item selects', () => {
  /** One axis of n values (0..n-1) and variants a, b, c, every metric everywhere. */
  function grid(n: number): ExpectContext {
    const values = Array.from({ length: n }, (_, j) => j);
    const variants = ['a', 'b', 'c'].map((v) => ({ variant: v, scenario: { metrics: BOTH } }));
    return { system: SYSTEM, points: values.map((v) => ({ params: { 'wall.hp': v }, variants })), axes: [{ path: 'wall.hp', values }], variantNames: ['a', 'b', 'c'] };
  }

  it('counts an item at every case it applies to (all variants, a diff_ at all but the baseline, one variant, the points a where selects) and refuses past the limit', () => {
    // per set: 500 x 3 + 500 x 2 (diff_) + 500 (variant b) + 3 x 3 (where) = 3009 judgments
    const set = [
      { metric: 'p_win', at_least: 0 },
      { metric: 'diff_p_win', at_least: -1 },
      { metric: 'p_win', variant: 'b', at_least: 0 },
      { metric: 'p_win', where: { 'wall.hp': [0, 1, 2] }, at_least: 0 },
    ];
    const over = check(Array.from({ length: 34 }, () => set).flat(), grid(500));
    expect(over.issues).toEqual([{ path: ['expect'], message: MSG.expectTooManyJudgments(34 * 3009, 34 * 4, 100_000), where: 'key' }]);
    expect(over.expectations).toEqual([]);
    // 33 sets: 99 297 judgments, within the limit; and exactly at it is allowed
    expect(check(Array.from({ length: 33 }, () => set).flat(), grid(500)).issues).toEqual([]);
    const exactly = [...Array.from({ length: 33 }, () => set).flat(), { metric: 'p_win', where: { 'wall.hp': Array.from({ length: 234 }, (_, j) => j) }, at_least: 0 }, { metric: 'p_win', variant: 'a', where: { 'wall.hp': [0] }, at_least: 0 }];
    expect(33 * 3009 + 234 * 3 + 1).toBe(100_000);
    expect(check(exactly, grid(500)).issues).toEqual([]);
  });

  it('items differing in variant or in where get their own cases, not the list of the first', () => {
    const r = check(
      [
        { metric: 'p_win', variant: 'a', where: { 'wall.hp': [10] }, at_least: 0 },
        { metric: 'p_win', variant: 'b', where: { 'wall.hp': [10] }, at_least: 0 },
        { metric: 'p_win', variant: 'b', where: { 'wall.hp': [0.3] }, at_least: 0 },
        { metric: 'p_win', where: { 'wall.hp': [0.3] }, at_least: 0 },
      ],
    );
    expect(r.issues).toEqual([]);
    expect(r.expectations.map((e) => e.targets)).toEqual([[{ point: 0, variant: 0 }], [{ point: 0, variant: 1 }], [{ point: 1, variant: 1 }], [{ point: 1, variant: 0 }, { point: 1, variant: 1 }]]);
  });

  it('two axes: where on the second selects by its own values; an empty list selects nothing', () => {
    const variants = [{ variant: 'a', scenario: { metrics: BOTH } }];
    const points = [10, 20].flatMap((hp) => [1, 2, 3].map((dc) => ({ params: { 'wall.hp': hp, 'wall.dc': dc }, variants })));
    const ctx: ExpectContext = { system: SYSTEM, points, axes: [{ path: 'wall.hp', values: [10, 20] }, { path: 'wall.dc', values: [1, 2, 3] }], variantNames: ['a'] };
    const r = check([{ metric: 'p_win', where: { 'wall.dc': [3] }, at_least: 0 }, { metric: 'p_win', where: { 'wall.hp': [20] }, at_least: 0 }, { metric: 'p_win', where: { 'wall.dc': [] }, at_least: 0 }], ctx);
    expect(r.expectations.map((e) => e.targets)).toEqual([
      [{ point: 2, variant: 0 }, { point: 5, variant: 0 }],
      [{ point: 3, variant: 0 }, { point: 4, variant: 0 }, { point: 5, variant: 0 }],
    ]);
    // `where: { wall.dc: [] }` selects no point: the metric exists at none of those selected
    expect(r.issues).toEqual([{ path: ['expect', 2, 'metric'], message: MSG.metricNotThere('p_win'), where: 'value', stale: true }]);
    // points that are not the whole grid (a subset, in another order): matched by their values
    const some: ExpectContext = { ...ctx, points: [points[5], points[0], points[2]] };
    const s = check(
      [
        { metric: 'p_win', where: { 'wall.dc': [3] }, at_least: 0 },
        { metric: 'p_win', where: { 'wall.dc': [1], 'wall.hp': [10] }, at_least: 0 },
        { metric: 'p_win', where: { 'wall.dc': [1, 3] }, at_least: 0 },
      ],
      some,
    );
    expect(s.expectations.map((e) => e.targets)).toEqual([
      [{ point: 0, variant: 0 }, { point: 2, variant: 0 }],
      [{ point: 1, variant: 0 }],
      [{ point: 0, variant: 0 }, { point: 1, variant: 0 }, { point: 2, variant: 0 }],
    ]);
    // items on the second axis alone, with values the first axis does not have, each get their own cases
    const t = check([{ metric: 'p_win', where: { 'wall.dc': [2] }, at_least: 0 }, { metric: 'p_win', where: { 'wall.dc': [3] }, at_least: 0 }], ctx);
    expect(t.expectations.map((e) => e.targets)).toEqual([
      [{ point: 1, variant: 0 }, { point: 4, variant: 0 }],
      [{ point: 2, variant: 0 }, { point: 5, variant: 0 }],
    ]);
  });

  it('in a file with one variant an unknown metric is offered only the metrics there are (no diff_ names, no other)', () => {
    const one: ExpectContext = { ...context(), variantNames: ['a'], points: context().points!.map((p) => ({ ...p, variants: [p.variants[0]] })) };
    const r = check([{ metric: 'Stryker was her', at_least: 0 }], one);
    expect(r.issues).toEqual([{ path: ['expect', 0, 'metric'], message: MSG.unknownMetric('Stryker was her', suggest('Stryker was her', ['p_win', 'mean_rounds']), ['p_win', 'mean_rounds']), where: 'value', stale: true }]);
  });
});
