/**
 * The worker pool of `siegesim run`, started by start.ts before the program loads: the threads
 * boot (piscina's worker, the kernels) on the other cores while this thread loads the program
 * (~85 ms) and the scenarios, instead of after. Only a run that looks big starts it
 * (looksBig); one that turns out to need no threads closes it unused; no other command starts it.
 */
import { readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { PoolExecutor, LIMITS } from '../api/pool.js';

let early: PoolExecutor | undefined;

/** `--threads N` or `--threads=N` from the raw arguments; the CLI's default (all cores) when absent. */
export function threadsFromArgv(argv: readonly string[]): number | undefined {
  let v: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') break;
    if (argv[i] === '--threads') v = argv[i + 1];
    else if (argv[i].startsWith('--threads=')) v = argv[i].slice('--threads='.length);
  }
  if (v === undefined) return availableParallelism();
  // anything but a plain small count is left to the option's own checks (and their messages)
  return /^[1-9][0-9]{0,2}$/.test(v) && Number(v) <= LIMITS.threadsPerCore * availableParallelism() ? Number(v) : undefined;
}

/**
 * Trials say little of a run's time: 200 000 of a Crusader Rex siege are ~0.1 s of kernel work,
 * of a fantasy siege ~1 s. Started early from 50 000 (as before), the pool made most bundled
 * files' own runs 1.1-1.5x slower than `--threads 1` on two cores (docs/performance.md, "The
 * default thread count"). 10 M a case are ~0.8 s even at the fastest kernel's ~13 M/s, where two
 * threads started early gain (the reference battle at 20 M: 2.16 s against 2.34 s judged).
 */
const EARLY_TRIALS = 10_000_000;
/** `run`'s options that take a value (as a separate argument). */
const VALUED = new Set(['--seed', '--threads', '--out', '--max-trials', '--shard']);
/**
 * Whether the run is surely long enough for worker threads: `--precision` (it runs until every
 * headline interval is narrow enough), a folder of scenarios (`npm start`'s main job), or at
 * least EARLY_TRIALS trials a case by `--trials` or a scenario file's top-level `trials:` (read
 * with a look at the raw text: this only decides when threads start, never what runs; a file
 * this misreads just starts them at the usual time). Any other run starts its threads once it
 * is seen to run long enough to gain from them (engine/run.ts poolPays), or never.
 */
export function looksBig(args: readonly string[]): boolean {
  let trials: number | undefined;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--precision' || a.startsWith('--precision=')) return true;
    if (a === '--trials') trials = Number(args[++i]);
    else if (a.startsWith('--trials=')) trials = Number(a.slice('--trials='.length));
    else if (VALUED.has(a)) i++; // its value is not a scenario
    else if (!a.startsWith('-')) files.push(a);
  }
  if (trials !== undefined) return trials >= EARLY_TRIALS;
  for (const f of files) {
    try {
      const st = statSync(f);
      if (st.isDirectory()) return true; // a folder of scenarios
      if (!st.isFile() || st.size > LIMITS.fileBytes) continue; // a pipe, a device, a huge file: left to the program
      const m = /^trials:[ \t]*([0-9][0-9_]*)[ \t]*(?:#.*)?$/m.exec(readFileSync(f, 'utf8').slice(0, 65536));
      if (m && Number(m[1].replaceAll('_', '')) >= EARLY_TRIALS) return true;
    } catch {
      return false; // the program reports the file
    }
  }
  return false;
}

/** Start the pool now for a big `run` (not for a shard, a help or a version request). */
export function startEarlyPool(argv: readonly string[]): void {
  if (argv[2] !== 'run' || argv.some((a) => a === '--help' || a === '-h' || a === '--shard' || a.startsWith('--shard='))) return;
  if (!looksBig(argv.slice(3))) return;
  const threads = threadsFromArgv(argv.slice(3));
  if (threads === undefined || threads === 1) return; // one thread: this one runs the kernels (commands/run.ts)
  early = new PoolExecutor(threads);
  early.warm();
}

/** The early pool when it has `threads` threads (the command then owns it and closes it); else a new one. */
export function poolFor(threads: number): PoolExecutor {
  const e = early;
  early = undefined;
  if (e && e.threads === threads) return e;
  if (e) void e.close();
  return new PoolExecutor(threads);
}

/** Close the early pool if no command took it (bad input, an error before the run). */
export async function closeEarlyPool(): Promise<void> {
  const e = early;
  early = undefined;
  if (e) await e.close();
}
