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
