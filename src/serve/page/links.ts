/**
 * The page's address: what a link says (the scenario, its variant, tuned values, the run's
 * precision or trials, a sweep) and how it is read back. Pure: URLSearchParams in, values and
 * problems out, so a shared link means the same on every page.
 */
import type { ControlKind, ScenarioEntry } from '../../api/protocol.js';
import { sweepCount, sweepValueAt } from '../../scenario/range.js';

/**
 * URL keys of the sweep tab: `sweep` once per parameter (`wall.hp:20..60:10`, an even range from
 * 20 to 60 in steps of 10, or `wall.hp:10,20,40`, those values in that order), its metric, its
 * target and its trials per point.
 */
export const SWEEP_KEYS = ['sweep', 'sweep_metric', 'sweep_target', 'sweep_trials'];

/** URL keys that are not scenario values (scenario keys no system can tune, and the sweep's own). */
export const RESERVED: ReadonlySet<string> = new Set(['scenario', 'variant', 'seed', 'trials', 'precision', 'max_trials', ...SWEEP_KEYS]);

/** URL keys of the run, not of a scenario: they apply whichever scenario opens. */
const RUN_KEYS: ReadonlySet<string> = new Set(['scenario', 'seed', 'trials', 'precision', 'max_trials']);

/** What a link opens: the scenario, its variant, whether the link's values and sweep are its, and what of the link is not used. */
export interface LinkOpening {
  /** The scenario to open; undefined when none is valid. */
  path?: string;
  /** The link's variant when it is one of that scenario's (or its variants are not known yet). */
  variant?: string;
  /** The link's settings and sweep are for this scenario (it is the one the link names). */
  applies: boolean;
  /** The named scenario is not served (said first in the banner). */
  unknown?: string;
  /** The link's variant, settings or sweep not used, said. */
  problems: string[];
}

/**
 * Where a link opens. The scenario it names when that is served (`wanted`: the named one, or
 * null when the link names none or its own `#yaml=` cannot be read; `named` as the link wrote
 * it); else the first valid one, at its own defaults: the link's variant, settings and sweep
 * were for another scenario, so they are named as not applied rather than tried on this one
 * (a variant of the same name on the first scenario is not the one meant). A variant the
 * scenario does not have is named, and the scenario opens on its first.
 * @example openingOf(new URLSearchParams('scenario=gone.yaml&variant=x'), list, 'gone.yaml', 'gone.yaml')
 *   // { path: <the first valid>, applies: false, unknown: 'scenario=gone.yaml: ...', problems: ['variant=x: not applied ...'] }
 */
export function openingOf(q: URLSearchParams, list: readonly ScenarioEntry[], wanted: string | null, named: string | null): LinkOpening {
  const problems: string[] = [];
  // a served file that is invalid is opened too: the page then says what is wrong with it
  const served = wanted !== null && wanted !== '' && list.some((s) => s.path === wanted);
  const unknown = wanted && !served ? `scenario=${wanted}: not one of the served files (the first is opened)` : undefined;
  const path = served ? wanted : list.find((s) => !('error' in s))?.path;
  if (!served) {
    const parts = [...q].filter(([k]) => !RUN_KEYS.has(k)).map(([k, v]) => `${k}=${v}`);
    if (path && parts.length > 0) {
      const whose = named ? `${parts.length === 1 ? 'it is' : 'they are'} for ${named}` : 'the link names no scenario';
      problems.push(`${parts.join(', ')}: not applied (${whose}); ${path} opens at its own defaults`);
    }
    return { path, applies: false, unknown, problems };
  }
  let variant = q.get('variant') ?? undefined;
  const entry = list.find((s) => s.path === path);
  const variants = entry && 'variants' in entry ? entry.variants : undefined;
  if (variant !== undefined && variants && !variants.includes(variant)) {
    problems.push(`variant=${variant}: not a variant of ${path} (one of: ${variants.join(', ')}); opened on ${variants[0]}`);
    variant = undefined;
  }
  return { path, variant, applies: true, problems };
}

/** The most trials a live run may have (the server's LIMITS.maxTrials). */
export const MAX_TRIALS = 100_000_000;
export const TRIALS_TAKE = `a whole number of trials from 1 to ${MAX_TRIALS.toLocaleString('en-US')}`;

/** Is a typed trials count one a run can take? */
export const trialsOk = (t: string): boolean => /^\d+$/.test(t.trim()) && Number(t) >= 1 && Number(t) <= MAX_TRIALS;

/** A query string as the page writes it: paths, ranges and lists left readable (`wall.hp:20..60:10`, `a/b.yaml`). */
export function queryText(q: URLSearchParams): string {
  return q.toString().replace(/%2F/g, '/').replace(/%3A/g, ':').replace(/%2C/g, ',');
}

/**
 * Values from the address bar, typed as their controls need (`kindOf` gives a path's control kind,
 * undefined when the scenario has no such control: a number then when it reads as one, the server
 * saying what is wrong with it).
 */
export function valuesFromQuery(q: URLSearchParams, kindOf: (path: string) => ControlKind | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, raw] of q) {
    if (RESERVED.has(k)) continue;
    const kind = kindOf(k);
    let v: unknown = raw;
    if (kind === 'boolean') v = raw === 'true' ? true : raw === 'false' ? false : raw;
    else if ((kind === 'int' || kind === 'number' || kind === undefined) && raw.trim() !== '' && Number.isFinite(Number(raw))) v = Number(raw);
    out[k] = v;
  }
  return out;
}

/** A number as a link writes it (no hex, no "Infinity", no blanks): NaN otherwise. */
export const linkNumber = (w: string): number => (/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(w) ? Number(w) : NaN);

/** One `sweep=` of a link, read: an axis, or what is wrong with it. */
export type SweepSpec =
  | { path: string; from: number; to: number; step: number }
  | { path: string; values: number[] }
  | { error: string }
  /** A well-formed spec (the caller checks the path is one it offers). */
  | { unknownPath: string };

/** Read one `sweep=` value; `offered` says whether a path is one of the numeric settings. */
export function parseSweepSpec(raw: string, offered: (path: string) => boolean): SweepSpec {
  const at = raw.indexOf(':');
  const path = at > 0 ? raw.slice(0, at) : '';
  const spec = raw.slice(at + 1);
  const range = /^([^.]*(?:\.\d+)?)\.\.(.*):(.*)$/.exec(spec);
  const words = spec.split(',');
  if (!path) return { error: `sweep=${raw}: write <setting>:<from>..<to>:<step> (e.g. wall.hp:20..60:10) or <setting>:<value>,<value>,... (e.g. wall.hp:10,20,40)` };
  if (!offered(path)) return { unknownPath: path };
  if (range) {
    const [from, to, step] = range.slice(1).map(linkNumber);
    if (![from, to, step].every(Number.isFinite)) return { error: `sweep=${raw}: from, to and step must be numbers (e.g. ${path}:20..60:10)` };
    return { path, from, to, step };
  }
  if (words.length > 0 && words.every((w) => Number.isFinite(linkNumber(w)))) return { path, values: words.map(linkNumber) };
  return { error: `sweep=${raw}: the values must be numbers separated by commas (e.g. ${path}:10,20,40) or a range (${path}:20..60:10)` };
}

/** An axis as a link writes it: `path:from..to:step` or `path:v1,v2,...`. */
export const sweepSpecText = (path: string, axis: { kind: 'list'; words: string[] } | { kind: 'range'; from: string; to: string; step: string }): string =>
  `${path}:${axis.kind === 'list' ? axis.words.join(',') : `${axis.from}..${axis.to}:${axis.step}`}`;

/** The values an even range gives, as the scenario's `sweep:` expands it (src/scenario/range.ts); none past 1 001. */
export function rangeValues(from: number, to: number, step: number): number[] {
  if (![from, to, step].every(Number.isFinite) || !(step > 0) || from > to) return [];
  const n = sweepCount({ from, to, step }) - 1;
  return n > 1000 ? [] : Array.from({ length: n + 1 }, (_, i) => sweepValueAt({ from, to, step }, i));
}

/**
 * An even range over a list: its ends, in the largest step that passes through every value of it
 * (the greatest common divisor of its gaps, counted in its last decimal place): an evenly spaced
 * list's own gap, and for `wall.hp: [10, 13, 16, 20, 25, 30]` 1, so the range still ends at 30 and
 * holds the file's six cases, where the smallest gap (3 there) would stop at 28, dropping the top.
 */
export function rangeOfList(values: readonly number[]): { from: number; to: number; step: number } {
  const xs = [...new Set(values)].sort((a, b) => a - b);
  if (xs.length < 2) return { from: xs[0], to: xs[0], step: 1 };
  const places = (x: number) => (/e/i.test(String(x)) ? Infinity : (String(x).split('.')[1] ?? '').length);
  const dp = Math.max(...xs.map(places));
  const gaps = xs.slice(1).map((x, i) => x - xs[i]);
  let step = Math.min(...gaps); // a value too fine to count in decimal places: the smallest gap
  if (dp <= 9) {
    const scale = 10 ** dp;
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    step = xs.slice(1).reduce((g, x, i) => gcd(g, Math.round(x * scale) - Math.round(xs[i] * scale)), 0) / scale;
  }
  return { from: xs[0], to: xs[xs.length - 1], step: Number(step.toPrecision(12)) };
}

/**
 * What an even range gives when its "to" is not on its step (from 10 to 30 in steps of 3 ends at
 * 28): said beside it, so a top value is never dropped unseen. Empty when "to" is on the step.
 */
export function rangeNoteOf(from: number, to: number, step: number): string {
  const xs = rangeValues(from, to, step);
  if (xs.length === 0 || xs[xs.length - 1] === to) return '';
  return `${to} is not on the step (${step} from ${from}): the sweep ends at ${xs[xs.length - 1]}`;
}

/** The numbers typed in a values box: separated by commas, semicolons or spaces, in order. */
export const listWords = (text: string): string[] => text.split(/[\s,;]+/).filter((w) => w !== '');
