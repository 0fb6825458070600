import { describe, expect, it } from 'vitest';
import { chanceThreshold, deriveState, fmix32, nextI32, nextTrialState, nextU32, stateFromWords } from '../src/engine/rng.js';
import { dieThreshold, rollChance, rollDie } from '../src/engine/dice.js';

/** An independent xoshiro128** in BigInt, straight from the reference C code. */
function referenceXoshiro(seed: [number, number, number, number], count: number): number[] {
  const M = 0xffffffffn;
  const s = seed.map((x) => BigInt(x >>> 0));
  const rotl = (x: bigint, k: bigint) => ((x << k) | (x >> (32n - k))) & M;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const result = (rotl((s[1] * 5n) & M, 7n) * 9n) & M;
    const t = (s[1] << 9n) & M;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11n);
    out.push(Number(result));
  }
  return out;
}

describe('xoshiro128**', () => {
  it('matches the reference algorithm, including its first output 11520 from state (1,2,3,4)', () => {
    const s = stateFromWords(1, 2, 3, 4);
    const got = Array.from({ length: 1000 }, () => nextU32(s));
    expect(got[0]).toBe(11520); // rotl(2*5, 7) * 9
    expect(got).toEqual(referenceXoshiro([1, 2, 3, 4], 1000));
  });

  it('matches the reference from a state with high bits set', () => {
    const words: [number, number, number, number] = [0x9e3779b9 | 0, 0x7f4a7c15, 0xf39cc060 | 0, 0x5ced9a2b];
    const s = stateFromWords(...words);
    expect(Array.from({ length: 500 }, () => nextU32(s))).toEqual(referenceXoshiro(words, 500));
  });

  it('derives a fixed state per (seed, stream, chunk) and different states otherwise', () => {
    expect(Array.from(deriveState(42, 'point-0', 0))).toEqual(Array.from(deriveState(42, 'point-0', 0)));
    expect(Array.from(deriveState('42', 'point-0', 0))).toEqual(Array.from(deriveState(42, 'point-0', 0)));
    const a = Array.from(deriveState(42, 'point-0', 0)).join();
    expect(Array.from(deriveState(42, 'point-0', 1)).join()).not.toBe(a);
    expect(Array.from(deriveState(42, 'point-1', 0)).join()).not.toBe(a);
    expect(Array.from(deriveState(43, 'point-0', 0)).join()).not.toBe(a);
  });

  it("gives each trial the state its definition says: four of the stream's draws, each mixed (nextTrialState keeps the words in locals)", () => {
    const mix = [0x9e3779b9, 0x7f4a7c15, 0x6a09e667, 0x3c6ef372];
    const g = stateFromWords(0x80000001, 7, 0xdeadbeef, 0x12345678);
    const ref = Int32Array.from(g);
    const out = new Int32Array(4);
    for (let trial = 0; trial < 1000; trial++) {
      nextTrialState(g, out);
      const want = mix.map((m) => fmix32(nextI32(ref) ^ m));
      if (!want.some((w) => w !== 0)) want[0] = 1; // (never here: the all-zero state is mended)
      expect(Array.from(out)).toEqual(want);
      expect(Array.from(g)).toEqual(Array.from(ref)); // the stream moved on by four draws
    }
  });

  it('turns probabilities into int32 thresholds, exact at the ends', () => {
    expect(chanceThreshold(0)).toBe(-1);
    expect(chanceThreshold(1)).toBe(2 ** 31 - 1);
    expect(chanceThreshold(0.5)).toBe(2 ** 30 - 1);
    const s = deriveState('chance', 'x', 0);
    let never = 0;
    let always = 0;
    let half = 0;
    for (let i = 0; i < 100_000; i++) {
      if (rollChance(s, chanceThreshold(0))) never++;
      if (rollChance(s, chanceThreshold(1))) always++;
      if (rollChance(s, chanceThreshold(0.5))) half++;
    }
    expect(never).toBe(0);
    expect(always).toBe(100_000);
    expect(Math.abs(half - 50_000) / Math.sqrt(25_000)).toBeLessThan(4.5);
  });
});

describe('dice', () => {
  it('rejects exactly 2^32 mod n low words', () => {
    expect(dieThreshold(6)).toBe(4);
    expect(dieThreshold(10)).toBe(6);
    expect(dieThreshold(2)).toBe(0);
    expect(() => dieThreshold(0)).toThrow();
  });

  // Chi-square over faces at a fixed seed. Critical values at p = 1e-6 (df 5: 35.9, df 9: 41.3,
  // df 6: 37.9): a correct die fails once in a million seeds; a biased one fails at once.
  for (const [n, crit] of [
    [6, 35.9],
    [10, 41.3],
    [7, 37.9],
  ] as const) {
    it(`d${n} is uniform (chi-square, 600k rolls)`, () => {
      const s = deriveState('dice-test', `d${n}`, 0);
      const t = dieThreshold(n);
      const counts = new Array<number>(n + 1).fill(0);
      const N = 600_000;
      for (let i = 0; i < N; i++) counts[rollDie(s, n, t)]++;
      expect(counts[0]).toBe(0);
      const e = N / n;
      let chi = 0;
      for (let f = 1; f <= n; f++) chi += (counts[f] - e) ** 2 / e;
      expect(chi).toBeLessThan(crit);
    });
  }

  it('a biased die is caught by the same test (the test can fail)', () => {
    const s = deriveState('dice-test', 'biased', 0);
    const counts = new Array<number>(7).fill(0);
    const N = 600_000;
    // Math.floor(u * 6) with a 1% extra weight on face 6: what a careless kernel might do.
    for (let i = 0; i < N; i++) {
      const u = nextU32(s) / 2 ** 32;
      counts[u < 0.01 ? 6 : Math.floor(u * 6) + 1]++;
    }
    let chi = 0;
    for (let f = 1; f <= 6; f++) chi += (counts[f] - N / 6) ** 2 / (N / 6);
    expect(chi).toBeGreaterThan(35.9);
  });
});
