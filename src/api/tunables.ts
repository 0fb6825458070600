/**
 * What `sensitivity` and `tune` can turn: the scenario's tunable settings, found by walking its
 * schema alongside the loaded case (so list elements present in the file are reached too, e.g.
 * `blocks.2.steps`), each with its kind, loaded value and schema bounds; the case they start
 * from (the baseline variant at the first sweep point, `where` set on top of it); and
 * evaluating many settings of that case on the same dice (common random numbers). Touches no
 * files, prints nothing.
 */
import type * as z from 'zod';
import { validateCase, valueAtPath, type ValidScenario } from '../scenario/validate.js';
import { COMMON_KEYS, scenarioSchemaOf, unwrap } from '../scenario/schema.js';
import { suggest } from '../text/suggest.js';
import { MSG } from '../scenario/messages.js';
import type { CaseSummary, RulesSystem } from '../systems/types.js';
import { runGroups, type GroupJob } from '../engine/run.js';
import type { Executor } from '../engine/executor.js';
import { pointStream, splitResult } from './run.js';
import { inlineExecutor } from './executors.js';

/** A user-facing problem with a sensitivity or tune request (the CLI prints it and exits 2). */
export class TuningInputError extends Error {}

/** What both verbs take beside their own options. */
export interface CaseOptions {
  /** Trials per case (default: the scenario's). */
  trials?: number;
  seed?: string | number;
  /** Dotted settings set on the case (the baseline variant at the first sweep point; a swept setting not named keeps that point's value). */
  where?: Record<string, unknown>;
  /** Where chunks run (default: in this thread). */
  executor?: Executor;
  /** Aborting rejects the run (engine CancelledError). */
  signal?: AbortSignal;
}

export type TunableKind = 'int' | 'number' | 'enum' | 'boolean';

/** One setting that can be turned. */
export interface Tunable {
  /** Dotted path, as `--params`, variants' `set` and sweeps spell it: `wall.hp`, `blocks.2.steps`. */
  path: string;
  kind: TunableKind;
  /**
   * The value in the case: as loaded (defaults filled), or for an optional setting the file
   * leaves out, the value the rules apply to it (`effectiveValues`, e.g. a palisade's 15 HP, with
   * `derived` set); undefined only when the case does not use the setting at all.
   */
  value: number | string | boolean | undefined;
  /** The value is not written but derived by the rules from other keys (see `effectiveValues`). */
  derived?: boolean;
  /** Schema bounds of a number (±Infinity when open). */
  min?: number;
  max?: number;
  /** The alternatives of an enum or a boolean, in schema order. */
  options?: (string | number | boolean)[];
}

type Def = Record<string, unknown> & { type: string };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/**
 * Every tunable setting of a case: numbers (with their bounds), enums and booleans reachable
 * from the system's schema, in schema order; list and record entries as far as the case has
 * them. The common keys (name, seed, trials, variants, sweep) are not settings.
 */
export function tunablesOf(system: RulesSystem, scenario: Record<string, unknown>): Tunable[] {
  const out: Tunable[] = [];
  const shape = defOf(scenarioSchemaOf(system)).shape as Record<string, z.ZodType>;
  for (const key of Object.keys(shape)) {
    if (COMMON_KEYS.has(key)) continue;
    walk(shape[key], scenario[key], [key], out);
  }
  const effective = effectiveValues(system, scenario);
  for (const t of out) {
    if (t.value === undefined && typeof effective[t.path] === 'number') {
      t.value = effective[t.path];
      t.derived = true;
    }
  }
  return out;
}

/**
 * The values the rules apply to the optional settings a validated case leaves out (dotted path
 * -> value, e.g. `wall.hp` -> 15 for a palisade, a Crusader Rex block's steps its full
 * strength), by the system's `autoValues`; {} for a system without one or a case that does not
 * compile. The one place the value such a setting starts from comes from: solve's range,
 * sensitivity's steps, tune's ranges and the workbench's controls all read it.
 */
export function effectiveValues(system: RulesSystem, scenario: Record<string, unknown>): Record<string, number | string | boolean> {
  try {
    return system.autoValues?.(scenario) ?? {};
  } catch {
    return {}; // a case the schema passes but another key rules out: nothing derived to show
  }
}

/** A number schema's kind and bounds (±Infinity when open). */
export function numberBounds(schema: z.ZodType): { kind: 'int' | 'number'; min: number; max: number } {
  const n = unwrap(schema) as unknown as { minValue: number | null; maxValue: number | null; isInt: boolean };
  return { kind: n.isInt ? 'int' : 'number', min: n.minValue ?? -Infinity, max: n.maxValue ?? Infinity };
}

function walk(schema: z.ZodType, value: unknown, path: string[], out: Tunable[]): void {
  const s = unwrap(schema);
  const def = defOf(s);
  switch (def.type) {
    case 'object': {
      // an optional section the case does not have (a melee's defender in a battering question)
      if (value === null || typeof value !== 'object') return;
      const shape = def.shape as Record<string, z.ZodType>;
      for (const k of Object.keys(shape)) walk(shape[k], (value as Record<string, unknown>)[k], [...path, k], out);
      return;
    }
    case 'array':
      if (Array.isArray(value)) value.forEach((x, i) => walk(def.element as z.ZodType, x, [...path, String(i)], out));
      return;
    case 'tuple':
      if (Array.isArray(value)) (def.items as z.ZodType[]).forEach((item, i) => walk(item, value[i], [...path, String(i)], out));
      return;
    case 'record':
      if (value && typeof value === 'object') for (const k of Object.keys(value)) walk(def.valueType as z.ZodType, (value as Record<string, unknown>)[k], [...path, k], out);
      return;
    case 'union': {
      // the alternative the loaded value is written in (a roster block or a custom one)
      if (value === undefined) return;
      const opt = (def.options as z.ZodType[]).find((o) => o.safeParse(value).success);
      if (opt) walk(opt, value, path, out);
      return;
    }
    case 'number': {
      const n = numberBounds(s);
      out.push({ path: path.join('.'), kind: n.kind, value: typeof value === 'number' ? value : undefined, min: n.min, max: n.max });
      return;
    }
    case 'enum':
      out.push({ path: path.join('.'), kind: 'enum', value: value as string | undefined, options: Object.values(def.entries as Record<string, string | number>) });
      return;
    case 'boolean':
      out.push({ path: path.join('.'), kind: 'boolean', value: value as boolean | undefined, options: [false, true] });
      return;
    default:
      return; // strings, literals: names and labels, not numbers to turn
  }
}

/** The case both verbs work on, and its tunable settings. */
export interface BaseCase {
  /**
   * Dotted settings applied on top of the scenario as written (and its baseline variant): the
   * first sweep point's swept values, then `--where`'s (every swept setting is in it).
   */
  where: Record<string, unknown>;
  scenario: Record<string, unknown>;
  tunables: Tunable[];
  /** Said to the user: which case this is when the scenario has a sweep or variants. */
  note?: string;
  /**
   * The dice the case rolls: the stream `run` gives the sweep point whose swept values the case
   * has (`point-i`, see jobsOf), so the loaded settings come out exactly as `run` reports them;
   * `point-0` (a file without a sweep) when the case is at none of the file's sweep points.
   */
  stream: string;
}

/** What both verbs' results start with: the scenario, its system, file, seed and trials. */
export function resultHead(v: ValidScenario, seed: string | number, trials: number): { name: string; system: string; file: string; seed: string | number; trials: number } {
  return { name: v.name, system: v.system.id, file: v.file, seed, trials };
}

/**
 * The case both verbs work on: the baseline variant at the first sweep point, with `where`
 * (dotted path -> value, any setting) set on top of it. A swept setting `where` leaves out keeps
 * the first sweep point's value, as without `where` (one rule: `--where wall.hp=10` on a sweep
 * of wall.hp x wall.dc is the point hp 10, dc 6, never the file's own dc), and the note names
 * it with its value. Throws TuningInputError when `where` names no setting or makes the case
 * invalid. `searched`: settings the verb searches itself (tune's): the note names only the
 * others, since a searched setting's value there is where the search starts, not where its
 * answer holds.
 */
export function baseCaseOf(v: ValidScenario, where?: Record<string, unknown>, searched: readonly string[] = []): BaseCase {
  const first: Record<string, unknown> = { ...(v.points[0]?.params ?? {}) };
  if (where) {
    const all = tunablesOf(v.system, v.points[0]?.variants[0]?.scenario ?? {});
    for (const p of Object.keys(where)) if (!all.some((t) => t.path === p)) throw new TuningInputError(unknownSetting(p, all, v.system));
  }
  const w = { ...first, ...(where ?? {}) };
  const c = validateCase(v, w);
  if (!c.ok) throw new TuningInputError(`the case ${showSettings(w)} is not valid: ${c.messages.join('; ')}`);
  const parts: string[] = [];
  if (v.variantNames.length > 1) parts.push(`on the baseline variant (${v.variantNames[0]})`);
  // every setting the case holds at is said, the swept ones --where leaves out with where they come from
  const held = Object.fromEntries(Object.entries(w).filter(([p]) => !searched.includes(p)));
  const heldAny = Object.keys(held).length > 0;
  const fromFirst = Object.keys(held).filter((p) => Object.hasOwn(first, p) && !(where && Object.hasOwn(where, p)));
  if (where && heldAny) {
    const whence = fromFirst.length === 0 ? '' : fromFirst.length === Object.keys(held).length ? ' (as at the first sweep point)' : ` (${fromFirst.join(', ')} as at the first sweep point)`;
    parts.push(`at ${showSettings(held)}${whence}`);
  } else if (!where && v.params.length > 0 && heldAny)
    parts.push(searched.length > 0 ? `with ${showSettings(held)} as at the first sweep point (--where picks another)` : `at the first sweep point (${showSettings(held)}; --where picks another)`);
  // settings that are all of what another variant sets: the case is that variant's (the line the workbench prints for it)
  const as = where ? v.variantNames.map((name, i) => ({ name, set: variantSet(v, i) })).filter((x, i) => i > 0 && Object.keys(x.set).length > 0 && Object.entries(x.set).every(([p, val]) => Object.hasOwn(where, p) && String(where[p]) === String(val))) : [];
  if (as.length > 0) parts.push(`(${as.map((x) => `variant "${x.name}"'s case: it sets ${showSettings(x.set)}`).join('; ')})`);
  return { where: w, scenario: c.scenario, tunables: tunablesOf(v.system, c.scenario), note: parts.length > 0 ? `working ${parts.join(' ')}` : undefined, stream: streamOfCase(v, c.scenario) };
}

/** A variant's `set` as written (the baseline's is kept on the scenario). */
export function variantSet(v: ValidScenario, index: number): Record<string, unknown> {
  if (index === 0) return v.baselineSet;
  const written = v.raw.variants as { set?: Record<string, unknown> }[] | undefined;
  return written?.[index]?.set ?? {};
}

/**
 * The stream `run` rolls for the sweep point a case is at (point-0 when it is at none of them). A
 * swept setting the case leaves out is at the value the rules give it (`effectiveValues`): solve
 * over climbers-dc's own sweep axis, wall.dc, works on the file without its sweep, whose stone
 * wall has DC 12, so it is at the point wall.dc = 12 (point-1), as the workbench places it
 * (`savedSweep`); matched on written values only it was at none and rolled point-0, so the
 * value at the file's own setting was not `run`'s and the page's answer not `solve`'s.
 */
export function streamOfCase(v: ValidScenario, scenario: Record<string, unknown>): string {
  if (v.dice !== undefined && v.points.length === 1) return v.dice;
  let auto: Record<string, unknown> | undefined;
  const at = (p: string) => valueAtPath(scenario, p) ?? (auto ??= effectiveValues(v.system, scenario))[p];
  const i = v.points.findIndex((pt) => Object.entries(pt.params).every(([p, x]) => at(p) === x));
  return pointStream(Math.max(0, i));
}

/** `a=1, b=x` */
export function showSettings(s: Record<string, unknown>): string {
  return Object.entries(s)
    .map(([k, x]) => `${k}=${String(x)}`)
    .join(', ');
}

/** The message for a path that is not a tunable setting, with a "did you mean". */
export function unknownSetting(p: string, all: Tunable[], system: RulesSystem): string {
  // a group's path names every setting under it (`wall`), so groups are candidates too
  const groups = all.flatMap((t) => t.path.split('.').slice(0, -1).map((_, i, segs) => segs.slice(0, i + 1).join('.')));
  const guess = suggest(p, new Set([...all.map((t) => t.path), ...groups]));
  return `"${p}" is not a tunable setting of this ${system.id} scenario${guess ? ` (did you mean "${guess}"?)` : ''}`;
}

/**
 * Select tunables by the names given: a setting's path, or an object's path for every setting
 * under it (`attacker` = every attacker count). Throws TuningInputError for a name that
 * matches nothing.
 */
export function selectTunables(all: Tunable[], names: string[] | undefined, system: RulesSystem): Tunable[] {
  if (!names || names.length === 0) return all;
  const picked = new Set<Tunable>();
  for (const name of names) {
    const hits = all.filter((t) => t.path === name || t.path.startsWith(name + '.'));
    if (hits.length === 0) throw new TuningInputError(unknownSetting(name, all, system));
    for (const h of hits) picked.add(h);
  }
  return all.filter((t) => picked.has(t));
}

/** A case's own metrics, in the system's order: a summary of an empty accumulator lists them. */
export function producedMetrics(system: RulesSystem, compiled: unknown): CaseSummary {
  return system.summarize(compiled, new Float64Array(system.kernel.accLength(compiled)));
}

/**
 * Why a metric name is not one this case has (undefined when it is): an unknown name gets a
 * "did you mean" or the list of the case's own metrics, never another mode's or system's.
 */
export function metricProblem(produced: CaseSummary, metric: string): string | undefined {
  // own keys only: `constructor`, `toString`, `__proto__` are read off every object
  if (Object.hasOwn(produced.metrics, metric)) return undefined;
  const own = Object.keys(produced.metrics);
  return MSG.unknownMetric(metric, suggest(metric, own), own);
}

/**
 * A bound given for a metric, checked against the metric's range: a probability's bound must
 * lie in [0, 1] (`what` names the bound in the message, e.g. `--target 1.5`).
 */
export function boundProblem(produced: CaseSummary, metric: string, what: string, bounds: number[]): string | undefined {
  if (!Object.hasOwn(produced.metrics, metric) || produced.metrics[metric].kind !== 'probability') return undefined;
  return bounds.every((b) => b >= 0 && b <= 1) ? undefined : MSG.outsideProbability(what, metric);
}

/** The metric both verbs judge by: `metric` if given (checked), else the first headline metric the case produces (the scenario's `headline:` when it has one, else the system's). */
export function metricOf(system: RulesSystem, produced: CaseSummary, metric?: string, headline?: readonly string[]): string {
  if (metric !== undefined) {
    const problem = metricProblem(produced, metric);
    if (problem) throw new TuningInputError(problem);
    return metric;
  }
  const h = (headline ?? system.headline).find((m) => Object.hasOwn(produced.metrics, m)) ?? Object.keys(produced.metrics)[0];
  if (!h) throw new TuningInputError(`this scenario produces no metric`);
  return h;
}

/**
 * What is wrong with an integer range `lo..hi` for a setting allowing `min..max`: `order` (not
 * integers with lo < hi), `bounds` (outside min..max), or undefined when it fits. The one test
 * of a searched range: solve's `--from`/`--to` (or its default) and tune's `--range`, each
 * saying it in its own flags' words.
 */
export function rangeFault(lo: number, hi: number, min: number, max: number): 'order' | 'bounds' | undefined {
  if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo >= hi) return 'order';
  if (lo < min || hi > max) return 'bounds';
  return undefined;
}

/**
 * The resolution a decimal setting is searched at over `lo..hi`: 0.01 for a span of 1 or less
 * (a chance or a share in [0, 1]), else 0.1, or 0.5 once a hundredth of the span is above 0.5.
 * The workbench's sliders step decimals by this rule (`sliderOf`, sent with each control); solve's
 * default `step` for a decimal setting is this over the range it searches.
 */
export function decimalResolution(lo: number, hi: number): number {
  if (hi - lo <= 1) return 0.01;
  return (hi - lo) / 100 > 0.5 ? 0.5 : 0.1;
}

/** A workbench slider: its ends and its step. */
export interface Slider {
  lo: number;
  hi: number;
  step: number;
}

/**
 * The workbench's slider of a number setting: the schema's bounds when they span 60 or less (a
 * chance in [0, 1] too), else a window of twice the loaded value (at least 10) around it, inside
 * the bounds (whole ends for an integer setting); it steps by 1 for an integer setting and by
 * `decimalResolution` of its ends for a decimal one, so a slider's values are the values solve
 * tries over the same range. `at` is the loaded value (the schema's lowest, else 0, when none).
 */
export function sliderOf(kind: 'int' | 'number', min: number | undefined, max: number | undefined, at: number | undefined): Slider {
  const v = at ?? min ?? 0;
  const lowest = min ?? -Infinity;
  const highest = max ?? Infinity;
  let lo = lowest;
  let hi = highest;
  if (!(hi - lo <= 60)) {
    const span = Math.max(10, Math.abs(v) * 2);
    lo = Math.max(lowest, v - span / 2);
    hi = Math.min(highest, lo + span);
    lo = Math.max(lowest, hi - span);
    if (kind === 'int') [lo, hi] = [Math.floor(lo), Math.ceil(hi)];
  }
  return { lo, hi, step: kind === 'int' ? 1 : decimalResolution(lo, hi) };
}

/** Round a stepped decimal to 12 significant digits (0.1 + 0.2 is written 0.3). */
export function tidy(x: number): number {
  return Number(x.toPrecision(12));
}

/**
 * Validate and compile the base case with extra settings. Returns the compiled case, or the
 * reasons it is not a valid case (a value another key rules out). An element of a list of
 * values (`rules.vikings_shortbow_long.0`) is set by setting the whole list, which the file may
 * leave to its default.
 */
export function compileSetting(
  v: ValidScenario,
  base: BaseCase,
  settings: Record<string, unknown>,
): { ok: true; compiled: unknown } | { ok: false; reason: string } {
  const resolved: Record<string, unknown> = {};
  for (const [p, x] of Object.entries(settings)) {
    const i = p.lastIndexOf('.');
    const parentPath = p.slice(0, Math.max(0, i));
    const parent = i > 0 ? (resolved[parentPath] ?? valueAtPath(base.scenario, parentPath)) : undefined;
    if (Array.isArray(parent) && /^\d+$/.test(p.slice(i + 1))) {
      const list = [...parent];
      list[Number(p.slice(i + 1))] = x;
      resolved[parentPath] = list;
    } else resolved[p] = x;
  }
  const c = validateCase(v, { ...base.where, ...resolved });
  if (!c.ok) return { ok: false, reason: c.messages.join('; ') };
  const extra = v.system.refine?.(c.scenario) ?? [];
  if (extra.length > 0) return { ok: false, reason: extra.map((e) => `${e.path.join('.')}: ${e.message}`).join('; ') };
  return { ok: true, compiled: v.system.compile(c.scenario) };
}

export interface RunCasesOptions {
  seed: string | number;
  trials: number;
  /** Stream key: every case run under one key rolls the same dice (common random numbers). */
  stream: string;
  executor: Executor;
  signal?: AbortSignal;
  onProgress?: (done: number, planned: number) => void;
}

/** A group of compiled cases played together, and the accumulator slots to pair (per case). */
export interface CaseGroup {
  compiled: unknown[];
  /** pairedSlots[v][p]: slot of paired quantity p in case v's accumulator (every case the same count). */
  pairedSlots: number[][];
}

/**
 * Run groups of compiled cases on one stream: each group is one job whose cases are played
 * trial by trial on the same dice (paired differences against the group's first case), and
 * every group rolls the same dice as every other, so a case's numbers do not depend on how the
 * cases are grouped. Returns each group's accumulators (one per case) and its paired sums.
 */
export async function runCases(
  system: RulesSystem,
  groups: CaseGroup[],
  o: RunCasesOptions,
): Promise<{ accs: Float64Array[]; pairs: Float64Array; trials: number }[]> {
  const jobs: GroupJob[] = groups.map((g) => ({
    stream: o.stream,
    system: system.id,
    compiled: g.compiled,
    accLengths: g.compiled.map((c) => system.kernel.accLength(c)),
    pairedSlots: g.pairedSlots,
  }));
  const outs = await runGroups(jobs, { seed: o.seed, trials: o.trials, chunkTrials: system.chunkTrials, signal: o.signal, onProgress: o.onProgress, inline: o.executor.inline ?? inlineExecutor() }, o.executor);
  return outs.map((out, g) => ({ ...splitResult(jobs[g], out.merged), trials: out.trials }));
}

/** Parse `a=1,b=x` style settings (numbers, true/false, otherwise strings). */
export function parseSettings(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) throw new TuningInputError(`"${part}" is not path=value`);
    const key = part.slice(0, i).trim();
    const raw = part.slice(i + 1).trim();
    const value = raw === 'true' ? true : raw === 'false' ? false : raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    // an own key whatever its name: `__proto__=1` assigned would set the prototype and vanish
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
