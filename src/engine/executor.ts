/** Where chunks run: in this thread (tests, tiny jobs) or on a piscina pool (engine/pool.ts). */
import { runChunk, type ChunkTask } from './chunk.js';
import { KERNELS } from '../systems/kernels.js';

export interface Executor {
  readonly threads: number;
  run(task: ChunkTask): Promise<Float64Array>;
  close(): Promise<void>;
}

/** Runs chunks synchronously in the calling thread (threads = 0 in the API). */
export class InlineExecutor implements Executor {
  readonly threads = 0;
  async run(task: ChunkTask): Promise<Float64Array> {
    const kernel = KERNELS[task.system];
    if (!kernel) throw new Error(`no kernel for system ${task.system}`);
    return runChunk(kernel, task);
  }
  async close(): Promise<void> {}
}
