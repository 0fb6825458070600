/**
 * The site's kernel worker (one per core, started by the run worker's WebWorkerExecutor): runs a
 * batch of chunks and posts the buffers back, as workers/worker.ts does on piscina. Only the
 * kernels and the chunk runner are bundled here, so it loads fast.
 *
 * The result is posted copied, never transferred: transferring detaches the buffer, and the first
 * detached buffer in a thread makes V8 check every typed-array access for detachment from then
 * on (the kernels ran ~25% slower so under Node; workers/worker.ts).
 */
import { runBatch, type BatchTask } from '../engine/chunk.js';
import { KERNELS } from '../systems/kernels.js';
import { workerScope, type Message } from './browser.js';

/** A batch to run, and its answer. */
export type KernelRequest = { id: number; task: BatchTask };
export type KernelReply = { id: number; out: Float64Array } | { id: number; error: string };

const scope = workerScope();
scope.onmessage = (e: Message) => {
  const { id, task } = e.data as KernelRequest;
  let reply: KernelReply;
  try {
    const kernel = KERNELS[task.system];
    if (!kernel) throw new Error(`no kernel for system ${task.system}`);
    reply = { id, out: runBatch(kernel, task) };
  } catch (err) {
    reply = { id, error: err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err) };
  }
  scope.postMessage(reply);
};
