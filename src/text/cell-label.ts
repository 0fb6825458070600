/**
 * A heatmap cell's label, the same in the report (systems/chart-kit.ts) and the workbench
 * (serve/sweep-chart.ts).
 *
 * - A probability: two decimals, but never a rounding that changes what it says: an exact 0 or
 *   1 is written so, and a value that only rounds to 0.00 or 1.00 is `<0.01` / `>0.99`.
 * - A mean: two decimals below 10, one from 10 up, two significant digits for a value under
 *   0.01 that is not 0 (0.0042, not 0.00).
 * - Beside the target a contour is drawn at: a label that would read as the target itself gets
 *   the decimals (up to 6) that tell it apart. 0.4978 beside a 0.5 contour, which puts it below,
 *   is "0.498", not "0.50"; 11.97 beside 12 is "11.97", not "12.0".
 */
export function cellLabel(v: number | null | undefined, probability: boolean, target?: number): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '';
  const { text, decimals } = plain(v, probability);
  if (target === undefined || !Number.isFinite(target) || v === target || text !== plain(target, probability).text) return text;
  let d = decimals + 1;
  while (d < 6 && v.toFixed(d) === target.toFixed(d)) d++;
  return v.toFixed(d);
}

function plain(v: number, probability: boolean): { text: string; decimals: number } {
  if (probability) {
    if (v === 0 || v === 1) return { text: String(v), decimals: 2 };
    const s = v.toFixed(2);
    return { text: s === '0.00' ? '<0.01' : s === '1.00' ? '>0.99' : s, decimals: 2 };
  }
  if (Math.abs(v) >= 10) return { text: v.toFixed(1), decimals: 1 };
  if (v !== 0 && Math.abs(v) < 0.01) return { text: v.toPrecision(2), decimals: 2 };
  return { text: v.toFixed(2), decimals: 2 };
}
