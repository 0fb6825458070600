/** piscina worker entry: decode a chunk task, run it, return the buffer by transfer. */
import { Piscina } from 'piscina';
import { runChunk, type ChunkTask } from '../src/engine/chunk.js';
import { KERNELS } from '../src/systems/kernels.js';

export default function runTask(task: ChunkTask): unknown {
  const kernel = KERNELS[task.system];
  if (!kernel) throw new Error(`no kernel for system ${task.system}`);
  const out = runChunk(kernel, task);
  return Piscina.move(out);
}
