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

/** A plain number's decimals by its size: 1 from 100, 2 from 10, else 3. */
const numDigits = (x: number): number => (Math.abs(x) >= 100 ? 1 : Math.abs(x) >= 10 ? 2 : 3);

export const num = (x: number | null | undefined, extra = 0): string => (missing(x) ? '–' : fixedSide(x, numDigits(x) + extra));

/**
 * The decimals beyond `write`'s own that tell an interval's two ends apart: 0 unless two ends that
 * differ would be written alike (a rare event's [0.00053, 0.00136] is `0.1–0.1%` at one decimal,
 * read as exact; `0.05–0.14%` at two). At most 6 more.
 */
function apart(lo: number, hi: number, write: (x: number, extra: number) => string): number {
  if (lo === hi) return 0;
  for (let k = 0; k < 6; k++) if (write(lo, k) !== write(hi, k)) return k;
  return 6;
}

const pctAt = (x: number, extra: number) => percentText(x, 1 + extra);
const diffPtsAt = (x: number, extra: number) => fixedSide(x * 100, 1 + extra);

/**
 * The decimals an estimate's interval needs beyond the usual (apart, in `write`'s form), which its
 * value is written with too: enough that the two ends differ, and that the value differs from an
 * end it is not (a difference of -0.06 points read "-0.1 pts" beside its interval's "-0.1 to -0.04",
 * as if on its end).
 */
function extraFor(e: Estimate, write: (x: number, extra: number) => string): number {
  if (e.ci_low === null || e.ci_high === null || !Number.isFinite(e.ci_low) || !Number.isFinite(e.ci_high)) return 0;
  const v = e.value !== null && Number.isFinite(e.value) ? e.value : undefined;
  return Math.max(apart(e.ci_low, e.ci_high, write), ...(v === undefined ? [] : [apart(e.ci_low, v, write), apart(v, e.ci_high, write)]));
}

const extraOf = (m: Estimate): number => extraFor(m, isProb(m) ? pctAt : num);

export const fmtValue = (m: Estimate | undefined | null): string => (!m ? '–' : isProb(m) ? pct(m.value, 1 + extraOf(m)) : num(m.value, extraOf(m)));

export const fmtInterval = (m: Estimate | undefined | null): string => {
  if (!m || m.ci_low === null || m.ci_high === null) return '';
  const k = extraOf(m);
  return isProb(m) ? `${pctAt(m.ci_low, k)}–${pctAt(m.ci_high, k)}%` : `${num(m.ci_low, k)}–${num(m.ci_high, k)}`;
};

/** A signed number: + or − before it, nothing before an exact 0 (a sign would say it is off 0). */
const signed = (x: number, f: (v: number) => string): string => (x > 0 ? '+' : x < 0 ? '−' : '') + f(Math.abs(x));

const diffExtra = (d: Estimate, prob: boolean): number => extraFor(d, prob ? diffPtsAt : num);

export const fmtDiff = (d: Estimate | undefined | null, prob: boolean): string => {
  if (!d || d.value === null) return '–';
  const k = diffExtra(d, prob);
  return prob ? `${signed(d.value, (v) => diffPtsAt(v, k))} pts` : signed(d.value, (v) => num(v, k));
};

/**
 * A difference's interval: the ends keep their side of 0, so an interval coloured as clear of 0
 * never reads "0.0 to 0.3", nor one end "-0.0"; and two ends that differ are written apart.
 */
export const fmtDiffInterval = (d: Estimate | undefined | null, prob: boolean): string => {
  if (!d || d.ci_low === null || d.ci_high === null) return '';
  const k = diffExtra(d, prob);
  // a minus sign, as the value beside it has (fmtDiff's signed)
  const minus = (t: string) => t.replace(/^-/, '−');
  return prob ? `${minus(diffPtsAt(d.ci_low, k))} to ${minus(diffPtsAt(d.ci_high, k))}` : `${minus(num(d.ci_low, k))} to ${minus(num(d.ci_high, k))}`;
};

/** A conditional mean's difference whose event moved: the two values average different trials (systems/conditional.ts). */
export const overText = (d: Estimate | undefined | null): string =>
  d && d.over_different_trials ? overEvent(d.over_different_trials.event, d.over_different_trials.from, d.over_different_trials.to) : '';

/** The event's two probabilities in the decimals that tell them apart (99.98% → 99.92%, not 100.0% → 99.9%). */
function overEvent(event: string, from: number, to: number): string {
  const decimals = (t: string) => t.split('.')[1]?.length ?? 0;
  let a = percentText(from, 1);
  let b = percentText(to, 1);
  // as many decimals for both (a value near 100% keeps more of its own), until they differ
  for (let d = 1; d <= 6 && (decimals(a) !== decimals(b) || (a === b && from !== to)); d++) {
    const k = Math.max(d, decimals(a), decimals(b));
    a = percentText(from, k);
    b = percentText(to, k);
  }
  return `over different trials: ${event} ${a}% → ${b}%`;
}

/** Half the width of a metric's interval (NaN without one). */
export const halfWidth = (m: Estimate | undefined | null): number => (m && m.ci_low !== null && m.ci_high !== null ? (m.ci_high - m.ci_low) / 2 : NaN);

/** A count with thousands separators: 20,000. */
export const int = (n: number | string): string => Number(n).toLocaleString('en-US');

/** A metric's name as a card title: `p_attacker_wins` -> `P attacker wins`. */
export const label = (metric: string): string => metric.replace(/^p_/, 'P ').replace(/^mean_/, 'mean ').replace(/_/g, ' ');

/** Is a difference's interval clear of 0? */
export const significant = (d: Estimate | undefined | null): d is Estimate & { value: number; ci_low: number; ci_high: number } =>
  !!d && d.ci_low !== null && d.ci_high !== null && (d.ci_low > 0 || d.ci_high < 0);
