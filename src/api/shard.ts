/** Shards: `run --shard k/n` and `merge` (docs/architecture.md "Scaling past one machine"). */
import type { ValidScenario } from '../scenario/validate.js';
import type { ScenarioResult } from '../systems/types.js';
import { CancelledError, chunkSize } from '../engine/run.js';
import { resultLength } from '../engine/chunk.js';
import { inlineExecutor } from './executors.js';
import { assembleResult, compilePoints, jobsOf, type RunScenarioOptions } from './run.js';
import type { GroupJob } from '../engine/run.js';
import type { Metric, RulesSystem } from '../systems/types.js';

/** One shard's work: every n-th chunk of every sweep point, kept chunk by chunk. */
export interface ShardData {
  k: number;
  n: number;
  seed: string | number;
  trials: number;
  /** Per sweep point: [chunk index, its buffer]. */
  chunks: [number, Float64Array][][];
  /** The file it was read from, to name it in a problem (absent for a shard in memory). */
  file?: string;
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
  const exec = opts.executor ?? inlineExecutor();
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
        ...(job.pairedCodes !== undefined ? { pairedCodes: job.pairedCodes } : {}),
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

/** A shard as a problem names it: its file and place (`sh/g.3.json (shard 3/3)`), or its place alone. */
function shardName(s: ShardData): string {
  return s.file !== undefined ? `${s.file} (shard ${s.k}/${s.n})` : `shard ${s.k}/${s.n}`;
}

const countText = (x: number) => x.toLocaleString('en-US');

/**
 * The settings the shards ran with that differ from the scenario file's own (`trials`, `seed`):
 * what their command lines set over the file, as far as it changes a number. A merged report
 * records them as its overrides, so that running its scenario.yaml with them gives its CSVs.
 */
export function shardOverrides(v: ValidScenario, shards: readonly ShardData[]): { trials?: number; seed?: string | number } {
  if (shards.length === 0) return {};
  const { trials, seed } = shards[0];
  return { ...(trials !== v.trials ? { trials } : {}), ...(seed !== v.seed ? { seed } : {}) };
}

/**
 * Merge shards into the result one run would give, byte for byte: every chunk present once,
 * summed in chunk order. Its provenance says it was merged (`merged`: the shard count n of
 * `--shard k/n` and how many shards were given); its threads and seconds are 0, the shards'
 * own being in no shard file.
 */
export function mergeShards(v: ValidScenario, shards: ShardData[]): ScenarioResult {
  if (shards.length === 0) throw new ShardError('no shards given');
  const first = shards[0];
  const { seed, trials, n } = first;
  for (const s of shards) {
    const differs = [
      ...(s.seed !== seed ? [`seed ${JSON.stringify(s.seed)}, not ${JSON.stringify(seed)}`] : []),
      ...(s.trials !== trials ? [`${countText(s.trials)} trials, not ${countText(trials)}`] : []),
      ...(s.n !== n ? [`split in ${countText(s.n)} shards, not ${countText(n)}`] : []),
    ];
    if (differs.length > 0) throw new ShardError(`${shardName(s)} was run with ${differs.join(', ')} as ${shardName(first)}: shards of one run share its seed, trials and shard count`);
  }
  const points = compilePoints(v);
  const jobs = jobsOf(v, points);
  const total = chunkCount(v, trials);
  const outcomes = jobs.map((job, g) => {
    const byIndex = new Map<number, { buf: Float64Array; from: ShardData }>();
    for (const s of shards) {
      const list = s.chunks[g];
      if (!list) throw new ShardError(`${shardName(s)} has no chunks for sweep point ${g + 1}`);
      for (const [i, buf] of list) {
        const seen = byIndex.get(i);
        if (seen) throw new ShardError(`chunk ${i} of sweep point ${g + 1} is in two shards: ${shardName(seen.from)} and ${shardName(s)}`);
        byIndex.set(i, { buf, from: s });
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
      const r = byIndex.get(i)!.buf;
      for (let x = 0; x < merged.length; x++) merged[x] += r[x];
    }
    return { merged, trials };
  });
  const result = assembleResult(v, points, jobs, outcomes, { seed, trials, threads: 0, seconds: 0 });
  result.provenance.merged = { shards: n, given: shards.length };
  return result;
}

/**
 * What one chunk's result buffer must mean, beyond its bytes: a shard whose
 * checksum was recomputed after its slots were edited (to 1e308, or outcome counts of 5x the
 * trials) would otherwise merge into a nonsense report such as p_surrender 2.5e+301. Each variant's accumulator is read through its
 * system's own `summarize` (which knows the layout) and every metric and curve point must be
 * possible for `trials` trials: counts whole and within [0, trials], successes within [0, n],
 * a mean's sums within the values one observation can take (its `range`, where the system
 * declares one) and Σx² ≥ (Σx)²/n; the outcome partitions (`RulesSystem.outcomes`) sum to the
 * trials; each paired difference's Σd is the variant's slot minus the baseline's and Σd² lies
 * in [(Σd)²/trials, trials·w²] (w the widest a per-trial difference can be). A system may add
 * checks of slots no metric reads (`RulesSystem.checkAccumulator`). Returns the first problem
 * ("p_surrender counts 5,000 successes in 1,000 trials"), or undefined when the chunk is possible.
 */
export function checkChunkMeaning(
  sys: RulesSystem,
  job: Pick<GroupJob, 'compiled' | 'accLengths' | 'pairedSlots'>,
  buf: Float64Array,
  trials: number,
  /** The variants' names, to say whose numbers are impossible (default: variant 1, 2, ...). */
  variantNames?: readonly string[],
): string | undefined {
  const accs: Float64Array[] = [];
  let off = 0;
  for (const l of job.accLengths) {
    accs.push(buf.subarray(off, off + l));
    off += l;
  }
  const variants = job.compiled.length;
  const nameOf = (vi: number) => (variants > 1 ? ` (variant ${variantNames?.[vi] ?? vi + 1})` : '');
  const summaries = [];
  for (let vi = 0; vi < variants; vi++) {
    const acc = accs[vi];
    const who = nameOf(vi);
    if (!Number.isFinite(acc[0]) || acc[0] !== trials) return `counts ${acc[0]} trials, not ${trials}${who}`;
    for (let i = 0; i < acc.length; i++) if (!Number.isFinite(acc[i])) return `slot ${i}${who} is not a finite number (${acc[i]})`;
    let summary;
    try {
      summary = sys.summarize(job.compiled[vi], acc);
    } catch (e) {
      return `cannot be summarized${who}: ${(e as Error).message}`;
    }
    summaries.push(summary);
    for (const [name, m] of Object.entries(summary.metrics)) {
      const p = metricImpossible(m, trials);
      if (p) return `${name}${who} ${p}`;
    }
    for (const [name, points] of Object.entries(summary.curves)) {
      for (const pt of points) {
        const p = metricImpossible(pt.m, trials);
        if (p) return `${name}[${Object.entries(pt.x).map(([k, x]) => `${k}=${x}`).join(', ')}]${who} ${p}`;
      }
    }
    for (const part of sys.outcomes ?? []) {
      const here = part.filter((n) => Object.hasOwn(summary.metrics, n));
      if (here.length !== part.length) continue;
      const sum = here.reduce((a, n) => a + (summary.metrics[n].k ?? 0), 0);
      if (sum !== trials) return `outcomes ${here.join(' + ')}${who} count ${sum} trials, not ${trials}`;
    }
    const own = sys.checkAccumulator?.(job.compiled[vi], acc);
    if (own) return `${own}${who}`;
  }
  // the paired sums after the accumulators: (variant v, metric p) -> Σd, Σd²
  const P = job.pairedSlots[0]?.length ?? 0;
  const names = P > 0 ? sys.pairedSlots(job.compiled[0]).map((s) => s.metric) : [];
  for (let vi = 1; vi < variants; vi++) {
    for (let p = 0; p < P; p++) {
      const j = off + ((vi - 1) * P + p) * 2;
      const sd = buf[j];
      const sd2 = buf[j + 1];
      const name = `diff_${names[p]}${nameOf(vi)}`;
      const slot = job.pairedSlots[vi][p];
      if (slot < 0) {
        if (sd !== 0 || sd2 !== 0) return `${name} has paired sums for a metric the variant does not pair`;
        continue;
      }
      const expected = accs[vi][slot] - accs[0][job.pairedSlots[0][p]];
      if (Math.abs(sd - expected) > 1e-9 * Math.max(1, Math.abs(accs[vi][slot]) + Math.abs(accs[0][job.pairedSlots[0][p]]))) {
        return `${name} sums its differences to ${sd}, not the variant's ${accs[vi][slot]} minus the baseline's ${accs[0][job.pairedSlots[0][p]]}`;
      }
      const m = summaries[0].metrics[names[p]] as Metric | undefined;
      const width = m?.kind === 'probability' ? 1 : m?.range ? m.range[1] - m.range[0] : Infinity;
      const lowest = trials > 0 ? (sd * sd) / trials : 0;
      if (!(sd2 >= lowest * (1 - 1e-12) - 1e-9) || sd2 > trials * width * width * (1 + 1e-12)) {
        return `${name} has a sum of squared differences ${sd2}, impossible for ${trials} trials with a sum of ${sd}`;
      }
    }
  }
  return undefined;
}

/** Why a metric's counts cannot come from `trials` trials (undefined when they can). */
function metricImpossible(m: Metric, trials: number): string | undefined {
  const whole = (x: number) => Number.isInteger(x) && x >= 0;
  if (!whole(m.n) || m.n > trials) return `counts ${m.n} observations in ${trials} trials`;
  if (m.kind === 'probability') {
    const k = m.k ?? NaN;
    if (!whole(k) || k > m.n) return `counts ${k} successes in ${m.n} trials`;
    return undefined;
  }
  const sum = m.sum ?? 0;
  const sumSq = m.sumSq ?? 0;
  if (!Number.isFinite(sum) || !Number.isFinite(sumSq)) return `has sums that are not finite`;
  if (m.n === 0) return sum === 0 && sumSq === 0 ? undefined : `has sums ${sum} and ${sumSq} over no observation`;
  const tol = (x: number) => 1e-9 * Math.max(1, Math.abs(x));
  if (m.range) {
    const [lo, hi] = m.range;
    if (sum < m.n * lo - tol(m.n * lo) || sum > m.n * hi + tol(m.n * hi)) return `sums to ${sum} over ${m.n} observations, outside ${m.n} x [${lo}, ${hi}]`;
    const top = m.n * Math.max(lo * lo, hi * hi);
    if (sumSq > top + tol(top)) return `has a sum of squares ${sumSq}, more than ${m.n} observations of at most |${Math.max(Math.abs(lo), Math.abs(hi))}| can give`;
  }
  const least = (sum * sum) / m.n;
  if (sumSq < least - tol(least)) return `has a sum of squares ${sumSq} below (Σx)²/n = ${least}: impossible`;
  return undefined;
}
