/**
 * Unbiased dice: Lemire's multiply-high with rejection ("Fast random integer generation in an
 * interval", ACM TOMACS 2019). For a die of n faces, x·n is split into a high word (the face)
 * and a low word; draws whose low word falls below 2^32 mod n are rejected, which removes the
 * bias of a plain multiply. Never a floored float product of an unseeded generator.
 */
import { nextI32, type RngState } from './rng.js';

/** Largest die a kernel may roll: x·n must stay exact in a double (n < 2^21). */
export const MAX_DIE = 1 << 20;

/**
 * Rejection threshold for an n-sided die: 2^32 mod n. Precompute it once per compiled case.
 * @example dieThreshold(6) === 4
 */
export function dieThreshold(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > MAX_DIE) throw new RangeError(`die size ${n} out of range`);
  return 4294967296 % n;
}

/**
 * Roll one n-sided die (1..n). `threshold` must be `dieThreshold(n)`.
 * @example const t6 = dieThreshold(6); const face = rollDie(s, 6, t6);
 */
export function rollDie(s: RngState, n: number, threshold: number): number {
  for (;;) {
    const x = nextI32(s) >>> 0;
    const low = Math.imul(x, n) >>> 0;
    if (low >= threshold) return ((x * n) / 4294967296 | 0) + 1;
  }
}

/**
 * True with probability (threshold + 1) / 2^31, `threshold` from `chanceThreshold`. Kernels
 * call this rather than comparing raw draws: thresholds and draws stay int32, which V8 never
 * boxes. (Comparing an unsigned draw with a threshold of 2^31 or more allocated a heap number
 * per call when not inlined: 0.5 bytes per trial in bench/, port-blockade scenario.)
 */
export function rollChance(s: RngState, threshold: number): boolean {
  return nextI32(s) >>> 1 <= threshold;
}
