/**
 * Draws that finish out of order: a sweep's chart is drawn again at each partial result and at
 * the end, and each drawing (vega) takes its own time, so an earlier one can finish after a later
 * one. `newerOnly()` makes an order: each `next()` gives the next drawing its check, true when it
 * may paint (no later drawing has painted yet; it then counts as painted), false when a later one
 * already has: an older chart never replaces a newer one, and each drawing that finishes in order
 * still paints (a long sweep shows its progress).
 */
export function newerOnly(): { next: () => () => boolean } {
  let asked = 0;
  let painted = 0;
  return {
    next() {
      const n = ++asked;
      return () => {
        if (n < painted) return false;
        painted = n;
        return true;
      };
    },
  };
}
