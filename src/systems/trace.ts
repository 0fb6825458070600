/**
 * A kernel's per-trial record of its paired slots (the `Trace` of the Kernel contract,
 * systems/types.ts): what the engine differences to pair variants run over the same trials.
 */
import type { Trace } from './types.js';

/**
 * Trial t's row of `trace` (t counted from the start of the kernel call): each traced slot's
 * running value in `acc`. A kernel that keeps sums in locals adds them to `acc` first.
 * @example writeTrace(trace, i, acc) // at the end of trial i, every path through it
 */
export function writeTrace(trace: Trace, t: number, acc: Float64Array): void {
  const slots = trace.slots;
  const out = trace.out;
  const n = slots.length;
  const row = t * n;
  for (let p = 0; p < n; p++) out[row + p] = acc[slots[p]];
}

/**
 * Outcome mode (Trace.outcome): hand the engine a call's outcome table, `width` words a row, whose
 * word i is the change of accumulator slot `rowSlots[i]`. Each traced slot's column is worked out
 * on the trace's first call (a trace serves one case); a slot in `never` never changes on this
 * path (column -1); any other slot the rows do not hold is refused, naming `who`.
 */
export function setOutcomeTable(trace: Trace, table: ArrayLike<number>, width: number, rowSlots: readonly number[], never: readonly number[], who: string): void {
  trace.table = table;
  trace.width = width;
  if (trace.column?.length === trace.slots.length) return;
  trace.column = Int32Array.from(trace.slots, (s) => {
    const at = rowSlots.indexOf(s);
    if (at < 0 && !never.includes(s)) throw new Error(`${who}: slot ${s} cannot be traced by outcome`);
    return at;
  });
}
