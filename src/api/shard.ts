/** Shards: `run --shard k/n` and `merge` (docs/architecture.md "Scaling past one machine"). */
import type { ValidScenario } from '../scenario/validate.js';
import type { ScenarioResult } from '../systems/types.js';
import { CancelledError, chunkSize } from '../engine/run.js';
import { resultLength } from '../engine/chunk.js';
import { InlineExecutor } from '../engine/executor.js';
import { assembleResult, compilePoints, jobsOf, type RunScenarioOptions } from './run.js';

/** One shard's work: every n-th chunk of every sweep point, kept chunk by chunk. */
export interface ShardData {
  k: number;
  n: number;
  seed: string | number;
  trials: number;
  /** Per sweep point: [chunk index, its buffer]. */
  chunks: [number, Float64Array][][];
}

/** How many chunks each case of a run of `trials` trials is cut into. */
export function chunkCount(v: ValidScenario, trials: number): number {
  return Math.ceil(trials / v.system.chunkTrials);
}

/** The shards (1-based) of n that get no chunk: every one past the run's chunk count. */
export function emptyShards(v: ValidScenario, trials: number, n: number): number[] {
  const out: number[] = [];
  for (let k = chunkCount(v, trials) + 1; k <= n; k++) out.push(k);
  return out;
}

/** Chunks of a run, and which of them shard k of n runs (chunk i goes to shard i mod n + 1). */
export function shardChunks(v: ValidScenario, trials: number, k: number, n: number): number[] {
  const total = chunkCount(v, trials);
  const out: number[] = [];
  for (let i = k - 1; i < total; i += n) out.push(i);
  return out;
}

/** Run shard k of n: the same dice each chunk would roll in one big run. */
export async function runShard(
  v: ValidScenario,
  k: number,
  n: number,
  opts: Pick<RunScenarioOptions, 'trials' | 'seed' | 'executor' | 'signal' | 'onProgress'> = {},
): Promise<ShardData> {
  const sys = v.system;
  const seed = opts.seed ?? v.seed;
  const trials = opts.trials ?? v.trials;
  const jobs = jobsOf(v, compilePoints(v));
  const exec = opts.executor ?? new InlineExecutor();
  const mine = shardChunks(v, trials, k, n);
  const planned = mine.length * jobs.length;
  let done = 0;
  // Every chunk of this shard, at most two per thread in flight (a cancelled run stops soon).
  const work = jobs.flatMap((job, g) => mine.map((i, j) => ({ job, g, i, j })));
  const chunks: [number, Float64Array][][] = jobs.map(() => new Array(mine.length));
  let next = 0;
  const lane = async () => {
    while (next < work.length) {
      const { job, g, i, j } = work[next++];
      if (opts.signal?.aborted) throw new CancelledError();
      const buf = await exec.run({
        system: job.system,
        compiled: job.compiled,
        accLengths: job.accLengths,
        pairedSlots: job.pairedSlots,
        seed,
        stream: job.stream,
        first: i,
        sizes: [chunkSize(i, trials, sys.chunkTrials)],
      });
      chunks[g][j] = [i, buf];
      opts.onProgress?.(++done, planned);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, exec.threads) * 2 }, lane));
  return { k, n, seed, trials, chunks };
}

/** A problem with a set of shards (the CLI prints it and exits 2). */
export class ShardError extends Error {}

/**
 * Merge shards into the result one run would give, byte for byte: every chunk present once,
 * summed in chunk order.
 */
export function mergeShards(v: ValidScenario, shards: ShardData[], meta: { threads: number; seconds: number }): ScenarioResult {
  if (shards.length === 0) throw new ShardError('no shards given');
  const { seed, trials, n } = shards[0];
  for (const s of shards) {
    if (s.seed !== seed || s.trials !== trials || s.n !== n) throw new ShardError(`shard ${s.k}/${s.n} was run with another seed, trial count or shard count`);
  }
  const points = compilePoints(v);
  const jobs = jobsOf(v, points);
  const total = chunkCount(v, trials);
  const outcomes = jobs.map((job, g) => {
    const byIndex = new Map<number, Float64Array>();
    for (const s of shards) {
      const list = s.chunks[g];
      if (!list) throw new ShardError(`shard ${s.k}/${s.n} has no chunks for sweep point ${g + 1}`);
      for (const [i, buf] of list) {
        if (byIndex.has(i)) throw new ShardError(`chunk ${i} of sweep point ${g + 1} is in two shards`);
        byIndex.set(i, buf);
      }
    }
    const missing: number[] = [];
    for (let i = 0; i < total; i++) if (!byIndex.has(i)) missing.push(i);
    if (missing.length > 0) {
      const shardsMissing = [...new Set(missing.map((i) => (i % n) + 1))].sort((a, b) => a - b);
      throw new ShardError(`missing chunks ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', ...' : ''} of sweep point ${g + 1}: shard(s) ${shardsMissing.join(', ')} of ${n} not given`);
    }
    const merged = new Float64Array(resultLength(job));
    for (let i = 0; i < total; i++) {
      const r = byIndex.get(i)!;
      for (let x = 0; x < merged.length; x++) merged[x] += r[x];
    }
    return { merged, trials };
  });
  return assembleResult(v, points, jobs, outcomes, { seed, trials, threads: meta.threads, seconds: meta.seconds });
}
