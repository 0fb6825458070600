/** Metric constructors shared by every system's summarize.ts. */
import { meanInterval, wilson, type Range } from '../stats/intervals.js';
import type { Metric } from './types.js';

/** A probability k/n with its Wilson interval. */
export function probability(k: number, n: number): Metric {
  return { ...wilson(k, n), kind: 'probability', n, k };
}

/**
 * A mean from its moments (n, Σx, Σx²) with its normal interval, clamped to `range` when the
 * system knows the values each observation can take (rounds between 1 and the round cap, steps
 * between 0 and the starting steps): only the interval's bounds, never the mean.
 */
export function mean(n: number, sum: number, sumSq: number, range?: Range): Metric {
  return { ...meanInterval({ n, sum, sumSq }, undefined, range), kind: 'mean', n, sum, sumSq, ...(range ? { range } : {}) };
}
