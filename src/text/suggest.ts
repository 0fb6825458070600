/** "Did you mean" suggestions for unknown names, as esbuild and vitest give them: used by the scenario checks, the front ends and the systems (Crusader Rex's roster search). */

/** Levenshtein edit distance. */
export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/**
 * The closest candidate, if it is close enough to be a likely typo.
 * @example suggest('defence', ['defense', 'attack']) === 'defense'
 */
export function suggest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const w = word.toLowerCase();
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  // fewer edits than the word has letters: "x0" is not a typo of "hp" (every letter differs)
  const limit = Math.min(Math.max(2, Math.floor(word.length / 3)), word.length - 1);
  return bestD <= limit ? best : undefined;
}
