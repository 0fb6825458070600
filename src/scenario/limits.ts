/**
 * Limits on what siegesim reads, so that no input can make it crash, hang or exhaust memory.
 * docs/cli.md's "Bad input, limits and outputs" lists them; tests hold every one of them.
 */
import { EXACT_LIMITS } from '../systems/types.js';

export const LIMITS = {
  /** Largest scenario file, in bytes (the largest bundled scenario is under 5 KB). */
  fileBytes: 256 * 1024,
  /** Deepest nesting of mappings and lists (a scenario needs about 5). */
  depth: 32,
  /** Most values that YAML aliases (`*name`) may copy in one file, all aliases together. */
  aliasValues: 10_000,
  /** YAML syntax errors after which a file is read no further. */
  yamlErrors: 1000,
  /** Problems printed before "... and K more". */
  problemsShown: 50,
  /** Most trials per case, in a file or with --trials / --max-trials. */
  trials: 10_000_000_000,
  /**
   * Most `expect:` judgments (each item at each case it applies to, all items together): the
   * cost of validating, testing and reporting them grows with it, and 5,500 items on a
   * 10,000-case sweep (55 M judgments) exhaust the heap. 100,000 is 10 items on
   * every case of the largest sweep; `test` judges them in about a second.
   */
  expectJudgments: 100_000,
  /**
   * Most numbers all the cases' results may hold together (each case's accumulator: its metrics'
   * sums and every point of its curves, Kernel.accLength): every case's results are kept until
   * the report is written, so memory grows with them, not with the cases alone. Measured: a
   * 10,000-case surrender sweep holds 0.56 M; 9,898 Cry Havoc melee cases of 8 turns 1.3 M (a run
   * of 37 s and 1.9 GB); 4,200 fantasy open-field cases 2.16 M (1.26 GB run, 2.7 GB as a --shard);
   * 1,000 Cry Havoc cases of 1 to 1,000 turns 8 M (past 5 GB: refused).
   */
  resultNumbers: 3_000_000,
  /** Crusader Rex's exact chain: states held at once, and advanced by a file's cases (systems/types.ts EXACT_LIMITS, where the chain reads them). */
  exactStates: EXACT_LIMITS.exactStates,
  exactWork: EXACT_LIMITS.exactWork,
  /** Worker threads per core at most (--threads): more only cost memory and start-up time. */
  threadsPerCore: 4,
} as const;

/** UTF-8 length of a string, counted only up to `cap` (so a huge string costs no more than `cap`). */
export function utf8LengthUpTo(text: string, cap: number): number {
  let n = 0;
  for (let i = 0; i < text.length && n <= cap; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
