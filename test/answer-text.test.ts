/**
 * What `siegesim run` prints on stdout (src/report/answer-text.ts): the page's Answer as text,
 * the same metrics (answerMetrics) and the same numbers (show), short enough for a screen.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { answerNames, answerText, CROSSING_LINES, deltaText, reachText, SWEEP_ROWS, trialsText } from '../src/report/answer-text.js';

/** Rows of a long sweep shown: the first and last four (answer-text's SWEEP_ENDS). */
const SWEEP_ENDS_SHOWN = 8;
import { show, showInterval } from '../src/report/format.js';
import { briefAnswer } from '../src/report/brief-text.js';
import { answerColumns, pairingText, welchMetrics } from '../src/report/html.js';
import { crossings, shortName } from '../src/systems/chart-kit.js';
import { systemById } from '../src/systems/registry.js';
import type { ScenarioResult } from '../src/systems/types.js';
import { runFile } from './helpers.js';

function text(r: ScenarioResult): string {
  const sys = systemById(r.system)!;
  return answerText(r, { headline: sys.headline, outcomes: sys.outcomes, charts: sys.charts(r), out: 'reports/x' });
}

/** The printed answer's parts: its head line, the sides lines (wrapped), the numbers, and what the metrics count. */
function parts(t: string): { head: string; sides: string[]; body: string[]; docs: string[] } {
  const lines = t.trimEnd().split('\n');
  const at = lines.indexOf('what these metrics count:');
  const end = at < 0 ? lines.length : at;
  let k = 1;
  // a sides line's continuations are indented by four, a character after them (the numbers' rows never are)
  while (k < end && (lines[k].startsWith('  sides: ') || (k > 1 && /^ {4}\S/.test(lines[k])))) k++;
  return { head: lines[0], sides: lines.slice(1, k), body: lines.slice(k, end), docs: at < 0 ? [] : lines.slice(at + 1) };
}

describe('the answer run prints', () => {
  let keep: ScenarioResult;
  let variants: ScenarioResult;
  let grid: ScenarioResult;
  let climbers: ScenarioResult;
  beforeAll(async () => {
    [keep, variants, grid, climbers] = await Promise.all([
      runFile('test/fixtures/keep.yaml', 4000),
      runFile('scenarios/crusader-rex/case-a-new-siege.yaml', 2000),
      runFile('scenarios/surrender/heavy-guns-grid.yaml', 2000),
      runFile('scenarios/fantasy/climbers-dc.yaml', 2000),
    ]);
  });

  it('one case: every metric of the page\'s Answer, in its order, with its 95% interval as the page writes it', () => {
    const { head, sides, body, docs } = parts(text(keep));
    expect(head).toBe('keep: 95% intervals over 4,000 trials (seed keep; at most 20 rounds a trial)'); // over which trials, on stdout too (the new-user audit)
    // who the attacker and defender are, then the numbers, then what each metric shown counts
    expect(sides.join(' ').replace(/\s+/g, ' ')).toBe(`  sides: ${keep.sides![0]}`.replace(/\s+/g, ' '));
    expect(sides[0]).toMatch(/^ {2}sides: attacker = the army outside the wall \(/);
    const names = answerNames(keep, systemById('fantasy')!.headline, systemById('fantasy')!.outcomes);
    expect(names).toEqual(['p_attacker_wins', 'p_defender_wins', 'p_undecided', 'p_breach']);
    expect(docs.filter((l) => /^ {2}\S/.test(l)).map((l) => l.trim().split(/\s{2,}/)[0])).toEqual(names);
    expect(docs.join(' ').replace(/\s+/g, ' ')).toContain(`p_breach ${systemById('fantasy')!.metricDocs.p_breach}`);
    for (const l of [...sides, ...docs]) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(body.map((l) => l.trim().split(/\s{2,}/))).toEqual(
      names.map((m) => {
        const e = keep.cases[0].metrics[m];
        return [m, showInterval(e.value, e.ci_low, e.ci_high)];
      }),
    );
  });

  it('a run with none of the headline metrics prints what its page shows: the first three metrics it has a value of (answerColumns), never a valueless one', () => {
    const order = variants.metricOrder;
    // the first metric in order has no value in any case (as a metric a case cannot produce)
    const r: ScenarioResult = { ...variants, cases: variants.cases.map((c) => ({ ...c, metrics: { ...c.metrics, [order[0]]: { ...c.metrics[order[0]], value: NaN } } })) };
    const names = answerNames(r, ['no_such_metric'], []);
    expect(names).toEqual(answerColumns(r, ['no_such_metric'], []).also);
    expect(names).toEqual(order.filter((m) => m !== order[0] && Number.isFinite(r.cases[0].metrics[m]?.value)).slice(0, 3));
    expect(names).not.toContain('p_guard');
  });

  it('variants: a line per variant, the paired difference from the baseline beside the others; a metric 0 everywhere is one line', () => {
    const all = parts(text(variants));
    const lines = [all.head, ...all.body];
    expect(lines[0]).toBe('crusader-rex-6-56-new-siege: 3 variants, 95% intervals over 2,000 trials a case (seed 656001; 1 game turn a trial); Δ: the paired difference from defend-in-field');
    // a new battle: the scenario's attacker: is the metrics' attacker, the same in every variant
    expect(all.sides.join(' ').replace(/\s+/g, ' ')).toMatch(/^ sides: attacker = saracens \(attacker:, the first to enter the field\): Saladin \(main road\), .*; defender = franks: King Guy \(town\), Balian \(town\), .*still count with the defender here\.$/);
    const [base, castle] = variants.cases;
    const m = castle.metrics.p_attacker_wins;
    const d = castle.differences.p_attacker_wins;
    const sign = d.value > 0 ? '+' : '';
    expect(lines).toContain(`  p_attacker_wins    defend-in-field         ${showInterval(base.metrics.p_attacker_wins.value, base.metrics.p_attacker_wins.ci_low, base.metrics.p_attacker_wins.ci_high)}`);
    expect(lines.find((l) => l.includes(' defend-in-castle ') && l.includes(showInterval(m.value, m.ci_low, m.ci_high)))).toContain(`Δ ${sign}${showInterval(d.value, d.ci_low, d.ci_high)}`);
    const up = variants.cases[2].differences.p_defender_holds;
    expect(up.value).toBeGreaterThan(0);
    expect(lines.find((l) => l.includes(' control-change-r1-only ') && l.includes(showInterval(variants.cases[2].metrics.p_defender_holds.value, variants.cases[2].metrics.p_defender_holds.ci_low, variants.cases[2].metrics.p_defender_holds.ci_high)))).toContain(`Δ +${showInterval(up.value, up.ci_low, up.ci_high)}`);
    // the baseline has no Δ; p_both_gone is 0 in every variant here
    expect(lines.slice(1).filter((l) => l.includes('defend-in-field') && l.includes('Δ'))).toEqual([]);
    expect(lines.filter((l) => l.includes('p_both_gone'))).toEqual([expect.stringMatching(/^ {2}p_both_gone +every variant +0 \[0, /)]);
    expect(lines.length).toBeLessThanOrEqual(1 + 5 * 3);
  });

  it('a sweep: the first and last rows of its table, how many were left out, and where the lead metric reaches 0.5 along each parameter', () => {
    expect(grid.cases.length).toBeGreaterThan(SWEEP_ROWS);
    const lines = text(grid).trimEnd().split('\n');
    expect(lines[0]).toBe('surrender-heavy-guns-grid: 30 cases (6 x 5 sweep) over 2,000 trials a case (seed 7; 3 game turns a trial); values (their 95% intervals: in the report)');
    expect(lines[1].trim().split(/\s+/)).toEqual(['case', 'surrender_level', 'heavy_siege_artillery', 'p_test', 'p_surrender']);
    const rows = lines.filter((l) => /^ +\d+ +\d/.test(l) && !l.includes('≥'));
    expect(rows.map((l) => Number(l.trim().split(/\s+/)[0]))).toEqual([1, 2, 3, 4, 27, 28, 29, 30]);
    expect(rows[1].trim().split(/\s+/)).toEqual(['2', '1', '1', show(grid.cases[1].metrics.p_test.value), show(grid.cases[1].metrics.p_surrender.value)]);
    expect(lines).toContain('  … 22 rows left out (every case: reports/x/summary.csv)');
    // the crossings as the page reads them: along the surrender level, one row per number of guns
    const along = crossings(grid, 'p_surrender', 0.5).filter((k) => k.line.along === 'structure.surrender_level');
    const first = along[0];
    expect(lines).toContain('where p_surrender reaches 0.5 among the swept values (≥ where it rises, ≤ where it falls):');
    // levels and guns step by 1: the sweep's first value is solve's own, no command to find it
    expect(lines.some((l) => l.includes('siegesim solve'))).toBe(false);
    const row = lines.find((l) => l.startsWith(`  ${String(first.line.fixed['besieger.heavy_siege_artillery'])}  `) && l.includes(`${String(first.answer!.x)} ≥ 0.5`));
    expect(row).toContain(showInterval(first.answer!.m.value, first.answer!.m.ci_low, first.answer!.m.ci_high));
    // along the guns: 6 lines (one per level), shown up to CROSSING_LINES
    expect(lines.filter((l) => l.includes(' ≥ 0.5 ')).length).toBe(Math.min(5, CROSSING_LINES) + Math.min(6, CROSSING_LINES));
    expect(lines.length).toBeLessThanOrEqual(40); // a screen
  });

  it('a sweep with variants: at each swept value each variant\'s value and the paired difference from the baseline with its 95% interval (the case\'s own differences), then the crossing per variant (falling: ≤)', () => {
    const { head, body } = parts(text(climbers));
    const lines = [head, ...body];
    expect(lines[0]).toBe("fantasy-climbers-dc: 6 cases (3 sweep x 2 variants) over 2,000 trials a case (seed 23; at most 10 rounds a trial); each variant's value (their 95% intervals: in the report) and Δ: the paired difference from at-least-dc, with its 95% interval");
    expect(lines[1].trim().split(/\s{2,}/)).toEqual(['metric', 'dc', 'at-least-dc', 'above-dc', 'Δ above-dc']);
    // a block per answer metric, a row per DC: both readings and their difference, as summary.csv's diff_ rows
    const names = answerNames(climbers, systemById('fantasy')!.headline, systemById('fantasy')!.outcomes);
    const rows = lines.slice(2, 2 + 3 * names.length).map((l) => l.trim().split(/\s{2,}/));
    names.forEach((m, i) => {
      [8, 12, 16].forEach((dc, j) => {
        const at = (v: string) => climbers.cases.find((c) => c.variant === v && c.params['wall.dc'] === dc)!;
        const d = at('above-dc').differences[m];
        const row = rows[3 * i + j];
        expect(row, `${m} at dc ${dc}`).toEqual([...(j === 0 ? [m] : []), String(dc), show(at('at-least-dc').metrics[m].value), show(at('above-dc').metrics[m].value), `${d.value > 0 ? '+' : ''}${showInterval(d.value, d.ci_low, d.ci_high)}`]);
      });
    });
    expect(lines.some((l) => l.includes('left out'))).toBe(false);
    expect(lines.filter((l) => /^ {2}(at-least-dc|above-dc) +12 ≤ 0\.5 /.test(l))).toHaveLength(2);
    // DC 8, 12, 16: the 0.5 point lies between 8 and 12, and solve finds it (any variant)
    expect(lines).toContain(
      `  the exact value lies between "first" and "one step short"; to find it: siegesim solve ${climbers.file} --param wall.dc --metric p_attacker_wins --target 0.5 [--variant NAME]`,
    );
  });

  it('a sweep with variants and many points shows the ends of each metric\'s block; a metric 0 in every case is named once', () => {
    // climbers' three DCs made into 12 points (the same cases renumbered), and a metric that is 0 everywhere
    const cases = Array.from({ length: 4 }, (_, k) =>
      climbers.cases.map((c) => ({ ...c, case: c.case + 3 * k, params: { 'wall.dc': Number(c.params['wall.dc']) + k }, metrics: { ...c.metrics, p_nothing: { value: 0, ci_low: 0, ci_high: 0.0001, n: 10, kind: 'probability' as const } }, differences: { ...c.differences, ...(c.variant === 'above-dc' ? { p_nothing: { value: 0, ci_low: 0, ci_high: 0 } } : {}) } })),
    ).flat();
    const r: ScenarioResult = { ...climbers, headline: ['p_attacker_wins', 'p_nothing'], cases };
    const lines = text(r).trimEnd().split('\n');
    expect(lines[0]).toContain('24 cases (12 sweep x 2 variants)');
    // the headline's p_attacker_wins keeps its outcome partition whole: three blocks, and p_nothing's line
    const blocks = answerNames(r, systemById('fantasy')!.headline, systemById('fantasy')!.outcomes).filter((m) => m !== 'p_nothing');
    expect(blocks).toEqual(['p_attacker_wins', 'p_defender_wins', 'p_undecided']);
    expect(lines.filter((l) => l === '  … 4 sweep points left out (every case: reports/x/summary.csv)')).toHaveLength(blocks.length);
    for (const m of blocks) {
      const at = lines.findIndex((l) => l.startsWith(`  ${m} `));
      const block = lines.slice(at, at + SWEEP_ENDS_SHOWN + 1);
      // points in case order (dc 8, 12, 16, then one higher each): the first four, the gap, the last four
      expect(block[4], m).toBe('  … 4 sweep points left out (every case: reports/x/summary.csv)');
      expect(block.filter((_, i) => i !== 4).map((l) => l.slice(2 + 'p_attacker_wins'.length).trim().split(/\s+/)[0]), m).toEqual(['8', '12', '16', '9', '18', '11', '15', '19']);
    }
    expect(lines.some((l) => /^ {2}p_nothing /.test(l))).toBe(false);
    // with how far its intervals reach: a rare event no trial met is not impossible
    expect(lines).toContain('  0 in every case (95% intervals up to 1.0e-4): p_nothing');
  });

  it('where the lead metric is reached at the lowest swept value on every line, one sentence says the sweep does not bracket the target, not a table repeating that value', () => {
    // climbers' p_defender_wins (rising with the DC) is above 0.5 from DC 12 on in both variants: swept from 12, it is reached at once
    const r: ScenarioResult = { ...climbers, cases: climbers.cases.filter((c) => c.params['wall.dc'] !== 8) };
    const ks = crossings(r, 'p_defender_wins', 0.5);
    expect(ks.every((k) => k.answer && !k.neighbour && k.resolved)).toBe(true);
    const lines = reachText(r, 'p_defender_wins', 0.5);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^where p_defender_wins reaches 0\.5: p_defender_wins is at or above 0\.5 already at dc = 12, the lowest swept, in every variant \(0\.\d{4} to 0\.\d{4}\): the sweep does not bracket 0\.5, so it does not show where it is first reached$/);
    // a line that crosses keeps the table
    expect(reachText(climbers, 'p_attacker_wins', 0.5)[0]).toBe('where p_attacker_wins reaches 0.5 among the swept values (≥ where it rises, ≤ where it falls):');
    // a line that never reaches the target says which side of it it stays on, as a line with no clear direction does (not "not reached" for one and "at or above" for the other)
    const never = reachText(climbers, 'p_defender_wins', 0.9999).join('\n');
    expect(never).toMatch(/ below 0\.9999 at every value +– +closest: /);
    expect(never).not.toMatch(/not reached/);
  });
});

describe('which differences are Welch, said where they are shown', () => {
  const d = (paired: boolean) => ({ value: -0.5, ci_low: -0.7, ci_high: -0.3, se: 0.1, paired });
  it('a Welch difference is marked beside its interval; a paired one is not', () => {
    expect(deltaText(d(false))).toBe('-0.5000 [-0.7000, -0.3000] (Welch)');
    expect(deltaText(d(true))).toBe('-0.5000 [-0.7000, -0.3000]');
  });
  it('the sentence names the Welch metrics and the event each averages over, and says every metric over all trials is paired', () => {
    expect(pairingText({}, [], false)).toBe(
      "Variants share dice (common random numbers): a difference's 95% interval is paired (from the per-trial differences on the same trials) for every metric over all trials.",
    );
    expect(pairingText({ conditionalOn: { mean_turns: 'p_surrender' } }, ['mean_turns'], true)).toBe(
      "Variants share dice (common random numbers): a difference's 95% interval is paired (from the per-trial differences on the same trials) for every metric over all trials; Welch's, marked (Welch), for <code>mean_turns</code> (a mean over the trials with p_surrender): the two sides average different trials, so the difference is not paired trial by trial.",
    );
    const r = { cases: [{ differences: {} }, { differences: { p_x: d(true), mean_y: d(false) } }] } as unknown as ScenarioResult;
    expect(welchMetrics(r, ['p_x', 'mean_y', 'mean_z'])).toEqual(['mean_y']);
  });
});

describe('--brief: a range over the cases that is only noise says so', () => {
  it('the lowest – highest of the first answer metric, and "the same within their 95% intervals" only when every interval shares a point', async () => {
    const r = await runFile('scenarios/surrender/heavy-guns-grid.yaml', 2000);
    const sys = systemById(r.system)!;
    const m = answerNames(r, sys.headline, sys.outcomes)[0];
    const line = () => briefAnswer(r, sys.headline, sys.outcomes).split('; ')[0];
    // the grid's own p_test: from 0 to near 1, far apart
    expect(line()).toMatch(new RegExp(`^${m} \\S+ – \\S+$`));
    // the same metric at values that differ by less than their intervals: a range, and that it is noise
    r.cases.forEach((c, i) => (c.metrics[m] = { ...c.metrics[m], value: 0.861 + (i % 3) * 0.0003, ci_low: 0.859 + (i % 3) * 0.0003, ci_high: 0.863 + (i % 3) * 0.0003 }));
    expect(line()).toBe(`${m} 0.8610 – 0.8616 (the same within their 95% intervals)`);
    // variants on the same dice whose difference leaves out 0 are not "the same": the difference is said instead
    r.cases[1].differences = { [m]: { value: 0.0006, ci_low: 0.0002, ci_high: 0.001, se: 0.0002, paired: true } };
    r.cases[2].differences = { [m]: { value: 0.0003, ci_low: 0.0001, ci_high: 0.0005, se: 0.0001, paired: true } };
    expect(line()).toBe(`${m} 0.8610 – 0.8616 (their 95% intervals overlap, but their difference leaves out 0: ${r.cases[1].variant} − ${r.variants[0]} at ${r.params.map((p) => `${shortName(p)}=${String(r.cases[1].params[p])}`).join(', ')} = +6.0e-4 [2.0e-4, 0.0010] (and 1 more case))`);
    for (const c of r.cases) c.differences = {};
    // one case's interval clear of another's: no such note
    r.cases[0].metrics[m] = { ...r.cases[0].metrics[m], value: 0.5, ci_low: 0.49, ci_high: 0.51 };
    expect(line()).toBe(`${m} 0.5000 – 0.8616`);
  }, 60_000);

  it('a mean over the trials of an event says which, as run\'s answer does (mean_turns read bare as a mean over every trial)', async () => {
    const r = await runFile('scenarios/surrender/fortress-readings.yaml', 2000);
    const [turns, surrender] = briefAnswer(r, ['mean_turns', 'p_surrender']).split('; ');
    expect(turns).toMatch(/^mean_turns \S+ – \S+ \(a mean over the trials with p_surrender\)$/);
    expect(surrender).toMatch(/^p_surrender \S+ – \S+$/);
  }, 60_000);
});

describe('over which trials', () => {
  it('one count, a count a case, or their range where --precision stopped cases apart; and the seed', () => {
    const c = (trials: number) => ({ trials }) as never;
    expect(trialsText({ seed: 5, cases: [c(1)] })).toBe(' over 1 trial (seed 5)');
    expect(trialsText({ seed: 'x', cases: [c(200000), c(200000)] })).toBe(' over 200,000 trials a case (seed x)');
    expect(trialsText({ seed: 1, cases: [c(12000), c(40000), c(20000)] })).toBe(' over 12,000-40,000 trials a case (seed 1)');
    expect(trialsText({ seed: 1, cases: [] })).toBe('');
  });
});
