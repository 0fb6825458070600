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

/** The values a quantity can take, `[lowest, highest]` (either may be infinite): e.g. rounds in [1, the round cap]. */
export type Range = readonly [number, number];

/**
 * Normal 95% interval for a mean from its moments (n, Σx, Σx²). With the `range` every
 * observation lies in, the bounds are clamped to it (a mean of rounds capped at 3 is never
 * `[2.99997, 3.000002]`); the mean itself is never moved.
 * @example meanInterval({ n: 4, sum: 10, sumSq: 30 }) // value 2.5
 */
export function meanInterval(m: Moments, z = Z95, range?: Range): Estimate {
  if (!(m.n > 0)) return NO_ESTIMATE;
  const mean = m.sum / m.n;
  const half = z * meanSe(m);
  return clampInterval({ value: mean, ci_low: mean - half, ci_high: mean + half }, range);
}

/** An interval's bounds clamped to `range` (when given); the value is left as it is. */
export function clampInterval(e: Estimate, range?: Range): Estimate {
  if (!range) return e;
  return { value: e.value, ci_low: Math.min(Math.max(e.ci_low, range[0]), range[1]), ci_high: Math.max(Math.min(e.ci_high, range[1]), range[0]) };
}

/**
 * Interval for a paired difference: d_i = x_i(variant) − x_i(baseline) on the same dice
 * (common random numbers); moments of d over the n trials. `spread` is the largest |d| one trial
 * can have (1 for a probability; for a mean, from the ranges its values lie in: `pairedSpread`;
 * 0 for two cases that are the same program, which no trial can tell apart).
 *
 * With a spread R: the normal interval of the n trials and two more, one with d = +R and one with
 * d = −R (ñ = n + 2, centre Σd/ñ, variance (Σd² + 2R²)/ñ − centre², se = √(variance/ñ)), clamped
 * to [−R, R]; the value stays Σd/n. For a probability this is Bonett and Price's adjusted Wald
 * interval for paired proportions (2012: one more trial in each discordant cell): where no trial,
 * or very few, came out differently, the plain interval value ± z·√(s²/n) is `0 [0, 0]` or nearly,
 * and misses a real difference that shows in fewer trials than were run (a rule read two ways
 * that differ once in a thousand battles). Over many discordant trials the two agree.
 * Without a spread (a mean with no bound), the plain normal interval.
 * @example pairedDifference({ n: 1000, sum: 0, sumSq: 0 }, Z95, 1) // value 0, [−0.00276…, 0.00276…]
 */
export function pairedDifference(d: Moments, z = Z95, spread?: number): Estimate {
  if (spread === undefined || !Number.isFinite(spread)) return meanInterval(d, z);
  if (!(d.n > 0)) return NO_ESTIMATE;
  const n = d.n + 2;
  const centre = d.sum / n;
  const half = z * Math.sqrt(Math.max(0, (d.sumSq + 2 * spread * spread) / n - centre * centre) / n);
  return { value: d.sum / d.n, ci_low: Math.max(-spread, centre - half), ci_high: Math.min(spread, centre + half) };
}

/**
 * The largest |d| = |x(variant) − x(baseline)| one trial can have, for `pairedDifference`: 1 for a
 * probability (each trial's x is 0 or 1); for a mean whose observations lie in [a₀, b₀] in the
 * baseline and [a₁, b₁] in the variant, max(|a₁ − b₀|, |b₁ − a₀|); undefined when either has no
 * bound (Infinity) or no range.
 */
export function pairedSpread(kind: 'probability' | 'mean', variant?: Range, baseline?: Range): number | undefined {
  if (kind === 'probability') return 1;
  if (!variant || !baseline) return undefined;
  const r = Math.max(Math.abs(variant[0] - baseline[1]), Math.abs(variant[1] - baseline[0]));
  return Number.isFinite(r) ? r : undefined;
}

/**
 * Standard error of a mean from its moments: √(s²/n), the `se` of `meanInterval` and of
 * `pairedDifference` (value ± z·se). NaN when n is 0.
 * @example meanSe({ n: 4, sum: 10, sumSq: 30 }) // 0.6454… (s² = 5/3)
 */
export function meanSe(m: Moments): number {
  return m.n > 0 ? Math.sqrt(varianceOf(m) / m.n) : NaN;
}

/** Standard error of the Welch difference of two independent means: √(s₁²/n₁ + s₂²/n₂). NaN when either has no observation. */
export function welchSe(variant: Moments, baseline: Moments): number {
  if (!(variant.n > 0) || !(baseline.n > 0)) return NaN;
  return Math.sqrt(varianceOf(variant) / variant.n + varianceOf(baseline) / baseline.n);
}

/**
 * z of a paired difference (variant − baseline, per trial on common dice) against its exact
 * value δ, on the difference's standard error over n pairs. For a difference of two
 * probabilities each per-trial difference is −1, 0 or 1, so its variance is at least
 * |δ| − δ² (E d² = E|d| ≥ |δ|): the SE is never taken below √((|δ| − δ²)/n), so a small exact
 * difference that no sampled trial showed (every d = 0, sample SE 0) is not a "z = ∞".
 * @example zPairedDifference(0.18, 0.0017, 50000, 0.1795, 'probability') // 0.29…
 */
export function zPairedDifference(value: number, se: number, n: number, exact: number, kind: 'probability' | 'mean'): number {
  const d = value - exact;
  // exact answers summed in floating point carry rounding of ~1e-15: not a disagreement
  if (Math.abs(d) < 1e-9 * Math.max(1, Math.abs(exact))) return 0;
  const a = Math.abs(exact);
  const floor = kind === 'probability' && n > 0 ? Math.sqrt(Math.max(0, a - a * a) / n) : 0;
  const s = Math.max(Number.isFinite(se) ? se : 0, floor);
  if (s === 0) return d > 0 ? Infinity : -Infinity;
  return d / s;
}

/** Welch interval for the difference of two independent means (variant − baseline). */
export function welchDifference(variant: Moments, baseline: Moments, z = Z95): Estimate {
  if (!(variant.n > 0) || !(baseline.n > 0)) return NO_ESTIMATE;
  const diff = variant.sum / variant.n - baseline.sum / baseline.n;
  const se = welchSe(variant, baseline);
  return { value: diff, ci_low: diff - z * se, ci_high: diff + z * se };
}

/** Half the width of an interval (the `--precision` criterion). */
export function halfWidth(e: Estimate): number {
  return (e.ci_high - e.ci_low) / 2;
}

/**
 * Wichura's algorithm AS 241 (PPND16; Applied Statistics 37(3), 1988): the coefficients of its
 * three rational functions, numerator then denominator, lowest power first.
 */
const AS241 = {
  a: [3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125, 45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727],
  b: [1, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077, 21213.794301586595867, 39307.89580009271061, 28729.085735721942674, 5226.495278852854561],
  c: [1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504, 1.27045825245236838258, 0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4],
  d: [1, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455, 0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9],
  e: [6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123, 0.026532189526576123093, 0.0012426609473880784386, 2.71155556874348757815e-5, 2.01033439929228813265e-7],
  f: [1, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525, 7.868691311456132591e-4, 1.8463183175100546818e-5, 1.4215117583164458887e-7, 2.04426310338993978564e-15],
};

/** A polynomial with coefficients `c` (lowest power first) at x, by Horner's rule. */
function poly(c: readonly number[], x: number): number {
  let s = c[c.length - 1];
  for (let i = c.length - 2; i >= 0; i--) s = s * x + c[i];
  return s;
}

/**
 * Inverse of the standard normal CDF, Φ⁻¹(u): Wichura's AS 241, accurate to about 1 part in
 * 10^16 over (0, 1), so that every z (an interval's at any `--confidence`, a binomial tail's)
 * is Φ⁻¹ to a double's precision, as docs/ci.md and docs/cli.md state.
 * @example normalQuantile(0.975) // 1.959963984540054
 */
export function normalQuantile(u: number): number {
  if (u <= 0) return -Infinity;
  if (u >= 1) return Infinity;
  const q = u - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * poly(AS241.a, r)) / poly(AS241.b, r);
  }
  let r = Math.sqrt(-Math.log(q < 0 ? u : 1 - u));
  let x: number;
  if (r <= 5) {
    r -= 1.6;
    x = poly(AS241.c, r) / poly(AS241.d, r);
  } else {
    r -= 5;
    x = poly(AS241.e, r) / poly(AS241.f, r);
  }
  return q < 0 ? -x : x;
}

/** P(X >= k) (upper) or P(X <= k) (lower) for X ~ Binomial(n, p), by summing the pmf. */
export function binomialTail(k: number, n: number, p: number, upper: boolean): number {
  if (p > 0.5) return binomialTail(n - k, n, 1 - p, !upper); // count the other outcome
  if (p <= 0) return upper ? (k <= 0 ? 1 : 0) : 1;
  // pmf(0) = (1-p)^n, pmf(i+1) = pmf(i) (n-i)/(i+1) p/(1-p), in log space to avoid underflow
  const lr = Math.log(p) - Math.log1p(-p);
  let logPmf = n * Math.log1p(-p);
  let below = 0; // P(X < k)
  for (let i = 0; i < k; i++) {
    below += Math.exp(logPmf);
    logPmf += Math.log(n - i) - Math.log(i + 1) + lr;
  }
  if (!upper) return Math.min(1, below + Math.exp(logPmf));
  // P(X >= k): sum the terms from k while they matter (the mean is small here)
  let tail = 0;
  for (let i = k; i <= n; i++) {
    const t = Math.exp(logPmf);
    tail += t;
    if (t < tail * 1e-17 && i > n * p) break;
    logPmf += Math.log(n - i) - Math.log(i + 1) + lr;
  }
  return Math.min(1, tail);
}

/**
 * z-score of a Monte Carlo proportion k/n against an exact probability p.
 * The normal approximation when it is good (n p (1 - p) >= 25); otherwise the exact binomial
 * tail of the observed count, as the z with that same one-sided tail, so that a rare event seen
 * a few times is not a "6-sigma" disagreement. Infinite when p is 0 or 1 and the estimate
 * disagrees; 0 when it agrees.
 */
export function zProportion(k: number, n: number, p: number): number {
  // Exact answers summed in floating point may sit a few ulps outside [0, 1].
  const q = Math.min(1, Math.max(0, p));
  const d = k / n - q;
  if (Math.abs(d) < 1e-12) return 0;
  const v = q * (1 - q);
  if (v === 0) return d > 0 ? Infinity : -Infinity;
  if (n * v >= 25) return d / Math.sqrt(v / n);
  const tail = binomialTail(k, n, q, d > 0);
  if (tail >= 0.5) return 0;
  const z = -normalQuantile(tail);
  return d > 0 ? z : -z;
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

/**
 * Two-sided normal quantile for a confidence level: the z of a `confidence` interval.
 * @example zForConfidence(0.95) // 1.959963984540054 (Z95, the double nearest Φ⁻¹(0.975)); zForConfidence(0.999) // 3.2905267314918945
 */
export function zForConfidence(confidence: number): number {
  if (confidence === 0.95) return Z95;
  // the lower tail's quantile, negated: 1 - (1 - c)/2 rounds to a double the upper tail's would read from
  return -normalQuantile((1 - confidence) / 2);
}

/**
 * Upper tail P(Z > z) of the standard normal, with small relative error far into the tail
 * (erfc by the Chebyshev fit of Numerical Recipes §6.2, fractional error < 1.2e-7), so that the
 * p-value of a large change is still a number Holm's procedure can rank, not 0.
 * @example normalUpperTail(1.959963984540054) // 0.025
 */
export function normalUpperTail(z: number): number {
  const x = z / Math.SQRT2;
  const t = 1 / (1 + 0.5 * Math.abs(x));
  const erfc =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? erfc / 2 : 1 - erfc / 2;
}

/** Two-sided p-value of a z-score. @example pTwoSided(1.959963984540054) // 0.05 */
export function pTwoSided(z: number): number {
  if (Number.isNaN(z)) return NaN;
  return Math.min(1, 2 * normalUpperTail(Math.abs(z)));
}

/**
 * Holm's step-down adjusted p-values (Holm 1979): the i-th smallest of m is multiplied by
 * (m − i + 1), made monotone, capped at 1. Rejecting where the adjusted p ≤ α keeps the chance
 * of any false rejection among all m tests ≤ α, whatever their dependence. NaN stays NaN (not a test).
 * @example holmAdjust([0.01, 0.04, 0.03]) // [0.03, 0.06, 0.06]
 */
export function holmAdjust(p: readonly number[]): number[] {
  const idx = p.map((_, i) => i).filter((i) => !Number.isNaN(p[i]));
  idx.sort((a, b) => p[a] - p[b]);
  const m = idx.length;
  const out = p.map(() => NaN);
  let running = 0;
  idx.forEach((i, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p[i]));
    out[i] = running;
  });
  return out;
}

/**
 * Pooled two-proportion z of p2 − p1 (independent samples of sizes n1, n2). 0 when both
 * proportions are 0 or both 1 (nothing can have moved).
 * @example zTwoProportions(0.5, 1000, 0.55, 1000) // 2.24…
 */
export function zTwoProportions(p1: number, n1: number, p2: number, n2: number): number {
  if (!(n1 > 0) || !(n2 > 0)) return NaN;
  const pool = (p1 * n1 + p2 * n2) / (n1 + n2);
  const se = Math.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2));
  if (se === 0) return 0;
  return (p2 - p1) / se;
}

/**
 * Interval for b − a from two independent estimates' intervals of the same level (Newcombe's
 * square-and-add, "MOVER"; 1998): exact for normal intervals (it is then Welch's), and for two
 * Wilson intervals Newcombe's recommended hybrid score interval for a difference of proportions.
 * @example differenceInterval({ value: 0.5, ci_low: 0.4, ci_high: 0.6 }, { value: 0.7, ci_low: 0.6, ci_high: 0.8 }) // 0.2 ± 0.1414…
 */
export function differenceInterval(a: Estimate, b: Estimate): Estimate {
  const d = b.value - a.value;
  return {
    value: d,
    ci_low: d - Math.hypot(b.value - b.ci_low, a.ci_high - a.value),
    ci_high: d + Math.hypot(b.ci_high - b.value, a.value - a.ci_low),
  };
}

/**
 * The same normal interval at another level: value ± half-width × z / z₀ (exact for the normal
 * mean, paired and Welch intervals, which are symmetric with half-width proportional to z).
 * @example rescaleInterval({ value: 1, ci_low: 0, ci_high: 2 }, 2 * Z95) // { value: 1, ci_low: -1, ci_high: 3 }
 */
export function rescaleInterval(e: Estimate, z: number, z0 = Z95): Estimate {
  const half = (halfWidth(e) * z) / z0;
  return { value: e.value, ci_low: e.value - half, ci_high: e.value + half };
}
