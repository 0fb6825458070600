/** piscina worker entry: run one batch of chunks, return the buffers by transfer. */
import { Piscina } from 'piscina';
import { runBatch, type BatchTask } from '../src/engine/chunk.js';
import { KERNELS } from '../src/systems/kernels.js';

export default function runTask(task: BatchTask): unknown {
  const kernel = KERNELS[task.system];
  if (!kernel) throw new Error(`no kernel for system ${task.system}`);
  const out = runBatch(kernel, task);
  return Piscina.move(out);
}
