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
