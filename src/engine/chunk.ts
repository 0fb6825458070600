/**
 * One chunk of trials for one sweep point: every variant on the same dice.
 *
 * Each trial has its own random stream, which the kernel derives from the chunk's stream at the
 * trial's start (`nextTrialState`, the Kernel contract), and every variant plays that trial from
 * the same start (common random numbers). A trial's dice therefore never depend on how many
 * numbers earlier trials or other variants drew: trials are independent, a variant's trial i is
 * paired with the baseline's trial i, and adding or removing variants never changes the others.
 * (Replaying each variant from the baseline's position in one shared stream would not do: a
 * variant that draws more than the baseline would reuse the next trial's dice, making its trials
 * dependent.)
 *
 * Variants run a block of trials at a time (PAIR_BLOCK): each variant's kernel plays the whole
 * block in one call from a copy of the chunk's stream at the block's start, so it draws the
 * same per-trial streams, and records the running values of its paired slots after every trial
 * (the kernel's `trace`). The engine then differences those rows: per-trial differences of the
 * paired slots (d = variant - baseline) are summed, in trial order, as Σd and Σd², which gives
 * the paired interval of every paired metric's difference. One kernel call per variant and
 * block keeps each case's code and tables hot, where switching cases every trial cost ~1.6x the
 * variants run apart.
 *
 * A group of paired metrics that are one-hot in every trial (the system's `pairedGroups`: how a
 * melee ends, which result letter the first roll gave) is traced as one code per trial instead
 * of a running value per metric (`PairedCodes`). For metric L of the group, a trial's d is
 * [variant's code = L] − [baseline's code = L], so a block's count of each (variant's code,
 * baseline's code) pair gives its sums at once: Σd = n_variant(L) − n_baseline(L), and Σd² (d is
 * −1, 0 or 1) the trials in which exactly one of the two codes is L, n_variant(L) + n_baseline(L)
 * − 2·n(both L). Every term is a whole number, so the sums are those of adding d trial by trial,
 * to the bit.
 *
 * Outcome mode (the kernel's `outcomes(c)` says yes for every case of the point: the Crusader
 * Rex table path's walk): a trial's changes of every paired slot follow from its outcome, so the
 * kernel writes one outcome code a trial and, after the call, its table of each code's changes
 * (Trace.outcome). No rows are traced, so each variant plays a whole step of the chunk in one
 * call, its fast untraced way (rows forced short blocks: every case's walk flushed its counts
 * every PAIR_BLOCK trials, and the per-trial rows cost as much again: paired CR sieges ran at
 * 2-2.5x their variants' cost apart, in-process). The block's trials are counted by their pair
 * of codes (variant's, baseline's), and each pair met adds count · d and count · d² of every
 * metric: whole numbers throughout, so the sums are the trial-by-trial ones, to the bit.
 *
 * Pure: no node:*, no piscina; the worker calls `runBatch`, the in-process executor runs the
 * same chunks slice by slice (`ChunkRun`).
 */
import { deriveState, type RngState } from './rng.js';
import type { Kernel, Trace } from './kernel.js';

/** Everything a worker needs for one chunk (structured-cloneable). */
export interface ChunkTask {
  system: string;
  /** One compiled case per variant; [0] is the baseline. */
  compiled: unknown[];
  accLengths: number[];
  /** Accumulator slot of each paired metric, per variant: pairedSlots[v][p] (-1: case v does not pair metric p). */
  pairedSlots: number[][];
  /** Which paired metrics each case can give as a code of a one-hot group (absent: none, every metric traced by its slot). */
  pairedCodes?: PairedCodes;
  state: Int32Array;
  trials: number;
}

/**
 * The one-hot groups of each case (RulesSystem.pairedGroups, by the api's alignPairedCodes): a
 * metric p is paired from codes when every case that pairs it has it in a group.
 */
export interface PairedCodes {
  /** sizes[v][g]: how many codes case v's group g has; the kernel writes one code per group and trial. */
  sizes: number[][];
  /** at[v][p]: [g, k] when paired metric p is code k of case v's group g, null when it is in none. */
  at: (readonly [number, number] | null)[][];
}

/** Metrics of one variant paired from codes against the baseline's: one (variant's group, baseline's group) pair. */
interface JointCount {
  v: number;
  gv: number;
  g0: number;
  /** Codes of the variant's group (rows) and of the baseline's (columns). */
  kv: number;
  k0: number;
  /** count[a * k0 + b]: trials of the block with the variant's code a and the baseline's code b. */
  count: Int32Array;
  /** Per metric: its index p, its code in the variant's group, its code in the baseline's. */
  metrics: Int32Array;
}

/** What a worker thread posts once its modules are loaded (workers/worker.ts; engine/pool.ts waits for it before stopping the threads). */
export const LOADED = 'siegesim:worker-loaded';

/** Length of a chunk's result: every variant's accumulator, then (V−1)·P·2 paired sums. */
export function resultLength(task: Pick<ChunkTask, 'accLengths' | 'pairedSlots'>): number {
  const V = task.accLengths.length;
  const P = task.pairedSlots[0]?.length ?? 0;
  return task.accLengths.reduce((a, b) => a + b, 0) + (V - 1) * P * 2;
}

/**
 * Trials per block of a chunk with variants: each variant's kernel call plays this many trials,
 * tracing its paired slots into a buffer of PAIR_BLOCK rows (a few tens of kilobytes at most,
 * made once per chunk). Part of no result: any block size gives the same numbers.
 */
export const PAIR_BLOCK = 1024;

/** The rows of a trace in outcome mode: none. */
const NO_ROWS = new Float64Array(0);
const NO_CODES = new Int32Array(0);
/** pairOutcomes' scratch, shared by every chunk of this thread (kept zero between blocks): trials by pair of codes, and the pairs met. */
let PAIR_COUNT = new Int32Array(0);
let PAIR_MET = new Int32Array(0);
let PAIR_ROWS = new Int32Array(0);
/**
 * Each variant's outcome codes, shared by every chunk of this thread: the kernel writes them and
 * pairOutcomes reads them within one step (no chunk's step runs inside another's), and a new
 * 64 KB array for each variant of each chunk cost a Crusader Rex chunk of three variants ~0.15 ms
 * (5% of its kernels' time). The first OUTCOME_SCRATCH_KEPT variants' are kept.
 */
const OUTCOME_SCRATCH: Int32Array[] = [];
const OUTCOME_SCRATCH_KEPT = 64;
function outcomeScratch(v: number, trials: number): Int32Array {
  if (v >= OUTCOME_SCRATCH_KEPT) return new Int32Array(trials);
  let a = OUTCOME_SCRATCH[v];
  if (a === undefined || a.length < trials) a = OUTCOME_SCRATCH[v] = new Int32Array(trials);
  return a.subarray(0, trials);
}

/** The most pairs of codes pairOutcomes counts in its scratch (16 MB); past it, each trial is a row of its own. */
const PAIR_CELLS_MAX = 1 << 22;
let pairCellsMax = PAIR_CELLS_MAX;
/** Tests only: the pairs of codes counted at most (the trial-by-trial way past it); returns the bound before. */
export function _setPairCellsMax(n: number): number {
  const was = pairCellsMax;
  pairCellsMax = n;
  return was;
}
/** Blocks a variant paired trial by trial (its tables past the bound) in this thread: the tests see which way ran, since both give the same bytes. */
let byTrialBlocks = 0;
/** Tests only: byTrialBlocks. */
export const _byTrialBlocks = (): number => byTrialBlocks;

/**
 * One chunk, run a slice of trials at a time: `step(m)` then `step(n)` is exactly one chunk of
 * m + n trials (the kernel contract: a call continues the chunk's stream where the last one left
 * it, and accumulates into the same buffer; the paired sums add each trial's d in trial order).
 * The in-process executor runs a slow chunk this way so that its thread can answer signals,
 * timers and requests between slices.
 */
export class ChunkRun {
  /** The chunk's result buffer (see `resultLength` for the layout), complete once `finished`. */
  readonly out: Float64Array;
  /** Trials run so far. */
  done = 0;
  private readonly accs: Float64Array[] = [];
  private readonly pairs: Float64Array;
  /** before[v * P + p]: variant v's paired slot p before the block (0 where v does not pair p). */
  private readonly before: Float64Array;
  /** Each variant's trace of the slots it pairs (undefined: it pairs none). */
  private readonly traces: (Trace | undefined)[] = [];
  /** column[v][p]: metric p's column in variant v's trace, -1 where v does not pair it or pairs it from codes. */
  private readonly column: Int32Array[] = [];
  /** The metrics paired from codes, by (variant, variant's group, baseline's group). */
  private readonly joints: JointCount[] = [];
  /** The chunk's stream at the start of the block. */
  private readonly blockStart = new Int32Array(4);
  /** Every case writes outcome codes (Kernel.outcomes): a block is a whole step, paired from codes and tables (pairOutcomes). */
  private readonly byOutcome: boolean;
  /** Outcome mode: each variant's codes as its trace writes them (its trace's `outcome`; empty for a variant that pairs nothing). */
  private readonly codes: Int32Array[] = [];
  constructor(
    private readonly kernel: Kernel<unknown>,
    private readonly task: ChunkTask,
  ) {
    const V = task.compiled.length;
    const P = task.pairedSlots[0]?.length ?? 0;
    this.out = new Float64Array(resultLength(task));
    let off = 0;
    for (let v = 0; v < V; v++) {
      this.accs.push(this.out.subarray(off, off + task.accLengths[v]));
      off += task.accLengths[v];
    }
    this.pairs = this.out.subarray(off);
    this.before = new Float64Array(V * P);
    const outcomes = kernel.outcomes;
    this.byOutcome = V > 1 && P > 0 && outcomes !== undefined && task.compiled.every((c) => outcomes.call(kernel, c));
    if (V > 1 && P > 0) {
      const rows = Math.max(1, Math.min(PAIR_BLOCK, task.trials));
      // outcome mode: every metric by its slot's column in the outcome table, no rows, no one-hot codes
      const codes = this.byOutcome ? undefined : task.pairedCodes;
      // metric p from codes: every case that pairs it has it in a group (the baseline pairs every metric)
      const byCode: boolean[] = [];
      for (let p = 0; p < P; p++) {
        let all = codes !== undefined;
        for (let v = 0; v < V && all; v++) if (task.pairedSlots[v][p] >= 0 && codes!.at[v][p] === null) all = false;
        byCode.push(all);
      }
      for (let v = 0; v < V; v++) {
        const slots = task.pairedSlots[v];
        const column = new Int32Array(P).fill(-1);
        const own: number[] = [];
        let coded = false;
        for (let p = 0; p < P; p++) {
          if (slots[p] < 0) continue; // a metric this variant does not pair (api/run.ts, alignPairedSlots)
          if (byCode[p]) {
            coded = true;
            continue;
          }
          column[p] = own.length;
          own.push(slots[p]);
        }
        this.column.push(column);
        this.traces.push(
          own.length === 0 && !coded
            ? undefined
            : this.byOutcome
              ? { slots: Int32Array.from(own), out: NO_ROWS, outcome: outcomeScratch(v, task.trials) }
              : { slots: Int32Array.from(own), out: new Float64Array(rows * own.length), ...(coded ? { codes: new Int32Array(rows * codes!.sizes[v].length) } : {}) },
        );
      }
      for (let v = 1; v < V; v++) {
        const mine = new Map<string, number[]>();
        for (let p = 0; p < P; p++) {
          if (!byCode[p] || task.pairedSlots[v][p] < 0) continue;
          const [gv, kv] = codes!.at[v][p]!;
          const [g0, k0] = codes!.at[0][p]!;
          const key = `${gv} ${g0}`;
          if (!mine.has(key)) mine.set(key, []);
          mine.get(key)!.push(p, kv, k0);
        }
        for (const [key, metrics] of mine) {
          const [gv, g0] = key.split(' ').map(Number);
          const kv = codes!.sizes[v][gv];
          const k0 = codes!.sizes[0][g0];
          this.joints.push({ v, gv, g0, kv, k0, count: new Int32Array(kv * k0), metrics: Int32Array.from(metrics) });
        }
      }
      if (this.byOutcome) for (const t of this.traces) this.codes.push(t?.outcome ?? NO_CODES);
    }
  }
  /** Whether a batch may run this chunk's trials with the others' in one step, its calls holding their sums (BatchRun): nothing traced (one case, or nothing paired), or variants paired by outcome codes. */
  get holdable(): boolean {
    return this.byOutcome || this.traces.length === 0;
  }
  /** BatchRun: variant v's trace (undefined: v pairs nothing), for the slots it traces. */
  traceOf(v: number): Trace | undefined {
    return this.traces[v];
  }
  /** BatchRun: the next (up to) k trials of the chunk start here, for every variant; returns how many. */
  open(k: number): number {
    k = Math.max(0, Math.min(k, this.task.trials - this.done));
    this.blockStart.set(this.task.state);
    return k;
  }
  /** Variant v plays the k trials opened (step's block, or BatchRun's open), from their start: the same per-trial streams as the baseline. */
  play(v: number, k: number, trace: Trace | undefined, hold: boolean): void {
    const stream = this.task.state;
    if (v > 0) stream.set(this.blockStart);
    this.kernel.run(this.task.compiled[v], stream, k, this.accs[v], trace, hold);
  }
  /** BatchRun: the k trials opened are played by every variant: counted, and (outcome mode) paired from the codes at `off` of each variant's `codes`, read by `traces`' tables. */
  close(k: number, traces: readonly (Trace | undefined)[], codes: readonly Int32Array[], off: number): void {
    this.done += k;
    if (this.byOutcome && k > 0) this.pairOutcomes(k, traces, codes, off);
  }
  get finished(): boolean {
    return this.done >= this.task.trials;
  }
  /** Run up to `n` more trials of the chunk; returns how many ran. */
  step(n: number): number {
    const task = this.task;
    const k = Math.max(0, Math.min(n, task.trials - this.done));
    this.done += k;
    const V = task.compiled.length;
    const accs = this.accs;
    const stream: RngState = task.state;
    if (V === 1) {
      if (k > 0) this.kernel.run(task.compiled[0], stream, k, accs[0]); // one call: the kernel draws each trial's stream
      return k;
    }
    const start = this.blockStart;
    const traces = this.traces;
    const byOutcome = this.byOutcome;
    // nothing paired, or paired by outcome codes: one call per variant
    const block = traces.length > 0 && !byOutcome ? PAIR_BLOCK : k;
    for (let ran = 0; ran < k; ) {
      const b = Math.min(block, k - ran);
      start.set(stream);
      for (let v = 0; v < V; v++) {
        const trace = traces[v];
        if (trace !== undefined && !byOutcome) this.keepBefore(v);
        this.play(v, b, trace, false); // every variant plays the same trials: its stream from where the baseline's started
      }
      if (byOutcome) this.pairOutcomes(b, traces, this.codes, 0);
      else if (traces.length > 0) this.pairBlock(b);
      ran += b;
    }
    return k;
  }
  /** Variant v's paired slots before a block: the value its first traced row is differenced from. */
  private keepBefore(v: number): void {
    const P = this.column[v].length;
    const slots = this.task.pairedSlots[v];
    const acc = this.accs[v];
    for (let p = 0; p < P; p++) this.before[v * P + p] = slots[p] < 0 ? 0 : acc[slots[p]];
  }
  /** Adds each trial's d = (variant's change) − (baseline's change) of every paired slot to Σd and Σd², trial by trial; then the metrics paired from codes. */
  private pairBlock(b: number): void {
    const V = this.task.compiled.length;
    const P = this.column[0].length;
    const pairs = this.pairs;
    const before = this.before;
    const base = this.traces[0]!.out;
    const S0 = this.traces[0]!.slots.length;
    const column0 = this.column[0];
    for (let v = 1; v < V; v++) {
      const trace = this.traces[v];
      if (trace === undefined) continue;
      const rows = trace.out;
      const S = trace.slots.length;
      const column = this.column[v];
      for (let p = 0; p < P; p++) {
        const q = column[p];
        if (q < 0) continue;
        const q0 = column0[p]; // the baseline pairs every metric the variant traces by its slot
        const j = ((v - 1) * P + p) * 2;
        let sum = pairs[j];
        let sumSq = pairs[j + 1];
        let prev = before[v * P + p];
        let prev0 = before[p];
        for (let t = 0; t < b; t++) {
          const x = rows[t * S + q];
          const x0 = base[t * S0 + q0];
          const d = x - prev - (x0 - prev0);
          sum += d;
          sumSq += d * d;
          prev = x;
          prev0 = x0;
        }
        pairs[j] = sum;
        pairs[j + 1] = sumSq;
      }
    }
    for (let i = 0; i < this.joints.length; i++) this.pairCodes(this.joints[i], b);
  }
  /**
   * Σd and Σd² of every paired slot, d = (variant's change) − (baseline's change), from outcome
   * codes: the block's trials are counted by their pair of codes (variant's, baseline's), and each
   * pair met adds count · d and count · d², its changes read from the cases' outcome tables. The
   * changes are whole numbers, so every term and sum is a whole number, exact in a double: the
   * sums are those of adding each trial's d in trial order (the rows' way), to the bit.
   */
  private pairOutcomes(b: number, traces: readonly (Trace | undefined)[], codes: readonly Int32Array[], off: number): void {
    const V = this.task.compiled.length;
    const P = this.column[0].length;
    const pairs = this.pairs;
    const t0 = traces[0]!;
    const code0 = codes[0];
    const table0 = t0.table!;
    const w0 = t0.width!;
    const col0 = t0.column!;
    const K0 = Math.floor(table0.length / w0); // codes the baseline's table can hold
    const column0 = this.column[0];
    for (let v = 1; v < V; v++) {
      const trace = traces[v];
      if (trace === undefined) continue;
      const code = codes[v];
      const table = trace.table!;
      const w = trace.width!;
      const col = trace.column!;
      const Kv = Math.floor(table.length / w);
      // tables too large for a count of every pair of codes: each trial its own row, count 1, in trial order
      const counted = Kv * K0 <= pairCellsMax;
      if (!counted) byTrialBlocks++;
      if (counted && PAIR_COUNT.length < Kv * K0) PAIR_COUNT = new Int32Array(Kv * K0);
      if (PAIR_MET.length < b) PAIR_MET = new Int32Array(b);
      if (PAIR_ROWS.length < 3 * b) PAIR_ROWS = new Int32Array(3 * b);
      const count = PAIR_COUNT;
      const met = PAIR_MET;
      const rows = PAIR_ROWS;
      let m = 0;
      let outside = 0; // negative once a code is outside its table
      // (two loops, not a test a trial: the counting loop is the hot one)
      if (counted) {
        for (let t = off, end = off + b; t < end; t++) {
          const a = code[t];
          const c = code0[t];
          outside |= a | (Kv - 1 - a) | c | (K0 - 1 - c);
          const cell = a * K0 + c;
          if (count[cell]++ === 0) met[m++] = cell;
        }
      } else {
        for (let t = off, end = off + b; t < end; t++, m++) {
          const a = code[t];
          const c = code0[t];
          outside |= a | (Kv - 1 - a) | c | (K0 - 1 - c);
          rows[3 * m] = a * w;
          rows[3 * m + 1] = c * w0;
          rows[3 * m + 2] = 1;
        }
      }
      // such a code counted in another pair's cell (or outside the count): a wrong sum, silently
      // (the scratch is left zero for the thread's next chunk either way)
      if (outside < 0) {
        if (counted) for (let i = 0; i < m; i++) count[met[i]] = 0;
        throw new Error(`a kernel wrote an outcome code outside its table (variant ${v}: ${Kv} codes, baseline: ${K0}; the Trace contract, engine/kernel.ts)`);
      }
      // counted: each pair met once, the variant's row and the baseline's row in their tables, and its count
      if (counted) {
        for (let i = 0; i < m; i++) {
          const cell = met[i];
          const a = Math.floor(cell / K0);
          rows[3 * i] = a * w;
          rows[3 * i + 1] = (cell - a * K0) * w0;
          rows[3 * i + 2] = count[cell];
          count[cell] = 0;
        }
      }
      const column = this.column[v];
      for (let p = 0; p < P; p++) {
        const q = column[p];
        if (q < 0) continue;
        const cv = col[q];
        const cb = col0[column0[p]];
        const j = ((v - 1) * P + p) * 2;
        let sum = pairs[j];
        let sumSq = pairs[j + 1];
        for (let i = 0; i < 3 * m; i += 3) {
          const d = (cv < 0 ? 0 : table[rows[i] + cv]) - (cb < 0 ? 0 : table0[rows[i + 1] + cb]);
          const n = rows[i + 2];
          sum += n * d;
          sumSq += n * d * d;
        }
        pairs[j] = sum;
        pairs[j + 1] = sumSq;
      }
    }
  }
  /** One block's Σd and Σd² of the metrics of a (variant's group, baseline's group) pair, from the count of each pair of codes. */
  private pairCodes(joint: JointCount, b: number): void {
    const P = this.column[0].length;
    const codes = this.task.pairedCodes!;
    const Gv = codes.sizes[joint.v].length;
    const G0 = codes.sizes[0].length;
    const cv = this.traces[joint.v]!.codes!;
    const c0 = this.traces[0]!.codes!;
    const { gv, g0, kv: Kv, k0: K0, count, metrics } = joint;
    count.fill(0);
    let outside = 0; // negative once a code is outside its group
    for (let t = 0; t < b; t++) {
      const a = cv[t * Gv + gv];
      const c = c0[t * G0 + g0];
      outside |= a | (Kv - 1 - a) | c | (K0 - 1 - c);
      count[a * K0 + c]++;
    }
    // such a code would have counted in another code's cell, or nowhere: a wrong Σd², silently
    if (outside < 0) throw new Error(`a kernel traced a code outside its one-hot group (variant ${joint.v}: ${Kv} codes, baseline: ${K0}; the Trace contract, engine/kernel.ts)`);
    const pairs = this.pairs;
    for (let m = 0; m < metrics.length; m += 3) {
      const kv = metrics[m + 1];
      const k0 = metrics[m + 2];
      let nv = 0; // trials in which the variant's code is the metric's
      for (let y = 0; y < K0; y++) nv += count[kv * K0 + y];
      let n0 = 0; // ... the baseline's
      for (let x = 0; x < Kv; x++) n0 += count[x * K0 + k0];
      const j = ((joint.v - 1) * P + metrics[m]) * 2;
      pairs[j] += nv - n0;
      pairs[j + 1] += nv + n0 - 2 * count[kv * K0 + k0]; // d = ±1 where exactly one of the two is the metric's code
    }
  }
}

/** Run one chunk and return its result buffer (see `resultLength` for the layout). */
export function runChunk(kernel: Kernel<unknown>, task: ChunkTask): Float64Array {
  const run = new ChunkRun(kernel, task);
  run.step(task.trials);
  return run.out;
}

/**
 * A batch: consecutive chunks `first, first+1, ...` of one sweep point, run by one worker in
 * one task so that the task's fixed cost (messaging, cloning the compiled case, looking up its
 * prepared tables) is paid once for many chunks. Each chunk still draws from its own stream
 * deriveState(seed, stream, index) and comes back as its own buffer, so results are exactly
 * those of one chunk per task, merged in chunk order.
 */
export interface BatchTask extends Omit<ChunkTask, 'state' | 'trials'> {
  seed: string | number;
  stream: string;
  first: number;
  /** Trials of each chunk of the batch. */
  sizes: number[];
  /**
   * Only the sum of the batch's chunk buffers is read (no open-ended run asks after each chunk,
   * no partial answers): a kernel may add a sum of one chunk's trials to a later chunk's buffer
   * of the batch (BatchRun, the Kernel contract's `hold`). Absent: every chunk's buffer is its
   * own trials' sums.
   */
  whole?: boolean;
}

/** Chunk j of a batch, with its own stream deriveState(seed, stream, first + j). */
export function batchChunk(task: BatchTask, j: number): ChunkTask {
  return {
    system: task.system,
    compiled: task.compiled,
    accLengths: task.accLengths,
    pairedSlots: task.pairedSlots,
    ...(task.pairedCodes !== undefined ? { pairedCodes: task.pairedCodes } : {}),
    state: deriveState(task.seed, task.stream, task.first + j),
    trials: task.sizes[j],
  };
}

/**
 * Trials a step of a batch whose variants hold their sums (BatchRun) plays at most: each
 * variant's codes for the step are kept until the last variant has played it (512 KB a variant).
 */
export const STEP_TRIALS = 1 << 17;

/**
 * A batch, run a step of trials at a time (`step(n)` then `step(m)` is the batch's n + m next
 * trials, as ChunkRun's steps are a chunk's).
 *
 * A batch whose chunk buffers are read as their sum alone (BatchTask.whole) and whose chunks
 * hold (ChunkRun.holdable: one case, or variants paired by outcome codes) plays a step across
 * chunks: each variant in turn plays the step's piece of every chunk in it, chunk by chunk on
 * each chunk's own stream, its calls holding their sums (the Kernel contract's `hold`) but the
 * last, which adds them to the last chunk's buffer; then every piece is paired from the codes.
 * A variant's calls come one after the other, where chunk by chunk the cases alternated every
 * chunk and each call flushed (the Crusader Rex walk: a flush and the other cases' tables out of
 * the cache each 16 384 trials). Every trial's dice and codes are the same, the paired sums are
 * added in trial order, and the sums a call held are whole numbers: the batch's total is the
 * same to the bit. Otherwise a step runs within one chunk, as ChunkRun does.
 */
export class BatchRun {
  /** The batch's buffer: chunk j's at `subarray(j * L, (j + 1) * L)`, L = resultLength. */
  readonly out: Float64Array;
  private readonly L: number;
  private readonly runs: (ChunkRun | undefined)[];
  /** The first chunk not finished. */
  private j = 0;
  /** Holding steps: each variant's trace (its codes reset at every call), as its last call set its table. */
  private traces: (Trace | undefined)[] | undefined;
  private readonly codes: Int32Array[] = [];
  private readonly pieces: ChunkRun[] = [];
  private readonly ks: number[] = [];
  constructor(
    private readonly kernel: Kernel<unknown>,
    private readonly task: BatchTask,
  ) {
    this.L = resultLength(task);
    this.out = new Float64Array(this.L * task.sizes.length);
    this.runs = new Array<ChunkRun | undefined>(task.sizes.length);
    this.skipDone();
  }
  get finished(): boolean {
    return this.j >= this.task.sizes.length;
  }
  private chunk(j: number): ChunkRun {
    return (this.runs[j] ??= new ChunkRun(this.kernel, batchChunk(this.task, j)));
  }
  /** Finished chunks' buffers into the batch's, from the first not finished on. */
  private skipDone(): void {
    while (this.j < this.task.sizes.length) {
      const r = this.chunk(this.j);
      if (!r.finished) return;
      this.out.set(r.out, this.j * this.L);
      this.runs[this.j++] = undefined;
    }
  }
  /** Run up to `n` more trials of the batch; returns how many ran. */
  step(n: number): number {
    if (this.finished) return 0;
    const first = this.chunk(this.j);
    if (this.task.whole !== true || !first.holdable) {
      const k = first.step(n);
      this.skipDone();
      return k;
    }
    const V = this.task.compiled.length;
    const limit = V > 1 ? Math.min(n, STEP_TRIALS) : n;
    const pieces = this.pieces;
    const ks = this.ks;
    pieces.length = 0;
    ks.length = 0;
    let total = 0;
    for (let j = this.j; j < this.task.sizes.length && total < limit; j++) {
      const r = this.chunk(j);
      const k = r.open(limit - total);
      if (k === 0) continue;
      pieces.push(r);
      ks.push(k);
      total += k;
    }
    const last = pieces.length - 1;
    if (V === 1) {
      for (let p = 0; p <= last; p++) pieces[p].play(0, ks[p], undefined, p < last);
      for (let p = 0; p <= last; p++) pieces[p].close(ks[p], NO_TRACES, this.codes, 0);
    } else {
      const traces = (this.traces ??= Array.from({ length: V }, (_, v) => {
        const t = first.traceOf(v);
        return t === undefined ? undefined : { slots: t.slots, out: NO_ROWS, outcome: NO_CODES };
      }));
      const codes = this.codes;
      for (let v = 0; v < V; v++) codes[v] = traces[v] === undefined ? NO_CODES : outcomeScratch(v, total);
      for (let v = 0; v < V; v++) {
        const trace = traces[v];
        for (let p = 0, off = 0; p <= last; off += ks[p], p++) {
          if (trace !== undefined) trace.outcome = codes[v].subarray(off, off + ks[p]);
          pieces[p].play(v, ks[p], trace, p < last);
        }
      }
      for (let p = 0, off = 0; p <= last; off += ks[p], p++) pieces[p].close(ks[p], traces, codes, off);
    }
    this.skipDone();
    return total;
  }
}
const NO_TRACES: readonly (Trace | undefined)[] = [];

/** Run a batch: chunk j's buffer is `out.subarray(j * L, (j + 1) * L)` with L = resultLength. */
export function runBatch(kernel: Kernel<unknown>, task: BatchTask): Float64Array {
  const run = new BatchRun(kernel, task);
  while (!run.finished) run.step(Infinity);
  return run.out;
}
