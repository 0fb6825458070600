/**
 * Where the api's runs go: in this thread, with every system's kernel (`inlineExecutor`), or on
 * the worker pool (`PoolExecutor`, engine/pool.ts, whose threads load the same kernel table).
 * The engine knows no system: the executor is handed its kernels here.
 */
import { InlineExecutor, type Executor } from '../engine/executor.js';
import { KERNELS } from '../systems/kernels.js';

/** An executor in this thread that runs every system's kernel. */
export function inlineExecutor(): Executor {
  return new InlineExecutor(KERNELS);
}

/**
 * The executor of a run on one thread (`--threads 1`): this thread runs the kernels, in slices
 * with turns of the event loop between them (engine/executor.ts), instead of one worker thread
 * beside an idle one. A worker would cost a second isolate's start, its own load and JIT of the
 * kernels and its own heap (~0.1-0.25 s of CPU a run) for no parallelism; the results are the
 * same chunks merged in the same order.
 */
export function mainThreadExecutor(): Executor {
  return new InlineExecutor(KERNELS, 1);
}
