/**
 * Whether two compiled cases are the same program: equal plain data all the way down (numbers,
 * strings, booleans, null, arrays, typed arrays and plain objects; anything else, a Map or a
 * function, counts as different). A kernel plays the same trials on the same dice the same way
 * for equal cases, so a variant equal to its baseline differs from it by exactly 0 in every
 * trial: its paired interval is `0 [0, 0]` by construction, not by the count of trials that
 * happened to differ (api/run.ts, stats/intervals.ts pairedDifference).
 * @example sameCase({ a: [1, 2] }, { a: [1, 2] }) // true
 */
export function sameCase(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true; // (NaN is NaN; 0 and −0 are not the same number)
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a.constructor !== b.constructor || a instanceof DataView || b instanceof DataView) return false;
    const x = a as unknown as ArrayLike<number>;
    const y = b as unknown as ArrayLike<number>;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameCase(a[i], b[i])) return false;
    return true;
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !sameCase((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}
