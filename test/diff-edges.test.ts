/**
 * `siegesim diff` (src/api/diff.ts) where test/diff.test.ts's fixture never goes: a mean that
 * moves (the Welch z), intervals of no width, a metric or a difference in one run only, cases in
 * the after run only, runs with no scenario in common, parameters written in another order
 * (each test here fails on a mutant of diff.ts that the other tests let survive; docs/mutation.md).
 */
import { describe, expect, it } from 'vitest';
import { diffSets, diffSummaries, DiffError, scenarioSettings, settingChanges, type SummaryDoc } from '../src/api.js';
import { pTwoSided, wilson, Z95, zTwoProportions } from '../src/stats/intervals.js';
import { runScenario, validateText } from '../src/api.js';
import { summaryJson } from '../src/report/summary-json.js';

type Metric = SummaryDoc['cases'][number]['metrics'][string];
type Difference = NonNullable<SummaryDoc['cases'][number]['differences']>[string];

/** A mean of n observations with standard error se (its interval value ± Z95·se). */
function meanMetric(value: number, se: number, n = 1000): Metric {
  return { value, ci_low: value - Z95 * se, ci_high: value + Z95 * se, n, kind: 'mean' };
}

/** k of n as summary.json holds it (Wilson interval). */
function probMetric(k: number, n: number, kind = true): Metric {
  const w = wilson(k, n);
  return { value: w.value, ci_low: w.ci_low, ci_high: w.ci_high, n, ...(kind ? { kind: 'probability' as const } : {}) };
}

/** A one-case run (no swept parameter) of scenario `name`, with its metrics and optional differences. */
function run(metrics: Record<string, Metric>, opts: { name?: string; variants?: string[]; differences?: Record<string, Difference>; trials?: number } = {}): SummaryDoc {
  const variants = opts.variants ?? ['only'];
  return {
    name: opts.name ?? 's',
    system: 'fantasy',
    params: [],
    variants,
    cases: variants.map((variant, i) => ({
      case: 1,
      variant,
      params: {},
      trials: opts.trials ?? 1000,
      metrics,
      ...(i > 0 && opts.differences ? { differences: opts.differences } : {}),
    })),
  };
}

describe('diff: a mean is tested by Welch z on the SEs its intervals give', () => {
  it('z = (after − before) / √(se_b² + se_a²), with se read as half the interval over Z95', () => {
    const d = diffSummaries(run({ mean_rounds: meanMetric(3, 0.02) }), run({ mean_rounds: meanMetric(3.2, 0.03) }));
    const [r] = d.rows;
    expect(r.kind).toBe('mean');
    expect(r.z).toBeCloseTo(0.2 / Math.hypot(0.02, 0.03), 9);
    expect(r.p).toBeCloseTo(pTwoSided(0.2 / Math.hypot(0.02, 0.03)), 12);
    expect(r.moved).toBe(true);
    // a move down has a negative z of the same size
    expect(diffSummaries(run({ mean_rounds: meanMetric(3.2, 0.03) }), run({ mean_rounds: meanMetric(3, 0.02) })).rows[0].z).toBeCloseTo(-0.2 / Math.hypot(0.02, 0.03), 9);
  });

  it('a mean clamped to its range: z and the change interval on its se (summary.json\'s), not on the clamped width; without se, the wider side', () => {
    // the breach round, at least 1: 1.000667 whose interval's low side was clamped at 1
    const se = 0.00092378 / Z95;
    const clamped = (value: number, withSe: boolean): Metric => ({ value, ci_low: 1, ci_high: value + Z95 * se, n: 3000, kind: 'mean', ...(withSe ? { se } : {}) });
    const after = meanMetric(1.003, 0.001, 3000);
    for (const withSe of [true, false]) {
      const [r] = diffSummaries(run({ mean_breach_round: clamped(1.000667, withSe) }), run({ mean_breach_round: after })).rows;
      const total = Math.hypot(se, 0.001);
      expect(r.z, String(withSe)).toBeCloseTo((1.003 - 1.000667) / total, 9);
      expect(r.change.ci_low).toBeCloseTo(1.003 - 1.000667 - Z95 * total, 12);
      expect(r.change.ci_high).toBeCloseTo(1.003 - 1.000667 + Z95 * total, 12);
    }
  });

  it('summary.json writes each mean\'s se, √(s²/n) of its moments, beside its clamped interval (none for a probability)', async () => {
    const v = validateText('t.yaml', 'name: t\nsystem: surrender\nseed: 3\ntrials: 400\nstructure: { surrender_level: 4 }\nturns: 3\n');
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    const r = await runScenario(v.value);
    const m = r.cases[0].metrics.mean_turns;
    const doc = summaryJson(r) as { cases: { metrics: Record<string, { se?: number }> }[] };
    const s2 = (m.sumSq! - (m.sum! * m.sum!) / m.n) / (m.n - 1);
    expect(doc.cases[0].metrics.mean_turns.se).toBeCloseTo(Math.sqrt(s2 / m.n), 10);
    expect(doc.cases[0].metrics.p_surrender).not.toHaveProperty('se');
  });

  it('means with intervals of no width: no change is z 0, any change is an infinite z on its side', () => {
    const same = diffSummaries(run({ mean_rounds: meanMetric(3, 0) }), run({ mean_rounds: meanMetric(3, 0) })).rows[0];
    expect(same.z).toBe(0);
    expect(same.moved).toBe(false);
    expect(diffSummaries(run({ mean_rounds: meanMetric(3, 0) }), run({ mean_rounds: meanMetric(3.5, 0) })).rows[0].z).toBe(Infinity);
    expect(diffSummaries(run({ mean_rounds: meanMetric(3, 0) }), run({ mean_rounds: meanMetric(2.5, 0) })).rows[0].z).toBe(-Infinity);
  });

  it('a probability is tested by the pooled two-proportion z, not by Welch on its Wilson intervals', () => {
    const r = diffSummaries(run({ p_breach: probMetric(300, 1000) }), run({ p_breach: probMetric(360, 1000) })).rows[0];
    expect(r.kind).toBe('probability');
    expect(r.z).toBeCloseTo(zTwoProportions(0.3, 1000, 0.36, 1000), 12);
    const b = wilson(300, 1000);
    const a = wilson(360, 1000);
    const welch = 0.06 / Math.hypot((b.ci_high - b.ci_low) / (2 * Z95), (a.ci_high - a.ci_low) / (2 * Z95));
    expect(Math.abs(r.z - welch)).toBeGreaterThan(1e-3); // the two tests differ here
    // a file without `kind`: the p_ name says probability, and the after run's kind wins over the before's
    expect(diffSummaries(run({ p_breach: probMetric(300, 1000, false) }), run({ p_breach: probMetric(360, 1000, false) })).rows[0].z).toBeCloseTo(r.z, 12);
    const relabelled = diffSummaries(run({ p_breach: { ...probMetric(300, 1000), kind: 'mean' } }), run({ p_breach: probMetric(360, 1000) })).rows[0];
    expect(relabelled.z).toBeCloseTo(r.z, 12);
    const beforeOnly = diffSummaries(run({ p_breach: probMetric(300, 1000) }), run({ p_breach: probMetric(360, 1000, false) })).rows[0];
    expect(beforeOnly.kind).toBe('probability');
  });

  it('a metric with no observation on one side (n = 0, or a null value or bound) is not testable', () => {
    for (const gone of [
      { ...meanMetric(3, 0.1), n: 0 },
      { ...meanMetric(3, 0.1), value: null },
      { ...meanMetric(3, 0.1), ci_low: null },
      { ...meanMetric(3, 0.1), ci_high: null },
    ]) {
      const d = diffSummaries(run({ mean_rounds: meanMetric(3, 0.1), p_x: probMetric(1, 10) }), run({ mean_rounds: gone as Metric, p_x: probMetric(1, 10) }));
      expect(d.rows.map((r) => r.metric)).toEqual(['p_x']);
      expect(d.scenarios[0].untestable).toEqual([{ metric: 'mean_rounds', where: '' }]);
      const back = diffSummaries(run({ mean_rounds: gone as Metric, p_x: probMetric(1, 10) }), run({ mean_rounds: meanMetric(3, 0.1), p_x: probMetric(1, 10) }));
      expect(back.rows.map((r) => r.metric)).toEqual(['p_x']);
    }
  });
});

describe('diff: metrics, differences and cases in one run only', () => {
  it('a metric in one run only is listed as not testable, in the before run\'s order then the after run\'s new ones', () => {
    const d = diffSummaries(run({ p_a: probMetric(1, 10), p_old: probMetric(2, 10) }), run({ p_new: probMetric(3, 10), p_a: probMetric(1, 10) }));
    expect(d.rows.map((r) => r.metric)).toEqual(['p_a']);
    expect(d.scenarios[0].untestable.map((u) => u.metric)).toEqual(['p_old', 'p_new']);
    expect(d.untestable).toBe(2);
  });

  it("a variant's difference in one run only is not testable; its kind comes from either run's metric, else from its name", () => {
    const se = 0.01;
    const diffOf = (value: number): Difference => ({ value, ci_low: value - Z95 * se, ci_high: value + Z95 * se, se, paired: true });
    const two = ['base', 'alt'];
    const d = diffSummaries(
      run({ p_a: probMetric(5, 10), m_b: meanMetric(1, 0.1) }, { variants: two, differences: { p_a: diffOf(0.1), m_gone: diffOf(0.2) } }),
      run({ p_a: probMetric(5, 10), m_b: meanMetric(1, 0.1) }, { variants: two, differences: { p_a: diffOf(0.1), m_b: diffOf(0.3), p_only: diffOf(0.3) } }),
    );
    const alt = d.scenarios[0].untestable.filter((u) => u.where === 'variant alt').map((u) => u.metric);
    expect(alt).toEqual(['diff_m_gone', 'diff_m_b', 'diff_p_only']);
    expect(d.rows.filter((r) => r.baseline).map((r) => r.metric)).toEqual(['diff_p_a']);
    // kinds: from the after run's metric, else the before run's, else the p_ naming
    const kinds = diffSummaries(
      run({ m_x: meanMetric(1, 0.1) }, { variants: two, differences: { m_x: diffOf(0.1), q: diffOf(0.1), p_y: diffOf(0.1) } }),
      run({}, { variants: two, differences: { m_x: diffOf(0.2), q: diffOf(0.1), p_y: diffOf(0.1) } }),
    );
    expect(kinds.rows.filter((r) => r.baseline).map((r) => `${r.metric} ${r.kind}`)).toEqual(['diff_m_x mean', 'diff_q mean', 'diff_p_y probability']);
  });

  it('differences with no spread: equal is z 0, unequal an infinite z; a difference with an infinite SE is not testable', () => {
    const two = ['base', 'alt'];
    const exact = (value: number): Difference => ({ value, ci_low: value, ci_high: value, se: 0, paired: true });
    const z = (b: number, a: number) =>
      diffSummaries(run({}, { variants: two, differences: { p_a: exact(b) } }), run({}, { variants: two, differences: { p_a: exact(a) } })).rows.find((r) => r.baseline)!.z;
    expect(z(0.1, 0.1)).toBe(0);
    expect(z(0.1, 0.2)).toBe(Infinity);
    expect(z(0.2, 0.1)).toBe(-Infinity);
    const inf: Difference = { value: 0.1, ci_low: -Infinity, ci_high: Infinity, se: Infinity, paired: false };
    const d = diffSummaries(run({ p_a: probMetric(1, 10) }, { variants: two, differences: { p_a: inf } }), run({ p_a: probMetric(1, 10) }, { variants: two, differences: { p_a: exact(0.1) } }));
    expect(d.scenarios[0].untestable).toEqual([{ metric: 'diff_p_a', where: 'variant alt' }]);
    // se: null (as a summary.json may hold it) is read off the interval like a missing one
    const nullSe: Difference = { value: 0.1, ci_low: 0.1 - Z95 * 0.02, ci_high: 0.1 + Z95 * 0.02, se: null };
    const r = diffSummaries(run({}, { variants: two, differences: { p_a: nullSe } }), run({}, { variants: two, differences: { p_a: { ...nullSe, value: 0.2, ci_low: 0.2 - Z95 * 0.02, ci_high: 0.2 + Z95 * 0.02 } } })).rows.find((x) => x.baseline)!;
    expect(r.z).toBeCloseTo(0.1 / Math.hypot(0.02, 0.02), 9);
    expect(r.change.ci_low).toBeCloseTo(0.1 - Z95 * Math.hypot(0.02, 0.02), 12);
    // a null side of a difference is not testable either
    for (const k of ['value', 'ci_low', 'ci_high'] as const) {
      const gone = diffSummaries(run({}, { variants: two, differences: { p_a: { ...nullSe, [k]: null } } }), run({}, { variants: two, differences: { p_a: nullSe } }));
      expect(gone.scenarios[0].untestable).toEqual([{ metric: 'diff_p_a', where: 'variant alt' }]);
    }
  });

  it('cases in the after run only are listed by where they are (or by number without parameters or variants), and the trial counts are the largest', () => {
    const grid = (hps: number[], trials: number): SummaryDoc => ({
      name: 'g',
      system: 'fantasy',
      params: ['wall.hp'],
      variants: ['v'],
      cases: hps.map((hp, i) => ({ case: i + 1, variant: 'v', params: { 'wall.hp': hp }, trials: trials + i, metrics: { p_a: probMetric(1, 10) } })),
    });
    const d = diffSummaries(grid([10, 20], 500), grid([20, 30, 40], 800));
    expect(d.scenarios[0].only_after).toEqual(['wall.hp=30', 'wall.hp=40']);
    expect(d.scenarios[0].only_before).toEqual(['wall.hp=10']);
    expect(d.scenarios[0]).toMatchObject({ before_trials: 501, after_trials: 802, compared: 1 });
    // no parameter and one variant: the label is empty, so the case number stands for it
    const before = run({ p_a: probMetric(1, 10) });
    const after = run({ p_a: probMetric(1, 10) });
    after.cases.push({ ...after.cases[0], case: 2, variant: 'extra' });
    expect(diffSummaries(before, after).scenarios[0].only_after).toEqual(['case 2']);
    expect(diffSummaries(after, before).scenarios[0].only_before).toEqual(['case 2']);
  });

  it('a case whose parameters are written in another order is the same case', () => {
    const mk = (params: Record<string, unknown>, k: number): SummaryDoc => ({
      name: 'g',
      system: 'fantasy',
      params: ['wall.hp', 'wall.dc'],
      variants: ['v'],
      cases: [{ case: 1, variant: 'v', params, trials: 1000, metrics: { p_a: probMetric(k, 1000) } }],
    });
    const d = diffSummaries(mk({ 'wall.hp': 10, 'wall.dc': 12 }, 300), mk({ 'wall.dc': 12, 'wall.hp': 10 }, 400));
    expect(d.rows).toHaveLength(1);
    expect(d.scenarios[0].only_after).toEqual([]);
    expect(d.moved).toBe(1);
  });

  it('matched cases whose every metric is untestable are not "no case in common"', () => {
    const d = diffSummaries(run({ mean_x: { ...meanMetric(1, 0.1), n: 0 } }), run({ mean_x: { ...meanMetric(1, 0.1), n: 0 } }));
    expect(d.rows).toEqual([]);
    expect(d.untestable).toBe(1);
  });
});

describe('diff: runs that cannot be compared', () => {
  it('sets of runs with no scenario in common say what each holds', () => {
    expect(() => diffSets([run({}, { name: 'a' }), run({}, { name: 'b' })], [run({}, { name: 'c' })])).toThrow(
      new DiffError('no scenario in common (before: a, b; after: c)'),
    );
    expect(() => diffSets([], [run({}, { name: 'c' })])).toThrow(new DiffError('no scenario in common (before: none; after: c)'));
    expect(() => diffSets([run({}, { name: 'a' })], [])).toThrow(new DiffError('no scenario in common (before: a; after: none)'));
  });

  it('settings are compared only when both runs have them', () => {
    const withSettings = (settings: Record<string, unknown> | null): SummaryDoc => ({ ...run({ p_a: probMetric(1, 10) }), settings });
    expect(diffSummaries(withSettings({ 'wall.hp': 30 }), withSettings(null)).scenarios[0].settings).toBeNull();
    expect(diffSummaries(withSettings(null), withSettings({ 'wall.hp': 30 })).scenarios[0].settings).toBeNull();
    expect(diffSummaries(withSettings({ 'wall.hp': 30 }), withSettings({ 'wall.hp': 40 })).scenarios[0].settings).toEqual([{ key: 'wall.hp', before: 30, after: 40 }]);
  });
});

describe('diff: the settings read from a scenario as written', () => {
  it('a list is keyed by name only when every item is a map with a name of its own, all different; other lists and empty maps are values', () => {
    expect(
      scenarioSettings({
        plain: [1, 2],
        empty: [],
        unnamed: [{ a: 1 }, { a: 2 }],
        twice: [{ name: 'x', a: 1 }, { name: 'x', a: 2 }],
        numbered: [{ name: 1, a: 1 }],
        mixed: [{ name: 'x', a: 1 }, 3],
        named: [{ name: 'x', a: 1 }, { name: 'y', b: { c: 2 } }],
        nothing: {},
        none: null,
      }),
    ).toEqual({
      plain: [1, 2],
      empty: [],
      unnamed: [{ a: 1 }, { a: 2 }],
      twice: [{ name: 'x', a: 1 }, { name: 'x', a: 2 }],
      numbered: [{ name: 1, a: 1 }],
      mixed: [{ name: 'x', a: 1 }, 3],
      'named[x].a': 1,
      'named[y].b.c': 2,
      nothing: {},
      none: null,
    });
  });

  it("the file's own seed and trials stand unless the run's are given; anything but a map has no settings", () => {
    expect(scenarioSettings({ seed: 7, trials: 1000, wall: { hp: 3 } })).toEqual({ seed: 7, trials: 1000, 'wall.hp': 3 });
    expect(scenarioSettings({ seed: 7, trials: 1000 }, { seed: 0 })).toEqual({ seed: 0, trials: 1000 });
    expect(scenarioSettings({ seed: 7, trials: 1000 }, { trials: 5 })).toEqual({ seed: 7, trials: 5 });
    expect(scenarioSettings([{ name: 'x', a: 1 }])).toEqual({});
    expect(scenarioSettings(null, { seed: 1 })).toEqual({ seed: 1 });
  });

  it('settingChanges compares values as JSON and says null for a side that does not write one', () => {
    expect(settingChanges({ a: [1, 2], b: { c: 1 }, d: 1 }, { a: [1, 2], b: { c: 1 }, d: 1 })).toEqual([]);
    expect(settingChanges({ a: [1, 2] }, { a: [2, 1] })).toEqual([{ key: 'a', before: [1, 2], after: [2, 1] }]);
    expect(settingChanges({ a: 1 }, {})).toEqual([{ key: 'a', before: 1, after: null }]);
    expect(settingChanges({}, { b: 2 })).toEqual([{ key: 'b', before: null, after: 2 }]);
  });
});

describe('diff: what a row and a refusal carry', () => {
  it("a metric row's sides are the run's estimate, its n and its trials; the change is Newcombe's interval", () => {
    const r = diffSummaries(run({ p_a: probMetric(300, 1000) }, { trials: 1000 }), run({ p_a: probMetric(360, 1000) }, { trials: 1200 })).rows[0];
    const b = wilson(300, 1000);
    const a = wilson(360, 1000);
    expect(r.before).toEqual({ value: b.value, ci_low: b.ci_low, ci_high: b.ci_high, n: 1000, trials: 1000 });
    expect(r.after).toEqual({ value: a.value, ci_low: a.ci_low, ci_high: a.ci_high, n: 1000, trials: 1200 });
    expect(r.change.ci_low).toBeCloseTo(0.06 - Math.hypot(a.value - a.ci_low, b.ci_high - b.value), 14);
    expect(r.change.ci_high).toBeCloseTo(0.06 + Math.hypot(a.ci_high - a.value, b.value - b.ci_low), 14);
    expect(r).toMatchObject({ scenario: 's', case: 1, variant: 'only', params: {}, where: '', metric: 'p_a' });
    expect(r).not.toHaveProperty('baseline');
  });

  it('another baseline is said only when some case has differences to compare', () => {
    const mk = (base: string, differences?: Record<string, Difference>) => run({ p_a: probMetric(1, 10) }, { variants: [base, 'alt'], differences });
    expect(diffSummaries(mk('a'), mk('b')).scenarios[0]).not.toHaveProperty('differences_not_compared');
    expect(diffSummaries(mk('a', {}), mk('b', {})).scenarios[0]).not.toHaveProperty('differences_not_compared');
    const d: Difference = { value: 0.1, ci_low: 0, ci_high: 0.2, se: 0.05 };
    expect(diffSummaries(mk('a', { p_a: d }), mk('b')).scenarios[0].differences_not_compared).toBe('the baseline variant is "a" before and "b" after');
    expect(diffSummaries(mk('a'), mk('b', { p_a: d })).scenarios[0].differences_not_compared).toBe('the baseline variant is "a" before and "b" after');
  });

  it('a refusal is a DiffError by name', () => {
    let e: unknown;
    try {
      diffSets([run({}, { name: 'a' })], [run({}, { name: 'b' })]);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(DiffError);
    expect((e as Error).name).toBe('DiffError');
    expect(() => diffSummaries(run({}, { name: 'a' }), run({}, { name: 'b' }))).toThrow(/different scenarios/);
  });
});

describe('diff: the rest of what survived the first run of npm run mutate', () => {
  it('"no scenario in common" lists every name on each side; "no case in common" names every scenario', () => {
    expect(() => diffSets([run({}, { name: 'a' })], [run({}, { name: 'c' }), run({}, { name: 'd' })])).toThrow(new DiffError('no scenario in common (before: a; after: c, d)'));
    const moved = (name: string, hp: number): SummaryDoc => ({
      name,
      system: 'fantasy',
      params: ['wall.hp'],
      variants: ['v'],
      cases: [{ case: 1, variant: 'v', params: { 'wall.hp': hp }, trials: 10, metrics: { p_a: probMetric(1, 10) } }],
    });
    expect(() => diffSets([moved('a', 1), moved('b', 1)], [moved('a', 2), moved('b', 2)])).toThrow(
      new DiffError('no case in common: cases are matched by their swept parameters and variant names (a, b)'),
    );
  });

  it('no row at all is still a diff when some scenario had a case in common (its metrics untestable)', () => {
    const untestable = run({ mean_x: { ...meanMetric(1, 0.1), n: 0 } }, { name: 'a' });
    const apart = (name: string, hp: number): SummaryDoc => ({
      name,
      system: 'fantasy',
      params: ['wall.hp'],
      variants: ['v'],
      cases: [{ case: 1, variant: 'v', params: { 'wall.hp': hp }, trials: 10, metrics: { p_a: probMetric(1, 10) } }],
    });
    const d = diffSets([untestable, apart('b', 1)], [untestable, apart('b', 2)]);
    expect(d.rows).toEqual([]);
    expect(d.untestable).toBe(1);
  });

  it('parameters are told apart however their names and values run together', () => {
    const one = (params: Record<string, unknown>): SummaryDoc => ({
      name: 'g',
      system: 'fantasy',
      params: Object.keys(params),
      variants: ['v'],
      cases: [{ case: 1, variant: 'v', params, trials: 10, metrics: { p_a: probMetric(1, 10) } }],
    });
    // without a separator between parameters both would read a=1b=2: not the same case
    expect(() => diffSummaries(one({ a: 1, b: 2 }), one({ 'a=1b': 2 }))).toThrow(/no case in common/);
    expect(diffSummaries(one({ a: 1, b: 2 }), one({ b: 2, a: 1 })).rows).toHaveLength(1);
  });

  it("a difference's kind is the one either run gives its metric, whatever the metric's name", () => {
    const two = ['base', 'alt'];
    const diffOf = (value: number): Difference => ({ value, ci_low: value - 0.01, ci_high: value + 0.01, se: 0.01 / Z95, paired: true });
    const prob = { ...probMetric(5, 10) }; // kind probability under names without p_
    const d = diffSummaries(
      run({ share: prob }, { variants: two, differences: { share: diffOf(0.1), rate: diffOf(0.1) } }),
      run({ rate: prob }, { variants: two, differences: { share: diffOf(0.1), rate: diffOf(0.1) } }),
    );
    expect(d.rows.filter((r) => r.baseline).map((r) => `${r.metric} ${r.kind}`)).toEqual(['diff_share probability', 'diff_rate probability']);
  });
});

describe('diff: a conditional mean whose event moved averages different trials', () => {
  it('the event named in either run (here the before run only) is tested, and the row says over which trials', () => {
    const before = { ...meanMetric(3, 0.02, 872), conditional_on: 'p_event' };
    const after = meanMetric(3, 0.02, 96);
    const [r] = diffSummaries(run({ mean_x: before }), run({ mean_x: after })).rows;
    expect(r).toMatchObject({ over_different_trials: { event: 'p_event', before: 0.872, after: 0.096 } });
    // named in the after run only: the same
    const [s] = diffSummaries(run({ mean_x: { ...before, conditional_on: undefined } }), run({ mean_x: { ...after, conditional_on: 'p_event' } })).rows;
    expect(s).toMatchObject({ over_different_trials: { event: 'p_event', before: 0.872, after: 0.096 } });
    // an event that did not move: no such note
    const [t] = diffSummaries(run({ mean_x: before }), run({ mean_x: { ...after, n: 870 } })).rows;
    expect(t).not.toHaveProperty('over_different_trials');
  });
});
