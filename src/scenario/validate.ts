/**
 * Validate and expand phases: strict schema check with every error collected and placed at
 * its file:line:col, then variants x sweep grid -> concrete cases, each re-validated.
 */
import type * as z from 'zod';
import { sweepCount, sweepValueAt } from './range.js';
import { formatPath, type LoadedFile, type PathSegments, type ScenarioIssue } from './load.js';
import { bigCount, MSG } from './messages.js';
import { LIMITS } from './limits.js';
import { COMMON_KEYS, COMMON_SHAPE, keysAt, scenarioSchemaOf, schemaAt } from './schema.js';
import { validateExpect, type Expectation } from './expect.js';
import { suggest } from '../text/suggest.js';
import type { RulesSystem } from '../systems/types.js';

/** Most cases one scenario may expand to. */
export const MAX_CASES = 10_000;

export interface VariantCase {
  variant: string;
  /** The validated scenario for this variant at this sweep point, defaults filled. */
  scenario: Record<string, unknown>;
}

export interface SweepPoint {
  index: number;
  params: Record<string, unknown>;
  variants: VariantCase[];
}

export interface ValidScenario {
  file: string;
  system: RulesSystem;
  name: string;
  description?: string;
  seed: string | number;
  trials: number;
  /** Swept parameter paths, in file order. */
  params: string[];
  variantNames: string[];
  points: SweepPoint[];
  /** The file's data as written (before defaults), and the baseline variant's `set`. */
  raw: Record<string, unknown>;
  baselineSet: Record<string, unknown>;
  /** The `expect:` assertions, resolved to their cases (empty when there are none). */
  expect: Expectation[];
  /** The file's `headline:` (a single name made a list): the metrics its Answer shows, in order; absent when not given. */
  headline?: string[];
  /**
   * The dice of a one-point case the workbench derives from a file with a sweep: the stream of
   * the saved copy's sweep point that holds the case (`point-i`), so `run` of that copy gives its
   * numbers; absent: point i rolls `point-i`.
   */
  dice?: string;
  /**
   * `expect:` items that no longer match the scenario, left out of `expect` (validated with
   * `staleExpect: 'warn'`; absent when there are none): `siegesim test` refuses them.
   */
  staleExpect?: ScenarioIssue[];
  /**
   * Settings the file writes that change nothing in any case it is written for
   * (RulesSystem.deadSettings), each once, at the key that writes it (the file's own key, a
   * variant's `set` entry or a sweep value); absent when there are none. The commands say them
   * as warnings and go on.
   */
  warnings?: ScenarioIssue[];
}

export type Validation = { ok: true; value: ValidScenario } | { ok: false; issues: ScenarioIssue[] };

/** Split a dotted path (`rules.comparison`, `blocks.2.steps`) into segments. */
export function splitPath(dotted: string): string[] {
  return dotted.split('.');
}

/** Own property of a plain object (never an inherited one such as `constructor` or `__proto__`). */
function own(obj: unknown, key: string | number): unknown {
  return obj !== null && typeof obj === 'object' && Object.prototype.hasOwnProperty.call(obj, key)
    ? (obj as Record<string, unknown>)[key as string]
    : undefined;
}

/** The value at a path of own properties (undefined where any step is missing). */
function ownAt(obj: unknown, path: readonly string[]): unknown {
  let cur = obj;
  for (const k of path) cur = own(cur, k);
  return cur;
}

/** Define an own property (a `__proto__` key stays a plain key: nothing reaches a prototype). */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Set a dotted path in a plain-object tree, creating objects on the way. Returns a new tree
 * that copies only the objects on the path and shares every other subtree with `obj` (neither
 * is ever changed): a deep copy of the whole file for each case would hold 10,000 copies of a
 * 256 KB file for the largest sweep.
 */
export function withPath(obj: Record<string, unknown>, dotted: string, value: unknown): Record<string, unknown> {
  const root = shallowCopy(obj) as Record<string, unknown>;
  const segs = splitPath(dotted);
  let cur: Record<string, unknown> = root;
  for (let i = 0; i < segs.length - 1; i++) {
    const next = own(cur, segs[i]);
    const copy = next !== null && typeof next === 'object' ? shallowCopy(next) : {};
    setOwn(cur, segs[i], copy);
    cur = copy as Record<string, unknown>;
  }
  setOwn(cur, segs[segs.length - 1], value);
  return root;
}

/** A copy of one object or list, its own keys only (a `__proto__` key stays a plain key). */
function shallowCopy(x: object): object {
  if (Array.isArray(x)) return x.slice();
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(x)) setOwn(out, k, (x as Record<string, unknown>)[k]);
  return out;
}

/**
 * Validate a loaded file against the systems, and expand it into its cases.
 * All problems are collected; none is thrown.
 */
/** Problems in the order of the file: by line, then column (a stable sort: one place keeps its order). */
function byPosition(issues: ScenarioIssue[]): ScenarioIssue[] {
  return issues.slice().sort((a, b) => a.line - b.line || a.col - b.col);
}

export interface ValidateOptions {
  /**
   * An `expect:` item that no longer matches the scenario (ScenarioIssue.stale): 'error' (the
   * default: `siegesim test` and `validate` refuse it) or 'warn' (the commands that run: the
   * scenario is valid without it, and it comes back in `staleExpect` to be said as a warning).
   * An item wrong in itself is an error either way.
   */
  staleExpect?: 'error' | 'warn';
}

export function validateScenario(loaded: LoadedFile, systems: readonly RulesSystem[], opts: ValidateOptions = {}): Validation {
  const { file, positions } = loaded;
  if (loaded.data === undefined) return { ok: false, issues: byPosition(loaded.issues) };
  const data = loaded.data as Record<string, unknown>;
  // the loader's problems that left the data usable (a key given twice) come first, among the others
  const issues: ScenarioIssue[] = loaded.issues.slice();
  const seen = new Set<string>();
  const push = (path: PathSegments, message: string, where: 'key' | 'value' = 'value', at?: PathSegments, stale?: true) => {
    const p = where === 'key' ? positions.keyOf(at ?? path) : positions.valueOf(at ?? path);
    const issue: ScenarioIssue = { file, line: p.line, col: p.col, path: formatPath(path), message, ...(stale ? { stale } : {}) };
    const id = `${issue.line}:${issue.col}:${issue.path}:${message}`;
    if (!seen.has(id)) {
      seen.add(id);
      issues.push(issue);
    }
  };

  // --- which system ---
  const sysName = data.system;
  if (sysName === undefined) {
    push(['system'], MSG.missingKey(), 'value', []);
    return { ok: false, issues: byPosition(issues) };
  }
  const system = systems.find((s) => s.id === sysName);
  if (!system) {
    const ids = systems.map((x) => x.id);
    // a name is text: a mapping or a list is said as what it is, not as "[object Object]"
    if (sysName === null || typeof sysName === 'object') push(['system'], MSG.wrongKind(`one of ${ids.join(', ')}`, sysName === null ? 'an empty value' : Array.isArray(sysName) ? 'a list' : 'a mapping'));
    else {
      const name = String(sysName);
      push(['system'], MSG.unknownSystem(name, suggest(name, ids), ids));
    }
    return { ok: false, issues: byPosition(issues) };
  }
  const schema = scenarioSchemaOf(system);

  // Map zod issues to file positions. `at` (when given) overrides where the issue is shown:
  // problems caused by a variant's `set` or a sweep key are shown there.
  const report = (zIssues: readonly z.core.$ZodIssue[], wrap?: (m: string) => string, at?: PathSegments) => {
    for (const zi of zIssues) {
      const path = zi.path as (string | number)[];
      // 1e32 for an int with a limit: the limit says it; "whole numbers stop at 2^53" is noise beside it
      if (zi.code === 'too_big' && zi.origin === 'int' && zIssues.some((o) => o !== zi && o.code === 'too_big' && o.path.join('.') === zi.path.join('.'))) continue;
      if (zi.code === 'unrecognized_keys') {
        const allowed = keysAt(schema, path) ?? [];
        for (const key of zi.keys) {
          if (key === '__proto__') continue; // reported from the data (protoKeyPaths)
          const hint = system.unknownKeyHint?.(path, key);
          const msg = MSG.unknownKey(key, hint ? undefined : suggest(key, allowed), hint);
          push([...path, key], wrap ? wrap(msg) : msg, 'key', at);
        }
      } else if ((zi.code === 'invalid_type' || zi.code === 'invalid_union' || zi.code === 'invalid_value') && !at && path.length > 0 && valueAt(data, path) === undefined) {
        push(path, MSG.missingKey(), 'key', path.slice(0, -1));
      } else if (zi.code === 'invalid_union' && zi.message === 'Invalid input' && zi.errors.length > 0) {
        // A union without its own message ("Invalid input" says nothing): report the problems
        // of the alternative the value came closest to (fewest problems), at their own paths.
        // (ties: the deeper problems, which say more than "expected an array")
        const cost = (list: readonly z.core.$ZodIssue[]) => list.reduce((n, e) => n + (e.code === 'unrecognized_keys' ? e.keys.length : 1), 0);
        const depth = (list: readonly z.core.$ZodIssue[]) => Math.max(...list.map((e) => e.path.length));
        const best = zi.errors.reduce((a, b) => (cost(b) < cost(a) || (cost(b) === cost(a) && depth(b) > depth(a)) ? b : a));
        report(best.map((e) => ({ ...e, path: [...path, ...e.path] })), wrap, at);
      } else {
        push(path, wrap ? wrap(zi.message) : zi.message, 'value', at);
      }
    }
  };

  // A `__proto__` key is never a setting. Strict objects report it, but records (a variant's
  // `set`, `sweep`) would drop it silently: every one is reported here, from the data itself.
  for (const p of protoKeyPaths(data)) push(p, MSG.unknownKey('__proto__'), 'key');

  const base = schema.safeParse(data);
  if (!base.success) report(base.error.issues);

  // Each variant, sweep entry and expect item is checked on its own (docs/scenarios.md: every
  // problem at once): one whose shape is wrong (reported above) is left out of the checks that follow, and
  // every other one still gets them. The scenario without the entries that failed ("core") is
  // what the cases are built from.
  type VariantSpec = { name: string; set?: Record<string, unknown> };
  type ExpectItem = NonNullable<Parameters<typeof validateExpect>[0][number]>;
  // each entry is parsed once: its parsed value, or undefined when its shape is wrong
  const parseEach = <T>(list: readonly unknown[], element: z.ZodType): (T | undefined)[] =>
    list.map((x) => {
      const r = element.safeParse(x);
      return r.success ? (r.data as T) : undefined;
    });
  const rawVariants = own(data, 'variants');
  const parsedVariants = Array.isArray(rawVariants) ? parseEach<VariantSpec>(rawVariants, schemaAt(COMMON_SHAPE.variants, [0])!) : [];
  const variantOk = parsedVariants.map((x) => x !== undefined);
  const rawExpect = own(data, 'expect');
  const expectItems = Array.isArray(rawExpect) ? parseEach<ExpectItem>(rawExpect, schemaAt(COMMON_SHAPE.expect, [0])!) : [];
  const expectOk = expectItems.map((x) => x !== undefined);
  const rawSweep = own(data, 'sweep');
  const sweepKeys = rawSweep !== null && typeof rawSweep === 'object' && !Array.isArray(rawSweep) ? Object.keys(rawSweep).filter((k) => k !== '__proto__') : [];
  const parsedSweep = parseEach<unknown>(sweepKeys.map((k) => own(rawSweep, k)), schemaAt(COMMON_SHAPE.sweep, ['x'])!);
  const sweepOk = new Set(sweepKeys.filter((_, i) => parsedSweep[i] !== undefined));
  const clean: Record<string, unknown> = { ...data };
  const put = (key: string, value: unknown, any: boolean) => (any ? setOwn(clean, key, value) : delete clean[key]);
  // (a key written with nothing after it, `expect:`, is null: reported by the schema above, left out here)
  if (rawVariants !== undefined) put('variants', Array.isArray(rawVariants) ? rawVariants.filter((_, i) => variantOk[i]) : rawVariants, variantOk.includes(true));
  if (rawExpect !== undefined) put('expect', Array.isArray(rawExpect) ? rawExpect.filter((_, i) => expectOk[i]) : rawExpect, expectOk.includes(true));
  if (rawSweep !== undefined) put('sweep', Object.fromEntries([...sweepOk].map((k) => [k, own(rawSweep, k)])), sweepOk.size > 0);
  const core = base.success ? base : schema.safeParse(clean);
  const beforeCore = issues.length;
  const coreExtra = core.success ? (system.refine?.(core.data as Record<string, unknown>) ?? []) : [];
  for (const p of coreExtra) push(p.path, p.message);
  // what can be told without a valid file (an unknown roster block), in this same pass
  if (!core.success) for (const p of system.precheck?.(data) ?? []) push(p.path, p.message);
  // The scenario itself has problems (not just some entries): no case can be built, so each
  // `set` entry and sweep value is checked against its own setting's schema instead, and a file
  // with many problems and a large sweep still costs one pass.
  const coreFailed = !core.success || issues.length > beforeCore;

  const cored = core.success ? (core.data as Record<string, unknown>) : {};
  /** The variants that passed their shape, and where each is in the file's list. */
  let variants: VariantSpec[] = [{ name: 'baseline' }];
  let variantAt: number[] = [0];
  if (variantOk.includes(true)) {
    variantAt = variantOk.flatMap((ok, i) => (ok ? [i] : []));
    variants = variantAt.map((i) => parsedVariants[i]!);
  }
  const sweep: Record<string, unknown> = {};
  sweepKeys.forEach((k, i) => parsedSweep[i] !== undefined && setOwn(sweep, k, parsedSweep[i]));
  // every variant's name as written (one that failed its shape still has one), for `expect:`
  const writtenNames = Array.isArray(rawVariants) ? rawVariants.map((x) => own(x, 'name')).filter((n): n is string => typeof n === 'string') : ['baseline'];

  // --- paths that variants set and sweeps vary must be the system's own settings ---
  const checkPath = (dotted: string, at: PathSegments): boolean => {
    const segs = splitPath(dotted);
    if (COMMON_KEYS.has(segs[0])) {
      push(at, MSG.reservedPath(dotted), 'key');
      return false;
    }
    if (schemaAt(schema, segs) === undefined) {
      // suggest from the deepest valid prefix
      let depth = segs.length - 1;
      while (depth > 0 && schemaAt(schema, segs.slice(0, depth)) === undefined) depth--;
      const allowed = (keysAt(schema, segs.slice(0, depth)) ?? []).filter((k) => depth > 0 || !COMMON_KEYS.has(k));
      const guess = suggest(segs[depth], allowed);
      push(at, MSG.badPath(dotted, guess ? [...segs.slice(0, depth), guess].join('.') : undefined), 'key');
      return false;
    }
    return true;
  };

  // Bad paths are reported and left out of the expansion, so every other problem is still found.
  const names = new Map<string, number>(); // a variant's name -> the index in variants: of its first use
  const badSet = new Set<string>(); // `${variant index}\u0000${path}`
  variants.forEach((v, vi) => {
    const i = variantAt[vi];
    const first = names.get(v.name);
    if (first !== undefined) push(['variants', i, 'name'], MSG.duplicateVariant(v.name, positions.valueOf(['variants', first, 'name']).line));
    else names.set(v.name, i);
    for (const p of Object.keys(v.set ?? {})) {
      let ok = checkPath(p, ['variants', i, 'set', p]);
      // A set is applied after the sweep: one that is, or holds, a swept path (a mapping set
      // replaces the whole mapping) would replace the swept value in every case.
      const swept = ok ? sweepKeys.find((k) => k === p || k.startsWith(`${p}.`)) : undefined;
      if (swept !== undefined) {
        push(['variants', i, 'set', p], MSG.sweepDuplicatePath(p, swept), 'key');
        ok = false;
      }
      if (!ok) badSet.add(`${vi}\u0000${p}`);
    }
  });

  const axes: { path: string; values: unknown[]; list: boolean }[] = [];
  /** Swept paths left out for their own problems (an `expect:` `where` on one is not judged). */
  const unjudged: string[] = [];
  for (const p of sweepKeys) {
    if (!checkPath(p, ['sweep', p])) continue;
    const spec = sweep[p];
    const values = spec === undefined ? undefined : expandSweepValues(spec);
    if (values === undefined) {
      if (spec !== undefined) push(['sweep', p], MSG.sweepRange());
      unjudged.push(p);
      continue;
    }
    if (!Array.isArray(spec) && values.length <= MAX_CASES) {
      // a fractional step (or start) on a whole-number setting: said once, at the step (not once per value)
      const { from, step } = spec as { from: number; step: number };
      const setting = schemaAt(schema, splitPath(p))!;
      const fractional = values.filter((x) => !Number.isInteger(x) && wantsWholeNumber(setting, x));
      if (fractional.length > 0) {
        const by = Number.isInteger(from) ? 'step' : 'from';
        push(['sweep', p, by], MSG.sweepNotWhole(by, by === 'step' ? step : from, fractional as number[]));
        unjudged.push(p);
        continue;
      }
    }
    if (!Array.isArray(spec) && values.length <= MAX_CASES) {
      // a step finer than 12 significant digits gives one rounded value twice (as a list naming it twice would)
      const again = values.findIndex((x, i) => i > 0 && x === values[i - 1]);
      if (again > 0) {
        push(['sweep', p, 'step'], MSG.sweepStepTooFine((spec as { step: number }).step, values[again] as number));
        unjudged.push(p);
        continue;
      }
    }
    if (Array.isArray(spec)) {
      // the same value twice: two cases of one setting with two answers, a miscount and a chart with two points at one x
      const firstAt = new Map<string, number>();
      values.forEach((x, i) => {
        const k = JSON.stringify(x);
        const first = firstAt.get(k);
        if (first === undefined) firstAt.set(k, i);
        else push(['sweep', p, i], MSG.sweepRepeated(x, first, i));
      });
    }
    axes.push({ path: p, values, list: Array.isArray(spec) });
  }
  // counted without expanding (a range's values are expanded only up to the cap)
  const counts = axes.map((a) => (a.list ? a.values.length : sweepCount(sweep[a.path] as { from: number; to: number; step: number })));
  const nCases = counts.reduce((n, c) => n * c, 1) * variants.length;
  if (nCases > MAX_CASES) {
    const parts = axes.map((a, i) => `${bigCount(counts[i])} values of ${a.path}`);
    if (variants.length > 1) parts.push(`${variants.length.toLocaleString('en-US')} variants`);
    push(['sweep'], MSG.sweepTooLarge(nCases, MAX_CASES, parts, axes.some((a) => !a.list), variants.length), 'key');
    return { ok: false, issues: byPosition(issues) };
  }
  // A variant after the baseline that sets nothing runs the file as written (a variant's set:
  // applies to the file, not on top of the baseline's): the baseline again when the baseline sets
  // nothing (its differences 0 by construction), a forgotten `set:` either way, never a reading.
  if (variantAt[0] === 0) {
    variants.forEach((v, vi) => {
      const i = variantAt[vi];
      if (i > 0 && Object.keys(v.set ?? {}).length === 0) {
        const hasSet = own(own(rawVariants, i), 'set') !== undefined;
        push(['variants', i, hasSet ? 'set' : 'name'], MSG.variantSetsNothing(v.name, variants[0].name, Object.keys(variants[0].set ?? {}).length > 0), 'key');
      }
    });
  }
  /** A problem of a swept value, under `sweep.<path>` (`[i]` for a list's item) as every sweep problem is. */
  const sweepIssue = (a: { path: string; list: boolean; values: unknown[] }, value: unknown, zi: z.core.$ZodIssue): z.core.$ZodIssue => ({
    ...zi,
    path: ['sweep', a.path, ...(a.list ? [a.values.indexOf(value)] : []), ...(zi.path as (string | number)[]).slice(splitPath(a.path).length)],
  });
  const expectContext = { system, axes, variantNames: writtenNames, unjudged };
  // A case is the file's settings at one sweep point and variant: its `expect:`, `variants:`,
  // `sweep:` and `headline:` belong to the file, not to the case, and are left out of every
  // case (kept in each, they would cost items x cases).
  const caseClean: Record<string, unknown> = { ...clean };
  for (const k of FILE_KEYS) delete caseClean[k];
  const coreCase = core.success ? withoutFileKeys(core.data as Record<string, unknown>) : undefined;
  /** A sweep point as written, before its schema: the file with the point's values (in `axes` order). */
  const pointRaw = (combo: unknown[]): Record<string, unknown> => {
    let raw = caseClean;
    axes.forEach((a, j) => (raw = withPath(raw, a.path, combo[j])));
    return raw;
  };
  /** One case as written: its sweep point's (pointRaw), then the variant's `set`. */
  const caseRaw = (point: Record<string, unknown>, vi: number): Record<string, unknown> => {
    let raw = point;
    for (const [p, val] of Object.entries(variants[vi].set ?? {})) if (!badSet.has(`${vi}\u0000${p}`)) raw = withPath(raw, p, val);
    return raw;
  };
  /** The metrics every case would produce once fixed, by the system's word on each as written (for `expect:` when cases are missing). */
  const writtenMetrics = (): string[] => {
    const out = new Set<string>();
    for (const combo of cartesian(axes.map((a) => a.values))) {
      const point = pointRaw(combo);
      variants.forEach((_, vi) => system.metricNames(caseRaw(point, vi)).forEach((n) => out.add(n)));
    }
    return [...out];
  };

  // --- headline: names the scenario's cases produce (the system's word on each case as written, as `expect:` is told when cases are missing), each once ---
  const rawHeadline = own(data, 'headline');
  const headline = typeof rawHeadline === 'string' ? [rawHeadline] : Array.isArray(rawHeadline) && rawHeadline.every((x) => typeof x === 'string') ? (rawHeadline as string[]) : undefined;
  if (headline && headline.every((m) => m.length > 0)) {
    const known = writtenMetrics();
    const at = (i: number): PathSegments => (Array.isArray(rawHeadline) ? ['headline', i] : ['headline']);
    const firstAt = new Map<string, number>();
    headline.forEach((m, i) => {
      if (!known.includes(m)) push(at(i), MSG.unknownMetric(m, suggest(m, known), known));
      const first = firstAt.get(m);
      if (first === undefined) firstAt.set(m, i);
      else push(at(i), MSG.headlineRepeated(m, first, i));
    });
  }

  if (coreFailed) {
    const checkValue = (dotted: string, value: unknown): z.core.$ZodIssue[] => {
      const segs = splitPath(dotted);
      const r = schemaAt(schema, segs)!.safeParse(value);
      return r.success ? [] : r.error.issues.map((zi) => ({ ...zi, path: [...segs, ...zi.path] }));
    };
    variants.forEach((v, vi) => {
      for (const [p, val] of Object.entries(v.set ?? {})) {
        if (!badSet.has(`${vi}\u0000${p}`)) report(checkValue(p, val), (m) => MSG.inVariant(v.name, m), ['variants', variantAt[vi], 'set', p]);
      }
    });
    for (const a of axes) {
      a.values.forEach((val, i) =>
        report(checkValue(a.path, val).map((zi) => sweepIssue(a, val, zi)), (m) => MSG.inSweep(val, m), a.list ? ['sweep', a.path, i] : ['sweep', a.path]),
      );
    }
    // what `expect:` can be told without the scenario's metrics (bounds, variants, where)
    if (expectItems.some((x) => x !== undefined)) {
      for (const p of validateExpect(expectItems, { ...expectContext, names: writtenMetrics() }, (q) => positions.valueOf(q)).issues) push(p.path, p.message, p.where, undefined, p.stale);
    }
    return { ok: false, issues: byPosition(issues) };
  }
  const parsed = cored;

  // --- settings that change nothing (RulesSystem.deadSettings): warnings, not refusals ---
  type Written = { vi: number; combo: unknown[]; raw: Record<string, unknown>; dead: { path: string[]; message: string }[] };
  /** Every valid case as written, with the settings it writes that change nothing in it. */
  const written: Written[] = [];
  /** Where a case's setting is written: the variant's set entry, else the sweep key, else the file's key. */
  const writtenAt = (path: string[], w: Written): { at: PathSegments; wrap: (m: string) => string } => {
    const dotted = path.join('.');
    const touches = (p: string) => dotted === p || dotted.startsWith(`${p}.`) || p.startsWith(`${dotted}.`);
    const v = variants[w.vi];
    const setKey = Object.keys(v.set ?? {}).find((p) => !badSet.has(`${w.vi}\u0000${p}`) && touches(p));
    if (setKey !== undefined) return { at: ['variants', variantAt[w.vi], 'set', setKey], wrap: (m) => MSG.inVariant(v.name, m) };
    const ai = axes.findIndex((a) => touches(a.path));
    if (ai >= 0) {
      const a = axes[ai];
      return a.list ? { at: ['sweep', a.path, a.values.indexOf(w.combo[ai])], wrap: (m) => MSG.inSweep(w.combo[ai], m) } : { at: ['sweep', a.path], wrap: (m) => m };
    }
    return { at: path, wrap: (m) => m };
  };
  /**
   * A setting is said once per place that writes it, and only when it changes nothing in every
   * case that place writes it for (a blockade chance the file gives is used by a variant that
   * makes the structure a port).
   */
  const deadSettingWarnings = (cases: Written[]): ScenarioIssue[] => {
    const places = new Map<string, { at: PathSegments; path: string[]; message: string; used: boolean }>();
    for (const w of cases)
      for (const d of w.dead) {
        const { at, wrap } = writtenAt(d.path, w);
        const key = `${formatPath(at)}\u0000${d.path.join('.')}`;
        if (!places.has(key)) places.set(key, { at, path: d.path, message: wrap(d.message), used: false });
      }
    if (places.size === 0) return [];
    for (const w of cases)
      for (const [key, place] of places) {
        if (place.used || ownAt(w.raw, place.path) === undefined) continue;
        if (`${formatPath(writtenAt(place.path, w).at)}\u0000${place.path.join('.')}` !== key) continue;
        if (!w.dead.some((d) => d.path.join('.') === place.path.join('.'))) place.used = true;
      }
    const out: ScenarioIssue[] = [];
    for (const place of places.values()) {
      if (place.used) continue;
      const p = positions.keyOf(place.at);
      out.push({ file, line: p.line, col: p.col, path: formatPath(place.at), message: place.message });
    }
    return byPosition(out);
  };

  // --- expand: every sweep point x every variant, each re-validated ---
  const points: SweepPoint[] = [];
  const combos = cartesian(axes.map((a) => a.values));
  combos.forEach((combo, index) => {
    const params: Record<string, unknown> = Object.fromEntries(axes.map((a, j) => [a.path, combo[j]]));
    const point: SweepPoint = { index, params, variants: [] };
    const raw = pointRaw(combo);
    for (let vi = 0; vi < variants.length; vi++) {
      const v = variants[vi];
      const vr = caseRaw(raw, vi);
      // the file as written (no sweep value, no `set` applied) is the case already parsed and refined above
      const same = vr === caseClean && coreCase !== undefined;
      const r = same ? { success: true as const, data: coreCase } : schema.safeParse(vr);
      if (!r.success) {
        // Blame the variant's set entry or the sweep key that touched the failing path.
        for (const zi of r.error.issues) {
          const failing = (zi.path as (string | number)[]).join('.');
          // one path within the other, segment by segment (wall.hp is not within wall.hpp)
          const touches = (p: string) => failing === p || failing.startsWith(`${p}.`) || p.startsWith(`${failing}.`);
          const setKey = Object.keys(v.set ?? {}).find((p) => !badSet.has(`${vi}\u0000${p}`) && touches(p));
          const ai = axes.findIndex((a) => touches(a.path));
          const axis = axes[ai];
          if (setKey !== undefined) {
            report([zi], (m) => MSG.inVariant(v.name, m), ['variants', variantAt[vi], 'set', setKey]);
          } else if (axis) {
            // Point at the offending list item, or at the range.
            const at = axis.list ? ['sweep', axis.path, axis.values.indexOf(combo[ai])] : ['sweep', axis.path];
            report([sweepIssue(axis, combo[ai], zi)], (m) => MSG.inSweep(params[axis.path], m), at);
          } else {
            report([zi], (m) => MSG.inVariant(v.name, m), ['variants', variantAt[vi]]);
          }
        }
        continue;
      }
      const extra = same ? coreExtra : (system.refine?.(r.data as Record<string, unknown>) ?? []);
      for (const p of extra) push(p.path, MSG.inVariant(v.name, p.message), 'value', Object.keys(v.set ?? {}).length > 0 ? ['variants', variantAt[vi]] : p.path);
      if (extra.length > 0) continue;
      point.variants.push({ variant: v.name, scenario: r.data as Record<string, unknown> });
      if (system.deadSettings) written.push({ vi, combo, raw: vr, dead: system.deadSettings(vr, r.data as Record<string, unknown>) });
    }
    points.push(point);
  });
  const warnings = deadSettingWarnings(written);

  // --- the results the cases would hold: every case's accumulator (its metrics' sums and every
  // point of its curves) is kept until the report is written, so a file may ask for at most
  // LIMITS.resultNumbers of them, told before any trial runs ---
  if (issues.length === 0) {
    let total = 0;
    let largest = 0;
    let cases = 0;
    for (const p of points) {
      for (const c of p.variants) {
        const n = system.kernel.accLength(system.compile(c.scenario));
        total += n;
        largest = Math.max(largest, n);
        cases++;
      }
    }
    if (total > LIMITS.resultNumbers) push([axes.length > 0 ? 'sweep' : 'variants'], MSG.resultsTooLarge(total, cases, LIMITS.resultNumbers, largest), 'key');
  }

  // --- expect: metrics, variants and swept values the assertions name must exist ---
  // (with the cases that were built: when some are missing for their own problems, a metric
  // absent from the points selected is not judged)
  const partial = variantAt.length < (Array.isArray(rawVariants) ? rawVariants.length : 1) || unjudged.length > 0 || points.some((p) => p.variants.length < variants.length);
  const ex = expectItems.some((x) => x !== undefined)
    ? validateExpect(expectItems, { ...expectContext, points, partial, ...(partial ? { names: writtenMetrics() } : {}) }, (p) => positions.valueOf(p))
    : { expectations: [], issues: [] };
  for (const p of ex.issues) push(p.path, p.message, p.where, undefined, p.stale);
  // Stale expect: items only (the scenario changed under them): refused by default (test, validate);
  // with staleExpect 'warn' (the commands that run) they are left out and said as warnings.
  const stale = opts.staleExpect === 'warn' && issues.every((i) => i.stale);
  if (issues.length > 0 && !stale) return { ok: false, issues: byPosition(issues) };

  return {
    ok: true,
    value: {
      file,
      system,
      name: parsed.name as string,
      description: parsed.description as string | undefined,
      seed: parsed.seed as string | number,
      trials: parsed.trials as number,
      params: axes.map((a) => a.path),
      variantNames: variants.map((v) => v.name),
      points,
      raw: data,
      baselineSet: variants[0].set ?? {},
      expect: ex.expectations,
      ...(headline ? { headline: [...headline] } : {}),
      ...(issues.length > 0 ? { staleExpect: byPosition(issues) } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    },
  };
}

/** Top-level keys about the file (its cases, assertions, answer), never part of one case. */
const FILE_KEYS = ['variants', 'sweep', 'expect', 'headline'] as const;

function withoutFileKeys(data: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data };
  for (const k of FILE_KEYS) delete out[k];
  return out;
}

/** True when a setting refuses this number for not being whole (a z.int()), so a fractional sweep value cannot work. */
function wantsWholeNumber(setting: z.ZodType, x: unknown): boolean {
  const r = setting.safeParse(x);
  return !r.success && r.error.issues.some((i) => i.path.length === 0 && i.code === 'invalid_type' && i.expected === 'int');
}

/** The values of one sweep axis, or undefined for an empty range. */
export function expandSweepValues(spec: unknown): unknown[] | undefined {
  if (Array.isArray(spec)) return spec.length > 0 ? spec : undefined;
  const { from, to, step } = spec as { from: number; to: number; step: number };
  if (!(step > 0) || from > to) return undefined;
  const out: number[] = [];
  const n = sweepCount({ from, to, step }) - 1;
  if (n > MAX_CASES) return Array.from({ length: MAX_CASES + 1 }, (_, i) => from + i * step);
  for (let i = 0; i <= n; i++) out.push(sweepValueAt({ from, to, step }, i));
  return out;
}

function cartesian(lists: unknown[][]): unknown[][] {
  let out: unknown[][] = [[]];
  for (const list of lists) {
    const next: unknown[][] = [];
    for (const prefix of out) for (const v of list) next.push([...prefix, v]);
    out = next;
  }
  return out;
}

/** Paths of every own `__proto__` key in a plain tree (iterative: no depth limit to hit). */
function protoKeyPaths(data: unknown): (string | number)[][] {
  const out: (string | number)[][] = [];
  const stack: [unknown, (string | number)[]][] = [[data, []]];
  while (stack.length > 0) {
    const [o, p] = stack.pop()!;
    if (o === null || typeof o !== 'object') continue;
    for (const k of Object.keys(o)) {
      const child = [...p, Array.isArray(o) ? Number(k) : k];
      if (k === '__proto__') out.push(child);
      else stack.push([(o as Record<string, unknown>)[k], child]);
    }
  }
  return out;
}

function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let cur: unknown = data;
  for (const seg of path) cur = own(cur, seg);
  return cur;
}

/**
 * Re-validate one concrete case: the scenario as written, the baseline variant's settings and
 * extra dotted-path settings (used by `solve`). Returns the parsed case or the zod messages.
 */
export function validateCase(
  v: ValidScenario,
  settings: Record<string, unknown>,
  /** A variant's `set` to apply instead of the baseline's. */
  set: Record<string, unknown> = v.baselineSet,
): { ok: true; scenario: Record<string, unknown> } | { ok: false; messages: string[] } {
  let raw = v.raw;
  delete (raw = structuredClone(raw)).sweep;
  for (const [p, val] of Object.entries(set)) raw = withPath(raw, p, val);
  for (const [p, val] of Object.entries(settings)) raw = withPath(raw, p, val);
  const r = scenarioSchemaOf(v.system).safeParse(raw);
  if (r.success) return { ok: true, scenario: r.data as Record<string, unknown> };
  return { ok: false, messages: r.error.issues.map((i) => `${formatPath(i.path as (string | number)[])}: ${i.message}`) };
}

/** The value at a dotted path of a plain-object tree (undefined when absent). */
export function valueAtPath(data: unknown, dotted: string): unknown {
  return valueAt(data, splitPath(dotted));
}
