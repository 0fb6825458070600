/**
 * piscina worker entry: run one batch of chunks, return the buffers (copied, never transferred).
 *
 * Transferring the result (Piscina.move) detaches its ArrayBuffer, and the first detached
 * buffer in a thread invalidates V8's "no ArrayBuffer was ever detached" guarantee for good:
 * from then on every typed-array access in optimised code checks for a detached buffer. The
 * kernels are typed-array code through and through, and a transfer makes them ~25% slower in
 * that worker (the reference battle: 4.7-4.9 M battles/s with it, 6.4-6.5 M/s without, in paired
 * piscina runs). A batch's buffers are a few kilobytes; copying them costs nothing.
 */
import { parentPort } from 'node:worker_threads';
import { LOADED, runBatch, type BatchTask } from '../src/engine/chunk.js';
import { KERNELS } from '../src/systems/kernels.js';

// This module is loaded and run: the pool may stop this thread safely once the require() that
// loads it (piscina's) has returned (engine/pool.ts, close). Node 20's require() of an ES module
// still wraps the module (CreateRequiredModuleFacade) after running it, and a thread stopped
// there aborted the process as one stopped while instantiating it did ("FATAL ERROR:
// v8::ToLocalChecked Empty MaybeLocal"): so the message goes in a microtask, which runs once
// that require() has returned, before piscina's worker goes on to wait for tasks.
queueMicrotask(() => parentPort?.postMessage(LOADED));

/**
 * Test-only: `SIEGESIM_FAULT=worker-slow-load:MS` keeps this module loading for MS ms (a busy
 * machine's load), so the tests can show the pool never stops a thread before it has loaded.
 */
const SLOW_LOAD = /^worker-slow-load:(\d+)$/.exec(process.env.SIEGESIM_FAULT ?? '');
if (SLOW_LOAD) {
  const end = Date.now() + Number(SLOW_LOAD[1]);
  while (Date.now() < end);
}

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
  return out;
}
