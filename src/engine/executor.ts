/** Where batches of chunks run: in this thread (tests, tiny jobs) or on a piscina pool (engine/pool.ts). */
import { runBatch, type BatchTask } from './chunk.js';
import { KERNELS } from '../systems/kernels.js';

export interface Executor {
  /** Worker threads (0: the calling thread). */
  readonly threads: number;
  run(task: BatchTask): Promise<Float64Array>;
  close(): Promise<void>;
}

/** Runs batches synchronously in the calling thread (threads = 0 in the API). */
export class InlineExecutor implements Executor {
  readonly threads = 0;
  async run(task: BatchTask): Promise<Float64Array> {
    const kernel = KERNELS[task.system];
    if (!kernel) throw new Error(`no kernel for system ${task.system}`);
    return runBatch(kernel, task);
  }
  async close(): Promise<void> {}
}
