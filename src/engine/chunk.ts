/**
 * One chunk of trials for one sweep point: every variant on the same dice.
 *
 * Common random numbers (DESIGN.md "Randomness"): the baseline runs its trials one after the
 * other on the chunk's stream; each other variant replays every trial from the state the
 * baseline's trial started from. The stream then continues from where the baseline's trial
 * ended, so a variant's trial i always starts where the baseline's trial i did, and adding or
 * removing variants never changes the baseline's results. Per-trial differences of the paired
 * slots (d = variant − baseline) are summed as Σd and Σd², which gives the paired interval of
 * every paired metric's difference.
 *
 * Pure: no node:*, no piscina; the worker and the in-process executor both call `runChunk`.
 */
import type { RngState } from './rng.js';
import type { Kernel } from '../systems/types.js';

/** Everything a worker needs for one chunk (structured-cloneable). */
export interface ChunkTask {
  system: string;
  /** One compiled case per variant; [0] is the baseline. */
  compiled: unknown[];
  accLengths: number[];
  /** Accumulator slot of each paired metric, per variant: pairedSlots[v][p]. */
  pairedSlots: number[][];
  state: Int32Array;
  trials: number;
}

/** Length of a chunk's result: every variant's accumulator, then (V−1)·P·2 paired sums. */
export function resultLength(task: Pick<ChunkTask, 'accLengths' | 'pairedSlots'>): number {
  const V = task.accLengths.length;
  const P = task.pairedSlots[0]?.length ?? 0;
  return task.accLengths.reduce((a, b) => a + b, 0) + (V - 1) * P * 2;
}

/** Run one chunk and return its result buffer (see `resultLength` for the layout). */
export function runChunk(kernel: Kernel<unknown>, task: ChunkTask): Float64Array {
  const V = task.compiled.length;
  const out = new Float64Array(resultLength(task));
  const accs: Float64Array[] = [];
  let off = 0;
  for (let v = 0; v < V; v++) {
    accs.push(out.subarray(off, off + task.accLengths[v]));
    off += task.accLengths[v];
  }
  const rng: RngState = task.state;
  if (V === 1) {
    kernel.run(task.compiled[0], rng, task.trials, accs[0]);
    return out;
  }
  const pairs = out.subarray(off);
  const P = task.pairedSlots[0].length;
  const start = new Int32Array(4);
  const end = new Int32Array(4);
  const before = new Float64Array(V * P);
  const c0 = task.compiled[0];
  const acc0 = accs[0];
  const slots0 = task.pairedSlots[0];
  for (let t = 0; t < task.trials; t++) {
    start.set(rng);
    for (let p = 0; p < P; p++) before[p] = acc0[slots0[p]];
    kernel.run(c0, rng, 1, acc0);
    end.set(rng);
    for (let v = 1; v < V; v++) {
      const acc = accs[v];
      const slots = task.pairedSlots[v];
      for (let p = 0; p < P; p++) before[v * P + p] = acc[slots[p]];
      rng.set(start);
      kernel.run(task.compiled[v], rng, 1, acc);
      for (let p = 0; p < P; p++) {
        const d = acc[slots[p]] - before[v * P + p] - (acc0[slots0[p]] - before[p]);
        const k = ((v - 1) * P + p) * 2;
        pairs[k] += d;
        pairs[k + 1] += d * d;
      }
    }
    rng.set(end);
  }
  return out;
}
