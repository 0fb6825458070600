/** The kernel contract (docs/architecture.md, "Kernel"): what the engine runs, and each rules system's kernel.ts implements. */
import type { RngState } from './rng.js';

/**
 * Per-trial values of some accumulator slots: after trial t of a kernel call (0-based within the
 * call) the kernel writes `out[t * slots.length + p] = acc[slots[p]]` for every p.
 *
 * `codes`, when present: after trial t the kernel also writes `codes[t * G + g]`, the trial's
 * code in each of its case's G one-hot groups (the system's `pairedGroups`, in that order): a
 * group is a set of paired metrics of which at most one counts in any trial, and the code says
 * which (or that none did). One code stands for all of a group's slots, whose running values
 * need not then be traced.
 */
export interface Trace {
  slots: Int32Array;
  out: Float64Array;
  codes?: Int32Array;
  /**
   * Outcome mode (only for a case whose kernel's `outcomes(c)` said yes): the kernel writes no
   * rows of `out` (nor `codes`); after trial t it writes `outcome[t]`, the trial's outcome code,
   * and before it returns it sets `table`, `width` and `column`: traced slot p changed in a trial
   * of code k by `table[k * width + column[p]]` (by 0 where `column[p]` is -1). Every change must
   * be a whole number (the engine's paired sums are then those of the rows, to the bit). A code
   * keeps its meaning for the whole call.
   */
  outcome?: Int32Array;
  table?: ArrayLike<number>;
  width?: number;
  column?: Int32Array;
}

/**
 * The hot loop: run `trials` independent trials, adding into `acc`. `rng` is the chunk's
 * stream: each trial starts with `nextTrialState(rng, own)` (engine/rng.ts) and draws only from
 * its own state, so that a trial's dice never depend on what earlier trials drew and the engine
 * can replay one trial for every variant by rewinding `rng` (engine/chunk.ts). A kernel
 * therefore advances `rng` by exactly 4 draws per trial. Allocates nothing per trial; `acc[0]`
 * counts trials (so merged buffers carry their n).
 *
 * Keep code after the trial loop to a minimum: V8 optimises a long loop while it runs
 * (on-stack replacement), before the code after it has ever run, and optimised code meeting that
 * code cold deoptimises. The field path's `acc[0] += trials` after its loop did so at the end
 * of every call in some processes (5.7 M battles/s chunk by chunk against 6.6 M/s), so the
 * field and general paths and the fantasy kernel add their once-per-call sums before the loop;
 * the table path and the surrender kernel run the loop in a function that ends with it
 * (`playTrials`), which leaves the sums in module variables for its caller to add (the surrender
 * kernel's sums after its loop deoptimised it once a call in about half of all processes: 16
 * against 25 M trials/s on town-basic).
 */
export interface Kernel<C> {
  /**
   * `hold` (optional; untraced or outcome mode only, never with rows): the kernel may keep some of
   * this call's sums pending instead of adding them to `acc`, and adds them to the `acc` of the
   * next call on `c` without `hold`. The engine sets it only for calls of one batch whose chunk
   * buffers are read as their sum alone (BatchTask.whole), and calls nothing else in the thread
   * between a held call and the call that settles it, but the next slice of the same case. A
   * kernel may hold only sums whose every term is a whole number: the batch's total is then the
   * same to the bit, whichever chunk's buffer they are added to. (The Crusader Rex table path
   * holds its walk's edge counts: one flush a batch slice, not one a chunk.) In outcome mode a
   * trial's code keeps its meaning through the held calls: the table set by the settling call
   * reads them all.
   */
  run(c: C, rng: RngState, trials: number, acc: Float64Array, trace?: Trace, hold?: boolean): void;
  /** Length of the accumulator for one compiled case. */
  accLength(c: C): number;
  /**
   * Optional: whether every call on case `c` with a trace in outcome mode (Trace.outcome) writes
   * outcome codes. The engine pairs variants from outcome codes when every case of the point
   * says yes: a variant then plays a whole slice of a chunk in one call (no rows of running
   * values: a few bytes a trial), where rows are traced PAIR_BLOCK trials at a time.
   */
  outcomes?(c: C): boolean;
  /**
   * Optional: the run is done with case `c` in this thread: drop what the kernel keeps for it
   * (its state and tables, made on its first call). A later call on `c` makes them again. The
   * engine says so once a sweep point's chunks are all merged (RunOptions.release), so that a
   * large sweep holds one point's tables at a time, not every point's until its report.
   */
  release?(c: C): void;
}

/** Kernels by system id: what an executor runs a task's chunks with (the api hands it systems/kernels.ts's table). */
export type KernelTable = Readonly<Record<string, Kernel<unknown>>>;
