/**
 * The `siegesim` command, started by main.ts (from its bundle when built, else through
 * entry.ts). Commands that write reports start the chart renderer thread first, so vega loads
 * on another core while this one loads the rest of the program and runs (report/renderer.ts);
 * `run` starts its worker pool too (cli/early-pool.ts); then the program (program.ts, where
 * the commands are listed) runs.
 */
import { startRenderer } from '../report/renderer.js';
import { startEarlyPool } from './early-pool.js';

/** Commands whose output has charts. */
const DRAWS = new Set(['run', 'merge', 'sensitivity', 'tune']);

export async function start(): Promise<void> {
  if (DRAWS.has(process.argv[2] ?? '')) startRenderer();
  startEarlyPool(process.argv); // `run`: its worker threads boot while the program loads
  const { main } = await import('./program.js');
  await main();
}
