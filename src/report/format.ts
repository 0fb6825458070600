/** Number formatting shared by every report file: 12 significant digits, NaN as empty. */
export function fmt(x: number | undefined | null): string {
  if (x === undefined || x === null || !Number.isFinite(x)) return '';
  return String(Number(x.toPrecision(12)));
}

/** JSON-safe number: NaN and infinities become null. */
export function num(x: number | undefined): number | null {
  return x === undefined || !Number.isFinite(x) ? null : Number(x.toPrecision(12));
}
