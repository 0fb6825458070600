/** piscina worker entry: run one batch of chunks, return the buffers by transfer. */
import { Piscina } from 'piscina';
import { runBatch, type BatchTask } from '../src/engine/chunk.js';
import { KERNELS } from '../src/systems/kernels.js';

/**
 * Test-only failure hook: `SIEGESIM_FAULT=worker-throw[:N]` makes each worker throw, and
 * `worker-exit[:N]` makes it exit, in the middle of its N-th batch (default the first): after
 * the kernel has run, before the result is returned. The fault tests use it to show a failing
 * worker ends the run with exit 1, a clear message, nothing written and no thread left behind.
 */
const FAULT = /^worker-(throw|exit)(?::(\d+))?$/.exec(process.env.SIEGESIM_FAULT ?? '');
let batches = 0;

export default function runTask(task: BatchTask): unknown {
  const kernel = KERNELS[task.system];
  if (!kernel) throw new Error(`no kernel for system ${task.system}`);
  const out = runBatch(kernel, task);
  if (FAULT && ++batches >= Number(FAULT[2] ?? 1)) {
    if (FAULT[1] === 'exit') process.exit(70); // ends this worker thread only
    throw new Error(`injected failure (SIEGESIM_FAULT=${process.env.SIEGESIM_FAULT})`);
  }
  return Piscina.move(out);
}
