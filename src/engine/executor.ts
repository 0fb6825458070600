/** Where batches of chunks run: in this thread (tests, tiny jobs) or on a piscina pool (engine/pool.ts). */
import { BatchRun, type BatchTask } from './chunk.js';
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
  /**
   * Optional: how long (ms) a task of a run that reads only its batches' sums (BatchTask.whole)
   * is sized to take on this executor, where the run sets none (engine/run.ts; otherwise 40).
   */
  readonly taskMs?: number;
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
   * Optional: the executor in the calling thread that runs this one's chunks while it is cold,
   * and a run of one chunk (RunOptions.inline, as the api's runs give it); where none, the
   * api's in-process executor, which turns the event loop every TURN_MS for a server's
   * requests. The command line's pools give the `--threads 1` executor's (TURN_MS_ONE_THREAD):
   * its main thread answers nothing but Ctrl-C and the progress line, and a cold pool's chunks
   * run there at that executor's speed (cli/common.ts executorOf).
   */
  readonly inline?: Executor;
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
/**
 * The same for the executor of a run on one thread (`--threads 1`), whose thread runs nothing
 * else but the command's own timers and signals: a Ctrl-C or the progress line waits at most
 * this long. Its slices (and its tasks, TASK_MS_ONE_THREAD) are longer: each call has its fixed
 * cost (a Crusader Rex walk's flush of the edges it touched, a pairing's count, another case's
 * tables into the cache), and a slice of a batch plays several chunks a variant at a time
 * (BatchRun). Paired Crusader Rex sieges (case-a-new-siege) ran 1.6x their kernels' time in
 * slices of 20 ms a chunk at most, ~1.3x in slices of 80 ms.
 */
export const TURN_MS_ONE_THREAD = 100;
/** Tasks of a run on one thread whose batches are read as their sums (Executor.taskMs). */
export const TASK_MS_ONE_THREAD = 200;
/** A slice is sized from the last one's time to take about this share of a turn: as long as the turn allows, with room for one that overruns. */
const SLICE_OF_TURN = 0.8;

/**
 * Runs batches in the calling thread (threads = 0 in the API), one after another, each in its
 * own turn of the event loop, and each batch a slice of trials at a time (`BatchRun`), with a
 * turn of the event loop at least every TURN_MS: the thread is never held for longer than that
 * (or one trial), however slow a chunk is, so a signal (Ctrl-C), a timer (progress, the ETA
 * line) or a request is answered while it runs. Slices never change a number: the chunk is the
 * same kernel stream and buffer whatever the slices (test/engine-slices.test.ts).
 */
export class InlineExecutor implements Executor {
  private last: Promise<unknown> = Promise.resolve();
  readonly taskMs: number | undefined;
  private readonly turnMs: number;
  /**
   * `threads`: 0 (the default) for an executor beside a pool or instead of one (tests, a tiny
   * job, a server's first numbers): turns every TURN_MS; 1 when this thread is the run's one
   * kernel thread (`siegesim run --threads 1`), as the run's provenance and its ETA count it:
   * turns every TURN_MS_ONE_THREAD, tasks of TASK_MS_ONE_THREAD.
   */
  constructor(
    private readonly kernels: KernelTable,
    readonly threads: 0 | 1 = 0,
  ) {
    this.turnMs = threads === 1 ? TURN_MS_ONE_THREAD : TURN_MS;
    this.taskMs = threads === 1 ? TASK_MS_ONE_THREAD : undefined;
  }
  run(task: BatchTask, opts: TaskOptions = {}): Promise<Float64Array> {
    const kernel = this.kernels[task.system];
    if (!kernel) return Promise.reject(new Error(`no kernel for system ${task.system}`));
    const out = this.last.then(nextTurn, nextTurn).then(() => runBatchSliced(kernel, task, opts, this.turnMs));
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

/** runBatch's result, slice by slice, with a turn of the event loop every `turnMs`; rejects with CancelledError at a turn once `signal` aborts. */
async function runBatchSliced(kernel: Kernel<unknown>, task: BatchTask, opts: TaskOptions, turnMs: number): Promise<Float64Array> {
  if (opts.signal?.aborted) throw new CancelledError();
  const run = new BatchRun(kernel, task);
  // trials in the next slice: from one for a group's first batch (a chunk may take minutes), grown from measured times
  let n = sliceOf.get(task.compiled) ?? 1;
  let trials = 0;
  let turn = performance.now();
  while (!run.finished) {
    const t0 = performance.now();
    const k = run.step(n);
    const t1 = performance.now();
    trials += k;
    const dt = t1 - t0;
    n = Math.max(1, Math.min(n * 8, dt > 0 ? Math.floor((k * SLICE_OF_TURN * turnMs) / dt) : n * 8));
    sliceOf.set(task.compiled, n);
    if (t1 - turn >= turnMs) {
      opts.onTrials?.(trials);
      await nextTurn();
      if (opts.signal?.aborted) throw new CancelledError();
      turn = performance.now();
    }
  }
  return run.out;
}
