/**
 * The rule behind a schema's limit, for its message: `z.int().max(4, because('a block has at
 * most 4 steps'))`. A system's schema states the rule; the scenario layer's zod messages
 * (scenario/schema.ts, `issueMessage`) read it from the check and say it beside the limit:
 * `must be at most 4 (a block has at most 4 steps), got 5`.
 */
import type * as z from 'zod';

/** A check's parameters carrying the rule behind its limit (zod keeps them on the check's definition). */
export type Because = z.core.$ZodCheckLessThanParams & { because: string };

export function because(why: string): Because {
  return { because: why };
}

/** The rule a check carries (`because`), if any. */
export function becauseOf(check: unknown): string | undefined {
  const why = (check as { _zod?: { def?: { because?: unknown } } } | undefined)?._zod?.def?.because;
  return typeof why === 'string' ? why : undefined;
}
