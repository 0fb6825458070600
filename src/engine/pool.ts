/**
 * The piscina pool: the only module that knows piscina (docs/architecture.md). A task is a batch of chunks
 * (tens of milliseconds of work); its result comes back copied, never transferred (workers/worker.ts says why).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { packageFile } from '../paths.js';
import type { Piscina } from 'piscina';
import { LOADED, type BatchTask } from './chunk.js';
import { CancelledError, type Executor, type TaskOptions } from './executor.js';

/** The built worker: dist/workers/worker.js (from source under vitest too: the build's copy). */
export function workerPath(): string {
  const f = packageFile('dist/workers/worker.js');
  if (existsSync(f)) return f;
  throw new Error(`worker not built: ${f} is missing (run npm run build)`);
}

/** The longest close() waits for that (a thread that never loads is stopped anyway). */
const LOAD_WAIT_MS = 10_000;

/**
 * A batch still running this long (ms) after its run was cancelled is stopped: piscina ends its
 * thread and starts another (~50-100 ms of start-up and JIT warm-up). A batch takes ~40 ms, so
 * the workbench's quick changes, whose batches end by themselves well within this, never pay
 * for a new thread; a slow chunk (minutes of a thousand-unit battle) frees its thread now rather
 * than when it is done.
 */
export const STOP_AFTER_MS = 400;
/** PoolExecutor.taskMs. */
export const TASK_MS_POOL = 120;

/** A worker thread threw or died while running a batch (a bug, or the machine: out of memory). */
export class WorkerFailure extends Error {}

/**
 * Chunks on `threads` worker threads. The workers start on the first task (or `warm()`), not
 * when the executor is made, so a run that never needs them (a tiny run done in-process) never
 * pays for starting them.
 */
export class PoolExecutor implements Executor {
  private pool: Promise<Piscina> | undefined;
  /** Settles once every thread of the pool has loaded its modules (its LOADED message). */
  private loaded: Promise<void> = Promise.resolve();
  private closing: Promise<void> = Promise.resolve();
  /** Every thread of the pool as it is now has loaded (false again while a replaced thread loads). */
  private allLoaded = false;
  /**
   * Tasks of a run that reads only its batches' sums (Executor.taskMs): a worker plays such a
   * batch a variant at a time across its chunks (BatchRun), so longer tasks save more calls'
   * fixed costs; a cancelled run's task is stopped STOP_AFTER_MS later whatever its length.
   */
  readonly taskMs = TASK_MS_POOL;
  /** Executor.inline: set by whoever owns the pool, before its first run (the command line: cli/common.ts executorOf). */
  inline?: Executor;
  constructor(readonly threads: number) {}
  readiness(): 'cold' | 'loading' | 'ready' {
    return !this.pool ? 'cold' : this.allLoaded ? 'ready' : 'loading';
  }
  /** Start the workers now (they load their modules while the caller does other work). */
  warm(): void {
    // piscina itself is loaded only here: a run that needs no workers never loads it. Required,
    // not imported: the command line's bundle runs as a vm.Script compiled from its code cache,
    // where import() has no loader (src/code-cache.ts).
    if (this.pool) return;
    let allLoaded = () => {};
    // The pool's own record of its threads' loading, kept until it is destroyed (this.loaded is the
    // current pool's): a thread that dies after close() began is still replaced by piscina until
    // destroy() is called, and its replacement loads like the first threads did.
    let current: Promise<void> = Promise.resolve();
    let destroying = false;
    // Threads started (each says LOADED once) and threads that have said it: a thread ended while
    // the pool runs (a cancelled batch stopped, or a worker that died) is replaced by piscina at
    // once, and the new one loads its modules like the first ones did.
    let started = this.threads;
    let loadedThreads = 0;
    const thisPool = (this.pool = Promise.resolve().then(() => {
      const { Piscina } = createRequire(import.meta.url)('piscina') as typeof import('piscina');
      const pool = new Piscina({
        filename: workerPath(),
        minThreads: this.threads,
        maxThreads: this.threads,
        idleTimeout: 60_000,
        // Each task is coarse; the engine keeps a short queue per thread so every core stays busy.
        concurrentTasksPerWorker: 1,
      });
      pool.on('message', (m: unknown) => {
        if (m === LOADED && ++loadedThreads >= started) allLoaded();
      });
      pool.on('workerDestroy', () => {
        if (destroying) return; // destroy() ends the threads: nothing replaces them
        if (loadedThreads >= started) loading();
        started++;
      });
      return pool;
    }));
    const loading = () => {
      const loaded = (current = new Promise<void>((resolve) => (allLoaded = resolve)));
      LOADING.add(loaded);
      void loaded.then(() => LOADING.delete(loaded));
      if (this.pool !== thisPool) return; // closing: stop() waits for it through the pool's own record
      this.allLoaded = false;
      this.loaded = loaded;
      void loaded.then(() => {
        if (this.loaded === loaded) this.allLoaded = true;
      });
    };
    loading();
    this.lives.set(thisPool, {
      async loaded() {
        // until no thread started while waiting is still loading (each wait at most LOAD_WAIT_MS)
        for (;;) {
          const l = current;
          await withinLoadWait(l);
          if (l === current) return;
        }
      },
      destroying() {
        destroying = true;
        LOADING.delete(current);
      },
    });
  }
  /** Each pool's own record of its threads' loading (warm), for stopping it safely (stop). */
  private lives = new WeakMap<Promise<Piscina>, { loaded(): Promise<void>; destroying(): void }>();
  /**
   * Run a batch on a thread. Once `signal` aborts, the batch's result is not wanted: a batch still
   * running STOP_AFTER_MS later is stopped (its thread ended and replaced), and the promise
   * rejects with CancelledError.
   */
  async run(task: BatchTask, opts: TaskOptions = {}): Promise<Float64Array> {
    const { signal } = opts;
    if (signal?.aborted) throw new CancelledError();
    this.warm();
    const pool = this.pool!;
    const stop = signal && this.stopper(signal);
    try {
      return (await (await pool).run(task, { signal: stop?.signal })) as Float64Array;
    } catch (e) {
      if (signal?.aborted) throw new CancelledError(); // stopped, or failed after the cancel: either way not wanted
      if (this.pool !== pool) throw e; // closing: the run has already failed or been cancelled
      const last = task.first + task.sizes.length - 1;
      const which = last > task.first ? `chunks ${task.first}-${last}` : `chunk ${task.first}`;
      const why = String((e as Error)?.message ?? e).split('\n')[0];
      throw new WorkerFailure(`a worker thread failed on ${which} of ${task.stream} (${task.system}): ${why}`, { cause: e });
    } finally {
      if (stop) this.stoppers.get(signal!)?.delete(stop);
    }
  }
  /** Batches of a run not yet returned, by the run's signal: one listener a run, however many are in flight. */
  private stoppers = new WeakMap<AbortSignal, Set<AbortController>>();
  /** What stops a batch of the run of `signal` (STOP_AFTER_MS after the run is cancelled). */
  private stopper(signal: AbortSignal): AbortController {
    let running = this.stoppers.get(signal);
    if (!running) {
      const batches = (running = new Set());
      this.stoppers.set(signal, batches);
      const stopAll = () => {
        for (const b of batches) b.abort();
      };
      // Stopping a batch ends the thread it was handed to, and that thread may still be loading
      // its modules: piscina hands batches to the threads it starts with at once, before they
      // have loaded (loading takes 0.4-3 s on a busy machine, longer than STOP_AFTER_MS). A thread
      // ended while it loads aborts the process (stop() below says why), so the stop waits until
      // the pool's threads have loaded. (unref: a process with nothing else left to do need not
      // wait to stop them)
      const stopLoaded = () => void withinLoadWait(this.loaded).then(stopAll);
      signal.addEventListener('abort', () => setTimeout(stopLoaded, STOP_AFTER_MS).unref(), { once: true });
    }
    const stop = new AbortController();
    running.add(stop);
    return stop;
  }
  /** Stop the threads; a second call (while or after they stop) waits for the same. */
  close(): Promise<void> {
    const p = this.pool;
    this.pool = undefined;
    if (p) this.closing = this.stop(p);
    return this.closing;
  }
  private async stop(p: Promise<Piscina>): Promise<void> {
    const pool = await p;
    // Never stop a thread while it loads its modules: piscina's worker loads ours with
    // require(), and Node 20's require() of an ES module, stopped in the middle, fails a V8
    // check that aborts the whole process ("FATAL ERROR: v8::Module::IsGraphAsync" or
    // "v8::ToLocalChecked Empty MaybeLocal", exit 134: 2 in 60 runs of a bad --trials, which
    // closes the early pool at once, on a loaded machine). The worker says LOADED once that
    // require() has returned (workers/worker.ts). A thread that died after close() began (a
    // worker failing mid-batch: the run fails and closes the pool while the other thread is still
    // in its batch) is replaced by piscina until destroy(), and its replacement is waited for too
    // (CI aborted once so on the worker-exit fault test).
    const life = this.lives.get(p)!;
    await life.loaded();
    life.destroying();
    await pool.destroy();
  }
}

/** The `loaded` promises of pools whose threads are still loading their modules. */
const LOADING = new Set<Promise<void>>();

/** `p`, or LOAD_WAIT_MS, whichever comes first. */
function withinLoadWait(p: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, LOAD_WAIT_MS)))]).finally(() => clearTimeout(timer));
}

/**
 * Undefined when no pool's threads are loading their modules; else a promise that settles once
 * they have (at most LOAD_WAIT_MS). An exit (process.exit on a signal) must wait for it: it stops
 * every thread, and one stopped while loading aborts the process (PoolExecutor.stop says why).
 */
export function threadsLoading(): Promise<void> | undefined {
  if (LOADING.size === 0) return undefined;
  return withinLoadWait(Promise.all(LOADING).then(() => undefined));
}

/** process.exit(code), once no pool's threads are loading their modules (threadsLoading). */
export function exitWhenThreadsLoaded(code: number): void {
  const loading = threadsLoading();
  if (loading) void loading.then(() => process.exit(code));
  else process.exit(code);
}
