/**
 * Cost bounded by the limits accepted. A 198 KB scenario (under the 256 KiB limit) with a
 * 100 x 100 sweep and 5,500 identical `expect:` items would exhaust the heap if every case kept
 * the whole file and every item were resolved against every case: it is refused at once, naming
 * the limit on judgments. A file at the limits is validated in linear time. A 10,000-case sweep
 * (trials 1) would overflow the chart renderer's stack with a panel per case (10,000 facets):
 * its charts draw, a curve chart with too many panels drawing an evenly spaced sample and
 * saying so.
 */
import { describe, expect, it } from 'vitest';
import { validateText } from '../src/api.js';
import { runScenario } from '../src/api.js';
import { LIMITS } from '../src/scenario/limits.js';
import { MSG } from '../src/scenario/messages.js';
import { renderSvg } from '../src/report/render.js';
import { MAX_PANELS } from '../src/systems/chart-kit.js';
import { surrenderHead, surrenderSweep } from './heavy-scenarios.js';

const head = (to1: number, to2: number) => [...surrenderHead('heavy'), ...surrenderSweep(to1, to2), ''].join('\n');
const items = (n: number, item = '  - { metric: p_test, at_least: 0 }\n') => 'expect:\n' + item.repeat(n);

describe('the results the cases hold are bounded (every case\'s curves are kept until the report is written)', () => {
  it('a Cry Havoc melee swept over 1 to 1,000 turns (8 M numbers, past 5 GB when run): refused at the sweep before any trial; a 10,000-case surrender sweep is not', () => {
    const melee = 'name: long\nsystem: cry-havoc\nseed: 1\ntrials: 20\nkind: melee\nattackers:\n  - { attack: 6 }\ndefender: { defence: 3 }\nturns: 8\nsweep:\n  turns: { from: 1, to: 1000, step: 1 }\n';
    const v = validateText('long.yaml', melee);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.issues).toHaveLength(1);
    expect(v.issues[0]).toMatchObject({ path: 'sweep', line: 10, col: 1 });
    expect(v.issues[0].message).toMatch(/^the 1,000 cases' results would hold 8,015,000 numbers \(their curves: up to 16,007 a case\); at most 3,000,000 are allowed/);
    // the same sweep to 300 turns holds under the limit and is valid
    expect(validateText('ok.yaml', melee.replace('to: 1000', 'to: 300')).ok).toBe(true);
    expect(validateText('heavy.yaml', head(100, 100)).ok).toBe(true);
  });
});

describe('expect: items x cases are bounded', () => {
  it('5,500 items on a 100 x 100 sweep (the file that exhausted the heap): refused at once, naming the limit', { timeout: 120_000 }, () => {
    const text = head(100, 100) + items(5500);
    expect(text.length).toBeLessThan(LIMITS.fileBytes);
    const t0 = performance.now();
    const v = validateText('heavy.yaml', text);
    const ms = performance.now() - t0;
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.issues).toEqual([expect.objectContaining({ path: 'expect', line: 12, col: 1, message: MSG.expectTooManyJudgments(55_000_000, 5500, LIMITS.expectJudgments) })]);
    // about 2 s of CPU; the bound is for a loaded 2-core machine (a hang guard, not a speed figure)
    expect(ms).toBeLessThan(60_000);
  });

  it('1,000 items on 2,500 cases (validate took 8.9 s and 0.9 GB): refused the same way', { timeout: 120_000 }, () => {
    const v = validateText('k1000.yaml', head(50, 50) + items(1000));
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.issues.map((i) => i.message)).toEqual([MSG.expectTooManyJudgments(2_500_000, 1000, LIMITS.expectJudgments)]);
  });

  it('a file at the limit (10 items on every case of a 10,000-case sweep, 100,000 judgments) is valid, and items that select fewer cases count fewer', { timeout: 120_000 }, () => {
    const t0 = performance.now();
    const v = validateText('at-limit.yaml', head(100, 100) + items(10));
    expect(performance.now() - t0).toBeLessThan(60_000);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.value.points).toHaveLength(10_000);
    expect(v.value.expect.reduce((n, e) => n + e.targets.length, 0)).toBe(LIMITS.expectJudgments);
    // identical selections share one list of targets
    expect(new Set(v.value.expect.map((e) => e.targets)).size).toBe(1);
    // a case carries its own settings, not the file's expect:, sweep:, variants: or headline:
    expect(Object.keys(v.value.points[0].variants[0].scenario)).not.toContain('expect');
    expect(Object.keys(v.value.points[0].variants[0].scenario)).not.toContain('sweep');
    // 1,000 items each on one row of the grid (100 cases): 100,000 judgments, valid; the targets are that row's
    const rows = Array.from({ length: 1000 }, (_, i) => `  - { metric: p_test, at_least: 0, where: { besieger.combat_units: ${(i % 100) + 1} } }\n`).join('');
    const w = validateText('rows.yaml', head(100, 100) + 'expect:\n' + rows);
    expect(w.ok).toBe(true);
    if (!w.ok) return;
    const e = w.value.expect[41];
    expect(e.targets).toHaveLength(100);
    expect(e.targets.every((t) => w.value.points[t.point].params['besieger.combat_units'] === 42)).toBe(true);
    expect(e.targets.map((t) => t.point)).toEqual(Array.from({ length: 100 }, (_, j) => 41 * 100 + j));
  });

  it('a where: over two axes selects exactly the points of its values', () => {
    const v = validateText('two.yaml', head(5, 4) + items(1, '  - { metric: p_test, at_least: 0, where: { besieger.combat_units: [2, 5], besieged.steps_inside: [1, 3] } }\n'));
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    const got = v.value.expect[0].targets.map((t) => v.value.points[t.point].params);
    expect(got).toEqual([
      { 'besieger.combat_units': 2, 'besieged.steps_inside': 1 },
      { 'besieger.combat_units': 2, 'besieged.steps_inside': 3 },
      { 'besieger.combat_units': 5, 'besieged.steps_inside': 1 },
      { 'besieger.combat_units': 5, 'besieged.steps_inside': 3 },
    ]);
  });
});

describe('a 10,000-case sweep renders', () => {
  it('surrender besieger.combat_units 1..100 x besieged.steps_inside 1..100, trials 1: every chart draws; the curve chart draws a sample and says so', { timeout: 600_000 }, async () => {
    const v = validateText('sweep.yaml', head(100, 100));
    if (!v.ok) throw new Error('valid');
    const r = await runScenario(v.value, { trials: 1 });
    const charts = v.value.system.charts(r);
    const curve = charts.find((c) => c.name === 'surrender_by_turn')!;
    expect(curve.caption).toMatch(new RegExp(`^a sample: ${MAX_PANELS} of the 10,000 panels, evenly spaced .*every case is in surrender_by_turn\\.csv`));
    for (const c of charts) {
      const svg = await renderSvg(c.spec);
      expect(svg.startsWith('<svg'), c.name).toBe(true);
    }
  });

  it("a fantasy open field of 420 cases and a Crusader Rex siege of 120: each system's own per-case charts draw a sample of their panels and say so (a 2,100-case sweep's panels overflowed vega's stack)", { timeout: 600_000 }, async () => {
    const files = {
      fantasy: [
        'name: wide', 'system: fantasy', 'seed: 31', 'trials: 1', 'mode: open_field',
        'attacker: { infantry: 8, cavalry: 3, archers: 6, mages: 4, captain_might: 1 }',
        'defender: { infantry: 10, archers: 4, clerics: 3, captain_might: 1 }',
        'policy: { shield_spending: no_waste }',
        'variants:', '  - name: no-waste', '  - { name: optimal, set: { policy.shield_spending: optimal } }',
        'sweep:', '  defender.captain_might: { from: 0, to: 20, step: 1 }', '  attacker.mages: { from: 0, to: 9, step: 1 }', '',
      ].join('\n'),
      cr: [
        'name: long-siege', 'system: crusader-rex', 'seed: 5', 'trials: 1', 'town: { rating: 2 }', 'player1: saracens',
        'situation: existing_siege', 'besieged: franks', 'blocks:',
        '  - { block: Raymond (Tiberias), at: castle }', '  - { block: Walter, at: castle }',
        '  - { block: Saladin, at: field }', '  - { block: Al Mashtub, at: field }', '  - { block: Tuman, at: field }',
        'turns: 1', 'policy: { storm: when_stronger }',
        'sweep:', '  turns: { from: 1, to: 20, step: 1 }', '  town.rating: [1, 2, 3]',
        'variants:', '  - { name: storm, set: { policy.storm: always } }', '  - { name: starve, set: { policy.storm: never } }', '',
      ].join('\n'),
    };
    // each chart's panels: a facet's distinct values (rows x columns of a grid; the vconcat's charts each as many)
    const panels = (spec: Record<string, unknown>, field: string) => new Set((spec.data as { values: Record<string, unknown>[] }).values.map((x) => x[field])).size;
    for (const [kind, text] of Object.entries(files)) {
      const v = validateText(`${kind}.yaml`, text);
      if (!v.ok) throw new Error(v.issues.map((i) => i.message).join('; '));
      const r = await runScenario(v.value, { trials: 1 });
      const charts = v.value.system.charts(r);
      const byName = (n: string) => charts.find((c) => c.name === n)!;
      if (kind === 'fantasy') {
        expect(r.cases).toHaveLength(420);
        expect(byName('attrition').caption).toMatch(/^a sample: 36 of the 840 panels, evenly spaced .*one panel per case and side; every case is in attrition\.csv; /);
        expect(panels(byName('attrition').spec, 'series')).toBe(MAX_PANELS / 2); // x 2 sides
        expect(byName('volley_damage').caption).toMatch(/^a sample: 36 of the 210 panels, evenly spaced .*one panel per \(captain_might, mages\), variant as colour; every case is in volley_damage\.csv; /);
        expect(panels(byName('volley_damage').spec, 'panel')).toBe(MAX_PANELS);
      } else {
        expect(r.cases).toHaveLength(120);
        expect(byName('attrition').caption).toMatch(/^a sample: 12 of the 60 rows, evenly spaced .*one row per \(turns, rating\), variant as colour; every case is in attrition\.csv; /);
        expect(panels(byName('attrition').spec, 'row')).toBe(MAX_PANELS / 3); // x 3 places at most
        expect(byName('survivors').caption).toMatch(/^a sample: 18 of the 60 rows, .*every case is in survivors\.csv; /);
        expect(panels(byName('survivors').spec, 'row')).toBe(MAX_PANELS / 2); // x 2 sides
      }
      for (const c of charts) expect((await renderSvg(c.spec)).startsWith('<svg'), `${kind} ${c.name}`).toBe(true);
    }
  });

  it('4,800 variants (a by-variant bar chart of thousands of rows overflowed the stack too): every chart draws, the bars a sample said so', { timeout: 600_000 }, async () => {
    const text = [
      ...surrenderHead('many'),
      'variants:',
      '  - name: b',
      ...Array.from({ length: 4800 }, (_, i) => `  - {name: v${i + 1}, set: {besieger.combat_units: ${(i + 1) % 1000}}}`),
      '',
    ].join('\n');
    expect(text.length).toBeLessThan(LIMITS.fileBytes);
    const v = validateText('many.yaml', text);
    if (!v.ok) throw new Error('valid');
    const r = await runScenario(v.value, { trials: 1 });
    const charts = v.value.system.charts(r);
    expect(charts.find((c) => c.name === 'p_surrender_by_variant')!.caption).toMatch(/^a sample, evenly spaced: 48 of the 4,801 variants \(every case is in summary\.csv\)/);
    for (const c of charts) expect((await renderSvg(c.spec)).startsWith('<svg'), c.name).toBe(true);
  });
});
