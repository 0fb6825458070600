/**
 * Confidence intervals, one small function per statistic (as simple-statistics does).
 * Every probability gets a Wilson score interval; every mean a normal interval from its
 * mergeable moments (n, Σx, Σx²); every difference between variants a normal interval on the
 * paired (common random numbers) or Welch (independent) difference.
 */
/**
 * Two-sided 95% normal quantile, z_{0.975}, to double precision. Not simple-statistics'
 * `probit(0.975)`: that is an approximation giving 1.95716, which would make every interval
 * 0.14% too narrow (test/stats.test.ts pins the value).
 */
export const Z95 = 1.959963984540054;

/** An estimate with its 95% interval. NaN everywhere when there is nothing to estimate. */
export interface Estimate {
  value: number;
  ci_low: number;
  ci_high: number;
}

export const NO_ESTIMATE: Estimate = Object.freeze({ value: NaN, ci_low: NaN, ci_high: NaN });

/**
 * Wilson score interval for k successes in n trials (Wilson 1927).
 * @example wilson(50, 100) // { value: 0.5, ci_low: 0.4038…, ci_high: 0.5961… }
 */
export function wilson(k: number, n: number, z = Z95): Estimate {
  if (!(n > 0)) return NO_ESTIMATE;
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // At k = 0 or k = n the bound is exactly 0 or 1 (not a rounding error away from it).
  return { value: p, ci_low: k <= 0 ? 0 : Math.max(0, centre - half), ci_high: k >= n ? 1 : Math.min(1, centre + half) };
}

/** Mean and its variance-of-the-mean from moments. */
export interface Moments {
  n: number;
  sum: number;
  sumSq: number;
}

/** Sample variance (n − 1 denominator) from moments; 0 when n < 2. */
export function varianceOf(m: Moments): number {
  if (m.n < 2) return 0;
  const mean = m.sum / m.n;
  return Math.max(0, (m.sumSq - m.n * mean * mean) / (m.n - 1));
}

/**
 * Normal 95% interval for a mean from its moments (n, Σx, Σx²).
 * @example meanInterval({ n: 4, sum: 10, sumSq: 30 }) // value 2.5
 */
export function meanInterval(m: Moments, z = Z95): Estimate {
  if (!(m.n > 0)) return NO_ESTIMATE;
  const mean = m.sum / m.n;
  const half = z * Math.sqrt(varianceOf(m) / m.n);
  return { value: mean, ci_low: mean - half, ci_high: mean + half };
}

/**
 * Interval for a paired difference: d_i = x_i(variant) − x_i(baseline) on the same dice
 * (common random numbers); moments of d over the n trials.
 */
export function pairedDifference(d: Moments, z = Z95): Estimate {
  return meanInterval(d, z);
}

/** Welch interval for the difference of two independent means (variant − baseline). */
export function welchDifference(variant: Moments, baseline: Moments, z = Z95): Estimate {
  if (!(variant.n > 0) || !(baseline.n > 0)) return NO_ESTIMATE;
  const diff = variant.sum / variant.n - baseline.sum / baseline.n;
  const se = Math.sqrt(varianceOf(variant) / variant.n + varianceOf(baseline) / baseline.n);
  return { value: diff, ci_low: diff - z * se, ci_high: diff + z * se };
}

/** Half the width of an interval (the `--precision` criterion). */
export function halfWidth(e: Estimate): number {
  return (e.ci_high - e.ci_low) / 2;
}

/**
 * z-score of a Monte Carlo proportion k/n against an exact probability p.
 * Infinite when p is 0 or 1 and the estimate disagrees; 0 when it agrees.
 */
export function zProportion(k: number, n: number, p: number): number {
  // Exact answers summed in floating point may sit a few ulps outside [0, 1].
  const q = Math.min(1, Math.max(0, p));
  const d = k / n - q;
  if (Math.abs(d) < 1e-12) return 0;
  const se = Math.sqrt((q * (1 - q)) / n);
  if (se === 0) return d > 0 ? Infinity : -Infinity;
  return d / se;
}

/** z-score of a Monte Carlo mean over n draws against the exact mean μ and variance σ². */
export function zMean(mean: number, n: number, mu: number, variance: number): number {
  const d = mean - mu;
  // exact answers summed in floating point carry rounding of ~1e-15: not a disagreement
  if (Math.abs(d) < 1e-9 * Math.max(1, Math.abs(mu))) return 0;
  const se = Math.sqrt(Math.max(0, variance) / n);
  if (se === 0 || !Number.isFinite(se)) return d === 0 ? 0 : d > 0 ? Infinity : -Infinity;
  return d / se;
}
