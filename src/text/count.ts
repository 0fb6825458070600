/**
 * A count with thousands separators: 2000000 -> `2,000,000`, as `toLocaleString('en-US')` writes
 * it, without the ~15-45 ms that loading the ICU locale data costs a process's first call (a
 * tiny run's, a sampled chart's caption). Every layer may use it (report/format.ts re-exports it).
 * @example showCount(2000000) // '2,000,000'
 */
export function showCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const [int, frac] = String(Math.abs(Math.round(n * 1000) / 1000)).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+$)/g, ',');
  return (n < 0 && (int !== '0' || frac) ? '-' : '') + grouped + (frac ? '.' + frac : '');
}

/** `1 game turn`, `6 combat turns`: a count and its noun, plural past one. */
export function count(n: number, noun: string): string {
  return `${showCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}
