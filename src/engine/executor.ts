/** Where batches of chunks run: in this thread (tests, tiny jobs) or on a piscina pool (engine/pool.ts). */
import { batchChunk, ChunkRun, resultLength, type BatchTask } from './chunk.js';
import type { Kernel, KernelTable } from './kernel.js';

/** What a run says to each of its tasks. */
export interface TaskOptions {
  /** The run's signal: once it aborts, the task's result is not wanted; an executor may stop it. */
  signal?: AbortSignal;
  /** Trials of the task run so far, said now and then while a slow task runs (the in-process executor). */
  onTrials?: (trials: number) => void;
}

export interface Executor {
  /** Worker threads (0: the calling thread). */
  readonly threads: number;
  run(task: BatchTask, opts?: TaskOptions): Promise<Float64Array>;
  close(): Promise<void>;
  /**
   * Executors whose threads must start first (a pool): 'cold' until asked to start (warm() or a
   * first task), 'loading' while its threads load their modules, 'ready' once they have. A run
   * whose pool is cold does its first work in the calling thread (engine/run.ts, RunOptions.inline).
   */
  readiness?(): 'cold' | 'loading' | 'ready';
  /** Start the threads now, without a task. */
  warm?(): void;
  /**
   * The run is done with these compiled cases: an executor that runs them in this thread, on
   * these very objects, lets the kernel drop what it keeps for them (Kernel.release). A pool's
   * threads run copies, which go with each task.
   */
  release?(job: { system: string; compiled: readonly unknown[] }): void;
}

/** Thrown (as the rejection) when a run's signal is aborted. */
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

/**
 * One turn of the event loop (timers, I/O, messages) before the next batch. Without it an
 * in-process run is one unbroken chain of promise callbacks: a test worker could not answer its
 * runner's RPC (vitest times out after 60 s on a loaded machine), a server could not answer
 * requests, and an abort could not land until the whole run was over.
 */
const nextTurn: () => Promise<void> =
  typeof setImmediate === 'function' ? () => new Promise((r) => setImmediate(r)) : () => new Promise((r) => setTimeout(r, 0));

/** The thread is held at most about this long (ms) between turns of the event loop, whatever a chunk costs. */
export const TURN_MS = 25;
/** A slice of a chunk's trials is sized from the last one's time to take about this long (ms): each call has its fixed cost (a Crusader Rex walk's flush, a pairing's count), so a slice is as long as TURN_MS allows with room for one that overruns. */
const SLICE_MS = 20;

/**
 * Runs batches in the calling thread (threads = 0 in the API), one after another, each in its
 * own turn of the event loop, and each chunk a slice of trials at a time (`ChunkRun`), with a
 * turn of the event loop at least every TURN_MS: the thread is never held for longer than that
 * (or one trial), however slow a chunk is, so a signal (Ctrl-C), a timer (progress, the ETA
 * line) or a request is answered while it runs. Slices never change a number: the chunk is the
 * same kernel stream and buffer whatever the slices (test/engine-slices.test.ts).
 */
export class InlineExecutor implements Executor {
  private last: Promise<unknown> = Promise.resolve();
  /**
   * `threads`: 0 (the default) for an executor beside a pool or instead of one (tests, a tiny
   * job); 1 when this thread is the run's one kernel thread (`siegesim run --threads 1`), as the
   * run's provenance and its ETA count it.
   */
  constructor(
    private readonly kernels: KernelTable,
    readonly threads: 0 | 1 = 0,
  ) {}
  run(task: BatchTask, opts: TaskOptions = {}): Promise<Float64Array> {
    const kernel = this.kernels[task.system];
    if (!kernel) return Promise.reject(new Error(`no kernel for system ${task.system}`));
    const out = this.last.then(nextTurn, nextTurn).then(() => runBatchSliced(kernel, task, opts));
    this.last = out.catch(() => undefined);
    return out;
  }
  release(job: { system: string; compiled: readonly unknown[] }): void {
    const kernel = this.kernels[job.system];
    if (kernel?.release) for (const c of job.compiled) kernel.release(c);
  }
  async close(): Promise<void> {}
}

/**
 * The last slice size of each group's batches, by its cases (a run's batches of one sweep point
 * share their `compiled` array): a group's next batch starts there instead of at one trial. A
 * batch started at one grew through slices of 1, 8, 64, 512 and 4 096 trials first, each a kernel
 * call with its fixed cost (a Crusader Rex walk's flush, a pairing's count), in every batch.
 */
const sliceOf = new WeakMap<object, number>();

/** runBatch's result, slice by slice, with a turn of the event loop every TURN_MS; rejects with CancelledError at a turn once `signal` aborts. */
async function runBatchSliced(kernel: Kernel<unknown>, task: BatchTask, opts: TaskOptions): Promise<Float64Array> {
  if (opts.signal?.aborted) throw new CancelledError();
  const L = resultLength(task);
  const out = new Float64Array(L * task.sizes.length);
  // trials in the next slice: from one for a group's first batch (a chunk may take minutes), grown from measured times
  let n = sliceOf.get(task.compiled) ?? 1;
  let trials = 0;
  let turn = performance.now();
  for (let j = 0; j < task.sizes.length; j++) {
    const chunk = new ChunkRun(kernel, batchChunk(task, j));
    while (!chunk.finished) {
      const t0 = performance.now();
      const k = chunk.step(n);
      const t1 = performance.now();
      trials += k;
      const dt = t1 - t0;
      n = Math.max(1, Math.min(n * 8, dt > 0 ? Math.floor((k * SLICE_MS) / dt) : n * 8));
      sliceOf.set(task.compiled, n);
      if (t1 - turn >= TURN_MS) {
        opts.onTrials?.(trials);
        await nextTurn();
        if (opts.signal?.aborted) throw new CancelledError();
        turn = performance.now();
      }
    }
    out.set(chunk.out, j * L);
  }
  return out;
}
