/**
 * The edges of src/stats/intervals.ts that test/stats.test.ts leaves open: exact 0 and 1 at the
 * ends of a Wilson interval, variance at n = 2, z-scores with no spread or an infinite one, the
 * exact-binomial regime of zProportion on both sides, and each function's arithmetic pinned to
 * values computed here by hand or taken from published tables (every test here fails on a
 * mutant of intervals.ts that the other tests let survive; docs/mutation.md).
 */
import { describe, expect, it } from 'vitest';
import {
  binomialTail,
  clampInterval,
  differenceInterval,
  halfWidth,
  holmAdjust,
  meanInterval,
  meanSe,
  normalQuantile,
  normalUpperTail,
  pairedDifference,
  pTwoSided,
  rescaleInterval,
  varianceOf,
  welchDifference,
  welchSe,
  wilson,
  Z95,
  zForConfidence,
  zMean,
  zPairedDifference,
  zProportion,
  zTwoProportions,
} from '../src/stats/intervals.js';

const NAN3 = { value: NaN, ci_low: NaN, ci_high: NaN };

/** Moments of a list of observations. */
function moments(xs: number[]) {
  return { n: xs.length, sum: xs.reduce((a, x) => a + x, 0), sumSq: xs.reduce((a, x) => a + x * x, 0) };
}

describe('wilson', () => {
  it('3 of 10 by the textbook formula (Wilson 1927), to 12 digits', () => {
    const p = 0.3;
    const n = 10;
    const z2 = Z95 * Z95;
    const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
    const half = (Z95 / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
    const w = wilson(3, 10);
    expect(w.value).toBe(0.3);
    expect(w.ci_low).toBeCloseTo(centre - half, 12);
    expect(w.ci_high).toBeCloseTo(centre + half, 12);
    expect(w.ci_low).toBeCloseTo(0.10779, 4); // Newcombe (1998) Table I, 3/10 (Wilson score)
    // a z passed in is used: at z = 1 the interval is narrower
    expect(wilson(3, 10, 1).ci_high - wilson(3, 10, 1).ci_low).toBeLessThan(w.ci_high - w.ci_low);
  });

  it('0 of n and n of n give bounds of exactly 0 and 1, not a rounding error away', () => {
    // without the clamps: wilson(0, 3).ci_low is 5.6e-17, wilson(10, 10).ci_high 0.9999999999999999
    for (const n of [3, 10, 13, 25]) {
      expect(wilson(0, n).ci_low, `0 of ${n}`).toBe(0);
      expect(wilson(n, n).ci_high, `${n} of ${n}`).toBe(1);
      expect(wilson(0, n).ci_high).toBeGreaterThan(0);
      expect(wilson(n, n).ci_low).toBeLessThan(1);
    }
  });

  it('no trials is no estimate', () => {
    expect(wilson(0, 0)).toEqual(NAN3);
    expect(wilson(0, -1)).toEqual(NAN3);
  });
});

describe('moments', () => {
  it('variance at n = 2 is computed (n − 1 = 1), and is 0 below it', () => {
    expect(varianceOf(moments([1, 2]))).toBe(0.5);
    expect(varianceOf(moments([3]))).toBe(0); // not 0/0
    expect(varianceOf({ n: 0, sum: 0, sumSq: 0 })).toBe(0);
  });

  it('a variance that rounding makes negative is 0', () => {
    const m = moments([0.1, 0.1, 0.1]);
    expect(m.sumSq - m.n * (m.sum / m.n) ** 2).toBeLessThan(0); // the rounding this guards
    expect(varianceOf(m)).toBe(0);
    expect(meanSe(m)).toBe(0);
  });

  it('meanInterval: no observation is no estimate; the z passed in is used', () => {
    expect(meanInterval({ n: 0, sum: 0, sumSq: 0 })).toEqual(NAN3);
    const m = moments([1, 2, 3, 4]);
    expect(meanInterval(m, 1)).toEqual({ value: 2.5, ci_low: 2.5 - Math.sqrt(5 / 12), ci_high: 2.5 + Math.sqrt(5 / 12) });
    expect(pairedDifference(m, 1)).toEqual(meanInterval(m, 1));
    expect(pairedDifference(m)).toEqual(meanInterval(m));
  });

  it('meanSe and welchSe', () => {
    expect(meanSe(moments([1, 2, 3, 4]))).toBeCloseTo(Math.sqrt(5 / 12), 14);
    expect(meanSe({ n: 0, sum: 0, sumSq: 0 })).toBeNaN();
    expect(welchSe(moments([1, 2, 3, 4]), moments([2, 4]))).toBeCloseTo(Math.sqrt(5 / 12 + 2 / 2), 14);
    expect(welchSe({ n: 0, sum: 0, sumSq: 0 }, moments([1, 2]))).toBeNaN();
    expect(welchSe(moments([1, 2]), { n: 0, sum: 0, sumSq: 0 })).toBeNaN();
  });

  it('welchDifference: both ends, the z passed in, and NaN without observations', () => {
    const d = welchDifference(moments([2, 4]), moments([1, 2, 3, 4]), 2);
    const se = Math.sqrt(2 / 2 + 5 / 12);
    expect(d.value).toBe(0.5);
    expect(d.ci_low).toBeCloseTo(0.5 - 2 * se, 14);
    expect(d.ci_high).toBeCloseTo(0.5 + 2 * se, 14);
    expect(welchDifference({ n: 0, sum: 0, sumSq: 0 }, moments([1, 2]))).toEqual(NAN3);
    expect(welchDifference(moments([1, 2]), { n: 0, sum: 0, sumSq: 0 })).toEqual(NAN3);
  });
});

describe('clampInterval, halfWidth, rescaleInterval, differenceInterval', () => {
  it('clamps each bound into the range from whichever side it left it', () => {
    const e = { value: 2, ci_low: 0.5, ci_high: 3.5 };
    expect(clampInterval(e)).toBe(e);
    expect(clampInterval(e, [1, 3])).toEqual({ value: 2, ci_low: 1, ci_high: 3 });
    expect(clampInterval(e, [0, 4])).toEqual(e);
    // an interval wholly outside the range collapses onto its nearest end
    expect(clampInterval({ value: 5, ci_low: 4.5, ci_high: 5.5 }, [1, 3])).toEqual({ value: 5, ci_low: 3, ci_high: 3 });
    expect(clampInterval({ value: 0, ci_low: -1, ci_high: 0.5 }, [1, 3])).toEqual({ value: 0, ci_low: 1, ci_high: 1 });
  });

  it('halfWidth and rescaleInterval', () => {
    expect(halfWidth({ value: 1, ci_low: 0.25, ci_high: 2.25 })).toBe(1);
    expect(rescaleInterval({ value: 1, ci_low: 0, ci_high: 2 }, 2 * Z95)).toEqual({ value: 1, ci_low: -1, ci_high: 3 });
    expect(rescaleInterval({ value: 1, ci_low: 0, ci_high: 2 }, 3, 2)).toEqual({ value: 1, ci_low: -0.5, ci_high: 2.5 });
  });

  it("differenceInterval squares and adds each side's own half (Newcombe's MOVER)", () => {
    // four different distances, so every term is seen in the right place
    const a = { value: 0.5, ci_low: 0.47, ci_high: 0.61 };
    const b = { value: 0.7, ci_low: 0.63, ci_high: 0.72 };
    const d = differenceInterval(a, b);
    expect(d.value).toBeCloseTo(0.2, 15);
    expect(d.ci_low).toBeCloseTo(0.2 - Math.hypot(0.07, 0.11), 14);
    expect(d.ci_high).toBeCloseTo(0.2 + Math.hypot(0.02, 0.03), 14);
  });
});

describe('z-scores against exact answers', () => {
  it('zProportion, exact-binomial regime (n p (1 − p) < 25): an over-estimate has a positive z, an under-estimate a negative one', () => {
    // Bin(1000, 0.001): 5 seen where 1 was expected. P(X >= 5) = 1 − Σ_{i<5} pmf(i).
    let below = 0;
    for (let i = 0; i < 5; i++) below += Math.exp(lgammaBinom(1000, i) + i * Math.log(0.001) + (1000 - i) * Math.log1p(-0.001));
    const z = zProportion(5, 1000, 0.001);
    expect(z).toBeCloseTo(-normalQuantile(1 - below), 6);
    expect(z).toBeGreaterThan(2.6);
    expect(z).toBeLessThan(2.8);
    // 0 seen where 3 were expected: P(X <= 0) = 0.997^1000
    const zu = zProportion(0, 1000, 0.003);
    expect(zu).toBeCloseTo(normalQuantile(0.997 ** 1000), 6);
    expect(zu).toBeLessThan(-1.6);
    // a count on the likely side of the expectation (P(X <= 1) = 0.66 when 1.2 were expected) is no disagreement
    expect(zProportion(1, 1000, 0.0012)).toBe(0);
  });

  it('zMean with no spread or an infinite one', () => {
    expect(zMean(2.1, 100, 2, 0)).toBe(Infinity);
    expect(zMean(1.9, 100, 2, 0)).toBe(-Infinity);
    expect(zMean(1.9, 100, 2, -1e-18)).toBe(-Infinity); // an exact variance rounded below 0
    expect(zMean(2.1, 100, 2, Infinity)).toBe(Infinity);
    expect(zMean(2.1, 0, 2, 1)).toBe(Infinity); // no draws: se = ∞
    expect(zMean(2, 100, 2, 0)).toBe(0);
    // rounding relative to a large exact mean is agreement; the same gap on a small one is not
    expect(zMean(1e6 + 1e-4, 100, 1e6, 1)).toBe(0);
    expect(zMean(1 + 1e-4, 100, 1, 1)).toBeCloseTo(1e-3, 12);
    expect(zMean(1.9, 100, 2, 1)).toBeCloseTo(-1, 10);
  });

  it('zPairedDifference: agreement, the probability floor, and no spread at all', () => {
    expect(zPairedDifference(0.1795, 0.0017, 50_000, 0.1795, 'probability')).toBe(0);
    expect(zPairedDifference(1e6 + 1e-4, 1e-6, 100, 1e6, 'mean')).toBe(0); // rounding of a large exact difference
    // the floor √((|δ| − δ²)/n) = 0.001716 is above the sample's 0.0017 (the @example)
    expect(zPairedDifference(0.18, 0.0017, 50_000, 0.1795, 'probability')).toBeCloseTo((0.18 - 0.1795) / Math.sqrt((0.1795 - 0.1795 ** 2) / 50_000), 12);
    expect(zPairedDifference(0.18, 0.0017, 50_000, 0.1795, 'mean')).toBeCloseTo((0.18 - 0.1795) / 0.0017, 12);
    // every sampled d was 0 (se 0) but the exact difference is 0.01: the SE is floored at √((|δ| − δ²)/n)
    const floor = Math.sqrt((0.01 - 0.0001) / 400);
    expect(zPairedDifference(0, 0, 400, 0.01, 'probability')).toBeCloseTo(-0.01 / floor, 10);
    expect(zPairedDifference(0, 0, 400, -0.01, 'probability')).toBeCloseTo(0.01 / floor, 10);
    expect(zPairedDifference(0, NaN, 400, 0.01, 'probability')).toBeCloseTo(-0.01 / floor, 10); // an se that is not a number
    expect(zPairedDifference(0, 0.1, 400, 0.01, 'probability')).toBeCloseTo(-0.1, 10); // the sample SE when it is larger
    // a mean has no floor: no spread is an infinite z, on the side of the difference
    expect(zPairedDifference(0.5, 0, 400, 0.25, 'mean')).toBe(Infinity);
    expect(zPairedDifference(0, 0, 400, 0.25, 'mean')).toBe(-Infinity);
    expect(zPairedDifference(0.5, Infinity, 400, 0.25, 'mean')).toBe(Infinity);
    expect(zPairedDifference(0.5, 0, 0, 0.25, 'probability')).toBe(Infinity); // no pairs: no floor
  });

  it('zTwoProportions', () => {
    expect(zTwoProportions(0.5, 1000, 0.55, 1000)).toBeCloseTo(0.05 / Math.sqrt(0.525 * 0.475 * (2 / 1000)), 12);
    expect(zTwoProportions(0.5, 100, 0.6, 300)).toBeCloseTo(0.1 / Math.sqrt(0.575 * 0.425 * (1 / 100 + 1 / 300)), 12);
    expect(zTwoProportions(0, 100, 0, 50)).toBe(0);
    expect(zTwoProportions(1, 100, 1, 50)).toBe(0);
    expect(zTwoProportions(0.5, 0, 0.6, 100)).toBeNaN();
    expect(zTwoProportions(0.5, 100, 0.6, 0)).toBeNaN();
  });
});

describe('tails and quantiles', () => {
  it('normalQuantile in each of its three regions and at its ends (values from R qnorm)', () => {
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(-0.5)).toBe(-Infinity);
    expect(normalQuantile(1.5)).toBe(Infinity);
    const cases: [number, number][] = [
      [1e-10, -6.361340902404056],
      [0.01, -2.326347874040841],
      [0.3, -0.5244005127080407],
      [0.5, 0],
      [0.8, 0.8416212335729143],
      [0.99, 2.326347874040841],
      [0.9999, 3.719016485455709],
    ];
    for (const [u, q] of cases) expect(Math.abs(normalQuantile(u) - q), `u = ${u}`).toBeLessThan(2e-9 * Math.max(1, Math.abs(q)));
  });

  it('normalUpperTail and pTwoSided (values from R pnorm)', () => {
    const cases: [number, number][] = [
      [-1, 0.8413447460685429],
      [0, 0.5],
      [0.5, 0.3085375387259869],
      [1.959963984540054, 0.025],
      [5, 2.866515718791939e-7],
      [10, 7.619853024160527e-24],
    ];
    for (const [z, p] of cases) expect(Math.abs(normalUpperTail(z) / p - 1), `z = ${z}`).toBeLessThan(2e-7);
    expect(pTwoSided(1.959963984540054)).toBeCloseTo(0.05, 7);
    expect(pTwoSided(-1.959963984540054)).toBeCloseTo(0.05, 7);
    expect(pTwoSided(0)).toBe(1); // 2 × 0.50000002 is capped
    expect(pTwoSided(NaN)).toBeNaN();
  });

  it('zForConfidence: Z95 itself at 0.95, the normal quantile elsewhere, to a double\'s precision (AS 241)', () => {
    expect(zForConfidence(0.95)).toBe(Z95);
    // -Φ⁻¹((1 - c)/2) against the quantiles of a reference double-precision implementation
    // (Cephes' ndtri, as SciPy's norm.ppf gives them), within 2 units in the last place
    const ulps = (x: number, ref: number) => Math.abs(x - ref) / (Number.EPSILON * Math.abs(ref));
    expect(ulps(zForConfidence(0.999), 3.2905267314918945)).toBeLessThanOrEqual(2);
    expect(ulps(zForConfidence(0.8), 1.2815515655446004)).toBeLessThanOrEqual(2);
    expect(ulps(zForConfidence(0.99), 2.5758293035489004)).toBeLessThanOrEqual(2);
    // the central region, both tails' regions, far out, and its symmetry
    expect(ulps(normalQuantile(0.975), 1.959963984540054)).toBeLessThanOrEqual(2);
    expect(ulps(normalQuantile(1e-10), -6.361340902404056)).toBeLessThanOrEqual(4);
    for (const u of [0.001, 0.02, 0.08, 0.3]) expect(normalQuantile(1 - u)).toBeCloseTo(-normalQuantile(u), 12);
    expect(normalQuantile(0.5)).toBe(0);
  });

  it('binomialTail: p = 0, p above one half, and both tails by hand', () => {
    expect(binomialTail(0, 10, 0, true)).toBe(1);
    expect(binomialTail(1, 10, 0, true)).toBe(0);
    expect(binomialTail(3, 10, 0, false)).toBe(1);
    // Bin(4, 0.25): pmf 81, 108, 54, 12, 1 over 256
    expect(binomialTail(2, 4, 0.25, true)).toBeCloseTo(67 / 256, 14);
    expect(binomialTail(2, 4, 0.25, false)).toBeCloseTo(243 / 256, 14);
    expect(binomialTail(0, 4, 0.25, true)).toBeCloseTo(1, 14);
    expect(binomialTail(4, 4, 0.25, false)).toBeCloseTo(1, 14);
    expect(binomialTail(0, 4, 0.25, false)).toBeCloseTo(81 / 256, 14);
    // p = 0.75 counts the other outcome: P(X >= 3) = P(failures <= 1)
    expect(binomialTail(3, 4, 0.75, true)).toBeCloseTo(189 / 256, 14);
    expect(binomialTail(3, 4, 0.75, false)).toBeCloseTo(175 / 256, 14);
    // Bin(100, 0.1), every term summed here: a far tail (k above the mean) and a near one
    // (k below it, where the sum must go on past the mean before its terms stop mattering)
    const pmf = (i: number) => Math.exp(lgammaBinom(100, i) + i * Math.log(0.1) + (100 - i) * Math.log(0.9));
    const upper = (k: number) => {
      let s = 0;
      for (let i = 100; i >= k; i--) s += pmf(i);
      return s;
    };
    for (const k of [40, 12, 5]) expect(Math.abs(binomialTail(k, 100, 0.1, true) / upper(k) - 1), `P(X >= ${k})`).toBeLessThan(1e-12);
    expect(Math.abs(binomialTail(5, 100, 0.1, false) / (1 - upper(6)) - 1)).toBeLessThan(1e-12);
  });

  it('holmAdjust: ranked, monotone, capped at 1; NaN is not a test', () => {
    expect(holmAdjust([0.01, 0.04, 0.03])).toEqual([0.03, 0.06, 0.06]);
    expect(holmAdjust([0.04, NaN, 0.01])).toEqual([0.04, NaN, 0.02]);
    expect(holmAdjust([0.5, 0.3, 0.001])).toEqual([0.6, 0.6, 0.003]);
    expect(holmAdjust([])).toEqual([]);
  });
});

/** log C(n, k). */
function lgammaBinom(n: number, k: number): number {
  let s = 0;
  for (let i = 0; i < k; i++) s += Math.log(n - i) - Math.log(i + 1);
  return s;
}
