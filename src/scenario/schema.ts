/**
 * The scenario format common to every system, and the full schema of one system's scenario:
 * the common keys plus the system's own. The JSON Schema that editors use is generated from
 * these same definitions (`siegesim schema`).
 */
import * as z from 'zod';
import type { RulesSystem } from '../systems/types.js';
import { MSG, shortKey } from './messages.js';
import { suggest } from '../text/suggest.js';
import { becauseOf } from '../text/because.js';

/** A value as the user wrote it in YAML (`.nan`, `1.5`, `the text "10"`, `a list`), for messages. */
function shown(x: unknown): string {
  if (typeof x === 'number') return Number.isNaN(x) ? '.nan' : x === Infinity ? '.inf' : x === -Infinity ? '-.inf' : String(x);
  if (typeof x === 'string') return `the text ${shortKey(JSON.stringify(x))}`;
  if (x === null) return 'an empty value';
  if (Array.isArray(x)) return 'a list';
  if (typeof x === 'object') return 'a mapping';
  return String(x);
}

/** What a value of zod's expected type is called in a scenario file. */
const KINDS: Record<string, string> = { int: 'a whole number', number: 'a number', boolean: 'true or false', string: 'text', array: 'a list', tuple: 'a list', object: 'a mapping', record: 'a mapping' };

/**
 * zod's messages where they do not speak a designer's language (`expected int, received number`),
 * and a "did you mean" for a misspelt option; every other issue keeps zod's words (undefined).
 */
export function issueMessage(iss: z.core.$ZodRawIssue): string | undefined {
  const x = iss.input;
  if (iss.code === 'invalid_type' && x !== undefined && KINDS[iss.expected] !== undefined) {
    // z.int() reports NaN and a string as "expected number": it is still a whole number it wants
    const on = (iss.inst ?? (iss as { schema?: unknown }).schema) as { _zod?: { def?: { format?: string } } } | undefined;
    const want = iss.expected === 'number' && on?._zod?.def?.format === 'safeint' ? KINDS.int : KINDS[iss.expected];
    if (typeof x === 'number' && Number.isFinite(x) && want === KINDS.int) return MSG.notWholeNumber(shown(x));
    const quoted = typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x)) && (want === KINDS.int || want === KINDS.number);
    return MSG.wrongKind(want, shown(x), quoted);
  }
  if (iss.code === 'too_big' && iss.origin === 'int' && iss.maximum === Number.MAX_SAFE_INTEGER) return MSG.unsafeInteger(String(x));
  // zod's "Too small: expected number to be >=0" said as a limit and what was written
  if (iss.code === 'too_small' || iss.code === 'too_big') {
    const small = iss.code === 'too_small';
    const bound = Number(small ? iss.minimum : iss.maximum);
    const inclusive = iss.inclusive !== false;
    if (iss.origin === 'number' || iss.origin === 'int') return small ? MSG.tooSmall(bound, shown(x), inclusive) : MSG.tooBig(bound, shown(x), inclusive, becauseOf(iss.inst));
    if (iss.origin === 'array' && Array.isArray(x)) return small ? MSG.tooFewEntries(bound, x.length) : MSG.tooManyEntries(bound, x.length);
    if (iss.origin === 'string' && typeof x === 'string') return small ? MSG.tooShortText(bound) : MSG.tooLongText(bound, x.length);
  }
  if (iss.code === 'invalid_value' && x !== undefined) {
    const values = iss.values.filter((v): v is string => typeof v === 'string');
    // a number, true/false, an empty value, a list or a mapping where a name is wanted: said as written
    if (values.length > 0) return typeof x === 'string' ? MSG.badOption(shortKey(JSON.stringify(x)), suggest(x, values), values) : MSG.badOption(shown(x), undefined, values);
  }
  return undefined;
}
z.config({ customError: issueMessage });

const sweepValue = z.union([z.number(), z.string(), z.boolean()]);
export const SweepRange = z
  .strictObject({
    from: z.number(),
    to: z.number(),
    step: z.number().positive(),
  })
  .describe('an inclusive numeric range: from, from+step, ..., up to to');

/** Keys every scenario has, whatever its system. */
export const COMMON_SHAPE = {
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must start with a letter or a digit, then hold only letters, digits, ".", "_" and "-" (it names the report folder)')
    // the folder of reports holds the index beside the report folders (report/write.ts writeIndex:
    // index.html, and .siegesim-report.json, which the rule above already refuses); a report folder
    // of that name would take the index's place. Any case: macOS and Windows fold it.
    .regex(/^(?![Ii][Nn][Dd][Ee][Xx]\.[Hh][Tt][Mm][Ll]$)/, 'must not be "index.html": the folder of reports holds its index under that name, beside the report folders')
    .max(120)
    .describe('scenario name; the report folder is reports/<name>/'),
  description: z.string().optional().describe('free text shown in the report'),
  seed: z
    .union([z.string().min(1), z.int()], { error: 'a seed is a string of at least one character, or an integer' })
    .describe('the random seed (string or integer): same seed + trials = byte-identical results'),
  trials: z.int().min(1).max(10_000_000_000).describe('trials per case (each variant of each sweep point)'),
  variants: z
    .array(
      z.strictObject({
        name: z.string().min(1).regex(/^[^,\n"]+$/, 'no commas, quotes or newlines in a variant name'),
        description: z.string().optional(),
        set: z
          .record(z.string(), z.unknown())
          .optional()
          .describe("dotted path -> value, e.g. { rules.comparison: le }; re-validated after applying; a mapping value replaces the whole mapping (keys it leaves out take the system's defaults, not the file's)"),
      }),
    )
    .min(1)
    .optional()
    .describe('readings to compare; the first is the baseline; all share dice (common random numbers)'),
  sweep: z
    .record(z.string(), z.union([z.array(sweepValue).min(1), SweepRange]))
    .optional()
    .describe('dotted path -> list of values or {from,to,step}; every combination is a case'),
  expect: z
    .array(
      z
        .strictObject({
          metric: z
            .string()
            .min(1)
            .describe('a summary metric (p_attacker_wins), or diff_<metric>: a variant minus the baseline on the same dice'),
          between: z.tuple([z.number(), z.number()]).optional().describe('[low, high]: the metric lies in this range (inclusive)'),
          at_least: z.number().optional().describe('the metric is at least this'),
          at_most: z.number().optional().describe('the metric is at most this'),
          exact: z
            // zod's "Invalid input: expected true" said in a designer's words
            .literal(true, { error: (iss) => MSG.exactOnlyTrue(shown(iss.input), iss.input === 'true') })
            .optional().describe("the metric agrees with the system's exact solver"),
          variant: z.string().min(1).optional().describe('only this variant (default: every variant the metric exists for)'),
          where: z
            .record(z.string(), z.union([sweepValue, z.array(sweepValue).min(1)]))
            .optional()
            .describe('swept path -> value (or list of values): the sweep points this applies to (default: all)'),
        })
        .describe('one balance assertion; exactly one of between, at_least, at_most, exact'),
    )
    .min(1)
    .optional()
    .describe('balance assertions checked by `siegesim test` (pass, FAIL or inconclusive on a 99.9% interval)'),
  headline: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1, 'list at least one metric')], {
      // a list with a wrong item: that item's own problem, at its place (validate.ts reports the closest alternative)
      error: (iss) => (Array.isArray(iss.input) ? undefined : 'a metric name, or a list of metric names'),
    })
    .optional()
    .describe("the metrics this scenario's answer leads with, in this order (the Answer of run, merge, the report page, the index and the workbench; a sweep's 'where it reaches 0.5' is about the first when it is a probability)"),
} as const;

/** Top-level keys that belong to the format, not to a system (cannot be varied or swept). */
export const COMMON_KEYS = new Set<string>(['name', 'system', ...Object.keys(COMMON_SHAPE)]);

const fullCache = new WeakMap<RulesSystem, z.ZodObject>();

/** The strict schema of a whole scenario of one system. */
export function scenarioSchemaOf(system: RulesSystem): z.ZodObject {
  let s = fullCache.get(system);
  if (!s) {
    s = z.strictObject({
      name: COMMON_SHAPE.name,
      system: z.literal(system.id).describe(system.title),
      description: COMMON_SHAPE.description,
      seed: COMMON_SHAPE.seed,
      trials: COMMON_SHAPE.trials,
      ...system.shape,
      variants: COMMON_SHAPE.variants,
      sweep: COMMON_SHAPE.sweep,
      expect: COMMON_SHAPE.expect,
      headline: COMMON_SHAPE.headline,
    });
    fullCache.set(system, s);
  }
  return s;
}

/** The JSON Schema for scenario files of every implemented system. */
export function jsonSchemaOf(systems: readonly RulesSystem[]): Record<string, unknown> {
  const union = systems.length === 1 ? scenarioSchemaOf(systems[0]) : z.union(systems.map(scenarioSchemaOf));
  const schema = z.toJSONSchema(union, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://siegesim.dev/scenario.schema.json',
    title: 'siegesim scenario',
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema')),
  };
}

/** Unwrap optional/default/nullable/pipe wrappers to the schema underneath. */
export function unwrap(s: z.ZodType): z.ZodType {
  let cur: z.ZodType = s;
  for (let guard = 0; guard < 32; guard++) {
    const def = (cur as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
    const t = def.type as string;
    if (t === 'optional' || t === 'default' || t === 'nullable' || t === 'prefault' || t === 'readonly') {
      cur = def.innerType as z.ZodType;
    } else if (t === 'pipe') {
      cur = def.in as z.ZodType;
    } else return cur;
  }
  return cur;
}

/** The object keys allowed at a path of a schema, or undefined when the path is not an object. */
export function keysAt(schema: z.ZodType, path: readonly (string | number)[]): string[] | undefined {
  const s = schemaAt(schema, path);
  if (!s) return undefined;
  const def = (s as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  if (def.type === 'object') return Object.keys(def.shape as Record<string, unknown>);
  return undefined;
}

/** The sub-schema at a path (object keys and array indices), or undefined if there is none. */
export function schemaAt(schema: z.ZodType, path: readonly (string | number)[]): z.ZodType | undefined {
  let cur: z.ZodType | undefined = unwrap(schema);
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (!cur) return undefined;
    const def = (cur as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
    if (def.type === 'union') {
      // e.g. a Crusader Rex block (roster or custom): the first shape that has the rest of the path
      for (const o of def.options as z.ZodType[]) {
        const found = schemaAt(o, path.slice(i));
        if (found) return found;
      }
      return undefined;
    }
    if (def.type === 'object' && typeof seg === 'string') {
      const shape = def.shape as Record<string, z.ZodType>;
      cur = Object.prototype.hasOwnProperty.call(shape, seg) ? unwrap(shape[seg]) : undefined;
    } else if (def.type === 'array') {
      if (!/^\d+$/.test(String(seg))) return undefined;
      cur = unwrap(def.element as z.ZodType);
    } else if (def.type === 'record') {
      cur = unwrap(def.valueType as z.ZodType);
    } else return undefined;
  }
  return cur;
}
