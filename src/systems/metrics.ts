/** Metric constructors shared by every system's summarize.ts. */
import { meanInterval, wilson } from '../stats/intervals.js';
import type { Metric } from './types.js';

/** A probability k/n with its Wilson interval. */
export function probability(k: number, n: number): Metric {
  return { ...wilson(k, n), kind: 'probability', n, k };
}

/** A mean from its moments (n, Σx, Σx²) with its normal interval. */
export function mean(n: number, sum: number, sumSq: number): Metric {
  return { ...meanInterval({ n, sum, sumSq }), kind: 'mean', n, sum, sumSq };
}
