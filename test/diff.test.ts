/** `siegesim diff` (src/api/diff.ts) and the statistics under it. */
import { describe, expect, it } from 'vitest';
import { diffSets, diffSummaries, DiffError, scenarioSettings, settingChanges, tunedName, type SummaryDoc } from '../src/api.js';
import { sameScenario } from '../src/api/diff.js';
import { diffMarkdown, diffText } from '../src/report/diff-report.js';
import { MSG } from '../src/scenario/messages.js';
import { fixedSide, pText } from '../src/report/format.js';
import {
  differenceInterval,
  holmAdjust,
  meanInterval,
  normalUpperTail,
  pTwoSided,
  rescaleInterval,
  welchDifference,
  wilson,
  Z95,
  zForConfidence,
  zTwoProportions,
} from '../src/stats/intervals.js';

describe('statistics for balance checks', () => {
  it('z of a confidence level', () => {
    expect(zForConfidence(0.95)).toBe(Z95);
    expect(zForConfidence(0.999)).toBeCloseTo(3.2905267314919, 8);
    expect(zForConfidence(0.99)).toBeCloseTo(2.5758293035489, 8);
  });

  it('normal tail, accurate in relative terms far out (Abramowitz & Stegun 26.2 values)', () => {
    expect(normalUpperTail(0)).toBeCloseTo(0.5, 7);
    expect(normalUpperTail(Z95) / 0.025).toBeCloseTo(1, 6);
    expect(normalUpperTail(5) / 2.866515718791939e-7).toBeCloseTo(1, 5);
    expect(normalUpperTail(10) / 7.619853024160527e-24).toBeCloseTo(1, 5);
    expect(normalUpperTail(-Z95)).toBeCloseTo(0.975, 7);
    expect(pTwoSided(-Z95)).toBeCloseTo(0.05, 7);
  });

  it("Holm's step-down adjustment", () => {
    expect(holmAdjust([0.01, 0.04, 0.03])).toEqual([0.03, 0.06, 0.06]);
    expect(holmAdjust([0.5, NaN, 0.9])).toEqual([1, NaN, 1]);
    expect(holmAdjust([0.001, NaN, 0.9])).toEqual([0.002, NaN, 0.9]);
    expect(holmAdjust([])).toEqual([]);
  });

  it('pooled two-proportion z, and the square-and-add interval of a difference', () => {
    expect(zTwoProportions(0.5, 1000, 0.55, 1000)).toBeCloseTo(0.05 / Math.sqrt(0.525 * 0.475 * 0.002), 12);
    expect(zTwoProportions(0, 1000, 0, 2000)).toBe(0);
    // for two normal intervals it is Welch's interval
    const a = { n: 50, sum: 100, sumSq: 260 };
    const b = { n: 40, sum: 100, sumSq: 300 };
    const d = differenceInterval(meanInterval(a), meanInterval(b));
    const w = welchDifference(b, a);
    expect(d.value).toBeCloseTo(w.value, 12);
    expect(d.ci_low).toBeCloseTo(w.ci_low, 12);
    expect(d.ci_high).toBeCloseTo(w.ci_high, 12);
    // Newcombe (1998) method 10, his example 56/70 vs 48/80: [0.0524, 0.3339]
    const n = differenceInterval(wilson(48, 80), wilson(56, 70));
    expect(n.ci_low).toBeCloseTo(0.0524, 4);
    expect(n.ci_high).toBeCloseTo(0.3339, 4);
    expect(rescaleInterval({ value: 1, ci_low: 0, ci_high: 2 }, 2 * Z95)).toEqual({ value: 1, ci_low: -1, ci_high: 3 });
  });
});

/** A summary.json of a 2 x 2 sweep with two variants; `shift` moves one metric of one case. */
function doc(opts: { shift?: number; n?: number; reverse?: boolean; name?: string; system?: string; kind?: boolean } = {}): SummaryDoc {
  const n = opts.n ?? 100_000;
  const cases: SummaryDoc['cases'] = [];
  let k = 0;
  for (const hp of [30, 40]) {
    for (const variant of ['as-written', 'lenient']) {
      k++;
      const p = 0.3 + 0.1 * k + (hp === 40 && variant === 'lenient' ? (opts.shift ?? 0) : 0);
      const w = wilson(Math.round(p * n), n);
      const mean = meanInterval({ n, sum: 3 * n, sumSq: 10 * n }); // sd 1
      const kind = opts.kind === false ? {} : undefined;
      cases.push({
        case: hp === 30 ? 1 : 2,
        variant,
        params: { 'wall.hp': hp, 'wall.dc': 12 },
        trials: n,
        metrics: {
          p_breach: { value: w.value, ci_low: w.ci_low, ci_high: w.ci_high, n, ...(kind ?? { kind: 'probability' as const }) },
          mean_rounds: { value: mean.value, ci_low: mean.ci_low, ci_high: mean.ci_high, n, ...(kind ?? { kind: 'mean' as const }) },
          mean_breach_round: { value: null, ci_low: null, ci_high: null, n: 0, kind: 'mean' },
        },
      });
    }
  }
  if (opts.reverse) cases.reverse();
  return { name: opts.name ?? 'grid', system: opts.system ?? 'fantasy', params: ['wall.hp', 'wall.dc'], variants: ['as-written', 'lenient'], cases };
}

describe('diff', () => {
  it('matches cases by parameters and variant, not by position, and finds the one that moved', () => {
    const d = diffSummaries(doc(), doc({ shift: 0.02, reverse: true }));
    expect(d.rows).toHaveLength(8); // 4 cases x 2 defined metrics
    expect(d.moved).toBe(1);
    expect(d.unchanged).toBe(7);
    const [m] = d.rows.filter((r) => r.moved);
    expect(m).toMatchObject({ metric: 'p_breach', variant: 'lenient', params: { 'wall.hp': 40, 'wall.dc': 12 }, where: 'wall.hp=40, wall.dc=12, variant lenient' });
    expect(m.change.value).toBeCloseTo(0.02, 10);
    expect(m.change.ci_low).toBeGreaterThan(0.015);
    expect(m.change.ci_high).toBeLessThan(0.025);
    // the undefined mean (no observations) is counted as not testable, never as a change
    expect(d.untestable).toBe(4);
    for (const r of d.rows.filter((x) => !x.moved)) expect(r.change.value).toBe(0);
  });

  it('Holm: a change too small for the family-wise alpha is not reported, a larger alpha reports it', () => {
    // 0.003 on n = 100,000 is z ~ 1.4 before correction: not a change at alpha 0.001
    expect(diffSummaries(doc(), doc({ shift: 0.003 })).moved).toBe(0);
    expect(diffSummaries(doc(), doc({ shift: 0.01 })).moved).toBe(1); // z ~ 4.6: p_holm ~ 3e-5
    const d = diffSummaries(doc(), doc({ shift: 0.005 })); // z ~ 2.3: p ~ 0.02, x 8 comparisons
    expect(d.moved).toBe(0);
    const moved = d.rows.find((r) => r.change.value !== 0)!;
    expect(moved.p_holm).toBeCloseTo(Math.min(1, 8 * moved.p), 12);
    expect(diffSummaries(doc(), doc({ shift: 0.005 }), { alpha: 0.2 }).moved).toBe(1);
  });

  it('a scenario and its workbench copy (<name>-tuned) compare, either way round, and say that the names differ; --ignore-name compares any two', () => {
    const d = diffSummaries(doc(), doc({ shift: 0.02, name: tunedName('grid') }));
    expect(d.moved).toBe(1);
    expect(d.scenarios[0]).toMatchObject({ name: 'grid-tuned', before_name: 'grid' });
    expect(d.rows.every((r) => r.scenario === 'grid-tuned')).toBe(true);
    expect(diffText(d).split('\n')[0]).toBe('grid-tuned (fantasy) against grid before (the names differ): 8 comparison(s), 100,000 trials before, 100,000 after');
    expect(diffMarkdown(d)).toContain('Scenarios: grid-tuned against grid before (the names differ) (100,000 → 100,000 trials per case).');
    expect(diffSummaries(doc({ name: 'grid-tuned' }), doc()).scenarios[0]).toMatchObject({ name: 'grid', before_name: 'grid-tuned' });
    // the same name: nothing said
    expect(diffSummaries(doc(), doc()).scenarios[0].before_name).toBeUndefined();
    expect(diffText(diffSummaries(doc(), doc())).split('\n')[0]).toBe('grid (fantasy): 8 comparison(s), 100,000 trials before, 100,000 after');
    // a long name is cut to fit its suffix (tunedName), and still pairs with its copy
    const long = 'x'.repeat(118);
    expect(sameScenario(long, tunedName(long))).toBe(true);
    expect(tunedName(long)).not.toBe(`${long}-tuned`);
    // not any suffix, nor a copy of a copy
    expect(sameScenario('grid', 'grid-tuned-tuned')).toBe(false);
    expect(sameScenario('grid', 'grid-2')).toBe(false);
    expect(() => diffSummaries(doc(), doc({ name: 'grid-2' }))).toThrow(DiffError);
    expect(diffSummaries(doc(), doc({ name: 'grid-2' }), { ignoreName: true }).scenarios[0]).toMatchObject({ name: 'grid-2', before_name: 'grid' });
    // a different system is still refused, whatever the names
    expect(() => diffSummaries(doc(), doc({ name: 'grid-tuned', system: 'surrender' }))).toThrow(DiffError);
  });

  it('identical runs: nothing moves', () => {
    const d = diffSummaries(doc(), doc());
    expect(d.moved).toBe(0);
    expect(d.rows.every((r) => r.p === 1)).toBe(true);
  });

  it('summary.json files without `kind` are read by the p_ naming', () => {
    const d = diffSummaries(doc({ kind: false }), doc({ kind: false, shift: 0.02 }));
    expect(d.rows.find((r) => r.metric === 'p_breach')!.kind).toBe('probability');
    expect(d.rows.find((r) => r.metric === 'mean_rounds')!.kind).toBe('mean');
    expect(d.moved).toBe(1);
  });

  it('cannot compare different scenarios or systems, or runs with no case in common (the reason says why)', () => {
    expect(() => diffSummaries(doc(), doc({ name: 'other' }))).toThrow(new DiffError(MSG.diffDifferentScenarios('grid', 'other')));
    expect(MSG.diffDifferentScenarios('grid', 'other')).toBe('different scenarios: "grid" before, "other" after (--ignore-name compares them anyway)');
    const sameName = 'different rules systems: "grid" is a fantasy scenario before and a surrender one after; runs of different rules systems cannot be compared';
    expect(() => diffSummaries(doc(), doc({ system: 'surrender' }))).toThrow(new DiffError(sameName));
    expect(() => diffSets([doc()], [doc({ system: 'surrender' })])).toThrow(new DiffError(sameName));
    // two systems under two names: each name goes with its own system, with --ignore-name or
    // without, and no flag is suggested (none compares two systems)
    const twoNames = 'different rules systems: "grid" before is a fantasy scenario, "siege" after a surrender one; runs of different rules systems cannot be compared';
    for (const ignoreName of [false, true]) {
      expect(() => diffSummaries(doc(), doc({ name: 'siege', system: 'surrender' }), { ignoreName })).toThrow(new DiffError(twoNames));
    }
    expect(twoNames).not.toContain('--ignore-name');
    const moved = doc();
    for (const c of moved.cases) c.params = { 'wall.hp': (c.params['wall.hp'] as number) + 1, 'wall.dc': 12 };
    expect(() => diffSummaries(doc(), moved)).toThrow(/no case in common/);
  });

  it('cases in one run only are listed, not compared; folders of reports are matched by name', () => {
    const after = doc({ shift: 0.02 });
    after.cases = after.cases.slice(1);
    const d = diffSets([doc(), doc({ name: 'gone' })], [after, doc({ name: 'new' })]);
    expect(d.scenarios[0].only_before).toEqual(['wall.hp=30, wall.dc=12, variant as-written']);
    expect(d.only_before).toEqual(['gone']);
    expect(d.only_after).toEqual(['new']);
    expect(d.moved).toBe(1);
  });

  it('prints what moved, by how much, with an interval, and how many did not (text and Markdown)', () => {
    const d = diffSummaries(doc(), doc({ shift: 0.02 }));
    const text = diffText(d);
    expect(text).toContain('1 of 8 comparisons moved significantly (two-sample tests, Holm-corrected over all 8, alpha 0.001); 7 showed no significant change');
    // which 7: each metric once, with its case or how many
    expect(text).toContain('\ngrid: no significant change: p_breach in 3 cases, mean_rounds in 4 cases\n');
    expect(text).toMatch(/grid\s+wall\.hp=40, wall\.dc=12, variant lenient\s+p_breach\s+0\.7\s+0\.72\s+\+0\.0200 \[\+0\.01\d\d, \+0\.02\d\d\]\s+[\d.e-]+\n/);
    const md = diffMarkdown(d);
    expect(md).toContain('### ⚠️ siegesim diff: 1 of 8 metrics moved');
    expect(md).toContain('| scenario | where | metric | before | after | change [95% CI] | p (Holm) |');
    expect(md).toMatch(/\| grid \| wall\.hp=40, wall\.dc=12, variant lenient \| `p_breach` \| 0\.7 \| 0\.72 \| \+0\.0200 \[\+0\.01\d\d, \+0\.02\d\d\] \| [\d.e-]+ \|/);
    expect(md).toContain('<summary>Not compared</summary>');
    expect(md).toContain('- grid: not testable (undefined or missing on one side): mean_breach_round in 4 cases');
    expect(md).toContain('<details><summary>No significant change (a change smaller than these runs detect is not ruled out)</summary>\n\n- grid: no significant change: p_breach in 3 cases, mean_rounds in 4 cases\n');
    expect(diffMarkdown(diffSummaries(doc(), doc()))).toContain('### ✅ siegesim diff: 0 of 8 metrics moved');
  });
});

/**
 * `doc()` with each lenient case's paired difference from the baseline in p_breach (summary.json's
 * `differences`): `value` (+ `shift` at wall.hp 40), SE `se`; `oldFile` leaves out se and paired
 * (files written before they were recorded), `baseline` renames the baseline variant.
 */
function docWithDiffs(opts: { value?: number; shift?: number; se?: number; oldFile?: boolean; baseline?: string; missing?: boolean } = {}): SummaryDoc {
  const d = doc();
  const se = opts.se ?? 0.002;
  if (opts.baseline) {
    d.variants = [opts.baseline, 'lenient'];
    for (const c of d.cases) if (c.variant === 'as-written') c.variant = opts.baseline;
  }
  for (const c of d.cases) {
    if (c.variant !== 'lenient') continue;
    const value = (opts.value ?? 0.1) + (c.params['wall.hp'] === 40 ? (opts.shift ?? 0) : 0);
    c.differences = {
      p_breach: { value, ci_low: value - Z95 * se, ci_high: value + Z95 * se, ...(opts.oldFile ? {} : { se, paired: true }) },
      mean_rounds: opts.missing ? { value: null, ci_low: null, ci_high: null } : { value: 0, ci_low: -0.01, ci_high: 0.01, ...(opts.oldFile ? {} : { se: 0.01 / Z95, paired: false }) },
    };
  }
  return d;
}

describe('diff: each variant\'s difference from the baseline (diff_<metric>), between the two runs', () => {
  it('is compared as after − before of the two differences, z on √(se_before² + se_after²), in the same Holm family as the metrics', () => {
    const d = diffSummaries(docWithDiffs(), docWithDiffs({ shift: 0.02, se: 0.003 }));
    const rows = d.rows.filter((r) => r.metric.startsWith('diff_'));
    // 2 lenient cases x 2 differences, after each case's metrics
    expect(rows.map((r) => `${r.where} ${r.metric}`)).toEqual([
      'wall.hp=30, wall.dc=12, variant lenient diff_p_breach',
      'wall.hp=30, wall.dc=12, variant lenient diff_mean_rounds',
      'wall.hp=40, wall.dc=12, variant lenient diff_p_breach',
      'wall.hp=40, wall.dc=12, variant lenient diff_mean_rounds',
    ]);
    expect(d.rows).toHaveLength(8 + 4);
    expect(d.rows.indexOf(rows[0])).toBe(4); // case 1's lenient metrics (2 rows) come first, after the baseline's
    const moved = rows[2];
    expect(moved).toMatchObject({ kind: 'probability', baseline: 'as-written', moved: true, before: { value: 0.1, se: 0.002, n: 100_000, trials: 100_000 }, after: { se: 0.003 } });
    expect(moved.z).toBeCloseTo(0.02 / Math.hypot(0.002, 0.003), 10);
    expect(moved.change.value).toBeCloseTo(0.02, 12);
    expect(moved.change.ci_high - moved.change.value).toBeCloseTo(Z95 * Math.hypot(0.002, 0.003), 12);
    expect(rows[3].kind).toBe('mean');
    expect(d.moved).toBe(1);
    // one family: a difference's Holm factor counts every comparison, metrics and differences (12)
    const small = diffSummaries(docWithDiffs(), docWithDiffs({ shift: 0.006 }));
    const r = small.rows.find((x) => x.metric === 'diff_p_breach' && x.change.value !== 0)!;
    expect(r.p).toBeCloseTo(pTwoSided(0.006 / Math.hypot(0.002, 0.002)), 12);
    expect(r.p_holm).toBeCloseTo(Math.min(1, 12 * r.p), 12);
    expect(r.moved).toBe(false); // z ~ 2.1: not a change once corrected
    // identical runs: nothing moves
    const same = diffSummaries(docWithDiffs(), docWithDiffs());
    expect(same.moved).toBe(0);
    expect(same.rows.filter((x) => x.baseline).every((x) => x.p === 1)).toBe(true);
  });

  it('reads the SE off the interval in a summary.json written before se was recorded', () => {
    const d = diffSummaries(docWithDiffs({ oldFile: true }), docWithDiffs({ oldFile: true, shift: 0.02 }));
    const r = d.rows.find((x) => x.metric === 'diff_p_breach' && x.moved)!;
    expect(r.before.se).toBeCloseTo(0.002, 12);
    expect(r.z).toBeCloseTo(0.02 / Math.hypot(0.002, 0.002), 8);
  });

  it('a difference undefined on one side is not testable; another baseline variant is not compared, and says why', () => {
    const d = diffSummaries(docWithDiffs(), docWithDiffs({ missing: true }));
    expect(d.rows.filter((r) => r.metric === 'diff_mean_rounds')).toEqual([]);
    expect(d.scenarios[0].untestable.filter((u) => u.metric === 'diff_mean_rounds')).toHaveLength(2);
    const other = diffSummaries(docWithDiffs(), docWithDiffs({ baseline: 'strict', shift: 0.5 }));
    expect(other.rows.filter((r) => r.baseline !== undefined)).toEqual([]);
    expect(other.scenarios[0].differences_not_compared).toBe('the baseline variant is "as-written" before and "strict" after');
    expect(diffText(other)).toContain('grid: differences between variants not compared: the baseline variant is "as-written" before and "strict" after');
    // runs without variants' differences (or the same baseline) say nothing of it
    expect(diffSummaries(doc(), doc()).scenarios[0]).not.toHaveProperty('differences_not_compared');
  });

  it('text and Markdown: the count says how many are differences, and a moved diff_ row says what it is', () => {
    const d = diffSummaries(docWithDiffs(), docWithDiffs({ shift: 0.02 }));
    const text = diffText(d);
    expect(text).toContain('grid (fantasy): 12 comparison(s), 100,000 trials before, 100,000 after');
    expect(text).toContain('1 of 12 comparisons moved significantly (two-sample tests, on 8 metrics and 4 differences between variants, Holm-corrected over all 12, alpha 0.001); 11 showed no significant change');
    expect(text).toMatch(/grid\s+wall\.hp=40, wall\.dc=12, variant lenient\s+diff_p_breach\s+0\.1\s+0\.12\s+\+0\.020\d? \[\+0\.01\d+, \+0\.02\d+\]\s+[\d.e-]+\n/);
    expect(text).toContain('  diff_<metric>: the variant\'s difference from the baseline (as-written) on the same dice, in each run; "change" is how much that difference moved between the runs');
    // the one difference that did not move is named with its case
    expect(text).toContain('diff_p_breach (wall.hp=30, wall.dc=12, variant lenient)');
    const md = diffMarkdown(d);
    expect(md).toContain('### ⚠️ siegesim diff: 1 of 12 metrics and differences moved');
    expect(md).toContain('and on each variant\'s difference from the baseline (8 metrics, 4 differences), Holm-corrected over all 12 comparisons');
    expect(md).toMatch(/\| grid \| wall\.hp=40, wall\.dc=12, variant lenient \| `diff_p_breach` \| 0\.1 \| 0\.12 \| \+0\.020\d? \[/);
    expect(md).toContain('`diff_<metric>`: the variant\'s difference from the baseline (as-written)');
    // runs without differences: no such line
    expect(diffText(diffSummaries(doc(), doc({ shift: 0.02 })))).not.toContain('diff_<metric>');
  });
});

describe('p-values as the diff prints them', () => {
  it('a p-value that underflowed to 0 (a change of 40 standard errors and more) is printed as "< 1e-300", never "0.0e+0"', () => {
    expect(pText(0)).toBe('< 1e-300');
    expect(pText(1.2e-80)).toBe('1.2e-80');
    expect(pText(0.0342)).toBe('0.034');
  });
});

describe('which settings differ between the two runs', () => {
  const file = {
    name: 'keep',
    description: 'not a setting',
    system: 'fantasy',
    seed: 7,
    trials: 1000,
    wall: { type: 'stone', hp: 30, dc: 12 },
    sweep: { 'wall.dc': [8, 12, 16] },
    variants: [{ name: 'as-written' }, { name: 'lenient', set: { 'rules.climb_comparison': 'gt' } }],
    expect: [{ metric: 'p_breach', at_least: 0.5 }],
  };

  it('are the file as written, by dotted path (variants by name), with the run\'s own seed and trials; name, description and expect: are not settings', () => {
    expect(scenarioSettings(file, { seed: 7, trials: 2000 })).toEqual({
      system: 'fantasy',
      seed: 7,
      trials: 2000,
      'wall.type': 'stone',
      'wall.hp': 30,
      'wall.dc': 12,
      'sweep.wall.dc': [8, 12, 16],
      'variants[lenient].set.rules.climb_comparison': 'gt',
    });
  });

  it('lists each changed, added or dropped setting (null: not written) and says them in the text and the Markdown', () => {
    const before = scenarioSettings(file);
    const after = scenarioSettings({ ...file, wall: { type: 'stone', hp: 40, dc: 12, breach_threshold: 3 }, variants: [{ name: 'as-written' }] });
    expect(settingChanges(before, after)).toEqual([
      { key: 'wall.hp', before: 30, after: 40 },
      { key: 'variants[lenient].set.rules.climb_comparison', before: 'gt', after: null },
      { key: 'wall.breach_threshold', before: null, after: 3 },
    ]);
    const d = diffSummaries({ ...doc(), settings: before }, { ...doc(), settings: { ...before, 'wall.hp': 40 } });
    expect(d.scenarios[0].settings).toEqual([{ key: 'wall.hp', before: 30, after: 40 }]);
    expect(diffText(d).split('\n')[1]).toBe('  settings that differ: wall.hp: 30 -> 40');
    expect(diffMarkdown(d)).toContain('\ngrid: settings that differ: `wall.hp`: 30 → 40.\n');
    const added = diffSummaries({ ...doc(), settings: before }, { ...doc(), settings: after });
    expect(diffText(added).split('\n')[1]).toContain("variants[lenient].set.rules.climb_comparison: gt -> (not written: the rules' default)");
    // alike, and not known (a summary.json without the scenario copy its report folder keeps)
    expect(diffText(diffSummaries({ ...doc(), settings: before }, { ...doc(), settings: before })).split('\n')[1]).toBe(`  ${MSG.diffSettingsSame()}`);
    const unknown = diffSummaries(doc(), { ...doc(), settings: before });
    expect(unknown.scenarios[0].settings).toBeNull();
    // which side, and why (the command line says which file could not be read, and how)
    expect(unknown.scenarios[0].settings_unknown).toEqual(['before: a summary.json alone, without the scenario.yaml its report folder keeps']);
    expect(diffText(unknown).split('\n')[1]).toBe('  settings that differ: not known (before: a summary.json alone, without the scenario.yaml its report folder keeps)');
    const told = diffSummaries({ ...doc(), settings: null, settingsUnknown: 'r/scenario.yaml:3:1: YAML syntax error' }, { ...doc(), settings: null, settingsUnknown: 'q/scenario.yaml: no such file or folder' });
    expect(diffText(told).split('\n')[1]).toBe('  settings that differ: not known (before: r/scenario.yaml:3:1: YAML syntax error; after: q/scenario.yaml: no such file or folder)');
  });
});

describe('intervals keep their side of 0', () => {
  it('fixedSide gives a non-zero end the decimals that show its sign, and never writes -0', () => {
    expect(fixedSide(0.0002, 1)).toBe('0.0002');
    expect(fixedSide(0.02, 1)).toBe('0.02');
    expect(fixedSide(0.3, 1)).toBe('0.3');
    expect(fixedSide(-0.00004, 2)).toBe('-0.00004');
    expect(fixedSide(-0, 1)).toBe('0.0');
    expect(fixedSide(0, 3)).toBe('0.000');
    expect(fixedSide(-1e-14, 1)).toBe('-1.0e-14');
    expect(fixedSide(0.25, 1)).toBe((0.25).toFixed(1));
  });
});
