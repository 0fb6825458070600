/**
 * How the page writes numbers: percentages and plain numbers with as many decimals as their size
 * needs, intervals, and signed differences. Pure (the unit tests and the browser tests read it).
 */
import type { OverDifferentTrials, WireMetric } from '../../api/protocol.js';

/** A metric or a difference as the formatting needs it. */
export interface Estimate {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  kind?: string;
  over_different_trials?: OverDifferentTrials;
}

/** Is a metric a probability (shown as a percentage)? Anything but a mean is. */
export const isProb = (m: Pick<WireMetric, 'kind'> | undefined | null): boolean => !!m && m.kind !== 'mean';

/** x.toFixed(d), with more decimals where fewer would write a non-zero x as 0 (which side of 0 it lies on must show), never "-0" (report/format.ts fixedSide). */
export function fixedSide(x: number, d: number): string {
  if (x === 0) return (0).toFixed(d);
  for (let k = d; k <= 10; k++) {
    const s = x.toFixed(k);
    if (Number(s) !== 0) return s;
  }
  return x.toExponential(1);
}

const missing = (x: number | null | undefined): x is null | undefined => x === null || x === undefined || !Number.isFinite(x);

/**
 * A probability as a percentage's number, `digits` decimals, with more where fewer would round
 * one that is not certain to certain: 0.9997 is `99.97`, not `100.0`, and 0.00004 is `0.004`,
 * not `0.0` (fixedSide), as the reports write 0.99998 rather than 1.0000. Only exactly 0 and 1
 * read 0 and 100.
 */
export function percentText(x: number, digits = 1): string {
  const p = x * 100;
  let s = fixedSide(p, digits);
  for (let k = digits + 1; p < 100 && Number(s) >= 100 && k <= 10; k++) s = p.toFixed(k);
  return s;
}

export const pct = (x: number | null | undefined, digits = 1): string => (missing(x) ? '–' : `${percentText(x, digits)}%`);

export const num = (x: number | null | undefined): string => (missing(x) ? '–' : fixedSide(x, Math.abs(x) >= 100 ? 1 : Math.abs(x) >= 10 ? 2 : 3));

export const fmtValue = (m: Estimate | undefined | null): string => (!m ? '–' : isProb(m) ? pct(m.value) : num(m.value));

export const fmtInterval = (m: Estimate | undefined | null): string =>
  !m || m.ci_low === null || m.ci_high === null ? '' : isProb(m) ? `${percentText(m.ci_low, 1)}–${percentText(m.ci_high, 1)}%` : `${num(m.ci_low)}–${num(m.ci_high)}`;

/** A signed number: + or − before it, nothing before an exact 0 (a sign would say it is off 0). */
const signed = (x: number, f: (v: number) => string): string => (x > 0 ? '+' : x < 0 ? '−' : '') + f(Math.abs(x));

export const fmtDiff = (d: Estimate | undefined | null, prob: boolean): string =>
  !d || d.value === null ? '–' : prob ? `${signed(d.value, (v) => fixedSide(v * 100, 1))} pts` : signed(d.value, num);

/** A difference's interval: the ends keep their side of 0, so an interval coloured as clear of 0 never reads "0.0 to 0.3", nor one end "-0.0". */
export const fmtDiffInterval = (d: Estimate | undefined | null, prob: boolean): string =>
  !d || d.ci_low === null || d.ci_high === null ? '' : prob ? `${fixedSide(d.ci_low * 100, 1)} to ${fixedSide(d.ci_high * 100, 1)}` : `${num(d.ci_low)} to ${num(d.ci_high)}`;

/** A conditional mean's difference whose event moved: the two values average different trials (systems/conditional.ts). */
export const overText = (d: Estimate | undefined | null): string =>
  d && d.over_different_trials ? `over different trials: ${d.over_different_trials.event} ${pct(d.over_different_trials.from)} → ${pct(d.over_different_trials.to)}` : '';

/** Half the width of a metric's interval (NaN without one). */
export const halfWidth = (m: Estimate | undefined | null): number => (m && m.ci_low !== null && m.ci_high !== null ? (m.ci_high - m.ci_low) / 2 : NaN);

/** A count with thousands separators: 20,000. */
export const int = (n: number | string): string => Number(n).toLocaleString('en-US');

/** A metric's name as a card title: `p_attacker_wins` -> `P attacker wins`. */
export const label = (metric: string): string => metric.replace(/^p_/, 'P ').replace(/^mean_/, 'mean ').replace(/_/g, ' ');

/** Is a difference's interval clear of 0? */
export const significant = (d: Estimate | undefined | null): d is Estimate & { value: number; ci_low: number; ci_high: number } =>
  !!d && d.ci_low !== null && d.ci_high !== null && (d.ci_low > 0 || d.ci_high < 0);
