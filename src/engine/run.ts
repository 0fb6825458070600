/**
 * Plan, run and merge phases. Trials are cut into fixed-size chunks; chunk i of a sweep point
 * always draws from the stream deriveState(seed, point key, i), and merged buffers are summed
 * in chunk order, so results depend only on (scenario, seed, trials) — never on the number of
 * threads, on scheduling, on how chunks are batched into tasks, or on how the run is split.
 *
 * Scheduling: chunks go out in batches (consecutive chunks of one point in one task, sized so a
 * task takes ~`taskMs`), chunk index by chunk index across points, with at most two tasks per
 * thread in flight. Nothing else is queued, so a cancelled run starts no new batch (the executor
 * is told, and the pool stops a batch of it still running STOP_AFTER_MS later, engine/pool.ts)
 * and a failed batch stops the run at once.
 *
 * Open-ended runs (`more`: `--precision`, balance assertions, the workbench's refinement) ask
 * after every merged chunk, once the first `trials` are in, whether to run another. The answer
 * depends only on the merged buffer, so where a run stops is as deterministic as its dice;
 * chunks run ahead speculatively to keep the threads busy, and any past the stopping point are
 * dropped unmerged.
 */
import { resultLength, type BatchTask, type PairedCodes } from './chunk.js';
import { CancelledError, type Executor } from './executor.js';

export { CancelledError };

/** One sweep point: its variants' compiled cases run together on the same dice. */
export interface GroupJob {
  /** Stream key: which dice this point rolls. */
  stream: string;
  system: string;
  compiled: unknown[];
  accLengths: number[];
  pairedSlots: number[][];
  /** The metrics each case can pair from codes of its one-hot groups (engine/chunk.ts PairedCodes); absent: none. */
  pairedCodes?: PairedCodes;
}

export interface RunOptions {
  seed: string | number;
  /** Trials per group; with `more`, the trials run before it is first asked. */
  trials: number;
  chunkTrials: number;
  /**
   * Open-ended runs: asked at every chunk boundary once a group's first `trials` are merged;
   * true runs one more chunk (up to `maxTrials`). It must depend only on its arguments.
   */
  more?: (group: number, merged: Float64Array, trials: number) => boolean;
  /** Cap on trials per group (default: none, or 1e9 for open-ended runs). The last chunk is cut to fit. */
  maxTrials?: number;
  onProgress?: (doneTrials: number, plannedTrials: number) => void;
  /** A group's merged buffer after each chunk merged in order (progressive answers). Do not keep it. */
  onPartial?: (group: number, merged: Float64Array, trials: number) => void;
  /** Aborting rejects the run at once; no new batch is started. */
  signal?: AbortSignal;
  /** Aimed-at wall time of one task, ms (default 40): batches grow until a task takes about this long. */
  taskMs?: number;
  /**
   * An executor in this thread, run instead of a pool's for a run of one chunk in all, and while
   * the pool is cold (see BOOT_MS).
   */
  inline?: Executor;
  /** Filled in by the run: how many of its tasks ran on the executor it was given, not on `inline` (a run's provenance says which threads ran it). */
  ran?: { tasks: number };
  /**
   * What a cold pool must earn back before it is started, ms: by default BOOT_MS plus a thread's
   * setup as this run measured it. Tests set it whole (0: at the first judgement; 1e9: never).
   */
  poolStartMs?: number;
  /**
   * The jobs' compiled cases are the run's alone (made for it, dropped after it): once a group's
   * chunks are all merged and none of its tasks is still running, the executors are told they
   * may drop what the kernel keeps for its cases (Executor.release). A sweep of thousands of
   * points then holds one point's tables at a time, not every point's until the run ends.
   */
  release?: boolean;
}

export interface GroupOutcome {
  merged: Float64Array;
  trials: number;
  chunks: number;
  /** True when `more` still asked for trials when `maxTrials` stopped the group. */
  capped: boolean;
}

/**
 * A run given a cold pool (never asked to start: no early pool, no server warming it) and an
 * executor in this thread does its chunks here, and starts the pool only once it looks worth
 * it (poolPays): the pool's threads save a share of the work left, and cost their start first.
 *
 *     work x (1 - 1 / (THREAD_EFFICIENCY x threads)) >= BOOT_MS + setup
 *
 * - work: the run's committed chunks not yet merged times this thread's steady time per chunk,
 *   plus this thread's kernel time in the command's earlier runs on this pool (a solve or a
 *   sensitivity is many small runs). The steady time is taken from the run's second task on
 *   (the first builds the cases' tables and runs before V8 has compiled the kernels, 10-30x a
 *   later chunk), and from tasks past a sweep point's first chunk or long enough to outweigh
 *   its tables (STEADY_TASK_CHUNKS); a sweep still at its points' first chunks is judged on its
 *   time per chunk so far once it has spent 2 x BOOT_MS, and a command's later runs from their
 *   first task (their kernels are compiled). What this run has already spent does not count
 *   (the pool would not take it back), except in an open-ended run (`--precision`, a `test`'s
 *   looks), which commits a chunk at a time: there its time so far stands for what is to come.
 * - BOOT_MS: the threads' load before their first chunk (~0.35-0.5 s, two threads, this
 *   machine class), while this thread goes on with the chunks;
 * - setup: the first task's time over its chunks' steady time, what each thread pays again
 *   before its first chunk (its cases' tables, its kernels compiled: a Crusader Rex siege's
 *   walk ~0.15-0.4 s, a surrender run almost none).
 *
 * Its chunks go to the pool from the moment its threads have loaded. Where chunks run never
 * changes a result (the module comment); a command that stays under this never starts the pool.
 */
export const BOOT_MS = 450;
/**
 * What each of a pool's threads adds, as a share of one thread alone. Measured on two cores (two
 * vCPUs), whole `siegesim run`s against `--threads 1` (docs/performance.md, "the default thread
 * count"): two threads run 1.3-1.8x one, and a pool started at once lost below ~2 s of kernel
 * work (the reference battle at 1 M trials a case 2.7 s against 1.7 s, `case-b-old-siege` at 3 M
 * 2.7 s against 2.5 s, `hopeless-citadel`'s own run 2.1 s against 1.7 s) and gained past it (the
 * reference battle at 3 M 3.0 s against 3.65 s, `heavy-guns-grid` 3.5 s against 5.7 s). On more
 * cores than two, a guess that errs on the side of one thread. Judged as before (the first
 * chunk's time and all time spent, against 800 ms), most bundled files' own runs started the
 * pool to their loss.
 */
export const THREAD_EFFICIENCY = 0.75;

/**
 * A task that starts a sweep point builds its cases' tables (a Crusader Rex siege's walk, a Cry
 * Havoc case's) before its first chunk: its time per chunk is believed as steady from this many
 * chunks on, where they outweigh the tables.
 */
export const STEADY_TASK_CHUNKS = 4;

/** Whether a cold pool of `threads` is worth starting now: the work left against what starting it costs (BOOT_MS + setup), in ms. */
export function poolPays(workMs: number, threads: number, startMs: number): boolean {
  return workMs * (1 - 1 / Math.max(1, THREAD_EFFICIENCY * threads)) >= startMs;
}
/**
 * A time per chunk so far (0: none yet) with a new one: a faster one believed at once (the first
 * chunks run before the kernel is compiled, ~20x slower), a slower one smoothed in.
 */
function believed(was: number, now: number): number {
  return was === 0 || now < was ? now : 0.7 * was + 0.3 * now;
}

/** The calling thread's kernel time (ms) on behalf of each cold pool, over its runs. */
const deferred = new WeakMap<Executor, { spent: number }>();

/**
 * With RunOptions.release, the groups (sweep points) run at once: the first this many not done.
 * A fantasy case's state is ~0.7 MB (its volley memo and dice tables): 64 points of two variants
 * hold ~90 MB. Where chunks run never changes a result, so neither does this.
 */
export const RELEASE_WINDOW = 64;

/** Trials in chunk i when the first chunks are full (size C) and `trials` are planned. */
export function chunkSize(i: number, trials: number, C: number): number {
  return Math.max(0, Math.min(C, trials - i * C));
}

interface GroupState {
  merged: Float64Array;
  len: number;
  /** Chunks the group will certainly run (grows by one each time `more` says yes). */
  limit: number;
  nextSubmit: number;
  nextMerge: number;
  trials: number;
  pending: Map<number, Float64Array>;
  done: boolean;
  capped: boolean;
  /** Its tasks not yet returned. */
  inflight: number;
  released: boolean;
}

/** Run every group to its planned trials (and stop rule), merging in chunk order. */
export function runGroups(jobs: readonly GroupJob[], opts: RunOptions, exec: Executor): Promise<GroupOutcome[]> {
  const C = opts.chunkTrials;
  const open = opts.more !== undefined;
  const cap = opts.maxTrials ?? (open ? 1_000_000_000 : Infinity);
  const initial = Math.min(opts.trials, cap);
  const nInitial = Math.ceil(initial / C);
  const nMax = open ? nInitial + Math.ceil(Math.max(0, cap - initial) / C) : nInitial;
  const sizeOf = (i: number) => (i < nInitial ? chunkSize(i, initial, C) : Math.max(0, Math.min(C, cap - initial - (i - nInitial) * C)));
  // One chunk in all: not worth starting worker threads for (their start-up costs more), and a
  // chunk can only use one thread anyway. However slow it is, the in-process executor runs it in
  // slices with turns of the event loop between them: Ctrl-C, progress and the ETA line still work.
  const oneChunk = exec.threads > 0 && !open && nInitial * jobs.length <= 1 && opts.inline !== undefined;
  // A cold pool: this thread runs the chunks until the pool is worth starting (poolPays) and has loaded.
  let defer: { spent: number } | undefined;
  if (!oneChunk && exec.threads > 0 && opts.inline && exec.readiness && exec.warm) {
    const state = exec.readiness();
    defer = deferred.get(exec);
    if (!defer && state === 'cold') deferred.set(exec, (defer = { spent: 0 }));
    if (state === 'ready') defer = undefined;
  }
  let runner: Executor = oneChunk || defer ? opts.inline! : exec;
  let maxInflight = Math.max(1, runner.threads) * 2;
  // a run that reads only its batches' sums: the batches' calls hold their sums (BatchRun), longer as the executor allows
  const whole = !open && opts.onPartial === undefined;
  const taskMs = opts.taskMs ?? (whole ? exec.taskMs : undefined) ?? 40;
  let inlineFree = 0; // when this thread's last chunk here ended (a queued batch's wait is not its work)
  const spentBefore = defer?.spent ?? 0; // the command's earlier runs' kernel time here (on a cold pool)
  let firstMs = 0; // this thread's time on the run's first task (its cases' tables, its kernels not yet compiled)
  let firstChunks = 0;
  let steadyMs = 0; // this thread's time per chunk in this run from its second task on (smoothed as msPerChunk)

  const groups: GroupState[] = jobs.map((j) => {
    const len = resultLength(j);
    return { merged: new Float64Array(len), len, limit: nInitial, nextSubmit: 0, nextMerge: 0, trials: 0, pending: new Map(), done: nInitial === 0, capped: false, inflight: 0, released: false };
  });
  let inflight = 0;
  let doneTrials = 0;
  let unmerged = 0; // trials the executor says it has run in tasks not yet returned (progress only)
  let batch = 1; // chunks per task, from measured time per chunk
  let msPerChunk = 0;
  let finished = false;

  return new Promise<GroupOutcome[]>((resolve, reject) => {
    const fail = (e: unknown) => {
      if (finished) return;
      finished = true;
      opts.signal?.removeEventListener('abort', onAbort);
      reject(e);
    };
    const onAbort = () => fail(new CancelledError());
    if (opts.signal?.aborted) return fail(new CancelledError());
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    let planned = groups.length * initial; // grows as open-ended groups commit more chunks

    /** Merge what has arrived, in chunk order; decide at each boundary whether to go on. */
    const mergeReady = (gi: number) => {
      const g = groups[gi];
      while (!g.done) {
        const r = g.pending.get(g.nextMerge);
        if (!r) break;
        g.pending.delete(g.nextMerge);
        const m = g.merged;
        for (let k = 0; k < m.length; k++) m[k] += r[k];
        g.trials += sizeOf(g.nextMerge);
        g.nextMerge++;
        opts.onPartial?.(gi, g.merged, g.trials);
        if (g.nextMerge < g.limit) continue;
        if (open && opts.more!(gi, g.merged, g.trials)) {
          if (g.limit < nMax && sizeOf(g.limit) > 0) {
            planned += sizeOf(g.limit);
            g.limit++;
            continue;
          }
          g.capped = true;
        }
        g.done = true;
        g.pending.clear(); // chunks run ahead past the stopping point are dropped
      }
    };

    /**
     * The next batch to start: the group furthest behind (chunk index), then the lowest group;
     * with `release`, among the first RELEASE_WINDOW groups not done, so that a sweep of
     * thousands of points holds that many points' kernel state at once, each dropped as its
     * point ends, not every point's until the last chunk of the run.
     */
    const nextBatch = (): { gi: number; first: number; count: number } | undefined => {
      let best = -1;
      let left = 0; // committed chunks not yet submitted (for the share below)
      let live = 0; // groups not done so far (with release: at most RELEASE_WINDOW of them take batches)
      for (let gi = 0; gi < groups.length; gi++) {
        const g = groups[gi];
        if (g.done) continue;
        left += g.limit - g.nextSubmit;
        if (opts.release && live++ >= RELEASE_WINDOW) continue;
        // committed chunks, or (open-ended) speculative ones a little ahead of the decision
        const reach = open ? Math.min(nMax, g.limit + batch * maxInflight) : g.limit;
        if (g.nextSubmit >= reach || sizeOf(g.nextSubmit) === 0) continue;
        if (best < 0 || g.nextSubmit < groups[best].nextSubmit) best = gi;
      }
      if (best < 0) return undefined;
      const g = groups[best];
      const reach = open ? Math.min(nMax, g.limit + batch * maxInflight) : g.limit;
      // Near the end, smaller batches (guided scheduling): a task never takes more than a share
      // of the committed chunks left, so the threads finish together instead of one idling
      // through the other's last full-size task.
      // (Open-ended runs keep whole batches: their end is not known in advance.)
      const share = open ? batch : Math.ceil(left / (2 * Math.max(1, runner.threads)));
      let count = Math.min(batch, share, reach - g.nextSubmit);
      while (count > 1 && sizeOf(g.nextSubmit + count - 1) === 0) count--;
      return { gi: best, first: g.nextSubmit, count };
    };

    /** Start the cold pool once the command's work here looks long enough; use it once loaded. */
    const deferToPool = () => {
      if (!defer) return;
      const state = exec.readiness!();
      if (state === 'ready') {
        runner = exec;
        maxInflight = Math.max(1, exec.threads) * 2;
        defer = undefined;
        return;
      }
      if (state !== 'cold') return;
      // the steady time per chunk; else (a sweep still at its points' first chunks, with their
      // tables) the time per chunk so far, once the run has spent 2 x BOOT_MS at it, or once a
      // command's earlier runs have compiled the kernels
      const per = steadyMs > 0 ? steadyMs : spentBefore > 0 || defer.spent - spentBefore >= 2 * BOOT_MS ? msPerChunk : 0;
      if (per === 0) return;
      let left = 0; // committed chunks not yet merged
      for (const g of groups) if (!g.done) left += g.limit - g.nextMerge;
      // what each thread of the pool pays again before its first chunk: the first task's time over its chunks'
      const setup = Math.max(0, firstMs - firstChunks * per);
      // an open-ended run (--precision, a test's looks) commits a chunk at a time: its time so far stands for what is to come
      const ahead = open ? defer.spent - spentBefore : 0;
      if (poolPays(left * per + spentBefore + ahead, exec.threads, opts.poolStartMs ?? BOOT_MS + setup)) exec.warm!();
    };

    const pump = () => {
      if (finished) return;
      deferToPool();
      while (inflight < maxInflight) {
        const b = nextBatch();
        if (!b) break;
        const g = groups[b.gi];
        const job = jobs[b.gi];
        g.nextSubmit = b.first + b.count;
        const sizes: number[] = [];
        for (let j = 0; j < b.count; j++) sizes.push(sizeOf(b.first + j));
        const task: BatchTask = {
          system: job.system,
          compiled: job.compiled,
          accLengths: job.accLengths,
          pairedSlots: job.pairedSlots,
          ...(job.pairedCodes !== undefined ? { pairedCodes: job.pairedCodes } : {}),
          seed: opts.seed,
          stream: job.stream,
          first: b.first,
          sizes,
          ...(whole ? { whole: true } : {}),
        };
        inflight++;
        g.inflight++;
        const on = runner;
        if (on === exec && opts.ran) opts.ran.tasks++;
        const t0 = performance.now();
        let running = 0; // trials of this task run so far, as the executor says (a slow in-process chunk)
        const onTrials = (n: number) => {
          if (finished) return;
          unmerged += n - running;
          running = n;
          opts.onProgress?.(Math.min(planned, doneTrials + unmerged), planned);
        };
        on.run(task, { signal: opts.signal, onTrials }).then(
          (out) => {
            inflight--;
            g.inflight--;
            unmerged -= running;
            if (finished) return;
            const t1 = performance.now();
            // Batch size from the time per chunk (smoothed; a task waits about one task's time in
            // the queue when workers are busy). Only the overhead depends on it, never results.
            let per = (t1 - t0) / b.count / (on.threads > 0 ? 2 : 1);
            if (on !== exec && defer) {
              // this thread's own time on the task (it ran after the one before it), what the pool is judged on
              const own = t1 - Math.max(t0, inlineFree);
              defer.spent += own;
              inlineFree = t1;
              per = own / b.count;
              if (firstChunks === 0) {
                firstMs = own;
                firstChunks = b.count;
              } else if (b.first > 0 || b.count >= STEADY_TASK_CHUNKS) steadyMs = believed(steadyMs, per);
            }
            msPerChunk = believed(msPerChunk, per);
            batch = Math.max(1, Math.min(64, Math.round(taskMs / Math.max(msPerChunk, 1e-3))));
            if (!g.done) {
              for (let j = 0; j < b.count; j++) g.pending.set(b.first + j, out.subarray(j * g.len, (j + 1) * g.len));
              const before = g.trials;
              mergeReady(b.gi);
              doneTrials += g.trials - before;
              opts.onProgress?.(doneTrials, planned);
            }
            if (opts.release && g.done && g.inflight === 0 && !g.released) {
              g.released = true;
              opts.inline?.release?.(job);
              if (exec !== opts.inline) exec.release?.(job);
            }
            pump();
          },
          (e) => {
            inflight--;
            fail(e);
          },
        );
      }
      if (inflight === 0 && !finished) {
        finished = true;
        opts.signal?.removeEventListener('abort', onAbort);
        resolve(groups.map((g) => ({ merged: g.merged, trials: g.trials, chunks: g.nextMerge, capped: g.capped })));
      }
    };
    pump();
  });
}
