/** Where batches of chunks run: in this thread (tests, tiny jobs) or on a piscina pool (engine/pool.ts). */
import { runBatch, type BatchTask } from './chunk.js';
import { KERNELS } from '../systems/kernels.js';

export interface Executor {
  /** Worker threads (0: the calling thread). */
  readonly threads: number;
  run(task: BatchTask): Promise<Float64Array>;
  close(): Promise<void>;
}

/**
 * One turn of the event loop (timers, I/O, messages) before the next batch. Without it an
 * in-process run is one unbroken chain of promise callbacks: a test worker could not answer its
 * runner's RPC (vitest times out after 60 s on a loaded machine), a server could not answer
 * requests, and an abort could not land until the whole run was over.
 */
const nextTurn: () => Promise<void> =
  typeof setImmediate === 'function' ? () => new Promise((r) => setImmediate(r)) : () => new Promise((r) => setTimeout(r, 0));

/**
 * Runs batches in the calling thread (threads = 0 in the API), one after another, each in its
 * own turn of the event loop: the thread is never held for longer than one batch (~40 ms).
 */
export class InlineExecutor implements Executor {
  readonly threads = 0;
  private last: Promise<unknown> = Promise.resolve();
  run(task: BatchTask): Promise<Float64Array> {
    const kernel = KERNELS[task.system];
    if (!kernel) return Promise.reject(new Error(`no kernel for system ${task.system}`));
    const out = this.last.then(nextTurn, nextTurn).then(() => runBatch(kernel, task));
    this.last = out.catch(() => undefined);
    return out;
  }
  async close(): Promise<void> {}
}
