/**
 * siegesim's command line: a thin layer over src/api.ts (as the vitest and esbuild CLIs are).
 * Each command is one module under commands/ that registers its flags and its action; they are
 * listed here. User errors exit 2 with no stack trace; internal errors exit 1 with one, at its
 * places in src/ (source-stack.ts: the bundle's own line numbers mean nothing to a reader); so do
 * errors that escape main() (start.ts).
 * (The entry point is main.ts, which starts the chart renderer before loading this.)
 */
import { Command } from 'commander';
import { cleanupPending, OutputError } from '../report/write.js';
import { exitWhenThreadsLoaded, WorkerFailure } from '../engine/pool.js';
import { VERSION } from '../version.js';
import { controller, precisionFlagsNote, UserError } from './common.js';
import * as run from './commands/run.js';
import * as merge from './commands/merge.js';
import * as exact from './commands/exact.js';
import * as check from './commands/check.js';
import * as solve from './commands/solve.js';
import * as sensitivity from './commands/sensitivity.js';
import * as tune from './commands/tune.js';
import * as bench from './commands/bench.js';
import * as los from './commands/los.js';
import * as validate from './commands/validate.js';
import * as schema from './commands/schema.js';
import * as roster from './commands/roster.js';
import * as serve from './commands/serve.js';
import * as test from './commands/test.js';
import * as diff from './commands/diff.js';
import { closeEarlyPool } from './early-pool.js';
import { internalErrorText, sourceStack } from '../source-stack.js';

export { UserError, cleanupPending };

/** Commands in the order `--help` lists them. */
const COMMANDS = [run, merge, exact, check, solve, sensitivity, tune, test, diff, bench, los, roster, validate, schema, serve];

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('siegesim')
    .description('Monte Carlo simulation and balance analysis for siege and battle rules')
    .version(VERSION)
    .showHelpAfterError('(add --help to see the options)')
    .exitOverride();
  for (const c of COMMANDS) c.register(program);
  // --precision with --max-trials (run): nonsense refused, a surprising combination noted
  program.hook('preAction', (_program, command) => {
    if (!command.options.some((o) => o.attributeName() === 'precision')) return;
    const note = precisionFlagsNote(command.opts());
    if (note) process.stderr.write(`siegesim: ${note}\n`);
  });
  return program;
}

export async function main(): Promise<void> {
  const onSignal = (sig: NodeJS.Signals) => {
    controller.abort();
    cleanupPending();
    process.stderr.write(`\nsiegesim: interrupted (${sig}); no report was written or changed\n`);
    // worker threads still loading their modules must finish first: exiting stops them, and a
    // thread stopped while loading aborts the process (engine/pool.ts); else exit at once
    exitWhenThreadsLoaded(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A reader that stops early (`siegesim roster crusader-rex | head`) is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  try {
    // test-only: an internal error (a bug) in this thread, for the test of its printed stack
    if (process.env.SIEGESIM_FAULT === 'internal-error') throw new Error('injected internal error (SIEGESIM_FAULT=internal-error)');
    await buildProgram().parseAsync(process.argv);
  } catch (e) {
    const err = e as { code?: string; exitCode?: number; message?: string };
    if (e instanceof UserError || e instanceof OutputError) {
      cleanupPending();
      process.stderr.write(`siegesim: ${e.message}\n`);
      process.exitCode = e instanceof UserError ? e.code : e.exitCode;
    } else if (typeof err.code === 'string' && err.code.startsWith('commander.')) {
      // commander has printed its message; help and version are not errors
      process.exitCode = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help' ? 0 : 2;
    } else if (e instanceof WorkerFailure) {
      // The worker's own stack (when it threw) is the useful one; a worker that died has none.
      cleanupPending();
      const cause = e.cause as Error | undefined;
      const stack = cause?.stack && !/^Error: worker exited/.test(cause.stack) ? `\n${sourceStack(cause.stack)}` : '';
      process.stderr.write(`siegesim: internal error: ${e.message}; nothing was written${stack}\n`);
      process.exitCode = 1;
    } else {
      cleanupPending();
      process.stderr.write(internalErrorText(e));
      process.exitCode = 1;
    }
  } finally {
    await closeEarlyPool(); // a `run` that ended before taking its pool (bad input)
  }
}

