/**
 * The kernel's random number generator: xoshiro128** 1.1 (Blackman & Vigna, 2018), with its
 * four 32-bit words of state held as explicit data in an Int32Array, as pure-rand does.
 * `nextU32` never allocates, so a kernel can call it in its hot loop.
 *
 * Streams: one independent state per (stream key, chunk), derived from the scenario seed with
 * seedrandom's ARC4 generator (see `deriveState`). xoshiro128** has period 2^128 − 1, so
 * the streams of one run never overlap in practice.
 *
 * Imports nothing from node:* (docs/architecture.md "Imports point inward"): seedrandom is pure JS.
 */
import seedrandom from 'seedrandom';

/** Four int32 words of generator state. */
export type RngState = Int32Array;

/**
 * Next 32-bit output as an unsigned integer in [0, 2^32), advancing `s` in place.
 * @example const s = stateFromWords(1, 2, 3, 4); nextU32(s) === 11520
 */
export function nextU32(s: RngState): number {
  return nextI32(s) >>> 0;
}

/**
 * Next 32-bit output as a signed int32 (the same bits as `nextU32`). Hot code uses this form:
 * an int32 is a small integer to V8 and never boxed, while an unsigned value above 2^31
 * returned from a call V8 did not inline becomes a heap number (an allocation per draw).
 */
export function nextI32(s: RngState): number {
  const s0 = s[0] | 0;
  const s1 = s[1] | 0;
  const s2 = s[2] | 0;
  const s3 = s[3] | 0;
  // result = rotl(s1 * 5, 7) * 9
  const m = Math.imul(s1, 5);
  const r = Math.imul((m << 7) | (m >>> 25), 9);
  const t = s1 << 9;
  const n2 = s2 ^ s0;
  const n3 = s3 ^ s1;
  s[1] = s1 ^ n2;
  s[0] = s0 ^ n3;
  s[2] = n2 ^ t;
  s[3] = (n3 << 11) | (n3 >>> 21);
  return r | 0;
}

/** A state from four explicit words (reference vectors, tests). */
export function stateFromWords(a: number, b: number, c: number, d: number): RngState {
  const s = new Int32Array(4);
  s[0] = a | 0;
  s[1] = b | 0;
  s[2] = c | 0;
  s[3] = d | 0;
  if ((s[0] | s[1] | s[2] | s[3]) === 0) s[0] = 1; // the all-zero state is a fixed point
  return s;
}

/**
 * The state of one stream: seedrandom (ARC4, keyed by the scenario seed, the stream key and the
 * chunk index) gives four words. Depends only on its arguments, never on threads or scheduling.
 * @example deriveState(42, 'point-0', 3) // the 4th chunk of sweep point 0
 */
export function deriveState(seed: string | number, stream: string, chunk: number): RngState {
  const prng = seedrandom(`siegesim\u0000${String(seed)}\u0000${stream}\u0000${chunk}`);
  return stateFromWords(prng.int32(), prng.int32(), prng.int32(), prng.int32());
}

/** A uniform double in [0, 1) with 32 bits of resolution. */
export function nextUnit(s: RngState): number {
  return nextU32(s) / 4294967296;
}

/**
 * A probability as an int32 threshold t for `rollChance` (dice.ts): a draw's top 31 bits b pass
 * when b <= t, so P = (t + 1) / 2^31 — exact for 0 (t = -1) and 1 (t = 2^31 - 1), within 2^-32
 * otherwise. Kept in int32 range so that V8 never boxes it.
 * @example chanceThreshold(0.5) === 2 ** 30 - 1
 */
export function chanceThreshold(p: number): number {
  if (!(p > 0)) return -1;
  if (p >= 1) return 0x7fffffff;
  return Math.round(p * 2147483648) - 1;
}

/** MurmurHash3's 32-bit finaliser: a bijective mixer (Appleby), used to spread seed words. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** What nextTrialState mixes into each word's draw. */
const TRIAL_MIX = Int32Array.of(0x9e3779b9, 0x7f4a7c15, 0x6a09e667, 0x3c6ef372);

/**
 * The state of the next trial: four draws of the chunk's stream `g`, each mixed, written into
 * `out`. Every trial gets its own stream, whatever the number of draws earlier trials (or other
 * variants of the same trial) consumed: trials stay independent and variants stay paired.
 */
export function nextTrialState(g: RngState, out: RngState): void {
  // nextI32's four steps on g with its words in locals (read and written once, not per step:
  // each trial starts here, and the words' store-then-load chain was most of its cost)
  let s0 = g[0] | 0;
  let s1 = g[1] | 0;
  let s2 = g[2] | 0;
  let s3 = g[3] | 0;
  for (let i = 0; i < 4; i++) {
    const m = Math.imul(s1, 5);
    const r = Math.imul((m << 7) | (m >>> 25), 9);
    const t = s1 << 9;
    const n2 = s2 ^ s0;
    const n3 = s3 ^ s1;
    s1 ^= n2;
    s0 ^= n3;
    s2 = n2 ^ t;
    s3 = (n3 << 11) | (n3 >>> 21);
    out[i] = fmix32(r ^ TRIAL_MIX[i]);
  }
  g[0] = s0;
  g[1] = s1;
  g[2] = s2;
  g[3] = s3;
  if ((out[0] | out[1] | out[2] | out[3]) === 0) out[0] = 1;
}
