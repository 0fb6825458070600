import { describe, expect, it } from 'vitest';
import { summarizeFantasy } from '../src/systems/fantasy/summarize.js';
import { A_BREACHED, A_BREACH_ROUND, A_BREACH_ROUND2, A_TRIALS } from '../src/systems/fantasy/kernel.js';
import type { FantasyCompiled } from '../src/systems/fantasy/compile.js';
import { runFile } from './helpers.js';
import { meanInterval, welchDifference, wilson, Z95, zMean, zProportion } from '../src/stats/intervals.js';

describe('intervals', () => {
  it('Z95 is the 97.5% normal quantile', () => {
    expect(Z95).toBeCloseTo(1.959964, 5);
  });

  it('Wilson interval matches published values', () => {
    // 50/100: [0.4038, 0.5962] (Newcombe 1998, Table I style check)
    const w = wilson(50, 100);
    expect(w.value).toBe(0.5);
    expect(w.ci_low).toBeCloseTo(0.40383, 4);
    expect(w.ci_high).toBeCloseTo(0.59617, 4);
    // 0/10: [0, 0.2775]
    const z = wilson(0, 10);
    expect(z.ci_low).toBe(0);
    expect(z.ci_high).toBeCloseTo(0.27753, 4);
    expect(Number.isNaN(wilson(0, 0).value)).toBe(true);
  });

  it('mean interval from moments', () => {
    // x = 1,2,3,4: mean 2.5, s^2 = 5/3
    const m = meanInterval({ n: 4, sum: 10, sumSq: 30 });
    expect(m.value).toBe(2.5);
    expect(m.ci_high - m.value).toBeCloseTo(Z95 * Math.sqrt(5 / 3 / 4), 10);
  });

  it('a mean interval is clamped to the range its observations take, the mean itself never moved', () => {
    // 9,999 observations of 3 and one of 2, capped at 3: the normal interval pokes above the cap
    const m = { n: 10_000, sum: 29_999, sumSq: 9_999 * 9 + 4 };
    const raw = meanInterval(m);
    expect(raw.ci_high).toBeGreaterThan(3);
    const c = meanInterval(m, Z95, [1, 3]);
    expect(c).toEqual({ value: raw.value, ci_low: raw.ci_low, ci_high: 3 });
    expect(meanInterval({ n: 10_000, sum: 10_001, sumSq: 10_003 }, Z95, [1, 3]).ci_low).toBe(1);
    expect(meanInterval({ n: 4, sum: 10, sumSq: 30 }, Z95, [1, 4])).toEqual(meanInterval({ n: 4, sum: 10, sumSq: 30 }));
  });

  it("the systems give their means their ranges: a fantasy breach round is at least 1, a Crusader Rex game turn at most 3 rounds", async () => {
    // 10,000 breaches: all in round 1 but one in round 3 (mean 1.0002, the normal interval dips below 1)
    const c = { siege: 1, maxRounds: 20, maxVolley: 0, wallHp: 30, units: new Array(14).fill(0) } as unknown as FantasyCompiled;
    const acc = new Float64Array(4096);
    acc[A_TRIALS] = 10_000;
    acc[A_BREACHED] = 10_000;
    acc[A_BREACH_ROUND] = 10_002;
    acc[A_BREACH_ROUND2] = 9_999 + 9;
    const b = summarizeFantasy(c, acc).metrics.mean_breach_round;
    expect(b.value).toBeCloseTo(1.0002, 12);
    expect(meanInterval({ n: 10_000, sum: 10_002, sumSq: 10_008 }).ci_low).toBeLessThan(1);
    expect(b.ci_low).toBe(1);
    expect(b.ci_high).toBeGreaterThan(1.0002);
    // battle-of-jerusalem: keeping the strongest block outside, nearly every battle goes all 3 rounds
    const r = await runFile('scenarios/crusader-rex/battle-of-jerusalem.yaml', 20_000);
    const m = r.cases.find((x) => x.variant === 'strongest-outside')!.metrics.mean_rounds;
    expect(m.value).toBeLessThan(3);
    expect(m.value).toBeGreaterThan(2.999);
    expect(m.ci_high).toBe(3);
    expect(m.ci_low).toBeCloseTo(meanInterval({ n: m.n, sum: m.sum!, sumSq: m.sumSq! }).ci_low, 12);
    for (const cs of r.cases) for (const [k, x] of Object.entries(cs.metrics)) if (x.kind === 'mean') expect(x.range, k).toBeDefined();
  }, 60_000);

  it('Welch difference of two means', () => {
    const d = welchDifference({ n: 4, sum: 14, sumSq: 54 }, { n: 4, sum: 10, sumSq: 30 });
    expect(d.value).toBe(1);
    expect(d.ci_high - d.value).toBeCloseTo(Z95 * Math.sqrt(5 / 3 / 4 + 5 / 3 / 4), 10);
  });

  it('z-scores, including degenerate exact values', () => {
    expect(zProportion(60, 100, 0.5)).toBeCloseTo(2, 10);
    expect(zProportion(0, 100, 0)).toBe(0);
    expect(zProportion(1, 100, 0)).toBe(Infinity);
    expect(zMean(2.1, 100, 2, 1)).toBeCloseTo(1, 10);
  });
});

describe('moments agree with simple-statistics', async () => {
  const ss = await import('simple-statistics');
  it('variance from (n, Σx, Σx²) equals sampleVariance', async () => {
    const { varianceOf } = await import('../src/stats/intervals.js');
    const xs = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];
    const m = { n: xs.length, sum: xs.reduce((a, b) => a + b, 0), sumSq: xs.reduce((a, b) => a + b * b, 0) };
    expect(varianceOf(m)).toBeCloseTo(ss.sampleVariance(xs), 12);
  });
});

describe('z-scores near the ends', () => {
  it('an exact answer a few ulps above 1 is still 1', () => {
    expect(zProportion(100, 100, 1 + 2e-16)).toBe(0);
    expect(zProportion(0, 100, -1e-17)).toBe(0);
    expect(zProportion(99, 100, 1 + 2e-16)).toBe(-Infinity);
  });
});

describe('exact tails for rare events', async () => {
  const { normalQuantile, binomialTail } = await import('../src/stats/intervals.js');
  it('normal quantiles', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 7);
    expect(normalQuantile(1e-6)).toBeCloseTo(-4.753424308822899, 6);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
  });
  it('binomial tails match hand sums', () => {
    // X ~ Bin(10, 0.1): P(X >= 3) = 1 - (0.9^10 + 10 0.1 0.9^9 + 45 0.01 0.9^8)
    const p3 = 1 - (0.9 ** 10 + 10 * 0.1 * 0.9 ** 9 + 45 * 0.01 * 0.9 ** 8);
    expect(binomialTail(3, 10, 0.1, true)).toBeCloseTo(p3, 12);
    expect(binomialTail(2, 10, 0.1, false)).toBeCloseTo(1 - p3, 12);
    expect(binomialTail(7, 10, 0.9, false)).toBeCloseTo(p3, 12); // 7 or fewer successes = 3 or more failures
  });
  it('3 events where 0.18 were expected is about a 1-in-1000 tail, not 6 sigma', () => {
    // the engines-vs-wall case: P(not fallen by round 4) = 9.49e-6, 20000 trials, 3 seen
    const z = zProportion(20000 - 3, 20000, 1 - 9.49e-6);
    expect(z).toBeLessThan(-2.9);
    expect(z).toBeGreaterThan(-3.4);
    expect(Math.abs(zProportion(20000 - 12, 20000, 1 - 9.49e-6))).toBeGreaterThan(4.5); // 12 is real
    expect(zProportion(60, 100, 0.5)).toBeCloseTo(2, 10); // the normal case unchanged
  });
});
