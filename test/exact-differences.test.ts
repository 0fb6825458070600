/**
 * The exact difference between two readings of a rule (variant − baseline): `exact` computes it,
 * `check` holds the Monte Carlo paired difference to it on the paired SE, and `expect: exact`
 * on a `diff_` is judged the same way. knights-charge (Crusader Rex 6.32) has an exact answer
 * for every variant; its charge's gain is +0.1137 (the scenario's comment).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkScenario, exactDifferences, exactScenario, runScenario, unpairedDifferences, validateText, type ValidScenario } from '../src/api.js';
import { summaryCsv, summaryJson } from '../src/report/tables.js';
import { meanSe, pairedDifference, pairedSpread, welchSe, Z95, zPairedDifference } from '../src/stats/intervals.js';

const ROOT = path.resolve(import.meta.dirname, '..');

function load(rel: string): ValidScenario {
  const file = path.join(ROOT, rel);
  const v = validateText(file, readFileSync(file, 'utf8'));
  if (!v.ok) throw new Error(v.issues.map((i) => i.message).join('\n'));
  return v.value;
}

describe('exact differences from the baseline', () => {
  it('exactDifferences: variant − baseline for the metrics both have; null when either side has no exact form', () => {
    const a = { metrics: { p_x: { value: 0.9 }, mean_y: { value: 2, variance: 1 }, p_only: { value: 0.5 } }, curves: {} };
    const b = { metrics: { p_x: { value: 0.7 }, mean_y: { value: 3, variance: 1 } }, curves: {} };
    const d = exactDifferences(a, b)!;
    expect(Object.keys(d)).toEqual(['p_x', 'mean_y']);
    expect(d.p_x).toBeCloseTo(0.2, 15);
    expect(d.mean_y).toBe(-1);
    expect(exactDifferences(a, null)).toBeNull();
    expect(exactDifferences(null, b)).toBeNull();
  });

  it('exactScenario gives each variant after the baseline its exact difference (none on the baseline)', () => {
    const ex = exactScenario(load('scenarios/crusader-rex/knights-charge.yaml'));
    expect(ex.map((e) => e.variant)).toEqual(['no-charge', 'always-charge', 'charge-when-weaker']);
    expect(ex[0].differences).toBeUndefined();
    for (const e of ex.slice(1)) {
      for (const [m, x] of Object.entries(e.differences!)) expect(x).toBe(e.exact!.metrics[m].value - ex[0].exact!.metrics[m].value);
    }
    // the charge's gain, 6.32 (the scenario's expect: comment)
    expect(ex[1].differences!.p_attacker_wins).toBeCloseTo(0.1137, 4);
  });
});

describe('zPairedDifference', () => {
  it('is (value − exact) / se', () => {
    expect(zPairedDifference(0.18, 0.002, 50000, 0.17, 'probability')).toBeCloseTo(5, 10);
    expect(zPairedDifference(-1.2, 0.1, 100, -1, 'mean')).toBeCloseTo(-2, 10);
  });
  it('never takes a probability difference\'s SE below √((|δ| − δ²)/n): an exact 1e-5 that 50,000 trials never showed is not z = ∞', () => {
    // every per-trial difference 0: sample SE 0; P(no discordant trial) = (1 − 1e-5)^50000 ≈ 0.61
    const z = zPairedDifference(0, 0, 50000, 1e-5, 'probability');
    expect(z).toBeCloseTo(-1e-5 / Math.sqrt((1e-5 - 1e-10) / 50000), 10);
    expect(Math.abs(z)).toBeLessThan(1);
    // a mean has no such floor; agreement is 0, disagreement with no spread is infinite
    expect(zPairedDifference(0, 0, 50000, 1e-5, 'mean')).toBe(-Infinity);
    expect(zPairedDifference(0.25, 0, 50000, 0.25, 'probability')).toBe(0);
  });
});

describe('check: the Monte Carlo paired difference against the exact difference', () => {
  it('adds a diff_<metric> row per paired metric of each variant, z on the paired SE; a wrong exact difference fails', async () => {
    const v = load('scenarios/crusader-rex/knights-charge.yaml');
    const result = await runScenario(v, { trials: 40000 });
    const ex = exactScenario(v);
    const rows = checkScenario(result, ex).filter((r) => r.metric.startsWith('diff_'));
    // every Crusader Rex metric is over all trials, so paired: each exact difference of each variant after the baseline is compared
    expect(rows.map((r) => `${r.variant} ${r.metric}`)).toEqual(ex.slice(1).flatMap((e) => Object.keys(e.differences!).map((m) => `${e.variant} diff_${m}`)));
    expect(rows.map((r) => r.metric)).toEqual(expect.arrayContaining(['diff_p_siege_continues', 'diff_mean_rounds', 'diff_mean_steps_lost_franks']));
    expect(unpairedDifferences(result, ex)).toEqual([]);
    for (const r of rows) {
      const c = result.cases.find((x) => x.variant === r.variant)!;
      const base = result.cases.find((x) => x.variant === 'no-charge')!;
      const m = r.metric.slice('diff_'.length);
      const d = c.differences[m];
      expect(d.paired).toBe(true);
      expect(r).toMatchObject({ simulated: d.value, exact: ex.find((e) => e.variant === r.variant)!.differences![m], n: 40000, difference: true });
      // the SE is the paired one, √(s_d²/n), not the Welch one of two independent samples; the
      // interval is the paired one with two more trials at ±R (pairedDifference), close to ±1.96·se
      expect(d.se).toBeCloseTo(meanSe(d.pairedMoments!), 15);
      expect(d).toMatchObject(pairedDifference(d.pairedMoments!, Z95, d.spread));
      expect(d.spread).toBe(pairedSpread(c.metrics[m].kind, c.metrics[m].range, base.metrics[m].range));
      expect(d.ci_high - d.ci_low, 'another case than the baseline: never a zero width').toBeGreaterThan(0);
      if (d.se! > 0) expect((d.ci_high - d.ci_low) / 2 / (Z95 * d.se!)).toBeLessThan(1.05);
      if (r.exact !== 0 && d.value !== r.exact) expect(r.z).toBeCloseTo((d.value - r.exact) / Math.max(d.se!, Math.sqrt((Math.abs(r.exact) - r.exact ** 2) / 40000)), 10);
      expect(Math.abs(r.z)).toBeLessThan(4.5);
      if (m === 'p_attacker_wins') {
        const mo = (x: typeof c.metrics.p_attacker_wins) => ({ n: x.n, sum: x.k!, sumSq: x.k! });
        // common dice make the two readings' outcomes agree on most trials: the paired SE is the smaller
        expect(d.se!).toBeLessThan(welchSe(mo(c.metrics[m]), mo(base.metrics[m])));
      }
    }
    // a test that can fail: an exact difference off by 0.02 (about 7 paired SEs at 40,000 trials)
    const wrong = ex.map((e) => (e.differences ? { ...e, differences: { ...e.differences, p_attacker_wins: e.differences.p_attacker_wins + 0.02 } } : e));
    const off = checkScenario(result, wrong).filter((r) => r.metric === 'diff_p_attacker_wins');
    expect(off).toHaveLength(2);
    for (const r of off) expect(Math.abs(r.z)).toBeGreaterThan(4.5);
  }, 60_000);

  it('leaves out the differences that are not paired (Welch: a mean over the trials of an event), and names them', async () => {
    const v = load('scenarios/surrender/fortress-readings.yaml');
    const result = await runScenario(v, { trials: 2000 });
    const ex = exactScenario(v);
    const compared = new Set(checkScenario(result, ex).filter((r) => r.difference).map((r) => r.metric));
    const unpaired = unpairedDifferences(result, ex);
    // mean_turns is over the trials that surrendered (conditionalOn); p_test and p_surrender are over all trials
    expect(unpaired).toEqual(['diff_mean_turns']);
    expect([...compared].sort()).toEqual(['diff_p_surrender', 'diff_p_test']);
    for (const c of result.cases.slice(1)) expect([c.differences.mean_turns.paired, c.differences.p_surrender.paired]).toEqual([false, true]);
  }, 60_000);
});

describe('summary.json differences carry their SE and how they were measured; summary.csv does not change', () => {
  it('se (√(s_d²/n): the paired interval, two more trials at ±R, is a little wider than value ± 1.96·se) and paired', async () => {
    const v = load('scenarios/crusader-rex/knights-charge.yaml');
    const r = await runScenario(v, { trials: 2000 });
    const json = summaryJson(r) as { cases: { differences?: Record<string, { value: number; ci_low: number; ci_high: number; se: number; paired: boolean }> }[] };
    const d = json.cases[1].differences!;
    expect(Object.keys(d.p_attacker_wins)).toEqual(['value', 'ci_low', 'ci_high', 'se', 'paired']);
    expect(d.p_attacker_wins.paired).toBe(true);
    expect(d.mean_rounds.paired).toBe(true); // a mean over all trials is paired too
    const ratio = (d.p_attacker_wins.ci_high - d.p_attacker_wins.ci_low) / 2 / (Z95 * d.p_attacker_wins.se);
    expect(ratio).toBeGreaterThan(1);
    expect(ratio).toBeLessThan(1.05);
    // (pairedMoments and spread, for drawing the interval at another level, stay out of the file)
    // the CSV's columns as ever, and n after them: the trials a value is over (a mean over the trials of an event: fewer)
    expect(summaryCsv(r).split('\n')[0]).toBe('case,variant,metric,value,ci_low,ci_high,trials,n');
  }, 60_000);
});
