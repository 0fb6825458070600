/**
 * Whether two values are equal plain data all the way down (numbers, strings, booleans, null,
 * arrays, typed arrays and plain objects; anything else, a Map or a function, counts as
 * different). api/run.ts asks it of a variant's validated settings (every DEFAULT filled in)
 * against the baseline's: equal settings are the same case, which a kernel plays the same way on
 * the same dice, so the variant differs from the baseline by exactly 0 in every trial and its
 * paired interval is `0 [0, 0]` by construction, not by the count of trials that happened to
 * differ (stats/intervals.ts pairedDifference; docs/cli.md, "Statistics").
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
