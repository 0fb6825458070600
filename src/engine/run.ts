/**
 * Plan, run and merge phases. Trials are cut into fixed-size chunks; chunk i of a sweep point
 * always draws from the stream deriveState(seed, point key, i), and merged buffers are summed
 * in chunk order, so results depend only on (scenario, seed, trials) — never on the number of
 * threads, on scheduling, or on how the run is split.
 */
import { deriveState } from './rng.js';
import { resultLength, type ChunkTask } from './chunk.js';
import type { Executor } from './executor.js';

/** One sweep point: its variants' compiled cases run together on the same dice. */
export interface GroupJob {
  /** Stream key: which dice this point rolls. */
  stream: string;
  system: string;
  compiled: unknown[];
  accLengths: number[];
  pairedSlots: number[][];
}

export interface RunOptions {
  seed: string | number;
  trials: number;
  chunkTrials: number;
  /** `--precision E`: keep adding chunks until `widest(group, merged)` ≤ E. */
  precision?: number;
  /** Widest headline half-width of a group's merged buffer (used with `precision`). */
  widest?: (group: number, merged: Float64Array) => number;
  /** Cap on trials per point when narrowing to a precision. */
  maxTrials?: number;
  onProgress?: (doneTrials: number, plannedTrials: number) => void;
  /** Cancelled runs stop submitting chunks and reject. */
  signal?: AbortSignal;
}

export interface GroupOutcome {
  merged: Float64Array;
  trials: number;
  chunks: number;
  /** True when --precision was asked for and the cap stopped the run first. */
  capped: boolean;
}

/** Trials in chunk i when the first chunks are full (size C) and `trials` are planned. */
export function chunkSize(i: number, trials: number, C: number): number {
  return Math.max(0, Math.min(C, trials - i * C));
}

/** Run every group to its planned trials (and precision), merging in chunk order. */
export async function runGroups(jobs: readonly GroupJob[], opts: RunOptions, exec: Executor): Promise<GroupOutcome[]> {
  const C = opts.chunkTrials;
  const initialChunks = Math.ceil(opts.trials / C);
  // planned[g] = chunks planned for group g; chunks beyond the initial plan are full size.
  const planned = jobs.map(() => initialChunks);
  const trialsDone = jobs.map(() => 0);
  const merged = jobs.map((j) => new Float64Array(resultLength(j)));
  const done = jobs.map(() => 0); // chunks merged so far
  const capped = jobs.map(() => false);
  const maxTrials = opts.maxTrials ?? 1_000_000_000;
  let doneTrials = 0;
  const sizeOf = (i: number) => (i < initialChunks ? chunkSize(i, opts.trials, C) : C);

  for (;;) {
    let totalPlanned = 0;
    for (let g = 0; g < jobs.length; g++) for (let i = 0; i < planned[g]; i++) totalPlanned += sizeOf(i);
    const rounds: Promise<void>[] = [];
    for (let g = 0; g < jobs.length; g++) {
      const job = jobs[g];
      const first = done[g];
      const last = planned[g];
      if (first >= last) continue;
      const results: (Float64Array | undefined)[] = new Array(last - first);
      let next = first;
      const flush = () => {
        // Merge strictly in chunk order, as soon as the next chunk in line is back.
        while (next < last && results[next - first] !== undefined) {
          const r = results[next - first]!;
          const m = merged[g];
          for (let k = 0; k < m.length; k++) m[k] += r[k];
          results[next - first] = undefined;
          next++;
        }
      };
      for (let i = first; i < last; i++) {
        const trials = sizeOf(i);
        const task: ChunkTask = {
          system: job.system,
          compiled: job.compiled,
          accLengths: job.accLengths,
          pairedSlots: job.pairedSlots,
          state: deriveState(opts.seed, job.stream, i),
          trials,
        };
        rounds.push(
          (async () => {
            if (opts.signal?.aborted) throw new Error('cancelled');
            const r = await exec.run(task);
            results[i - first] = r;
            flush();
            doneTrials += trials;
            trialsDone[g] += trials;
            opts.onProgress?.(doneTrials, totalPlanned);
          })(),
        );
      }
      done[g] = last; // read again only after this round's chunks are all back
    }
    if (rounds.length === 0) break;
    await Promise.all(rounds);

    if (opts.precision === undefined || !opts.widest) break;
    let more = false;
    for (let g = 0; g < jobs.length; g++) {
      const n = trialsDone[g];
      const w = opts.widest(g, merged[g]);
      if (!(w > opts.precision)) continue;
      if (n + C > maxTrials) {
        capped[g] = true;
        continue;
      }
      // Half-widths shrink as 1/sqrt(n): aim for the n that reaches E, plus 5%, in whole chunks.
      const need = Math.ceil((n * (w / opts.precision) ** 2 * 1.05 - n) / C);
      const room = Math.floor((maxTrials - n) / C);
      planned[g] += Math.max(1, Math.min(need, room));
      more = true;
    }
    if (!more) break;
  }
  return jobs.map((_, g) => ({ merged: merged[g], trials: trialsDone[g], chunks: planned[g], capped: capped[g] }));
}
