/**
 * What a workbench request may carry, checked before anything runs: every problem is a 4xx with
 * a message naming the field, never an exception. Scenario values themselves are checked later by
 * the scenario schemas (api/live.ts), with the CLI's messages.
 */
import { showCount } from '../report/format.js';
import { suggest } from '../api.js';

/** Limits of the workbench (per request and per client). */
export const LIMITS = {
  /** Largest request body, bytes. */
  maxBody: 64 * 1024,
  /** Trials per case a live run may reach (the page's trial cap and fixed runs). */
  maxTrials: 100_000_000,
  /** Default trial cap of a live run refined to a precision. */
  defaultMaxTrials: 2_000_000,
  /** Default precision: headline 95% half-width, ±0.5 points. */
  defaultPrecision: 0.005,
  minPrecision: 0.0001,
  maxPrecision: 0.5,
  /** Trials per sweep point, and in all of a sweep. */
  maxSweepTrials: 10_000_000,
  maxSweepTotal: 200_000_000,
  /** Settings one ranking may name, and targets one search may have. */
  maxRankedSettings: 200,
  maxTargets: 4,
  /** Values one request may set. */
  maxValues: 500,
  /** Streams (live runs and sweeps) open at once, over all clients. */
  maxStreams: 16,
} as const;

/** A request problem: HTTP status, message, and the field it is about. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues: { path: string; message: string }[] = [],
    /** Response headers to send with it (Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

type Body = Record<string, unknown>;

/** Parse a JSON request body (already size-checked): an object, or a 400. */
export function parseBody(text: string): Body {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new RequestError(400, `the request body is not valid JSON (${(e as Error).message})`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new RequestError(400, 'the request body must be a JSON object');
  return data as Body;
}

const bad = (path: string, message: string) => new RequestError(400, `${path}: ${message}`, [{ path, message }]);

/** The fields of each POST endpoint's body (and of its nested objects): anything else is refused. */
export const FIELDS = {
  save: ['scenario', 'variant', 'values'],
  check: ['scenario', 'variant', 'values', 'axes', 'metric', 'target', 'trials'],
  run: ['scenario', 'variant', 'values', 'seed', 'trials', 'precision', 'maxTrials'],
  sweep: ['scenario', 'variant', 'values', 'seed', 'axes', 'metric', 'target', 'trials'],
  axis: ['path', 'values', 'from', 'to', 'step'],
  sensitivity: ['scenario', 'variant', 'values', 'metric', 'params', 'scope', 'trials', 'seed'],
  tune: ['scenario', 'variant', 'values', 'params', 'ranges', 'targets', 'trials', 'budget', 'seed'],
  target: ['metric', 'lo', 'hi'],
} as const;

/**
 * Refuse a key the request does not know (a misspelt field would otherwise be dropped without a
 * word, and the run go on with its default): a 400 naming it, with the CLI's "did you mean".
 * `where` prefixes the key of a nested object (`axes.0.`).
 */
export function onlyKnown(b: Body, known: readonly string[], where = ''): void {
  for (const k of Object.keys(b)) {
    if (known.includes(k)) continue;
    const guess = suggest(k, known);
    const key = `${where}${k.length > 60 ? `${k.slice(0, 57)}...` : k}`;
    const message = `unknown field "${key}"${guess ? ` (did you mean "${where}${guess}"?)` : ''} (the fields: ${known.join(', ')})`;
    throw new RequestError(400, message, [{ path: key, message }]);
  }
}

export function optString(b: Body, key: string, max = 200): string | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw bad(key, `must be a text of 1 to ${max} characters`);
  return v;
}

export function reqString(b: Body, key: string, max = 1000): string {
  const v = optString(b, key, max);
  if (v === undefined) throw bad(key, 'is required');
  return v;
}

export function optInt(b: Body, key: string, min: number, max: number): number | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw bad(key, `must be a whole number from ${min} to ${showCount(max)}`);
  return v;
}

export function optNumber(b: Body, key: string, min: number, max: number): number | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw bad(key, `must be a number from ${min} to ${max}`);
  return v;
}

/** A list of 1 to `maxLength` numbers from min to max (a sweep axis's own values), or undefined. */
export function optNumbers(b: Body, key: string, min: number, max: number, maxLength: number): number[] | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length === 0 || v.length > maxLength || v.some((x) => typeof x !== 'number' || !Number.isFinite(x) || x < min || x > max)) {
    throw bad(key, `must be a list of 1 to ${maxLength} numbers from ${min} to ${max}`);
  }
  return v as number[];
}

/** A seed as the scenario file takes it: a non-empty text or a whole number. */
export function optSeed(b: Body): string | number | undefined {
  const v = b.seed;
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && v.length > 0 && v.length <= 200) return v;
  throw bad('seed', 'must be a text of 1 to 200 characters or a whole number');
}

/** Never a key of a setting; refused so that no object's prototype can be reached through a path. */
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);

/** Dotted path -> value (numbers, texts, yes/no): what the controls set. */
export function optValues(b: Body): Record<string, unknown> {
  const v = b.values;
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw bad('values', 'must be an object of dotted path -> value');
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > LIMITS.maxValues) throw bad('values', `at most ${LIMITS.maxValues} values`);
  const out: Record<string, unknown> = {};
  for (const [k, x] of entries) {
    if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(k) || k.length > 200 || k.split('.').some((s) => FORBIDDEN.has(s))) {
      throw bad(k.slice(0, 200) || 'values', 'is not a dotted path of a setting');
    }
    if (!(typeof x === 'number' || typeof x === 'string' || typeof x === 'boolean') || (typeof x === 'string' && x.length > 200)) {
      throw bad(k, 'must be a number, a text or true/false');
    }
    out[k] = x;
  }
  return out;
}
