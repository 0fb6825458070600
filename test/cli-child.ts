/**
 * The built CLI as an async child process, for tests that must not block their vitest worker:
 * `runCli` waits for the exit (with a time limit, after which the child is killed), `startCli`
 * also lets a test wait for a line on stderr before acting (a signal, say): tests wait for
 * conditions, never for fixed delays.
 */
import { afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * How long a child may run before it counts as hung: long enough for a CLI run on a machine
 * whose cores other processes keep busy (several times slower than alone), shorter than the
 * suite's test timeout (vitest.config.ts) so that a hang is reported as one.
 */
export const HANG_MS = 180_000;
export const CLI = path.join(ROOT, 'dist/src/cli/main.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit. */
  ms: number;
  /** Killed by the time limit. */
  timedOut: boolean;
}

export interface CliOptions {
  cwd?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Node flags, e.g. `--max-old-space-size=192` (a memory limit). */
  nodeArgs?: string[];
  /** Kill the child after this long (default HANG_MS): a hang guard, never a speed test. */
  timeoutMs?: number;
  /** Run through `sh -c` with this prefix (e.g. `ulimit -f 8;`). */
  shellPrefix?: string;
}

export interface RunningCli {
  child: ChildProcess;
  /** Resolves when stderr (so far) matches; rejects if the child exits first. */
  waitFor(re: RegExp): Promise<string>;
  done: Promise<CliResult>;
}

export function startCli(args: string[], opts: CliOptions = {}): RunningCli {
  const t0 = performance.now();
  const argv = [...(opts.nodeArgs ?? []), CLI, ...args];
  const env = { ...process.env, ...opts.env };
  const child = opts.shellPrefix
    ? spawn('sh', ['-c', `${opts.shellPrefix} exec "$0" "$@"`, process.execPath, ...argv], { cwd: opts.cwd ?? ROOT, env })
    : spawn(process.execPath, argv, { cwd: opts.cwd ?? ROOT, env });
  let stdout = '';
  let stderr = '';
  let exited = false;
  const waiters: { re: RegExp; resolve: (s: string) => void; reject: (e: Error) => void }[] = [];
  const check = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].re.test(stderr)) waiters.splice(i, 1)[0].resolve(stderr);
    }
  };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    check();
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs ?? HANG_MS);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      exited = true;
      check();
      for (const w of waiters.splice(0)) w.reject(new Error(`the CLI exited (${code ?? signal}) before printing ${w.re}; stderr:\n${stderr}`));
      resolve({ code, signal, stdout, stderr, ms: performance.now() - t0, timedOut });
    });
  });
  const waitFor = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      if (re.test(stderr)) return resolve(stderr);
      if (exited) return reject(new Error(`the CLI has exited without printing ${re}; stderr:\n${stderr}`));
      waiters.push({ re, resolve, reject });
    });
  return { child, waitFor, done };
}

export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return startCli(args, opts).done;
}

/** A stack trace's frame lines, as Node prints them. */
export const STACK_FRAME = /\n\s+at .+[(:]\d+/;

/** A maker of temporary folders for one test file, all removed after its tests. */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(path.join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
