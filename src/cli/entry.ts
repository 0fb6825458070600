/**
 * The `siegesim` command, started by main.ts (from its bundle when built). Commands that write
 * reports start the chart renderer thread first, so vega loads on another core while this one
 * loads the rest of the program and runs (report/renderer.ts); then the program (program.ts,
 * where the commands are listed) runs.
 */
import { startRenderer } from '../report/renderer.js';

/** Commands whose output has charts. */
const DRAWS = new Set(['run', 'merge', 'sensitivity', 'tune']);
if (DRAWS.has(process.argv[2] ?? '')) startRenderer();
const { main } = await import('./program.js');
await main();
