/**
 * How the differential tests (test/*-reference.test.ts) compare a fast kernel's counts with a
 * plain reference's: a two-sample z for each metric, against a limit Šidák-corrected for every
 * comparison a run can make, so that a whole run raises a false alarm with a chosen probability
 * when both play the same rules.
 */
import { normalQuantile } from '../../src/stats/intervals.js';

/** Pooled two-proportion z: k1 of n1 against k2 of n2. */
export function zProp(k1: number, n1: number, k2: number, n2: number): number {
  const p = (k1 + k2) / (n1 + n2);
  const se = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2));
  const d = k1 / n1 - k2 / n2;
  return se === 0 ? (d === 0 ? 0 : Infinity) : d / se;
}

/**
 * Welch z of two means from (n, Σx, Σx²); 0 (not judged) where either side has fewer than `minN`
 * observations (2 at least: too few to say anything; more where Welch's z is far from normal).
 * Two constant sides must be the same constant.
 */
export function zMean(n1: number, s1: number, q1: number, n2: number, s2: number, q2: number, minN = 2): number {
  if (n1 < Math.max(2, minN) || n2 < Math.max(2, minN)) return 0;
  const m1 = s1 / n1;
  const m2 = s2 / n2;
  const v1 = Math.max(0, (q1 - n1 * m1 * m1) / (n1 - 1));
  const v2 = Math.max(0, (q2 - n2 * m2 * m2) / (n2 - 1));
  const se = Math.sqrt(v1 / n1 + v2 / n2);
  const d = m1 - m2;
  if (se < 1e-9) return Math.abs(d) < 1e-9 ? 0 : Infinity;
  return d / se;
}

/** Šidák: the two-sided |z| limit of each of `comparisons` comparisons, the family's false alarm `familyAlpha`. */
export function sidakLimit(comparisons: number, familyAlpha = 0.001): number {
  return normalQuantile(1 - (1 - Math.pow(1 - familyAlpha, 1 / comparisons)) / 2);
}
