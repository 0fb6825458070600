/** What every command shares: user errors, flag parsers, loading scenarios, progress, cancellation. */
import { InvalidArgumentError, Option } from 'commander';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';
import path from 'node:path';
import { validateText, type ValidScenario } from '../api.js';
import { expandScenarioArgs, formatIssue, readText } from './files.js';
import type { ScenarioIssue } from '../scenario/load.js';
import { MSG } from '../scenario/messages.js';

/** A problem with what the user gave us: exit 2, no stack trace. */
export class UserError extends Error {
  constructor(message: string, readonly code = 2) {
    super(message);
  }
}

export const positiveInt = (what: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${what} must be a positive integer`);
  return n;
};
export const positiveNumber = (what: string) => (v: string) => {
  const n = Number(v);
  if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError(`${what} must be a positive number`);
  return n;
};
export const seedArg = (v: string): string | number => (/^-?\d+$/.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : v);

/** Load, validate and expand every scenario named; print every problem and exit 2 if any. */
export function loadAll(args: string[]): ValidScenario[] {
  const { files, issues } = expandScenarioArgs(args);
  const valid: ValidScenario[] = [];
  for (const f of files) {
    const { text, issue } = readText(f);
    if (issue) {
      issues.push(issue);
      continue;
    }
    const v = validateText(path.relative(process.cwd(), path.resolve(f)) || f, text!);
    if (v.ok) valid.push(v.value);
    else issues.push(...v.issues);
  }
  const byName = new Map<string, string>();
  for (const v of valid) {
    const other = byName.get(v.name);
    if (other) issues.push({ file: v.file, line: 1, col: 1, path: 'name', message: MSG.duplicateName(v.name, other) });
    byName.set(v.name, v.file);
  }
  if (issues.length > 0) failWith(issues);
  return valid;
}

export function failWith(issues: ScenarioIssue[]): never {
  for (const i of issues) process.stderr.write(formatIssue(i) + '\n');
  const n = issues.length;
  throw new UserError(`${n} problem${n === 1 ? '' : 's'} found; nothing was run or written`);
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
  };
}

/** Aborted on SIGINT/SIGTERM: runs stop submitting chunks. */
export const controller = new AbortController();


export const intArg = (what: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError(`${what} must be an integer`);
  return n;
};
export const nonNegInt = (what: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${what} must be a whole number >= 0`);
  return n;
};

/** --threads, default all cores. */
export const threadsOpt = () =>
  new Option('--threads <T>', 'worker threads (default: all cores)').argParser(positiveInt('--threads')).default(availableParallelism());
