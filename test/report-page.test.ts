/**
 * The report page: it leads with the answer, shows small numbers
 * in a form that keeps their meaning, keeps the engine's own metrics out of the designer's
 * table, and links to an index only when there is one.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runScenario, validateText } from '../src/api.js';
import { show, showCount, showHtml, showInterval } from '../src/report/format.js';
import { answerMetrics } from '../src/api/answer.js';
import { extremeOf, glossaryHtml, indexAnswerHtml, indexPage, rangeTable, scenarioPage } from '../src/report/html.js';
import { summaryCsv, summaryJson } from '../src/report/tables.js';
import { answerText, rangeText } from '../src/report/answer-text.js';
import { writeIndex } from '../src/report/write.js';
import { systemById } from '../src/systems/registry.js';
import type { ScenarioResult } from '../src/systems/types.js';
import { ROOT, runFile } from './helpers.js';

/** Whether a colour reads as red, green or neither (a hue on the wheel, in degrees; greys are neutral). */
function hueKind(hex: string): 'red' | 'green' | 'neutral' {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max - min < 0.15) return 'neutral';
  const d = max - min;
  const h = max === r ? (60 * ((g - b) / d) + 360) % 360 : max === g ? 60 * ((b - r) / d) + 120 : 60 * ((r - g) / d) + 240;
  if (h < 18 || h >= 330) return 'red';
  if (h >= 75 && h < 165) return 'green';
  return 'neutral';
}

function page(r: ScenarioResult, indexHref?: string): string {
  const sys = systemById(r.system)!;
  return scenarioPage(r, sys.charts(r), ['summary.csv'], { headline: sys.headline, outcomes: sys.outcomes, indexHref });
}

describe('numbers on the page keep their meaning', () => {
  it('a tail probability is not 0.0000, a near-certainty is not 1.0000, an exact value is exact', () => {
    expect(show(7.68291173867e-7)).toBe('7.7e-7');
    expect(showHtml(7.68291173867e-7)).toBe('7.7×10<sup>−7</sup>');
    expect(show(0.0000192069251904)).toBe('1.9e-5');
    expect(show(0)).toBe('0');
    expect(show(1)).toBe('1');
    expect(show(3)).toBe('3');
    expect(show(0.99998)).toBe('0.99998');
    expect(show(0.999995)).toBe('0.999995');
    expect(show(2.999975)).toBe('2.99998');
    expect(show(1 - 3e-12)).toBe('(1 - 3.0e-12)');
    expect(show(0.311945)).toBe('0.3119');
    expect(show(-0.0255)).toBe('-0.0255');
    expect(show(-1.2e-5)).toBe('-1.2e-5');
    expect(showHtml(-0.0255)).toBe('−0.0255');
    expect(show(123.456)).toBe('123.5');
    expect(show(NaN)).toBe('–');
    // never a value that reads as a different number: every shown value parses back to within its rounding
    for (const x of [0.00012, 0.0012, 0.012, 0.5, 0.9999, 0.99991, 0.999949, 0.99995, 0.9999951, 1.5, 13.5475, 99.99997]) {
      const s = show(x);
      expect(s, String(x)).not.toMatch(/^1\.0+$|^0\.0+$/);
      expect(Math.abs(Number(s) - x), `${x} shown as ${s}`).toBeLessThanOrEqual(Math.abs(x - Math.round(x)) / 2 + 5e-5);
    }
  });
});

describe('the scenario page', () => {
  let citadel: ScenarioResult;
  let grid: ScenarioResult;
  let siege: ScenarioResult;
  beforeAll(async () => {
    citadel = await runFile('scenarios/surrender/hopeless-citadel.yaml', 1_000_000);
    grid = await runFile('scenarios/surrender/heavy-guns-grid.yaml', 4000);
    siege = await runFile('scenarios/crusader-rex/case-a-new-siege.yaml', 2000);
  });

  it('shows the upper bound of a zero tail (the CSV keeps 12 digits, the page two significant ones)', () => {
    const html = page(citadel);
    const row = summaryCsv(citadel).split('\n').find((l) => l.startsWith('1,as-written,p_surrender,'))!;
    const hi = Number(row.split(',')[5]);
    expect(hi).toBeGreaterThan(1e-7);
    expect(hi).toBeLessThan(1e-5);
    expect(html).toContain(`[0, ${showHtml(hi)}]`);
    expect(html).not.toContain('0.0000 [0.0000, 0.0000]');
  });

  it('leads with the answer: the headline, then every metric; p_guard stays out of the table', () => {
    const html = page(siege);
    const answer = html.indexOf('<h2>Answer');
    const all = html.indexOf('<h2>All metrics');
    expect(answer).toBeGreaterThan(0);
    expect(all).toBeGreaterThan(answer);
    const head = html.slice(answer, all);
    for (const m of ['p_attacker_wins', 'p_defender_holds', 'p_castle_falls']) expect(head).toContain(m);
    expect(html).not.toContain('p_guard');
    expect(siege.cases[0].metrics.p_guard).toBeDefined();
    // a run whose guard fired says so at the top
    const broken = { ...siege, cases: siege.cases.map((c, i) => (i === 0 ? { ...c, metrics: { ...c.metrics, p_guard: { ...c.metrics.p_guard, value: 0.001 } } } : c)) };
    expect(page(broken)).toMatch(/class="notice"><code>p_guard<\/code>/);
  });

  it("the answer shows every way a trial ends (the system's outcome partition, in its order), so it accounts for all the trials", async () => {
    const starve = await runFile('scenarios/crusader-rex/attrition-exact.yaml', 2000); // an existing siege, no relief: mostly it goes on
    const melee = await runFile('scenarios/cry-havoc/melee-two-on-one.yaml', 2000); // mostly undecided at the cap
    delete melee.headline; // the system's answer (the file's `headline:` leads with its mean turns: e2e/headline.test.ts)
    const cases: [ScenarioResult, string[], string[]][] = [
      [starve, ['p_attacker_wins', 'p_defender_holds', 'p_siege_continues', 'p_both_gone'], ['p_castle_falls']],
      [melee, ['p_defender_killed', 'p_attacker_killed', 'p_undecided', 'p_no_attack'], []],
      [siege, ['p_attacker_wins', 'p_defender_holds', 'p_siege_continues', 'p_both_gone'], ['p_castle_falls']],
    ];
    for (const [r, outcome, also] of cases) {
      const html = page(r);
      const answer = html.slice(html.indexOf('<h2>Answer'), html.indexOf('<h2>All metrics'));
      const heads = [...answer.matchAll(/<th(?: class="sep")?>(p_[a-z_]+)<\/th>/g)].map((m) => m[1]);
      expect(heads, r.name).toEqual([...outcome, ...also]);
      expect(answer).toContain('they sum to 1');
      // each row's outcomes account for every trial
      for (const c of r.cases) expect(outcome.reduce((t, m) => t + c.metrics[m].value, 0), `${r.name} ${c.variant}`).toBeCloseTo(1, 12);
    }
    expect(starve.cases[0].metrics.p_siege_continues.value).toBeGreaterThan(0.5); // a case an answer of the headline metrics alone would leave out
    // the first "also" column keeps its separator when its value is missing (one class attribute, both classes)
    const gap = structuredClone(siege);
    delete (gap.cases[1].metrics as Record<string, unknown>).p_castle_falls; // one variant without it
    const cells = page(gap).split('<h2>All metrics')[0];
    expect(cells).toContain('<td class="sep muted">–');
    expect(cells).not.toMatch(/<td class="sep" class=/);
  });

  it("a scenario's headline: leads, and a way of ending it names keeps its whole partition grouped (it sums to 1), where that way stands", async () => {
    const all = () => true;
    const parts = [
      ['p_defender_killed', 'p_attacker_killed', 'p_undecided', 'p_no_attack'],
      ['p_healed', 'p_out_for_scenario', 'p_dies'],
    ];
    // healing-tables: its mean first, then the wound's three endings, grouped
    expect(answerMetrics([], parts, all, [], ['mean_days_to_heal', 'p_healed', 'p_out_for_scenario', 'p_dies'])).toEqual({ lead: ['mean_days_to_heal'], outcome: ['p_healed', 'p_out_for_scenario', 'p_dies'], also: [] });
    // named ones in the headline's order, the partition's others after them; what follows the first named one goes after the group
    expect(answerMetrics([], parts, all, [], ['mean_turns', 'p_undecided', 'p_x', 'p_defender_killed'])).toEqual({ lead: ['mean_turns'], outcome: ['p_undecided', 'p_defender_killed', 'p_attacker_killed', 'p_no_attack'], also: ['p_x'] });
    // a headline naming no way of ending (engines-vs-wall), or a partition the run does not produce whole: exactly the headline, ungrouped
    expect(answerMetrics([], parts, all, [], ['mean_breach_round', 'p_breach'])).toEqual({ lead: [], outcome: [], also: ['mean_breach_round', 'p_breach'] });
    expect(answerMetrics([], parts, (m) => m !== 'p_dies', [], ['mean_days_to_heal', 'p_healed'])).toEqual({ lead: [], outcome: [], also: ['mean_days_to_heal', 'p_healed'] });

    // on the page: melee-two-on-one's headline leaves out p_no_attack (0 here), which the group keeps
    const melee = await runFile('scenarios/cry-havoc/melee-two-on-one.yaml', 2000);
    expect(melee.headline).toEqual(['mean_turns', 'p_defender_killed', 'p_attacker_killed', 'p_undecided']);
    const html = page(melee);
    const answer = html.slice(html.indexOf('<h2>Answer'), html.indexOf('<h2>All metrics'));
    const heads = [...answer.matchAll(/<th(?: class="sep")?(?: rowspan="2")?>([a-z_]+)<\/th>/g)].map((m) => m[1]);
    expect(heads).toEqual(['mean_turns', 'p_defender_killed', 'p_attacker_killed', 'p_undecided', 'p_no_attack']);
    expect(answer).toContain('<th class="l" rowspan="2">variant</th><th rowspan="2">mean_turns</th><th colspan="4" class="group sep">how each trial ends (one of these, so they sum to 1)</th></tr>');
    // the group's first cell starts after the separator in every row
    expect(answer.match(/<td class="sep"/g)).toHaveLength(melee.cases.length);
    // run's printed answer and the index cell follow the same order
    const printed = answerText(melee, { headline: systemById('cry-havoc')!.headline, outcomes: systemById('cry-havoc')!.outcomes });
    expect([...printed.split('what these metrics count:')[0].matchAll(/^ {2}([a-z_]+) /gm)].map((m) => m[1])).toEqual(heads);
    // then what each of them counts, in the same order
    expect([...printed.split('what these metrics count:')[1].matchAll(/^ {2}([a-z_]+) /gm)].map((m) => m[1])).toEqual(heads);
  });

  it("a sweep led by a mean answers with its lowest and highest value, with intervals and where (a probability's answer is where it reaches 0.5)", async () => {
    const engines = await runFile('scenarios/fantasy/engines-vs-wall.yaml', 2000);
    const sys = systemById('fantasy')!;
    const html = scenarioPage(engines, sys.charts(engines), ['summary.csv'], { headline: sys.headline, outcomes: sys.outcomes });
    const answer = html.slice(html.indexOf('<h2>Answer'), html.indexOf('<h2>All metrics'));
    const v = (hp: number) => engines.cases.find((c) => c.params['wall.hp'] === hp)!.metrics.mean_breach_round;
    expect(answer).toContain('How <code>mean_breach_round</code> varies over the swept values');
    expect(answer).toContain(`<th>lowest mean_breach_round</th><th class="l">at</th><th>highest mean_breach_round</th><th class="l">at</th></tr>`);
    expect(answer).toContain(`${showHtml(v(15).value)}</span> <span class="ci">[${showHtml(v(15).ci_low)}, ${showHtml(v(15).ci_high)}]</span></td><td class="l">hp=15</td>`);
    expect(answer).toContain(`${showHtml(v(80).value)}</span> <span class="ci">[${showHtml(v(80).ci_low)}, ${showHtml(v(80).ci_high)}]</span></td><td class="l">hp=80</td>`);
    const printed = answerText(engines, { headline: sys.headline, outcomes: sys.outcomes, charts: sys.charts(engines) });
    expect(printed).toContain('mean_breach_round over the swept values (a mean: no target is read):');
    expect(printed).toMatch(new RegExp(`^ {2}${show(v(15).value)} \\[[^\\]]+\\] {2}at hp=15 {2}${show(v(80).value)} \\[[^\\]]+\\] {2}at hp=80$`, 'm'));
    // variants each get a row; ties are counted; a metric the sweep leaves alone, or ends the intervals cannot part, say so
    const m = (value: number, half = 0.1) => ({ value, ci_low: value - half, ci_high: value + half, kind: 'mean' as const, n: 100 });
    const c = (i: number, variant: string, hp: number, value: number, half?: number) => ({ case: i, variant, params: { 'wall.hp': hp }, trials: 100, metrics: { mean_x: m(value, half) }, differences: {} });
    const fake = { ...engines, variants: ['a', 'b'], headline: ['mean_x'], cases: [c(1, 'a', 10, 2), c(1, 'b', 10, 5, 2), c(2, 'a', 20, 1), c(2, 'b', 20, 6, 2), c(3, 'a', 30, 1), c(3, 'b', 30, 5.5, 2)] } as unknown as ScenarioResult;
    const t = rangeTable(fake, 'mean_x');
    expect(t).toContain('<th class="l">variant</th><th>lowest mean_x</th>');
    expect(t).toContain('<td class="l">hp=20 <span class="muted">and 1 more</span></td>');
    expect(t).toContain('<td class="l">hp=10</td><td class="l muted"></td></tr>');
    expect(t).toContain('<td class="l">hp=20</td><td class="l muted">the two intervals overlap: the sweep may not move it (run more trials)</td></tr>');
    // an end its interval cannot tell from other cases is not one case's: they are counted beside it
    const near = { ...fake, variants: ['a'], cases: [c(1, 'a', 10, 3), c(2, 'a', 20, 3.3), c(3, 'a', 30, 3.05), c(4, 'a', 40, 5), c(5, 'a', 50, 4.9)] } as unknown as ScenarioResult;
    const nt = rangeTable(near, 'mean_x');
    expect(nt).toContain('<td class="l">hp=10 <span class="muted">(1 other case not clearly higher: its 95% interval overlaps this one&#39;s)</span></td>');
    expect(nt).toContain('<td class="l">hp=40 <span class="muted">(1 other case not clearly lower: its 95% interval overlaps this one&#39;s)</span></td>');
    // printed: the count in its cell, the words once under the table (in full in each cell a row ran to ~200 characters)
    const nearPrinted = rangeText(near, 'mean_x');
    expect(nearPrinted.join('\n')).toContain('at hp=10 (1 overlaps)');
    expect(nearPrinted.join('\n')).toContain('at hp=40 (1 overlaps)');
    expect(nearPrinted.at(-1)).toBe("  (N overlap): N other cases not clearly higher than the lowest (lower than the highest): their 95% intervals overlap that end's");
    expect(Math.max(...nearPrinted.map((l) => l.length))).toBeLessThanOrEqual(130);
    expect(rangeText(fake, 'mean_x').join('\n')).not.toContain('(N overlap)');
  });

  it('an answer is never empty: a run with none of the headline metrics shows its first three (the rule the workbench cards use)', () => {
    const has = (...ms: string[]) => (m: string) => ms.includes(m);
    const order = ['p_a', 'p_b', 'p_c', 'p_d'];
    expect(answerMetrics(['p_x'], [['p_y', 'p_z']], has('p_b', 'p_c', 'p_d', 'p_a'), order)).toEqual({ lead: [], outcome: [], also: ['p_a', 'p_b', 'p_c'] });
    expect(answerMetrics(['p_x'], [], has('p_x', 'p_a'), order)).toEqual({ lead: [], outcome: [], also: ['p_x'] }); // a headline metric: no fallback
    // on the page: the headline names metrics the run does not have, so its first three metrics lead
    const html = scenarioPage(siege, [], ['summary.csv'], { headline: ['p_none'], outcomes: [['p_nope']] });
    const head = html.slice(html.indexOf('<h2>Answer'), html.indexOf('<h2>All metrics'));
    expect(head).toContain('<tr><th class="l">variant</th><th>p_attacker_wins</th><th>p_defender_holds</th><th>p_castle_falls</th></tr>');
  });

  it("the index's answer cell falls back as the page does: the first three metrics produced, in the system's order, none internal", async () => {
    // a surrender report whose case has neither p_test nor p_surrender (its headline; no outcome partition)
    const root = mkdtempSync(path.join(tmpdir(), 'siegesim-index-'));
    try {
      const m = (value: number | null) => ({ value, ci_low: value, ci_high: value, kind: 'probability', n: 100 });
      const cases = [{ case: 0, variant: 'base', params: {}, trials: 100, metrics: { p_guard: m(0), zeta: m(0.3), mean_turns: m(2.5), alpha: m(null) }, differences: {} }];
      mkdirSync(path.join(root, 'odd'));
      writeFileSync(path.join(root, 'odd', 'summary.json'), JSON.stringify({ name: 'odd', system: 'surrender', params: [], variants: ['base'], cases }));
      await writeIndex(root);
      const html = readFileSync(path.join(root, 'index.html'), 'utf8');
      // mean_turns first (the system's order), then zeta; not p_guard (internal), not alpha (no value)
      expect(html).toMatch(/<code>mean_turns<\/code>[^]*<code>zeta<\/code>/);
      expect(html).not.toContain('<code>p_guard</code>');
      expect(html).not.toContain('<code>alpha</code>');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("the index's answer cell of a summary.json with no value at all (no siegesim run makes one) is empty, as the page's rule gives", async () => {
    // every real scenario names its answer from its system's headline (all four systems, sweeps,
    // variants, even at 1 trial); only a damaged or foreign summary.json has no value to show
    const root = mkdtempSync(path.join(tmpdir(), 'siegesim-index-'));
    try {
      const m = { value: null, ci_low: null, ci_high: null, kind: 'probability', n: 0 };
      const c = (i: number) => ({ case: i, variant: 'base', params: { turns: i }, trials: 0, metrics: { p_guard: m, p_test: m, p_surrender: m }, differences: {} });
      mkdirSync(path.join(root, 'empty'));
      writeFileSync(path.join(root, 'empty', 'summary.json'), JSON.stringify({ name: 'empty', system: 'surrender', params: ['turns'], variants: ['base'], cases: [c(0), c(1)] }));
      await writeIndex(root);
      const html = readFileSync(path.join(root, 'index.html'), 'utf8');
      expect(html).toContain('empty');
      expect(html).not.toContain('Infinity');
      expect(html).not.toContain('<code>p_guard</code>');
      expect(html).not.toContain('<code>p_test</code>');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("the index shows a sweep's answer as its range over the sweep and where, not the first (often trivial) case", () => {
    const cell = (r: ScenarioResult) => {
      const sys = systemById(r.system)!;
      const produced = (m: string) => r.cases.some((c) => Number.isFinite(c.metrics[m]?.value));
      const cols = answerMetrics(sys.headline, sys.outcomes ?? [], produced);
      return indexAnswerHtml(r.cases, r.params, r.variants, [...cols.outcome, ...cols.also]);
    };
    // heavy-guns-grid's first case (level 1, no guns) never surrenders: the cell gives the range and where it is highest, not a bare 0
    expect(grid.cases[0].metrics.p_surrender.value).toBe(0);
    const g = cell(grid);
    const values = grid.cases.map((c) => c.metrics.p_surrender.value);
    const max = Math.max(...values);
    const top = grid.cases.filter((c) => c.metrics.p_surrender.value === max);
    expect(g).toContain(`<code>p_surrender</code> 0 – ${showHtml(max)}</span>`);
    expect(g).toContain(`highest at surrender_level=${top[0].params['structure.surrender_level']}, heavy_siege_artillery=${top[0].params['besieger.heavy_siege_artillery']}`);
    // variants without a sweep: where is the variant; an outcome that never happens is named once
    const v = cell(siege);
    for (const m of ['p_attacker_wins', 'p_defender_holds', 'p_siege_continues', 'p_castle_falls']) expect(v).toContain(`<code>${m}</code>`);
    expect(v).toMatch(/lowest at [a-z-]+/);
    const bothGoneHigh = Math.max(...siege.cases.map((c) => c.metrics.p_both_gone.ci_high!));
    expect(bothGoneHigh).toBeGreaterThan(0);
    expect(v).toContain(`0 in every case (95% intervals up to ${show(bothGoneHigh)}): <code>p_both_gone</code>`);
    // one case: its value and interval
    const one = { ...citadel, cases: citadel.cases.slice(0, 1), variants: citadel.variants.slice(0, 1) };
    expect(cell(one)).toMatch(/<code>p_surrender<\/code> [^<]+ <span class="ci">\[/);
    const index = indexPage([{ dir: 'grid', name: grid.name, system: grid.system, cases: grid.cases.length, headline: g }]);
    expect(index).toContain('several: lowest – highest over them, and where');
    expect(index).not.toContain('first case');
  });

  it('the index says at which trials and seed each answer holds, and which event a mean is over (it said neither)', () => {
    const est = (value: number, ci_low: number, ci_high: number) => ({ value, ci_low, ci_high });
    const cases = [1, 2].map((i) => ({ variant: 'baseline', params: { 'wall.hp': 15 * i }, metrics: { mean_breach_round: est(i, i - 0.1, i + 0.1) } }));
    const cell = indexAnswerHtml(cases, ['wall.hp'], ['baseline'], ['mean_breach_round'], { mean_breach_round: 'p_breach' });
    expect(cell).toContain('<code>mean_breach_round</code> 1 – 2</span> <span class="where">(a mean over the trials with p_breach)</span>');
    const page = indexPage([{ dir: 'x', name: 'x', system: 'fantasy', cases: 2, trials: '4,000', seed: 17, headline: cell }]);
    expect(page).toContain('<td>2<br><span class="muted">× 4,000 trials, seed 17</span></td>');
  });

  it('a definition that names a scenario key (Cry Havoc\'s `turns`) shows it as code, not raw backticks, its text escaped', () => {
    const g = glossaryHtml({ metricDocs: { p_undecided: 'melee: nobody died in `turns` combat turns (the cap) <b>' } }, ['p_undecided']);
    expect(g).toContain('<dd>melee: nobody died in <code>turns</code> combat turns (the cap) &lt;b&gt;</dd>');
  });

  it('the index names a case as highest or lowest only when its interval is clear of every other case; else the cases the intervals cannot tell apart', () => {
    // cr-storm-top-up (a user's file): top-up-retest plays exactly top-up-always's trials; the exact p_castle_falls is 0.86106 at every storm_ratio
    const est = (value: number, ci_low: number, ci_high: number) => ({ value, ci_low, ci_high });
    const rows: [string, number, ReturnType<typeof est>][] = [
      ['top-up-always', 0.5, est(0.861, 0.8589, 0.8632)],
      ['top-up-retest', 0.5, est(0.861, 0.8589, 0.8632)],
      ['listed-stormers', 0.5, est(0.7497, 0.747, 0.7524)],
      ['top-up-always', 0.75, est(0.8616, 0.8594, 0.8637)],
      ['top-up-retest', 0.75, est(0.8616, 0.8594, 0.8637)],
      ['listed-stormers', 0.75, est(0.747, 0.7443, 0.7496)],
      ['top-up-always', 1, est(0.8611, 0.8589, 0.8632)],
      ['top-up-retest', 1, est(0.8611, 0.8589, 0.8632)],
      ['listed-stormers', 1, est(0, 0, 3.8e-5)],
    ];
    const cases = rows.map(([variant, ratio, m]) => ({ variant, params: { 'policy.storm_ratio': ratio }, metrics: { p_castle_falls: m } }));
    const variants = ['top-up-always', 'top-up-retest', 'listed-stormers'];
    const cellOf = (cs: typeof cases) => indexAnswerHtml(cs, ['policy.storm_ratio'], variants, ['p_castle_falls']);
    const cell = cellOf(cases);
    expect(cell).toContain('<code>p_castle_falls</code> 0 – 0.8616</span>');
    // 0.8616 is noise: it is not named as where the metric is highest
    expect(cell).not.toContain('highest at');
    expect(cell).toContain('highest: 6 cases their 95% intervals cannot tell apart, at top-up-always, storm_ratio=0.75; top-up-retest, storm_ratio=0.75 and 4 more');
    // 0 [0, 3.8e-5] is clear below every other case
    expect(cell).toContain('(lowest at listed-stormers, storm_ratio=1;');
    // the top-up readings alone: every interval shares a point, so no case is picked out
    const same = cellOf(cases.filter((c) => c.variant !== 'listed-stormers'));
    expect(same).toContain('0.8610 – 0.8616</span> <span class="where">(the same within their 95% intervals in every case)</span>');
    // two readings on the same dice: overlapping intervals, but their paired difference leaves out 0 (a rules lawyer's
    // top-up readings at Δ -0.0132 [-0.0166, -0.0098] were "the same within their 95% intervals")
    const two = [
      { variant: 'top-up-always', params: {}, metrics: { p_attacker_wins: est(0.1516, 0.1418, 0.1618) } },
      { variant: 'top-up-retest', params: {}, metrics: { p_attacker_wins: est(0.1384, 0.1290, 0.1482) }, differences: { p_attacker_wins: { ...est(-0.0132, -0.0166, -0.0098), paired: true } } },
    ];
    const told = indexAnswerHtml(two, [], ['top-up-always', 'top-up-retest'], ['p_attacker_wins']);
    expect(told).toContain('(their 95% intervals overlap, but their difference leaves out 0: top-up-retest − top-up-always = −0.0132 [−0.0166, −0.0098])');
    expect(told).not.toContain('the same');
    // a difference whose interval holds 0: the same, as before; at a sweep point, the point is named
    two[1].differences!.p_attacker_wins = { ...est(-0.0132, -0.03, 0.004), paired: true };
    expect(indexAnswerHtml(two, [], ['top-up-always', 'top-up-retest'], ['p_attacker_wins'])).toContain('(the same within their 95% intervals in every case)');
    const swept = [...cases.filter((c) => c.variant !== 'listed-stormers').map((c, i) => (i === 3 ? { ...c, differences: { p_castle_falls: { ...est(0.0006, 0.0001, 0.0011), paired: false } } } : c))];
    expect(cellOf(swept)).toContain('but their difference leaves out 0: top-up-retest − top-up-always at storm_ratio=0.75 = +6.0×10<sup>−4</sup> [1.0×10<sup>−4</sup>, 0.0011] (Welch))');
    // a highest clear of the rest is named, with the cases that tie with it exactly
    const clear = cellOf(cases.map((c) => (c.params['policy.storm_ratio'] === 0.75 && c.variant !== 'listed-stormers' ? { ...c, metrics: { p_castle_falls: est(0.9, 0.898, 0.902) } } : c)));
    expect(clear).toContain('highest at top-up-always, storm_ratio=0.75 and 1 more with the same value)');
    expect(extremeOf([est(0.3, 0.2, 0.4), est(0.5, 0.41, 0.6), est(0.45, 0.35, 0.55)], 'highest')).toEqual({ clear: false, cases: [1, 2] });
    expect(extremeOf([est(0.3, 0.2, 0.4), est(0.5, 0.41, 0.6), est(0.45, 0.35, 0.55)], 'lowest')).toEqual({ clear: false, cases: [0, 2] });
    expect(extremeOf([est(0.3, 0.2, 0.3), est(0.5, 0.41, 0.6)], 'lowest')).toEqual({ clear: true, cases: [0] });
    // an unknown interval end cannot be told apart from anything
    expect(extremeOf([{ value: 0.3, ci_low: null, ci_high: null }, est(0.9, 0.89, 0.91)], 'highest')).toEqual({ clear: false, cases: [1, 0] });
  });

  it('colours a difference by its direction only, never green for up and red for down, and says so beside every table of differences', () => {
    const html = page(siege);
    const css = html.slice(html.indexOf('<style>'), html.indexOf('</style>'));
    for (const cls of ['up', 'down']) {
      const colour = css.match(new RegExp(`\\.${cls}\\{color:(#[0-9a-f]{6})`))?.[1];
      expect(colour, `.${cls}`).toBeDefined();
      expect(hueKind(colour!), `.${cls} is ${colour}`).toBe('neutral');
    }
    // case-a-new-siege's variants move p_castle_falls up and p_defender_holds down, both significantly
    expect(html).toMatch(/class="up">\+/);
    expect(html).toMatch(/class="down">−/);
    const keys = html.split('the colour shows the direction only').length - 1;
    expect(keys).toBe(2); // under the headline table and under the metric table
    // the workbench: every rule that colours a difference
    const app = readFileSync(path.join(ROOT, 'src/serve/assets/app.css'), 'utf8');
    const vars = Object.fromEntries([...app.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})/g)].map((m) => [m[1], m[2]]));
    const rules = ['.card-diff.up .delta', '.card-diff.down .delta', '.metrics td.up', '.metrics td.down', '.ranking .turn.up b', '.ranking .turn.down b'];
    for (const rule of rules) {
      const v = app.match(new RegExp(`${rule.replace(/\./g, '\\.')} \\{ color: var\\(--([a-z-]+)\\)`))?.[1];
      expect(v, rule).toBeDefined();
      expect(hueKind(vars[v!]), `${rule}: --${v} ${vars[v!]}`).toBe('neutral');
    }
    expect(readFileSync(path.join(ROOT, 'src/serve/assets/index.html'), 'utf8')).toContain('the colour shows the direction only');
  });

  it("a large sweep's variants table is behind a toggle that says its size; a small one stays open (fresh-eyes helper: 2,604 rows ran 190,000 px)", async () => {
    const text = readFileSync(path.join(ROOT, 'test/fixtures/heavy-is-artillery.yaml'), 'utf8').replace('  besieger.heavy_siege_artillery: [0, 1, 2]', '  besieger.heavy_siege_artillery: [0, 1, 2]\n  besieger.combat_units: { from: 1, to: 30, step: 1 }');
    const v = validateText('big.yaml', text);
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const big = page(await runScenario(v.value, { trials: 200 }));
    const table = big.slice(big.indexOf('<div id="answer-differences">'), big.indexOf('</div>\n', big.indexOf('<div id="answer-differences">')));
    expect(table).toMatch(/<details><summary>\d{3} rows \(90 sweep points × \d metrics\): show them<\/summary>\n<div class="scroll"><table class="answer">/);
    const small = page(await runFile('test/fixtures/heavy-is-artillery.yaml', 2000));
    expect(small.slice(small.indexOf('<div id="answer-differences">'))).not.toContain('show them</summary>');
  });

  it('a sweep with variants answers with each reading at each swept value and their paired difference, intervals shown (not only under All metrics behind a toggle); a target the sweep does not bracket is one sentence', async () => {
    const heavy = await runFile('test/fixtures/heavy-is-artillery.yaml', 4000);
    const html = page(heavy);
    const answer = html.slice(html.indexOf('<h2>Answer'), html.indexOf('<h2>All metrics'));
    const table = answer.slice(answer.indexOf('<div id="answer-differences">'));
    expect(table).toContain('<h3>The variants at each swept value, and their difference from heavy-counts</h3>');
    expect(table).toContain('<th class="l">metric</th><th>heavy_siege_artillery</th><th>heavy-counts <span class="muted">(baseline)</span></th><th>heavy-alone</th></tr>');
    expect(table).not.toContain('class="compact"'); // its intervals are not hidden
    const c = (v: string, guns: number) => heavy.cases.find((x) => x.variant === v && x.params['besieger.heavy_siege_artillery'] === guns)!;
    const d = c('heavy-alone', 1).differences.p_test;
    expect(d.ci_high).toBeLessThan(0);
    // at 1 heavy gun: the baseline's value, then the other reading's with its Δ, each with its interval
    const cell = (e: { value: number; ci_low: number; ci_high: number }) => `${showHtml(e.value)}</span> <span class="ci">[${showHtml(e.ci_low)}, ${showHtml(e.ci_high)}]</span>`;
    expect(table).toContain(`<td>1</td><td title="95% interval ${showInterval(c('heavy-counts', 1).metrics.p_test.value, c('heavy-counts', 1).metrics.p_test.ci_low, c('heavy-counts', 1).metrics.p_test.ci_high)}"><span>${cell(c('heavy-counts', 1).metrics.p_test)}</td>`);
    expect(table).toContain(`${cell(c('heavy-alone', 1).metrics.p_test)}<br><span class="ci">Δ</span> <span class="down">${cell(d)}</td>`);
    expect(table.match(/<th class="m" rowspan="3">(p_[a-z_]+)<\/th>/g)).toEqual(['<th class="m" rowspan="3">p_test</th>', '<th class="m" rowspan="3">p_surrender</th>']);
    // the differences come before where p_surrender reaches 0.5, which says in a sentence that the sweep does not bracket it
    expect(answer.indexOf('id="answer-differences"')).toBeLessThan(answer.indexOf('Where <code>p_surrender</code> reaches 0.5'));
    expect(answer).toContain('<p class="muted reached-at-lowest">p_surrender is at or above 0.5 already at heavy_siege_artillery = 0, the lowest swept, in every variant (');
    expect(answer).not.toContain('reached at the lowest value</td>');
    // under All metrics, the toggle of the intervals is named beside the differences too (a label of the same box)
    const all = html.slice(html.indexOf('<h2>All metrics'));
    expect(all.indexOf('<label class="toggle mirror" for="show-ci">')).toBeGreaterThan(all.indexOf('Difference from the baseline (heavy-counts)'));
    expect(all.match(/id="show-ci"/g)).toHaveLength(1);
  });

  it('a sweep leads with its heatmap and the value that reaches the target, with its neighbour', () => {
    const html = page(grid);
    const answer = html.slice(html.indexOf('<h2>Answer'), html.indexOf('<h2>All metrics'));
    expect(answer).toContain('charts/p_surrender_heatmap.svg');
    expect(answer).toContain('first swept heavy_siege_artillery that reaches 0.5');
    expect(answer).not.toContain('siegesim solve'); // whole steps of 1: the sweep's answer is solve's
    expect(answer).toContain('one step short');
    expect(html.indexOf('charts/surrender_by_turn.svg')).toBeGreaterThan(html.indexOf('<h2>All metrics'));
  });

  it('says when a --precision target was not reached, and the trials each case really ran', async () => {
    const file = path.join(ROOT, 'scenarios/surrender/port-blockade.yaml');
    const v = validateText(file, readFileSync(file, 'utf8'));
    if (!v.ok) throw new Error('invalid');
    const r = await runScenario(v.value, { precision: 0.004, maxTrials: 20_000 });
    const missed = r.cases.filter((c) => c.precision && !c.precision.reached);
    expect(missed.length).toBeGreaterThan(0);
    const html = page(r);
    expect(html).toContain('Precision target not reached');
    expect(html).toContain(`in ${missed.length} of ${r.cases.length} cases`);
    expect(html).toContain('at the cap of 20,000 trials per case');
    const trials = new Set(r.cases.map((c) => c.trials));
    if (trials.size > 1) expect(html).toMatch(/<th class="m">trials<\/th>|<th>trials<\/th>/);
    expect(page(await runFile('scenarios/surrender/port-blockade.yaml', 4000))).not.toContain('Precision target');
  });

  it('a siege whose wall never loses HP (climbers only) draws no flat wall-HP chart and says why; one with engines still draws it', async () => {
    const climbers = await runFile('scenarios/fantasy/climbers-dc.yaml', 2000);
    expect(climbers.cases.every((c) => c.curves.wall_hp!.every((p) => p.m.value === 30))).toBe(true); // the data: 30 HP throughout
    const names = (r: ScenarioResult) => systemById(r.system)!.charts(r).map((c) => c.name);
    expect(names(climbers)).toContain('breach_by_round');
    expect(names(climbers)).not.toContain('wall_hp');
    const html = page(climbers);
    // DC 8, 12, 16: the swept values only bracket the 0.5 point; the page says so and gives solve's command
    expect(html).toContain(`to find it: <code>siegesim solve ${climbers.file} --param wall.dc --metric p_attacker_wins --target 0.5 [--variant NAME]</code>`);
    expect(html).not.toContain('charts/wall_hp.svg');
    expect(html).toContain('the wall stays at 30 HP in every case and round (nothing here damages it), so its HP is not charted');

    const engines = await runFile('scenarios/fantasy/engines-vs-wall.yaml', 2000);
    expect(names(engines)).toContain('wall_hp');
    expect(page(engines)).toContain('charts/wall_hp.svg');
    expect(page(engines)).not.toContain('is not charted');
  });

  it('links to the reports index only when one is written beside it', () => {
    expect(page(citadel, '../index.html')).toContain('<a href="../index.html">all reports</a>');
    expect(page(citadel)).not.toContain('all reports');
  });
});

describe('a metric only a variant produces', () => {
  // an open-field baseline and a variant that lays siege: p_breach, mean_breach_round and
  // p_withdrew exist in the variant only, so there is no baseline value to take a difference from
  const FIELD_TO_SIEGE = `name: field-to-siege
system: fantasy
seed: 31
trials: 2000
mode: open_field
attacker: { infantry: 8, cavalry: 3, archers: 6, mages: 4, siege_engines: 2, captain_might: 1 }
defender: { infantry: 10, archers: 4, clerics: 3, captain_might: 1 }
wall: { type: palisade, hp: 10, dc: 10, upgrades: 0, breach_threshold: 4 }
variants:
  - name: field
  - name: siege
    set: { mode: siege }
`;
  const ONLY_SIEGE = ['p_breach', 'mean_breach_round', 'p_withdrew'];
  let r: ScenarioResult;
  beforeAll(async () => {
    const v = validateText('field-to-siege.yaml', FIELD_TO_SIEGE);
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    r = await runScenario(v.value);
  });

  it('has no difference in any output, while its value is shown and the shared metrics keep theirs', () => {
    const [field, siege] = r.cases;
    for (const m of ONLY_SIEGE) {
      expect(field.metrics[m], m).toBeUndefined();
      expect(Number.isFinite(siege.metrics[m].value), m).toBe(true);
      expect(siege.differences, m).not.toHaveProperty(m);
    }
    expect(Number.isFinite(siege.differences.p_attacker_wins.value)).toBe(true);
    // summary.csv and summary.json: the variant's rows, no diff_ row or entry for them
    const csv = summaryCsv(r);
    for (const m of ONLY_SIEGE) {
      expect(csv).toMatch(new RegExp(`^1,siege,${m},[0-9]`, 'm'));
      expect(csv).not.toContain(`diff_${m}`);
    }
    expect(csv).toMatch(/^1,siege,diff_p_attacker_wins,-?[0-9]/m);
    const json = summaryJson(r) as { cases: { metrics: Record<string, unknown>; differences?: Record<string, unknown> }[] };
    expect(Object.keys(json.cases[1].differences!)).not.toContain('p_breach');
    expect(Object.keys(json.cases[1].metrics)).toContain('p_breach');
    // the page: p_breach (a headline metric) in the Answer and in All metrics, the variant's value without a Δ
    const html = page(r);
    const rows = [...html.matchAll(/<tr><th class="m">p_breach<\/th>(.*?)<\/tr>/g)].map((x) => x[1]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('<td class="muted">–</td>');
    expect(rows[0]).toContain('<span>1</span>');
    expect(rows[0]).not.toContain('Δ');
    const answer = html.slice(html.indexOf('<table class="answer">'), html.indexOf('</table>', html.indexOf('<table class="answer">')));
    expect(answer).toMatch(/<th[^>]*>p_breach<\/th>/);
    expect(answer.match(/Δ/g)).toHaveLength(3); // the siege row's three outcomes, not p_breach
    // the printed answer: p_breach's lines, no Δ on them
    const sys = systemById('fantasy')!;
    const text = answerText(r, { headline: sys.headline, outcomes: sys.outcomes });
    expect(text).toMatch(/^  p_breach +field +–$/m);
    expect(text).toMatch(/^ +siege +1 \[0\.99[0-9]+, 1\]$/m);
  });
});

describe('showCount', () => {
  it("writes counts as toLocaleString('en-US') does, without loading the locale data", () => {
    const xs = [0, 1, 12, 999, 1000, 1001, 65536, 999999, 1000000, 2000000, 16288, 1e9, 1e10, 123456789012, -1, -1234567, 0.5, 1234.5, 1234.25, 12345.678, -0.25];
    for (const x of xs) expect(showCount(x), String(x)).toBe(x.toLocaleString('en-US'));
  });
});
