/** Number formatting: 12 significant digits in every data file, and what a page shows a person. */
import { showCount } from '../text/count.js';

export { showCount };

/** Data files (CSV, JSON): 12 significant digits, NaN as empty. */
export function fmt(x: number | undefined | null): string {
  if (x === undefined || x === null || !Number.isFinite(x)) return '';
  return String(Number(x.toPrecision(12)));
}

/** JSON-safe number: NaN and infinities become null. */
export function num(x: number | undefined): number | null {
  return x === undefined || !Number.isFinite(x) ? null : Number(x.toPrecision(12));
}

/** Decimals beyond which a value this close to an integer is written `1 - ε` instead. */
const MAX_DECIMALS = 8;

/**
 * A number as a page shows it, in a form that keeps its meaning: an exact 0, 1 or integer is
 * written so; a small non-zero value keeps two significant digits (`7.7e-7`, never `0.0000`);
 * a value just off an integer gets the decimals that tell it from it (`0.99998`, never `1.0000`);
 * otherwise 4 decimals (1 from 100 up). Plain text; `showHtml` sets the exponent as a power of ten.
 * @example show(7.68291173867e-7) // '7.7e-7'
 * @example show(0.99998) // '0.99998'
 */
export function show(x: number | undefined | null): string {
  if (x === undefined || x === null || !Number.isFinite(x)) return '–';
  if (x === 0) return '0';
  if (Number.isInteger(x)) return String(x);
  const a = Math.abs(x);
  const sign = x < 0 ? '-' : '';
  if (a < 0.001) return sign + sci(a);
  const whole = Math.round(a);
  const gap = Math.abs(a - whole);
  if (a < 100 && gap < 0.00005) {
    // 4 decimals would say 1.0000 or 3.0000: as many as the first digit of the gap needs (never rounds to the integer)
    const decimals = Math.ceil(-Math.log10(gap));
    if (decimals > MAX_DECIMALS) return `${sign}(${whole} ${a < whole ? '-' : '+'} ${sci(gap)})`;
    return sign + a.toFixed(decimals);
  }
  return sign + a.toFixed(a >= 100 ? 1 : 4);
}

/** Two significant digits in exponent form: 7.68e-7 -> `7.7e-7`. */
function sci(a: number): string {
  const [m, e] = a.toExponential(1).split('e');
  return `${m}e${Number(e)}`;
}

/** `show` for HTML: `7.7×10⁻⁷` with a real superscript, and a true minus sign. */
export function showHtml(x: number | undefined | null): string {
  return show(x)
    .replace(/(\d(?:\.\d)?)e(-?\d+)/, (_, m: string, e: string) => `${m}×10<sup>${e.replace('-', '−')}</sup>`)
    .replace(/(^|\(|\s)-/g, '$1−');
}

/** Decimals a number is given at most by `fixedSide` (beyond, it is written in exponent form). */
const MAX_SIDE_DECIMALS = 10;

/**
 * `x.toFixed(decimals)`, with more decimals where fewer would write a non-zero x as 0 (which side
 * of 0 it lies on must show: an interval coloured as clear of 0 must not read `[0.0 to 0.3]`),
 * and never `-0`: an exact 0 is `0` to the decimals asked.
 * @example fixedSide(0.0002, 1) // '0.0002'
 * @example fixedSide(-0.00004, 2) // '-0.00004'
 */
export function fixedSide(x: number, decimals: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return (0).toFixed(decimals);
  for (let d = decimals; d <= MAX_SIDE_DECIMALS; d++) {
    const s = x.toFixed(d);
    if (Number(s) !== 0) return s;
  }
  return sci(Math.abs(x)).replace(/^/, x < 0 ? '-' : '');
}

/**
 * Said beside a conditional mean's difference whose event moved (systems/conditional.ts):
 * `over different trials: p_breach 0.8720 → 0.0960`.
 */
export function overDifferentTrialsText(o: { event: string; from: number; to: number }): string {
  return `over different trials: ${o.event} ${show(o.from)} → ${show(o.to)}`;
}

/** A value with its 95% interval as plain text (tooltips): `0.3119 [0.3099, 0.3140]`. */
export function showInterval(value: number, lo: number, hi: number): string {
  if (!Number.isFinite(value)) return '–';
  return `${show(value)} [${show(lo)}, ${show(hi)}]`;
}

/**
 * A p-value as `diff` and `history check` print it. Past z ~ 38 the normal tail underflows to 0
 * (normalUpperTail keeps its relative accuracy until then); a 0 is printed as the bound it is,
 * not as "0.0" or "0.0e+0".
 */
export function pText(p: number): string {
  if (p < 1e-300) return '< 1e-300';
  return p < 1e-4 ? p.toExponential(1) : String(Number(p.toPrecision(2)));
}

/**
 * What a conditional mean averages, as `run`'s answer says it beside the metric: `a mean over
 * the trials with p_surrender` (the event, RulesSystem.conditionalOn). Said wherever such a mean
 * is printed, so it is not read as a mean over every trial.
 */
export function conditionalText(event: string): string {
  return `a mean over the trials with ${event}`;
}

/** A run's thread count as its provenance line says it: 0 (a run done in-process) is the one thread it ran on. */
export function threadsText(threads: number): string {
  return threads > 1 ? `${threads} threads` : '1 thread';
}

/**
 * How a report's numbers were made, as its page's top line says it: a run's threads, time and
 * speed (`2 threads · 1.25 s · 1,600,000 trials/s`); a merge's shards (`merged from 3 shards;
 * their threads and times are not recorded`): no shard file keeps its threads or time.
 */
export function runText(p: { threads: number; seconds: number; trials_per_second: number; merged?: { shards: number; given: number } }): string {
  if (p.merged) {
    const { shards, given } = p.merged;
    // a shard left out held no chunk (merge refuses a run with chunks missing)
    const which = given === shards ? `${shards} shard${shards === 1 ? '' : 's'}` : `${given} of ${shards} shards (the others held no chunks)`;
    return `merged from ${which}; their threads and times are not recorded`;
  }
  return `${threadsText(p.threads)} · ${p.seconds} s · ${showCount(p.trials_per_second)} trials/s`;
}

/**
 * What "0 in every case" leaves open: the highest upper end of those metrics' 95% intervals over
 * the cases (a rare event no trial met is not impossible), as ` (95% intervals up to 1.8e-4)`;
 * '' when no interval is known.
 */
export function zeroBoundText(highs: (number | null | undefined)[]): string {
  const known = highs.filter((h): h is number => typeof h === 'number' && Number.isFinite(h));
  if (known.length === 0) return '';
  return ` (95% intervals up to ${show(Math.max(...known))})`;
}
