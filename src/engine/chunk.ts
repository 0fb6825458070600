/**
 * One chunk of trials for one sweep point: every variant on the same dice.
 *
 * Each trial has its own random stream, which the kernel derives from the chunk's stream at the
 * trial's start (`nextTrialState`, the Kernel contract), and every variant plays that trial from
 * the same start (common random numbers): the chunk's stream is rewound for each variant. A trial's dice
 * therefore never depend on how many numbers earlier trials or other variants drew: trials are
 * independent, a variant's trial i is paired with the baseline's trial i, and adding or removing
 * variants never changes the others. (Replaying each variant from the baseline's position in one
 * shared stream would not do: a variant that draws more than the baseline would reuse the next
 * trial's dice, making its trials dependent.) Per-trial differences of the paired slots
 * (d = variant - baseline) are summed as Σd and Σd², which gives the paired interval of every
 * paired metric's difference.
 *
 * Pure: no node:*, no piscina; the worker calls `runBatch`, the in-process executor runs the
 * same chunks slice by slice (`ChunkRun`).
 */
import { deriveState, type RngState } from './rng.js';
import type { Kernel } from '../systems/types.js';

/** Everything a worker needs for one chunk (structured-cloneable). */
export interface ChunkTask {
  system: string;
  /** One compiled case per variant; [0] is the baseline. */
  compiled: unknown[];
  accLengths: number[];
  /** Accumulator slot of each paired metric, per variant: pairedSlots[v][p] (-1: case v does not pair metric p). */
  pairedSlots: number[][];
  state: Int32Array;
  trials: number;
}

/** What a worker thread posts once its modules are loaded (workers/worker.ts; engine/pool.ts waits for it before stopping the threads). */
export const LOADED = 'siegesim:worker-loaded';

/** Length of a chunk's result: every variant's accumulator, then (V−1)·P·2 paired sums. */
export function resultLength(task: Pick<ChunkTask, 'accLengths' | 'pairedSlots'>): number {
  const V = task.accLengths.length;
  const P = task.pairedSlots[0]?.length ?? 0;
  return task.accLengths.reduce((a, b) => a + b, 0) + (V - 1) * P * 2;
}

/**
 * One chunk, run a slice of trials at a time: `step(m)` then `step(n)` is exactly one chunk of
 * m + n trials (the kernel contract: a call continues the chunk's stream where the last one left
 * it, and accumulates into the same buffer). The in-process executor runs a slow chunk this way
 * so that its thread can answer signals, timers and requests between slices.
 */
export class ChunkRun {
  /** The chunk's result buffer (see `resultLength` for the layout), complete once `finished`. */
  readonly out: Float64Array;
  /** Trials run so far. */
  done = 0;
  private readonly accs: Float64Array[] = [];
  private readonly pairs: Float64Array;
  private readonly before: Float64Array;
  constructor(
    private readonly kernel: Kernel<unknown>,
    private readonly task: ChunkTask,
  ) {
    const V = task.compiled.length;
    this.out = new Float64Array(resultLength(task));
    let off = 0;
    for (let v = 0; v < V; v++) {
      this.accs.push(this.out.subarray(off, off + task.accLengths[v]));
      off += task.accLengths[v];
    }
    this.pairs = this.out.subarray(off);
    this.before = new Float64Array(V * (task.pairedSlots[0]?.length ?? 0));
  }
  get finished(): boolean {
    return this.done >= this.task.trials;
  }
  /** Run up to `n` more trials of the chunk; returns how many ran. */
  step(n: number): number {
    const task = this.task;
    const k = Math.max(0, Math.min(n, task.trials - this.done));
    this.done += k;
    const V = task.compiled.length;
    const accs = this.accs;
    const stream: RngState = task.state;
    if (V === 1) {
      if (k > 0) this.kernel.run(task.compiled[0], stream, k, accs[0]); // one call: the kernel draws each trial's stream
      return k;
    }
    const kernel = this.kernel;
    const P = task.pairedSlots[0]?.length ?? 0;
    const pairs = this.pairs;
    const before = this.before;
    const slots0 = task.pairedSlots[0] ?? [];
    const acc0 = accs[0];
    for (let t = 0; t < k; t++) {
      for (let p = 0; p < P; p++) before[p] = acc0[slots0[p]];
      const start0 = stream[0];
      const start1 = stream[1];
      const start2 = stream[2];
      const start3 = stream[3];
      kernel.run(task.compiled[0], stream, 1, acc0);
      for (let v = 1; v < V; v++) {
        const acc = accs[v];
        const slots = task.pairedSlots[v];
        for (let p = 0; p < P; p++) before[v * P + p] = slots[p] < 0 ? 0 : acc[slots[p]];
        // every variant plays the same trial: its stream starts where the baseline's did
        stream[0] = start0;
        stream[1] = start1;
        stream[2] = start2;
        stream[3] = start3;
        kernel.run(task.compiled[v], stream, 1, acc);
        for (let p = 0; p < P; p++) {
          if (slots[p] < 0) continue; // a metric this variant does not pair (api/run.ts, alignPairedSlots)
          const d = acc[slots[p]] - before[v * P + p] - (acc0[slots0[p]] - before[p]);
          const j = ((v - 1) * P + p) * 2;
          pairs[j] += d;
          pairs[j + 1] += d * d;
        }
      }
    }
    return k;
  }
}

/** Run one chunk and return its result buffer (see `resultLength` for the layout). */
export function runChunk(kernel: Kernel<unknown>, task: ChunkTask): Float64Array {
  const run = new ChunkRun(kernel, task);
  run.step(task.trials);
  return run.out;
}

/**
 * A batch: consecutive chunks `first, first+1, ...` of one sweep point, run by one worker in
 * one task so that the task's fixed cost (messaging, cloning the compiled case, looking up its
 * prepared tables) is paid once for many chunks. Each chunk still draws from its own stream
 * deriveState(seed, stream, index) and comes back as its own buffer, so results are exactly
 * those of one chunk per task, merged in chunk order.
 */
export interface BatchTask extends Omit<ChunkTask, 'state' | 'trials'> {
  seed: string | number;
  stream: string;
  first: number;
  /** Trials of each chunk of the batch. */
  sizes: number[];
}

/** Chunk j of a batch, with its own stream deriveState(seed, stream, first + j). */
export function batchChunk(task: BatchTask, j: number): ChunkTask {
  return {
    system: task.system,
    compiled: task.compiled,
    accLengths: task.accLengths,
    pairedSlots: task.pairedSlots,
    state: deriveState(task.seed, task.stream, task.first + j),
    trials: task.sizes[j],
  };
}

/** Run a batch: chunk j's buffer is `out.subarray(j * L, (j + 1) * L)` with L = resultLength. */
export function runBatch(kernel: Kernel<unknown>, task: BatchTask): Float64Array {
  const L = resultLength(task);
  const out = new Float64Array(L * task.sizes.length);
  for (let j = 0; j < task.sizes.length; j++) out.set(runChunk(kernel, batchChunk(task, j)), j * L);
  return out;
}
