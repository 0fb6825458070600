/**
 * siegesim's command line: a thin layer over src/api.ts (as the vitest and esbuild CLIs are).
 * Each command is one module under commands/ that registers its flags and its action; they are
 * listed here. User errors exit 2 with no stack trace; internal errors exit 1 with one, at its
 * places in src/ (source-stack.ts: the bundle's own line numbers mean nothing to a reader); so do
 * errors that escape main() (start.ts).
 * (The entry point is main.ts, which starts the chart renderer before loading this.)
 */
import { Command, InvalidArgumentError } from 'commander';
import { cleanupPending, finishInterrupted, OutputError, type Interrupted } from '../report/write.js';
import { exitWhenThreadsLoaded, WorkerFailure } from '../api.js';
import { VERSION } from '../version.js';
import { controller, HANDLED_SIGNALS, precisionFlagsNote, UserError, type HandledSignal } from './common.js';
import type { ScenarioIssue } from '../api.js';
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
import * as init from './commands/init.js';
import * as history from './commands/history.js';
import * as site from './commands/site.js';
import { closeEarlyPool } from './early-pool.js';
import { internalErrorText, sourceStack } from '../source-stack.js';

export { UserError, cleanupPending };

/** Commands in the order `--help` lists them. */
const COMMANDS = [run, merge, exact, check, solve, sensitivity, tune, test, diff, history, bench, los, roster, validate, schema, serve, site, init];

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('siegesim')
    .description('Monte Carlo simulation and balance analysis for siege and battle rules')
    .version(VERSION)
    .showHelpAfterError('(add --help to see the options)')
    .exitOverride();
  for (const c of COMMANDS) c.register(program);
  guardOptionValues(program);
  // --precision with --max-trials (run): nonsense refused, a surprising combination noted
  program.hook('preAction', (_program, command) => {
    if (!command.options.some((o) => o.attributeName() === 'precision')) return;
    const note = precisionFlagsNote(command.opts());
    if (note) process.stderr.write(`siegesim: ${note}\n`);
  });
  return program;
}

/**
 * Every option that takes a value refuses one that is an option of its own command: commander
 * takes the word after `--seed` as its value whatever it is, so `--seed --no-progress` ran with
 * the seed "--no-progress" (exit 0) and `--seed --out x` read x as a scenario file. Only the
 * command's own flags (and -h/--help) are refused, so a negative number (`--seed -5`) or any other
 * value beginning with a dash is still taken. Applied to every command and subcommand.
 */
function guardOptionValues(cmd: Command): void {
  const flags = new Set(['--help', '-h', ...cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined))]);
  const where = cmd.parent?.parent ? `${cmd.parent.name()} ${cmd.name()}` : cmd.name();
  for (const o of cmd.options) {
    if (!o.required && !o.optional) continue;
    const own = o.parseArg as ((value: string, previous: unknown) => unknown) | undefined;
    const name = o.long ?? o.short ?? o.flags;
    o.argParser((value: string, previous: unknown) => {
      // `--out=DIR` is the option --out too
      const flag = value.startsWith('--') && value.includes('=') ? value.slice(0, value.indexOf('=')) : value;
      if (flags.has(flag)) throw new InvalidArgumentError(`${name} needs a value: ${value} is one of ${where}'s options, not a value (was the value left out?)`);
      if (own) return own(value, previous);
      // commander's own collecting of a variadic option's values (it skips it once a parser is set)
      if (o.variadic) return previous === o.defaultValue || !Array.isArray(previous) ? [value] : [...(previous as unknown[]), value];
      return value;
    });
  }
  for (const sub of cmd.commands) guardOptionValues(sub);
}

/**
 * What a command run with `--json` prints on stdout when it fails on bad input (exit 2) or on an
 * output it cannot write, instead of nothing: a script reading stdout gets a document either way.
 * stderr still has the same lines as without --json; nothing is written or run.
 * @example { "error": { "message": "1 problem found; nothing was run or written", "exit_code": 2,
 *   "problems": [{ "file": "k.yaml", "line": 3, "col": 8, "path": "trials", "message": "expected ..." }] } }
 */
export interface JsonError {
  error: {
    /** The last line stderr has, without its `siegesim: ` (or commander's `error: `). */
    message: string;
    exit_code: number;
    /** Each problem stderr lists (`file:line:col  path  message`), the first 50 as there; empty when the error is not about a file's content. */
    problems: { file: string; line: number; col: number; path: string; message: string }[];
  };
}

/** Whether the command line asks a command that has `--json` for it (options after `--` are not options). */
export function wantsJson(program: Command, argv: readonly string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  const head = end < 0 ? args : args.slice(0, end);
  if (!head.includes('--json')) return false;
  const name = head.find((a) => !a.startsWith('-'));
  const command = program.commands.find((c) => c.name() === name);
  return command?.options.some((o) => o.long === '--json') === true;
}

/** The JSON error document for stdout. */
export function jsonError(message: string, exitCode: number, problems: readonly ScenarioIssue[] = []): string {
  const doc: JsonError = { error: { message, exit_code: exitCode, problems: problems.map((i) => ({ file: i.file, line: i.line, col: i.col, path: i.path, message: i.message })) } };
  return JSON.stringify(doc, null, 2) + '\n';
}

/** What an interrupted command says: the reports it had written before the signal (and their index), else that nothing was written or changed. */
export function interruptedText(sig: string, done: Interrupted): string {
  const n = done.reports.length;
  if (n === 0) return `siegesim: interrupted (${sig}); no report was written or changed`;
  const index = done.indexes.map((i) => (i.error === undefined ? `; ${i.file} is brought up to date for ${n === 1 ? 'it' : 'them'}` : `; ${i.file} could not be brought up to date (${i.error})`)).join('');
  return `siegesim: interrupted (${sig}) after ${n === 1 ? 'a report was' : `${n} reports were`} written or replaced: ${done.reports.join(', ')}${index}; no other report was written or changed`;
}

const SIGNAL_EXIT: Record<HandledSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

export async function main(): Promise<void> {
  const onSignal = (sig: NodeJS.Signals) => {
    controller.abort();
    cleanupPending();
    // the reports already put in place stay (`run a.yaml b.yaml` stopped during b.yaml), and
    // their index is brought up to date: the message names them
    const done = finishInterrupted();
    // SIGHUP is a closed terminal: writing to it fails (EIO), which must not end the process
    // with a stack trace before the threads it waits for below have loaded
    process.stderr.on('error', () => undefined);
    // a terminal's cursor may stand after a progress bar or the echoed ^C: end that line first;
    // a pipe or a log is at the start of a line already
    process.stderr.write(`${process.stderr.isTTY === true ? '\n' : ''}${interruptedText(sig, done)}\n`);
    // worker threads still loading their modules must finish first: exiting stops them, and a
    // thread stopped while loading aborts the process (engine/pool.ts); else exit at once
    // 128 + the signal, as a shell reports a process its signal ended: 130 for Ctrl-C, 143 for
    // SIGTERM, 129 for SIGHUP (the terminal closed, an ssh session dropped)
    exitWhenThreadsLoaded(SIGNAL_EXIT[sig as HandledSignal] ?? 130);
  };
  for (const sig of HANDLED_SIGNALS) process.on(sig, onSignal);
  // A reader that stops early (`siegesim roster crusader-rex | head`) is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  const program = buildProgram();
  // --json: a user error is also a JSON document on stdout (JsonError), so a script that reads
  // stdout never gets nothing; every command prints its JSON last, so stdout is still empty here
  const json = wantsJson(program, process.argv);
  try {
    // test-only: an internal error (a bug) in this thread, for the test of its printed stack
    if (process.env.SIEGESIM_FAULT === 'internal-error') throw new Error('injected internal error (SIEGESIM_FAULT=internal-error)');
    await program.parseAsync(process.argv);
  } catch (e) {
    const err = e as { code?: string; exitCode?: number; message?: string };
    if (e instanceof UserError || e instanceof OutputError) {
      cleanupPending();
      process.stderr.write(`siegesim: ${e.message}\n`);
      process.exitCode = e instanceof UserError ? e.code : e.exitCode;
      if (json) process.stdout.write(jsonError(e.message, process.exitCode, e instanceof UserError ? e.problems : []));
    } else if (typeof err.code === 'string' && err.code.startsWith('commander.')) {
      // commander has printed its message; help and version are not errors
      process.exitCode = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help' ? 0 : 2;
      if (json && process.exitCode === 2) process.stdout.write(jsonError((err.message ?? '').replace(/^error: /, ''), 2));
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

