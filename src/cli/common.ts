/** What every command shares: user errors, flag parsers, loading scenarios, progress, cancellation. */
import { seedOf } from '../text/seed.js';
import { InvalidArgumentError, Option } from 'commander';
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';
import path from 'node:path';
import { parseSettings, validateText, valuePosition, type ValidScenario, MSG, LIMITS, COMMON_SHAPE, PoolExecutor, mainThreadExecutor, type Executor } from '../api.js';
import { expandScenarioArgs, formatIssue, readText } from './files.js';
import type { ScenarioIssue } from '../api.js';
import type * as z from 'zod';

/** A problem with what the user gave us: exit 2, no stack trace. */
export class UserError extends Error {
  /** The problems printed before it (`file:line:col  path  message`), when it sums them up (failWith); `--json` prints them on stdout too. */
  problems: readonly ScenarioIssue[] = [];
  constructor(message: string, readonly code = 2) {
    super(message);
  }
}

export const positiveInt = (what: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`${what} must be a positive integer`);
  return n;
};
export const positiveNumber = (what: string) => (v: string) => {
  const n = Number(v);
  if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError(`${what} must be a positive number`);
  return n;
};

/** A flag checked by the same schema (so the same limits and messages) as the scenario key it overrides. */
function bySchema<T>(what: string, schema: z.ZodType<T>, read: (v: string) => unknown) {
  return (v: string): T => {
    const r = schema.safeParse(read(v));
    // the last issue is the explicit limit (1e99 also breaks the safe-integer range first)
    if (!r.success) throw new InvalidArgumentError(`${what} ${r.error.issues[r.error.issues.length - 1].message} (as in a scenario file)`);
    return r.data;
  };
}
const wholeNumber = (what: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || !Number.isInteger(n)) throw new InvalidArgumentError(`${what} must be a whole number, e.g. 100000 or 1e6`);
  return n;
};
/** --trials and --max-trials: the scenario's `trials` rule (1 to 10^10). */
export const trialsArg = (what: string) => bySchema(what, COMMON_SHAPE.trials, wholeNumber(what));
/** --seed: the scenario's `seed` rule (an integer, or a string of at least one character). */
export const seedArg = bySchema('--seed', COMMON_SHAPE.seed, seedOf);
/**
 * An output path flag: not empty (an empty --out must not silently mean reports/). `without`:
 * what leaving the flag out does, for the message (a flag with no default output, --junit and
 * schema's --out, says so instead of pointing at a default there is not).
 */
export const outArg =
  (what: string, without = 'leave the flag out for the default') =>
  (v: string) => {
    if (v.trim() === '') throw new InvalidArgumentError(`${what} must not be empty: name a path, or ${without}`);
    return v;
  };
/** A probability strictly between 0 and 1 (`--confidence 0.999`, `--alpha 0.001`). */
export const probabilityArg = (what: string, example: string) => (v: string) => {
  const x = Number(v);
  if (!(x > 0 && x < 1)) throw new InvalidArgumentError(`${what} must be a probability between 0 and 1, e.g. ${example}`);
  return x;
};

/** A scenario as loaded from its file: validated, with the text it was read from (a report keeps a copy). */
export interface LoadedScenario extends ValidScenario {
  text: string;
}

/** The folder `test` and `serve` read when given no files (and `npm start` runs). */
export const DEFAULT_SCENARIOS = 'scenarios';

/**
 * The files and folders a command was given, or DEFAULT_SCENARIOS when none: a missing default
 * is said as such (exit 2), with how to name files instead (`example`: the command with one).
 */
export function scenarioArgsOrDefault(args: string[], example: string): string[] {
  if (args.length > 0) return args;
  if (!existsSync(DEFAULT_SCENARIOS)) throw new UserError(MSG.noDefaultFolder(DEFAULT_SCENARIOS, process.cwd(), example));
  return [DEFAULT_SCENARIOS];
}

/** Load, validate and expand every scenario named; print every problem and exit 2 if any. */
export function loadAll(args: string[], opts: { staleExpect?: 'error' | 'warn' } = {}): LoadedScenario[] {
  const { valid, issues } = loadSome(args, opts);
  if (issues.length > 0) failWith(issues);
  return valid;
}

/**
 * Every scenario that loads and validates, and every problem of the others (a file with a
 * problem, or a second file of a name already taken, is left out of `valid`): for `test`,
 * which judges the good files and reports each bad one as an error, as pytest's JUnit output
 * reports a file it cannot collect.
 */
export function loadSome(args: string[], opts: { staleExpect?: 'error' | 'warn' } = {}): { valid: LoadedScenario[]; issues: ScenarioIssue[] } {
  const { files, issues } = expandScenarioArgs(args);
  const valid: LoadedScenario[] = [];
  // An expect: item the scenario no longer matches (a where value no longer swept, a variant or
  // metric gone) is judged by `siegesim test`, which refuses it (as validate does): the commands
  // that run say it once, as a warning, and go on without it, so a CI assertion never holds up
  // the design loop. An item wrong in itself (no bound, low > high) stays an error everywhere.
  const warn = (opts.staleExpect ?? 'warn') === 'warn';
  let warnings = '';
  for (const f of files) {
    const { text, issue } = readText(f);
    if (issue) {
      issues.push(issue);
      continue;
    }
    const v = validateText(path.relative(process.cwd(), path.resolve(f)) || f, text!, { staleExpect: warn ? 'warn' : 'error' });
    if (v.ok) {
      valid.push(Object.assign(v.value, { text: text! }));
      for (const i of v.value.staleExpect ?? []) warnings += MSG.staleExpect(formatIssue(i)) + '\n';
      for (const i of v.value.warnings ?? []) warnings += MSG.deadSetting(formatIssue(i)) + '\n';
    } else {
      // a file refused for its errors does not go on at all: its stale expect: items are listed
      // with its other problems, in the file's order (they were warnings saying "this command
      // goes on without it" above a refusal, and left out of its count)
      for (const i of v.issues) {
        // not push(...): a spread of 100 000 overflows the stack
        if (warn && i.stale) issues.push({ ...i, message: `${i.message}; ${MSG.staleExpectRefused}` });
        else issues.push(i);
      }
    }
  }
  if (warnings) process.stderr.write(warnings);
  // a name two files use: said at the second file's name: value, naming where the first has it
  const byName = new Map<string, string>();
  const nameAt = (v: LoadedScenario) => valuePosition(v.file, v.text, ['name']);
  for (const v of valid) {
    const other = byName.get(v.name);
    if (other === undefined) byName.set(v.name, v.file);
    else {
      const at = nameAt(v);
      const first = nameAt(valid.find((w) => w.file === other)!);
      issues.push({ file: v.file, line: at.line, col: at.col, path: 'name', message: MSG.duplicateName(v.name, `${other}:${first.line}:${first.col}`) });
    }
  }
  const bad = new Set(issues.map((i) => i.file));
  return { valid: valid.filter((v) => !bad.has(v.file)), issues };
}

/** Print the first `LIMITS.problemsShown` problems (then how many more) and exit 2. */
export function failWith(issues: ScenarioIssue[]): never {
  const shown = Math.min(issues.length, LIMITS.problemsShown);
  let out = '';
  for (let i = 0; i < shown; i++) out += formatIssue(issues[i]) + '\n';
  if (issues.length > shown) out += MSG.moreProblems(issues.length - shown, shown) + '\n';
  process.stderr.write(out);
  const n = issues.length;
  const e = new UserError(`${n} problem${n === 1 ? '' : 's'} found; nothing was run or written`);
  e.problems = issues.slice(0, shown);
  throw e;
}

export interface RunFlags {
  shard?: { k: number; n: number };
  trials?: number;
  seed?: string | number;
  threads: number;
  out?: string;
  precision?: number;
  maxTrials?: number;
  json?: boolean;
  progress?: boolean;
  brief?: boolean;
  /** Write into a folder that holds files siegesim did not write (they are kept). */
  force?: boolean;
  /** False with --no-charts: the reports' charts as specs only, not drawn. */
  charts?: boolean;
}

/**
 * A progress bar on stderr when it is a terminal: `onProgress` feeds it, `stop` clears it.
 * Both are no-ops otherwise (pipes and CI logs get one summary line per scenario instead).
 */
export function makeProgress(enabled: boolean, label: string, unit: string) {
  // cli-progress is loaded only for a terminal (logs and pipes never draw a bar)
  const cliProgress = enabled ? (createRequire(import.meta.url)('cli-progress') as typeof CliProgress) : undefined;
  const bar = cliProgress
    ? new cliProgress.SingleBar(
        { stream: process.stderr, format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | eta {eta_formatted}`, hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let started = false;
  return {
    onProgress: (done: number, planned: number) => {
      if (!bar) return;
      if (!started) {
        bar.start(planned, 0);
        started = true;
      }
      bar.setTotal(planned);
      bar.update(done);
    },
    stop: () => bar?.stop(),
    /** A line on stderr while the bar may be drawn: the bar's line is cleared first, and redrawn below at its next update. */
    note: (line: string) => process.stderr.write((bar && started ? '\r\x1b[2K' : '') + line + '\n'),
  };
}

/** Aborted on SIGINT/SIGTERM: runs stop submitting chunks. */
export const controller = new AbortController();

/** The flags `sensitivity` and `tune` share, as their api options (with the pool and progress of `onPool`). */
export function caseOptions(
  flags: { trials?: number; seed?: string | number; where?: string },
  executor: Executor,
  onProgress: (done: number, planned: number) => void,
): { trials?: number; seed?: string | number; where?: Record<string, unknown>; executor: Executor; signal: AbortSignal; onProgress: (done: number, planned: number) => void } {
  return { trials: flags.trials, seed: flags.seed, where: flags.where === undefined ? undefined : parseSettings(flags.where), executor, signal: controller.signal, onProgress };
}

/**
 * Where a command's chunks run with `--threads T`: a worker pool of T threads, or for T = 1 this
 * thread (mainThreadExecutor says why). Same results either way. `serve` keeps a pool: its
 * thread answers requests.
 */
export function executorOf(threads: number): Executor {
  return threads === 1 ? mainThreadExecutor() : commandPool(new PoolExecutor(threads));
}

/**
 * A command's pool: while it is cold (a run not yet seen to run long, engine/run.ts), this
 * thread runs its chunks as `--threads 1` does (Executor.inline), in the same long turns. The
 * api's default in-process executor, which turns every 25 ms for a server, ran the bundled
 * Crusader Rex files' own runs at 1.4-1.6x the CPU of `--threads 1` (each turn's kernel calls
 * flush their sums; docs/performance.md, "the default thread count").
 */
export function commandPool(pool: PoolExecutor): PoolExecutor {
  pool.inline ??= mainThreadExecutor();
  return pool;
}

/**
 * Run an api verb on a worker pool of `threads`, with a progress bar on stderr when it is a
 * terminal; the verb's input errors (`inputError`) become UserErrors (exit 2), and the pool is
 * closed whatever happens.
 */
export async function onPool<T>(
  flags: { threads: number; progress?: boolean },
  label: string,
  unit: string,
  inputError: abstract new (...args: never[]) => Error,
  run: (exec: Executor, onProgress: (done: number, planned: number) => void) => Promise<T>,
): Promise<T> {
  const exec = executorOf(flags.threads);
  const progress = makeProgress(flags.progress !== false && process.stderr.isTTY === true, label.padEnd(24).slice(0, 24), unit);
  try {
    return await run(exec, progress.onProgress);
  } catch (e) {
    if (e instanceof inputError) throw new UserError(e.message);
    throw e;
  } finally {
    progress.stop();
    await exec.close();
  }
}


export const intArg = (what: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`${what} must be an integer`);
  return n;
};
export const nonNegInt = (what: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError(`${what} must be a whole number >= 0`);
  return n;
};

/** A comma-separated list (`a,b,c`), blanks dropped. */
export const listArg = (v: string): string[] => v.split(',').map((s) => s.trim()).filter(Boolean);

/**
 * --threads: 1 to `LIMITS.threadsPerCore` per core. Results are the same whatever the count;
 * threads beyond the cores only cost memory (~13 MB each) and start-up time (2000 never
 * answered; 64 took 4 s and 869 MB on 2 cores).
 */
export function threadsOpt(): Option {
  const cores = availableParallelism();
  const max = LIMITS.threadsPerCore * cores;
  const parse = (v: string) => {
    const n = positiveInt('--threads')(v);
    if (n > max) {
      throw new InvalidArgumentError(
        `--threads must be at most ${max} (${LIMITS.threadsPerCore} per core, ${cores} core${cores === 1 ? '' : 's'} here): ` +
          'more threads than cores add memory and start-up time, never speed, and results are the same for any count',
      );
    }
    return n;
  };
  return new Option('--threads <T>', `threads running trials, 1 to ${max}`).argParser(parse).default(cores, `all cores, ${cores}`);
}

/**
 * `--precision` and `--max-trials` together (run; any command with both flags), checked before
 * the command starts. Every headline metric is a probability, so the precision is a half-width
 * on [0, 1]: 0.5 or more is met by any interval at once (nonsense: exit 2; 2 likely meant 0.02).
 * `--max-trials` without `--precision` is valid but easy to misread: it caps every case (the
 * first chunks cut to fit), so it says so on stderr.
 */
export function precisionFlagsNote(flags: { precision?: number; maxTrials?: number; trials?: number }): string | undefined {
  const E = flags.precision;
  if (E !== undefined && E >= 0.5) {
    const meant = E >= 1 && E < 50 ? ` (for ±${E} points, --precision ${Number((E / 100).toPrecision(6))})` : '';
    throw new UserError(
      `--precision must be below 0.5, got ${E}: it is the half-width of the headline probabilities' 95% intervals, on [0, 1], and every interval is narrower than 0.5 at once${meant}`,
    );
  }
  if (E === undefined && flags.maxTrials !== undefined && !(flags.trials !== undefined && flags.trials <= flags.maxTrials)) {
    return `note: --max-trials ${flags.maxTrials} without --precision caps every case at ${flags.maxTrials.toLocaleString('en-US')} trials, fewer than the scenario's own count if it asks more (--trials N runs a fixed count; --max-trials caps --precision)`;
  }
  return undefined;
}

/** The signals that stop a command cleanly (the report being written not written, the one it replaces unchanged; serve: the server stopped). */
export const HANDLED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type HandledSignal = (typeof HANDLED_SIGNALS)[number];

/**
 * fn() with SIGINT, SIGTERM and SIGHUP at their default action, ending the process at once (exit status
 * 128 + the signal: 130 for Ctrl-C). An exact answer is one synchronous computation, up to about a minute for
 * a large case, and the handlers main() adds run only between turns of the event loop: they
 * would wait for it to end. Only for work before anything is written (exact, and check's and
 * test's exact answers before their runs): nothing is left half made.
 *
 * A signal that came while this thread was busy before it (loading and checking the scenarios)
 * waits for the next turn of the event loop, its handler not yet run: removed with the handlers,
 * it was lost, and the process computed on for tens of seconds and exited 0 (a SIGHUP 1.5 s
 * after start on a loaded machine, test/faults.test.ts). So the loop turns once first: such a
 * signal ends the process there, as main()'s handler ends it.
 */
export async function atDefaultSignals<T>(fn: () => T): Promise<T> {
  // test-only: this thread busy for 3 s first, as it is loading and checking a large file on a
  // loaded machine (test/faults.test.ts sends its signal then)
  if (process.env.SIEGESIM_FAULT === 'busy-before-exact') {
    process.stderr.write('busy-before-exact: busy for 3 s\n');
    for (const t = Date.now(); Date.now() - t < 3000; );
  }
  // Two immediates: the first may run in the loop turn this code was reached in, before its poll
  // phase (where a queued signal is read); the second is queued in the check phase, so a poll
  // phase comes between them. One alone let the signal through (by hand: a loaded module's
  // top-level await, a signal in a busy second before it).
  await new Promise<void>((resolve) => setImmediate(resolve));
  await new Promise<void>((resolve) => setImmediate(resolve));
  // the handler ran: it is ending the process (it may wait for worker threads still loading)
  if (controller.signal.aborted) return new Promise<T>(() => undefined);
  const kept = HANDLED_SIGNALS.map((sig) => [sig, process.listeners(sig)] as const);
  for (const [sig] of kept) process.removeAllListeners(sig);
  try {
    return fn();
  } finally {
    for (const [sig, ls] of kept) for (const l of ls) process.on(sig, l);
  }
}
