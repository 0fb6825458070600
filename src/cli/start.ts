/**
 * The `siegesim` command, started by main.ts (from its bundle when built, else through
 * entry.ts). Long commands that write reports start the chart renderer thread first, so vega loads
 * on another core while this one loads the rest of the program and runs (report/renderer.ts);
 * `run` starts its worker pool too (cli/early-pool.ts); then the program (program.ts, where
 * the commands are listed) runs.
 *
 * An error that escapes the program's main() — thrown in a callback, a rejected promise nobody
 * awaits, a throw from start-up itself — would be printed by Node, at the bundle's lines. It is
 * printed as main() prints an internal error instead (its stack at src/: source-stack.ts), any
 * report being written is removed, and the process exits 1 at once, as Node's own handler
 * would, once no worker thread is loading (engine/pool.ts exitWhenThreadsLoaded).
 */
import { startRenderer } from '../report/renderer.js';
import { exitWhenThreadsLoaded } from '../api/pool.js';
import { internalErrorText } from '../source-stack.js';
import { startEarlyPool } from './early-pool.js';

/**
 * Commands that run long and whose output has charts: their renderer thread starts at once
 * (report/renderer.ts). `run` starts one itself when it pays (several files, or a long run);
 * `merge` and every other command draw in the main thread.
 */
const DRAWS_LONG = new Set(['sensitivity', 'tune']);

/** Removes a report being written (program.ts's cleanupPending once the program is loaded; nothing is written before). */
let cleanup = (): void => undefined;
let exiting = false;

function escaped(e: unknown): void {
  process.stderr.write(internalErrorText(e));
  if (exiting) return; // a second error while the first one's exit waits for the threads: said, and the same exit
  exiting = true;
  process.exitCode = 1;
  try {
    cleanup();
  } finally {
    exitWhenThreadsLoaded(1);
  }
}

export async function start(): Promise<void> {
  process.on('uncaughtException', escaped);
  process.on('unhandledRejection', escaped);
  try {
    if (DRAWS_LONG.has(process.argv[2] ?? '')) startRenderer();
    startEarlyPool(process.argv); // `run`: its worker threads boot while the program loads
    // test-only: errors that escape the command, for the test of how they print
    const fault = process.env.SIEGESIM_FAULT;
    if (fault === 'escape:callback') setImmediate(() => { throw new Error(`injected (SIEGESIM_FAULT=${fault})`); });
    if (fault === 'escape:rejection') void Promise.reject(new Error(`injected (SIEGESIM_FAULT=${fault})`));
    if (fault === 'escape:start') throw new Error(`injected (SIEGESIM_FAULT=${fault})`);
    const program = await import('./program.js');
    cleanup = program.cleanupPending;
    await program.main();
  } catch (e) {
    escaped(e);
  }
}
