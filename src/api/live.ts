/**
 * The workbench's verbs (siegesim serve): the tunable values of a scenario as controls, the live
 * job "as loaded" vs "tuned" on the same dice, one- and two-parameter sweeps of the tuned case,
 * and the tuned scenario saved as YAML with the original's comments and key order.
 *
 * Every value goes through validateScenario, the same path as a scenario file: a bad value gets
 * the message the CLI would print for the saved file. Touches no files.
 */
import * as z from 'zod';
import { isMap, isSeq, parseDocument, type Document } from 'yaml';
import { appendYamlLine, commentOutItems, editYamlValues, type DocPath } from './yaml-edit.js';
import { PositionMap } from '../scenario/load.js';
import { MSG } from '../scenario/messages.js';
import { COMMON_KEYS, scenarioSchemaOf, unwrap } from '../scenario/schema.js';
import { expandSweepValues, splitPath, validateScenario, valueAtPath, type ValidScenario } from '../scenario/validate.js';
import { sweepCount } from '../scenario/range.js';
import { SYSTEMS } from '../systems/registry.js';
import { effectiveValues, sliderOf, variantSet, type Slider } from './tunables.js';
import { pointStream, validateText } from './run.js';

/** What a control edits: a number (integer or not), one of a list, or a yes/no. */
export type ControlKind = 'int' | 'number' | 'enum' | 'boolean';

/** One tunable value of a scenario, generated from its schema. */
export interface Control {
  /** Dotted path, as in variants' `set`, sweeps and the workbench URL: `wall.hp`, `blocks.2.steps`. */
  path: string;
  /** The dotted path of the group it is shown in ('' for top-level values). */
  group: string;
  kind: ControlKind;
  min?: number;
  max?: number;
  options?: string[];
  /** The value as loaded (defaults filled); undefined when the system derives it (e.g. wall HP from its type). */
  value: unknown;
  /**
   * When `value` is undefined ("auto"): what the system makes of it, if it says (a Crusader Rex
   * block's steps: its full strength; a palisade's HP: 15), from `effectiveValues`.
   */
  auto?: number | string | boolean;
  /** Written in the file (or by the chosen variant), not a default. */
  inFile: boolean;
  description?: string;
  /** A number setting's slider in the workbench (`sliderOf`: its ends and its step, one rule with solve's resolution). */
  slider?: Slider;
}

export interface ControlGroup {
  path: string;
  /** How the group is titled: its key, or an array element's name (`blocks.0` -> `Saladin`). */
  label: string;
  /** Any of its values is written in the file (designers look there first). */
  inFile: boolean;
}

/** A problem with one value (`path` is the value's dotted path, or '' when it concerns several). */
export interface ValueIssue {
  path: string;
  message: string;
}

export interface LiveOptions {
  /** Which of the file's variants is "as loaded" (default: the first, the baseline). */
  variant?: string;
  /** Dotted path -> value: the tuned values. */
  values?: Record<string, unknown>;
}

/** The variant names of the live job. */
export const LOADED = 'as loaded';
export const TUNED = 'tuned';

/** Most sweep points a workbench sweep may have. */
export const MAX_SWEEP_POINTS = 441;

type Def = { type: string; [k: string]: unknown };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The chosen variant's `set` (and its index), or an issue naming the known variants. */
function chosenVariant(v: ValidScenario, name: string | undefined): Chosen | ValueIssue {
  const index = name === undefined ? 0 : v.variantNames.indexOf(name);
  if (index < 0) return { path: 'variant', message: `unknown variant "${name}" (one of: ${v.variantNames.join(', ')})` };
  return { index, name: v.variantNames[index], set: variantSet(v, index) };
}

type Chosen = { index: number; name: string; set: Record<string, unknown> };

/** The chosen variant as loaded: one case, no sweep (its scenario is what the controls start from). */
function loadedCase(v: ValidScenario, chosen: Chosen): { ok: true; value: ValidScenario } | { ok: false; issues: ValueIssue[] } {
  return validateSynthetic(v, [{ name: LOADED, set: chosen.set }]);
}

/**
 * The name of a sweep's or solve's one case: the chosen variant's own when the values change
 * nothing in it (what `siegesim run` and `solve --json` call that case of the file), else "tuned".
 */
function caseName(v: ValidScenario, chosen: Chosen, values: Record<string, unknown>): { ok: true; name: string } | { ok: false; issues: ValueIssue[] } {
  const loaded = loadedCase(v, chosen);
  if (!loaded.ok) return loaded;
  const changed = changedValues(loaded.value.points[0].variants[0].scenario, values);
  return { ok: true, name: Object.keys(changed).length === 0 ? chosen.name : TUNED };
}

/** The file's data without its variants and sweep: the base every workbench case starts from. */
function baseData(v: ValidScenario): Record<string, unknown> {
  const data = structuredClone(v.raw);
  delete data.variants;
  delete data.sweep;
  // `expect:` names the file's own variants and sweep points (siegesim test checks them); the
  // workbench's synthetic scenarios have other variants and sweeps, so it is left out of them.
  delete data.expect;
  // `headline:` was checked against the file's cases; a changed value may make other metrics (a
  // siege turned into a field battle): the synthetic scenario carries the file's list as checked
  delete data.headline;
  return data;
}

/** Values equal to the loaded ones change nothing: drop them (so "no change" runs one variant). */
function changedValues(loaded: Record<string, unknown> | undefined, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [p, val] of Object.entries(values)) {
    if (loaded && isDeepEqual(valueAtPath(loaded, p), val)) continue;
    out[p] = val;
  }
  return out;
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Validate a synthetic scenario (the file's base data, the given variants, an optional sweep)
 * exactly as a file is validated. Issues about a variant's `set` entry or a sweep key come back
 * under the value's own dotted path, with the message the CLI prints for a file holding that value.
 */
function validateSynthetic(
  v: ValidScenario,
  variants: { name: string; set: Record<string, unknown> }[],
  sweep?: Record<string, unknown>,
): { ok: true; value: ValidScenario } | { ok: false; issues: ValueIssue[] } {
  const data: Record<string, unknown> = { ...baseData(v), variants };
  if (sweep) data.sweep = sweep;
  const r = validateScenario({ file: v.file, data, positions: new PositionMap(), issues: [] }, SYSTEMS);
  if (r.ok) return v.headline ? { ok: true, value: { ...r.value, headline: v.headline } } : r;
  const known = [...variants.flatMap((x) => Object.keys(x.set)), ...Object.keys(sweep ?? {})];
  const issues: ValueIssue[] = [];
  for (const i of r.issues) {
    let message = i.message;
    for (const x of variants) {
      const prefix = MSG.inVariant(x.name, '');
      if (message.startsWith(prefix)) message = message.slice(prefix.length);
    }
    // `variants[1].set.wall.hp` (a bad path), `sweep.wall.hp[2]` (a sweep value), `blocks[0].steps` (a value)
    const dotted = i.path.replace(/^variants\[\d+\]\.set\./, '').replace(/^sweep\./, '').replace(/\[(\d+)\]/g, '.$1');
    const owner = known.find((p) => dotted === p || dotted.startsWith(p + '.')) ?? known.find((p) => p.startsWith(dotted + '.'));
    if (owner !== undefined) issues.push({ path: owner, message });
    else issues.push({ path: '', message: `${i.path}: ${message}` });
  }
  return { ok: false, issues };
}

/** The tuned variant's settings: the chosen variant's `set` with the tuned values over it. */
function tunedSet(chosen: { set: Record<string, unknown> }, values: Record<string, unknown>): Record<string, unknown> {
  return { ...chosen.set, ...values };
}

/**
 * The live job: one case without the file's sweep, "as loaded" (the chosen variant) and, when a
 * value differs, "tuned" on the same dice, so the page shows the paired difference.
 */
export function liveScenario(
  v: ValidScenario,
  o: LiveOptions = {},
): { ok: true; value: ValidScenario; changed: Record<string, unknown>; was: Record<string, unknown>; sweep?: SavedSweep } | { ok: false; issues: ValueIssue[] } {
  const chosen = chosenVariant(v, o.variant);
  if ('message' in chosen) return { ok: false, issues: [chosen] };
  const loaded = loadedCase(v, chosen);
  if (!loaded.ok) return loaded;
  const asLoaded = loaded.value.points[0].variants[0].scenario;
  const changed = changedValues(asLoaded, o.values ?? {});
  const was = Object.fromEntries(Object.keys(changed).map((p) => [p, valueAtPath(asLoaded, p)]));
  if (Object.keys(changed).length === 0) {
    // nothing tuned: the file itself is what reproduces it, when the case is one of its sweep points
    const s = savedSweep(v, loaded.value);
    return { ok: true, value: s && Object.keys(s.added).length === 0 ? rollsAs(loaded.value, s) : loaded.value, changed, was, ...(s ? { sweep: s } : {}) };
  }
  const both = validateSynthetic(v, [
    { name: LOADED, set: chosen.set },
    { name: TUNED, set: tunedSet(chosen, changed) },
  ]);
  if (!both.ok) return both;
  const s = savedSweep(v, both.value, 1);
  return { ok: true, value: rollsAs(both.value, s), changed, was, ...(s ? { sweep: s } : {}) };
}

/**
 * Where the case on screen is in the file the page saves. A file with a sweep runs its sweep
 * points, not the workbench's one case: the saved copy's sweep gains the case's value of each
 * swept setting (kept in order, no repeat; a range becomes the list of its values), so the case
 * is one of its points, and `index` is that point (the dice `run` rolls there). `added` is what
 * the copy's sweep gained. Undefined for a file without a sweep.
 */
export interface SavedSweep {
  sweep: Record<string, number[] | unknown>;
  added: Record<string, number>;
  index: number;
  /** The case's value of each swept setting: its point in the saved copy's sweep. */
  at: Record<string, number>;
}

/** The saved file's sweep for a one-point case of `v` (its `variant`: the tuned one when there is one). */
export function savedSweep(v: ValidScenario, one: ValidScenario, variant = 0): SavedSweep | undefined {
  const raw = v.raw.sweep as Record<string, unknown> | undefined;
  if (!raw || v.params.length === 0) return undefined;
  const scenario = one.points[0]?.variants[variant]?.scenario ?? one.points[0]?.variants[0]?.scenario ?? {};
  const auto = effectiveValues(v.system, scenario);
  const sweep: Record<string, unknown> = { ...raw };
  const added: Record<string, number> = {};
  const at: Record<string, number> = {};
  let index = 0;
  for (const p of v.params) {
    const values = (expandSweepValues(raw[p]) ?? []) as number[];
    const x = valueAtPath(scenario, p) ?? auto[p];
    let list = values;
    if (typeof x === 'number' && !values.includes(x)) {
      list = [...values, x].sort((a, b) => a - b);
      sweep[p] = list;
      added[p] = x;
    }
    if (typeof x === 'number') at[p] = x;
    const pos = Math.max(0, list.indexOf(x as number));
    index = index * list.length + pos;
  }
  return { sweep, added, index, at };
}

/** A one-point case that rolls the dice of sweep point `s.index` of the saved file (point 0 without a sweep). */
function rollsAs(one: ValidScenario, s: SavedSweep | undefined): ValidScenario {
  return s && s.index > 0 ? { ...one, dice: pointStream(s.index) } : one;
}

/**
 * One axis of a workbench sweep: exactly the given values in their order (a file's own list, such
 * as `wall.hp: [10, 20, 30, 40, 60, 80]`), or an inclusive numeric range (`from`, `to`, `step`).
 */
export type SweepAxis = { path: string; values: readonly number[] } | { path: string; from: number; to: number; step: number };

/** The values of a workbench sweep axis, as the scenario's `sweep:` writes them (a list or a range). */
function axisSpec(a: SweepAxis): { spec: number[] | { from: number; to: number; step: number }; n: number } | { error: string } {
  if ('values' in a) {
    if (a.values.length === 0) return { error: MSG.sweepEmpty() };
    if (!a.values.every(Number.isFinite)) return { error: MSG.sweepNumbers() };
    return { spec: [...a.values], n: a.values.length };
  }
  if (![a.from, a.to, a.step].every(Number.isFinite) || !(a.step > 0) || a.from > a.to) return { error: MSG.sweepRange() };
  return { spec: { from: a.from, to: a.to, step: a.step }, n: sweepCount(a) };
}

/** The tuned case swept over one or two parameters (one variant: the tuned case). */
export function sweepScenario(v: ValidScenario, o: LiveOptions & { axes: SweepAxis[] }): { ok: true; value: ValidScenario } | { ok: false; issues: ValueIssue[] } {
  const chosen = chosenVariant(v, o.variant);
  if ('message' in chosen) return { ok: false, issues: [chosen] };
  if (o.axes.length < 1 || o.axes.length > 2) return { ok: false, issues: [{ path: '', message: 'a sweep has one or two parameters' }] };
  if (o.axes.length === 2 && o.axes[0].path === o.axes[1].path) return { ok: false, issues: [{ path: o.axes[1].path, message: 'sweep two different parameters' }] };
  const issues: ValueIssue[] = [];
  let points = 1;
  const sweep: Record<string, unknown> = {};
  for (const a of o.axes) {
    const s = axisSpec(a);
    if ('error' in s) {
      issues.push({ path: a.path, message: s.error });
      continue;
    }
    points *= s.n;
    sweep[a.path] = s.spec;
  }
  if (issues.length > 0) return { ok: false, issues };
  if (points > MAX_SWEEP_POINTS) return { ok: false, issues: [{ path: '', message: MSG.sweepTooLarge(points, MAX_SWEEP_POINTS) }] };
  // A swept path overrides the tuned value: leave it out of the variant (as a file must).
  const values = Object.fromEntries(Object.entries(o.values ?? {}).filter(([p]) => !(p in sweep)));
  const set = Object.fromEntries(Object.entries(tunedSet(chosen, values)).filter(([p]) => !(p in sweep)));
  const name = caseName(v, chosen, values);
  if (!name.ok) return name;
  return validateSynthetic(v, [{ name: name.name, set }], sweep);
}

/** The tuned case alone (for solve): a scenario whose baseline is the chosen variant with the tuned values. */
export function tunedScenario(v: ValidScenario, o: LiveOptions = {}): { ok: true; value: ValidScenario } | { ok: false; issues: ValueIssue[] } {
  const t = tunedCase(v, o);
  return t.ok ? { ok: true, value: t.value } : t;
}

/** `tunedScenario` with the saved file's sweep the case is placed in (`savedSweep`), for `commandCase`. */
function tunedCase(v: ValidScenario, o: LiveOptions): { ok: true; value: ValidScenario; sweep: SavedSweep | undefined } | { ok: false; issues: ValueIssue[] } {
  const chosen = chosenVariant(v, o.variant);
  if ('message' in chosen) return { ok: false, issues: [chosen] };
  const name = caseName(v, chosen, o.values ?? {});
  if (!name.ok) return name;
  const one = validateSynthetic(v, [{ name: name.name, set: tunedSet(chosen, o.values ?? {}) }]);
  if (!one.ok) return one;
  const s = savedSweep(v, one.value);
  // nothing tuned and the case at none of the file's sweep points: no copy is saved (the page saves
  // the file as it is), so the case rolls what the live run and `--where` on the file roll there
  const offGrid = name.name !== TUNED && s !== undefined && Object.keys(s.added).length > 0;
  return { ok: true, value: offGrid ? one.value : rollsAs(one.value, s), sweep: s };
}

/**
 * The case the workbench's ranking and search start from (`tunedScenario`), as the command line
 * names it: `siegesim sensitivity FILE --where ...` ranks the baseline variant at the first sweep
 * point unless `--where` says otherwise, so `where` holds every setting the case differs in or is
 * swept at — each swept setting at the case's value, the chosen variant's `set` (a variant other
 * than the baseline), a setting the baseline variant sets and the chosen one does not (at the
 * file's own value), and the tuned values. `tuned`: the case's swept values are not all points of
 * the file's sweep, and a value is tuned, so the command runs on the page's saved copy, whose sweep
 * gains them (`gains`): its point there is the one whose dice the page rolls. `first` is the
 * file's first sweep point (the case the command ranks without `--where`). Refused, with the
 * reason, when no `--where` gives the case (the baseline variant sets a value the file leaves to
 * the system, and the chosen variant does not).
 */
export interface CommandCase {
  where: Record<string, unknown>;
  tuned: boolean;
  gains: Record<string, number>;
  first?: Record<string, unknown>;
}

export function commandCase(v: ValidScenario, o: LiveOptions = {}): { ok: true; value: CommandCase } | { ok: false; reason: string } | { ok: false; issues: ValueIssue[] } {
  const chosen = chosenVariant(v, o.variant);
  if ('message' in chosen) return { ok: false, issues: [chosen] };
  const loaded = loadedCase(v, chosen);
  if (!loaded.ok) return loaded;
  const changed = changedValues(loaded.value.points[0].variants[0].scenario, o.values ?? {});
  const one = tunedCase(v, o);
  if (!one.ok) return one;
  const s = one.sweep;
  const where: Record<string, unknown> = { ...(s?.at ?? {}) };
  const put = (p: string, x: unknown) => {
    if (!Object.hasOwn(where, p)) where[p] = x;
  };
  if (chosen.index > 0) {
    const base = baseData(v);
    for (const p of Object.keys(v.baselineSet)) {
      if (Object.hasOwn(chosen.set, p) || Object.hasOwn(changed, p) || Object.hasOwn(where, p)) continue;
      const x = valueAtPath(base, p);
      if (x === undefined) return { ok: false, reason: `the baseline variant (${v.variantNames[0]}) sets ${p}, which the file leaves to the system and the variant "${chosen.name}" does not set: --where cannot give this case` };
      put(p, x);
    }
    for (const [p, x] of Object.entries(chosen.set)) if (!Object.hasOwn(changed, p)) put(p, x);
  }
  for (const [p, x] of Object.entries(changed)) put(p, x);
  const gains = s?.added ?? {};
  const tuned = Object.keys(changed).length > 0 && Object.keys(gains).length > 0;
  return { ok: true, value: { where, tuned, gains: tuned ? gains : {}, ...(v.params.length > 0 ? { first: { ...v.points[0].params } } : {}) } };
}

/**
 * Every tunable value of a scenario (numbers, enums, booleans), in the order of the file's keys
 * and then the schema's, grouped as in the YAML; the loaded value (the chosen variant's) is each
 * control's default.
 */
export function describeControls(v: ValidScenario, variant?: string): { controls: Control[]; groups: ControlGroup[] } | { issues: ValueIssue[] } {
  const chosen = chosenVariant(v, variant);
  if ('message' in chosen) return { issues: [chosen] };
  const loaded = loadedCase(v, chosen);
  if (!loaded.ok) return { issues: loaded.issues };
  const data = loaded.value.points[0].variants[0].scenario;
  const auto = effectiveValues(v.system, data);
  const raw = baseData(v);
  const schema = scenarioSchemaOf(v.system);
  const controls: Control[] = [];
  const groups = new Map<string, ControlGroup>();
  const inFile = (path: string) => valueAtPath(raw, path) !== undefined || Object.keys(chosen.set).some((p) => p === path || path.startsWith(p + '.'));

  const group = (path: string, label: string) => {
    if (!groups.has(path)) groups.set(path, { path, label, inFile: path !== '' && valueAtPath(raw, path) !== undefined });
  };
  const leaf = (node: z.ZodType, segs: (string | number)[], value: unknown) => {
    const path = segs.join('.');
    const s = unwrap(node);
    const d = defOf(s);
    const json = leafJson(node);
    let c: Control | undefined;
    if (d.type === 'number') {
      c = { path, group: '', kind: json.type === 'integer' ? 'int' : 'number', value, inFile: inFile(path), min: finite(json.minimum), max: finite(json.maximum) };
    } else if (d.type === 'boolean') {
      c = { path, group: '', kind: 'boolean', value, inFile: inFile(path) };
    } else {
      const options = enumOptions(s);
      if (options) c = { path, group: '', kind: 'enum', options, value: value === undefined ? value : String(value), inFile: inFile(path) };
    }
    if (!c) return;
    if (typeof json.description === 'string') c.description = json.description;
    if (c.value === undefined && auto[path] !== undefined) c.auto = auto[path];
    if (c.kind === 'int' || c.kind === 'number') {
      const at = typeof c.value === 'number' ? c.value : typeof c.auto === 'number' ? c.auto : undefined;
      c.slider = sliderOf(c.kind, c.min, c.max, at);
    }
    const parent = segs.slice(0, -1).join('.');
    c.group = parent;
    group(parent, labelOf(segs.slice(0, -1), data));
    if (c.inFile) {
      for (let n = segs.length - 1; n >= 0; n--) {
        const g = groups.get(segs.slice(0, n).join('.'));
        if (g) g.inFile = true;
      }
    }
    controls.push(c);
  };
  const walk = (node: z.ZodType, segs: (string | number)[], value: unknown, rawValue: unknown) => {
    const s = unwrap(node);
    const d = defOf(s);
    if (d.type === 'object') {
      const shape = d.shape as Record<string, z.ZodType>;
      const keys = orderedKeys(Object.keys(shape), rawValue);
      if (segs.length > 0) group(segs.join('.'), labelOf(segs, data));
      for (const k of keys) {
        if (segs.length === 0 && (COMMON_KEYS.has(k) || k === 'system')) continue;
        walk(shape[k], [...segs, k], objField(value, k), objField(rawValue, k));
      }
    } else if (d.type === 'array') {
      if (!Array.isArray(value)) return;
      value.forEach((item, i) => walk(d.element as z.ZodType, [...segs, i], item, Array.isArray(rawValue) ? rawValue[i] : undefined));
    } else if (d.type === 'union' && !enumOptions(s)) {
      // A union of shapes (e.g. a roster block or a custom one): the option the value is.
      const option = (d.options as z.ZodType[]).find((o) => o.safeParse(value).success);
      if (option) walk(option, segs, value, rawValue);
    } else leaf(node, segs, value);
  };
  walk(schema, [], data, raw);
  // The top-level values first, then groups in the order their first control appears.
  const order = [...new Set(['', ...controls.map((c) => c.group)])].filter((g) => controls.some((c) => c.group === g));
  return { controls, groups: order.map((p) => groups.get(p)!) };
}

/** The file's keys first, in its order, then the schema's other keys. */
function orderedKeys(schemaKeys: string[], rawValue: unknown): string[] {
  const written = rawValue !== null && typeof rawValue === 'object' && !Array.isArray(rawValue) ? Object.keys(rawValue).filter((k) => schemaKeys.includes(k)) : [];
  return [...written, ...schemaKeys.filter((k) => !written.includes(k))];
}

function objField(o: unknown, k: string): unknown {
  return o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[k] : undefined;
}

/** A group's title: an array element by its name (a block, a shooter's weapon), else its key. */
function labelOf(segs: (string | number)[], data: unknown): string {
  if (segs.length === 0) return '';
  const last = segs[segs.length - 1];
  if (typeof last === 'number') {
    const el = valueAtPath(data, segs.join('.')) as Record<string, unknown> | undefined;
    const name = el && (el.block ?? el.name ?? el.weapon);
    const parent = String(segs[segs.length - 2]);
    return typeof name === 'string' ? `${parent} ${last + 1}: ${name}` : `${parent} ${last + 1}`;
  }
  return segs.join('.');
}

function finite(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isFinite(x) && Math.abs(x) < Number.MAX_SAFE_INTEGER ? x : undefined;
}

/** The options of an enum, or of a union of enums and literals (e.g. terrain "+", "0", "-" or 0). */
function enumOptions(s: z.ZodType): string[] | undefined {
  const d = defOf(s);
  if (d.type === 'enum') return Object.values(d.entries as Record<string, string>).map(String);
  if (d.type === 'literal') return (d.values as unknown[]).map(String);
  if (d.type === 'union') {
    const all: string[] = [];
    for (const o of d.options as z.ZodType[]) {
      const sub = enumOptions(unwrap(o));
      if (!sub) return undefined;
      for (const x of sub) if (!all.includes(x)) all.push(x);
    }
    return all;
  }
  return undefined;
}

const jsonCache = new WeakMap<z.ZodType, Record<string, unknown>>();
/** A leaf's JSON Schema (the public view of its bounds, type and description). */
function leafJson(node: z.ZodType): Record<string, unknown> {
  let j = jsonCache.get(node);
  if (!j) {
    j = z.toJSONSchema(node, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    jsonCache.set(node, j);
  }
  return j;
}

/** The name a tuned copy of a scenario runs under (its report folder): `<name>-tuned`. */
export function tunedName(name: string): string {
  return `${name.slice(0, 120 - TUNED_SUFFIX.length)}${TUNED_SUFFIX}`;
}
const TUNED_SUFFIX = '-tuned';

/**
 * The tuned scenario as YAML: the original text with each tuned value written in place (in the
 * chosen variant's `set` when that variant sets the path, else in the scenario's own keys), so
 * comments, key order and flow style are kept. With any value changed, the copy is a scenario of
 * its own: `name` becomes `<name>-tuned` (its report goes to its own folder, never over the
 * original's; the name does not feed the dice) and the description gets a line saying what it was
 * tuned from and which values changed. Running the result with `siegesim run` gives the
 * workbench's tuned case as the chosen variant of case 1 (when the file has no sweep).
 */
export function tunedYaml(
  text: string,
  v: ValidScenario,
  o: LiveOptions = {},
): { ok: true; yaml: string; name: string; gains?: Record<string, number>; stale?: StaleExpectItem[] } | { ok: false; issues: ValueIssue[] } {
  const live = liveScenario(v, o);
  if (!live.ok) return live;
  const chosen = chosenVariant(v, o.variant) as { index: number; set: Record<string, unknown> };
  const doc = parseDocument(text);
  const edits: { path: DocPath; value: unknown }[] = Object.entries(live.changed).map(([p, value]) => ({
    path: Object.prototype.hasOwnProperty.call(chosen.set, p) ? ['variants', chosen.index, 'set', p] : docPath(doc, splitPath(p)),
    value,
  }));
  if (edits.length === 0) return { ok: true, yaml: text, name: v.name };
  // the file's sweep gains the case's swept values, so that the copy runs the case on screen
  const saved = live.sweep;
  const gained = Object.entries(saved?.added ?? {});
  for (const [p] of gained) edits.push({ path: ['sweep', p], value: saved!.sweep[p] });
  const name = tunedName(v.name);
  const file = v.file.split(/[\\/]/).pop() ?? v.file;
  const values = Object.entries(live.changed).map(([p, x]) => `${p} ${showValue(live.was[p])} -> ${showValue(x)}`);
  const variant = chosen.index > 0 ? ` (variant ${v.variantNames[chosen.index]})` : '';
  const swept = gained.length > 0 ? ` Its sweep gains ${gained.map(([p, x]) => `${p} ${x}`).join(', ')} (the case tuned).` : '';
  const line = `Tuned in the workbench from ${v.name} (${file})${variant}: ${values.join(', ')}.${swept}`;
  const edited = appendYamlLine(editYamlValues(text, [...edits, { path: ['name'], value: name }]), ['description'], line);
  const { yaml, stale } = withoutStaleExpect(file, edited);
  return { ok: true, yaml, name, ...(gained.length > 0 ? { gains: Object.fromEntries(gained) } : {}), ...(stale.length > 0 ? { stale } : {}) };
}

/**
 * An `expect:` item of a tuned copy that the tuned case no longer matches (ScenarioIssue.stale:
 * a metric the tuned game does not produce, such as `p_breach` once `mode` is `open_field`).
 */
export interface StaleExpectItem {
  /** Its index in the file's `expect:` list. */
  index: number;
  metric: string;
  /** Why it no longer matches, in validate's words. */
  message: string;
  /** Turned into a comment in the copy (false: written as it was, when that could not be done in place). */
  commented: boolean;
}

/**
 * The tuned copy with its stale `expect:` items as comments, each under a line saying why: the
 * copy is then a scenario every command takes (`siegesim validate` and `test` refuse a stale item,
 * the commands that run skip it with a warning), and the designer's bounds are kept, to edit back
 * in once they match. A copy the comments cannot be written into (a flow `expect: [...]`) is
 * returned as it was, its items listed with `commented: false`.
 */
function withoutStaleExpect(file: string, yaml: string): { yaml: string; stale: StaleExpectItem[] } {
  const checked = validateText(file, yaml, { staleExpect: 'warn' });
  const issues = checked.ok ? (checked.value.staleExpect ?? []) : [];
  if (issues.length === 0) return { yaml, stale: [] };
  const why = new Map<number, string>();
  for (const i of issues) {
    const m = /^expect\[(\d+)\]/.exec(i.path);
    if (m && !why.has(Number(m[1]))) why.set(Number(m[1]), i.message);
  }
  const items = (parseDocument(yaml).toJS() as { expect?: { metric?: unknown }[] }).expect ?? [];
  const list = (commented: boolean): StaleExpectItem[] =>
    [...why].map(([index, message]) => ({ index, metric: String(items[index]?.metric ?? ''), message, commented }));
  const out = commentOutItems(yaml, ['expect'], [...why.keys()], (i) => `no longer matches the tuned case (siegesim test would refuse it): ${why.get(i)}`);
  if (out !== undefined && validateText(file, out).ok) return { yaml: out, stale: list(true) };
  return { yaml, stale: list(false) };
}

/** A value in the tuned file's description: as written, or "default" when the system derives it. */
function showValue(x: unknown): string {
  return x === undefined ? 'default' : typeof x === 'string' ? x : JSON.stringify(x);
}

/** A dotted path as document segments: a segment under a sequence is an index. */
function docPath(doc: Document, segs: string[]): DocPath {
  const path: DocPath = [];
  let node: unknown = doc.contents;
  for (const seg of segs) {
    const key = isSeq(node) && /^\d+$/.test(seg) ? Number(seg) : seg;
    path.push(key);
    node = isMap(node) || isSeq(node) ? (node as { get(k: unknown, keepScalar?: boolean): unknown }).get(key, true) : undefined;
  }
  return path;
}
