/** The command line from the compiled modules (main.ts runs the bundle instead when it is built): start.ts. */
import { start } from './start.js';

await start();
