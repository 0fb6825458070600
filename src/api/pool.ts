/**
 * The worker pool, as the front ends start it. A door of its own beside src/api.ts: the command
 * line starts its pool (cli/early-pool.ts) before the rest of the program, the api included,
 * has loaded, so that the threads boot meanwhile.
 */
export { PoolExecutor, WorkerFailure, exitWhenThreadsLoaded } from '../engine/pool.js';
export { LIMITS } from '../scenario/limits.js';
