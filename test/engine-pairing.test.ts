/**
 * Paired variants run block by block (engine/chunk.ts): each variant's kernel plays a block of
 * trials in one call from a copy of the chunk's stream, tracing its paired slots, and the engine
 * pairs the rows afterwards. Held here to the plain way of pairing — every trial, every variant
 * from the same start, one kernel call per trial and variant, the accumulators differenced
 * around each call — byte for byte, for every point of every bundled scenario with variants,
 * whatever the slices; and every kernel path held to the trace contract (systems/types.ts).
 * Metrics of one-hot groups (RulesSystem.pairedGroups) are paired from one code a trial and a
 * count of (variant's code, baseline's code) pairs: the same reference holds them, on the
 * bundled files and on a toy whose groups number their codes differently in each case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runScenario, validateText } from '../src/api.js';
import { alignPairedCodes, alignPairedSlots, compilePoints, jobsOf } from '../src/api/run.js';
import { batchChunk, _byTrialBlocks as byTrialBlocks, ChunkRun, PAIR_BLOCK, _setPairCellsMax as setPairCellsMax, resultLength, runBatch, runChunk, type BatchTask, type ChunkTask } from '../src/engine/chunk.js';
import { deriveState, nextU32, type RngState } from '../src/engine/rng.js';
import { crusaderRex } from '../src/systems/crusader-rex/index.js';
import { _internals as crInternals, type CrusaderRexPath } from '../src/systems/crusader-rex/kernel.js';
import { fantasy } from '../src/systems/fantasy/index.js';
import { cryHavoc } from '../src/systems/cry-havoc/index.js';
import type { Kernel, PairedGroup, PairedSlot, RulesSystem, Trace } from '../src/systems/types.js';
import { ROOT } from './cli-child.js';
import { _setEdgeMax as setEdgeMax } from '../src/systems/crusader-rex/table-path.js';

/**
 * The reference: each trial, the baseline and then every variant from the trial's start in the
 * chunk's stream, one trial per kernel call, d = (variant's change) − (baseline's change) of
 * each paired slot added to Σd and Σd² trial by trial.
 */
function pairTrialByTrial(kernel: Kernel<unknown>, task: ChunkTask): Float64Array {
  const V = task.compiled.length;
  const P = task.pairedSlots[0]?.length ?? 0;
  const out = new Float64Array(resultLength(task));
  const accs: Float64Array[] = [];
  let off = 0;
  for (let v = 0; v < V; v++) {
    accs.push(out.subarray(off, off + task.accLengths[v]));
    off += task.accLengths[v];
  }
  const pairs = out.subarray(off);
  const stream = task.state;
  for (let t = 0; t < task.trials; t++) {
    const start = Int32Array.from(stream);
    const before = task.pairedSlots.map((slots, v) => slots.map((s) => (s < 0 ? 0 : accs[v][s])));
    for (let v = 0; v < V; v++) {
      stream.set(start);
      kernel.run(task.compiled[v], stream, 1, accs[v]);
    }
    for (let v = 1; v < V; v++) {
      for (let p = 0; p < P; p++) {
        const s = task.pairedSlots[v][p];
        if (s < 0) continue;
        const s0 = task.pairedSlots[0][p];
        const d = accs[v][s] - before[v][p] - (accs[0][s0] - before[0][p]);
        pairs[((v - 1) * P + p) * 2] += d;
        pairs[((v - 1) * P + p) * 2 + 1] += d * d;
      }
    }
  }
  return out;
}

const bytes = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex');

/** Odd slices that cross block boundaries (a block of PAIR_BLOCK split and joined), then the rest. */
function oddSlices(n: number): number[] {
  const out = [1, 2, PAIR_BLOCK - 2, 1, PAIR_BLOCK + 3, 37];
  let left = n - out.reduce((a, b) => a + b, 0);
  if (left < 0) throw new Error('n too small for the slices');
  for (let k = 5; left > 0; k = k * 3 + 1) {
    out.push(Math.min(k, left));
    left -= out[out.length - 1];
  }
  return out;
}

const N = 2 * PAIR_BLOCK + 500;

const files = readdirSync(path.join(ROOT, 'scenarios'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.yaml'))
  .sort();

function load(file: string, text = readFileSync(path.join(ROOT, 'scenarios', file), 'utf8')) {
  const v = validateText(file, text);
  if (!v.ok) throw new Error(`${file}: ${JSON.stringify(v.issues)}`);
  return v.value;
}

/** A chunk's buffer three ways: the reference, one step of all its trials, odd slices. */
function expectSameThreeWays(kernel: Kernel<unknown>, task: Omit<ChunkTask, 'state'>, key: string, what: string): void {
  const expected = pairTrialByTrial(kernel, { ...task, state: deriveState('pairing', key, 0) });
  const whole = runChunk(kernel, { ...task, state: deriveState('pairing', key, 0) });
  expect(bytes(whole), `${what}: one step`).toBe(bytes(expected));
  const state = deriveState('pairing', key, 0);
  const run = new ChunkRun(kernel, { ...task, state });
  let ran = 0;
  for (const k of oddSlices(task.trials)) {
    expect(run.finished, `${what}: finished after ${ran} of ${task.trials}`).toBe(false);
    expect(run.step(k)).toBe(k);
    ran += k;
  }
  expect(run.finished).toBe(true);
  expect(bytes(run.out), `${what}: odd slices`).toBe(bytes(expected));
  // the chunk's stream as far on as the reference's
  const refState = deriveState('pairing', key, 0);
  pairTrialByTrial(kernel, { ...task, state: refState });
  expect(Array.from(state)).toEqual(Array.from(refState));
}

/** `kernel`, with `then` called after each of its calls (what the engine passed it, what it wrote). */
function after(kernel: Kernel<unknown>, then: (c: unknown, n: number, trace: Trace | undefined) => unknown): Kernel<unknown> {
  return {
    accLength: (c) => kernel.accLength(c),
    outcomes: (c) => kernel.outcomes!(c),
    run(c, s, n, acc, trace) {
      kernel.run(c, s, n, acc, trace);
      then(c, n, trace);
    },
  };
}

describe('paired variants block by block are the trial-by-trial pairing, byte for byte', () => {
  const withVariants = files.filter((f) => load(f).variantNames.length > 1);
  it('finds bundled scenarios with variants in every system', () => {
    const systems = new Set(withVariants.map((f) => f.split('/')[0]));
    expect([...systems].sort()).toEqual(['crusader-rex', 'cry-havoc', 'fantasy', 'surrender']);
  });

  it.each(withVariants)('%s: every point, its variants together', (file) => {
    const sc = load(file);
    const kernel = sc.system.kernel as Kernel<unknown>;
    const points = compilePoints(sc);
    const jobs = jobsOf(sc, points);
    // a sweep's points share their code: three of them (first, middle, last) say what all do
    const picked = [...new Set([0, Math.floor(points.length / 2), points.length - 1])];
    for (const pi of picked) expectSameThreeWays(kernel, { ...jobs[pi], trials: N }, `${file}#${pi}`, `${file} point ${pi}`);
  });

  it('a variant that does not pair a metric (a fantasy siege against an open field: no p_breach)', () => {
    const siege = fantasy.compile(load('fantasy/stone-wall-siege.yaml').points[0].variants[0].scenario);
    const field = fantasy.compile(load('fantasy/open-field-volley.yaml').points[0].variants[0].scenario);
    const compiled = [siege, field, siege];
    const pairedSlots = alignPairedSlots(fantasy as RulesSystem, compiled);
    expect(pairedSlots[1]).toContain(-1);
    const task = { system: 'fantasy', compiled, accLengths: compiled.map((c) => fantasy.kernel.accLength(c)), pairedSlots, trials: 2300 };
    expectSameThreeWays(fantasy.kernel as Kernel<unknown>, task, 'unpaired', 'siege against open field');
    // the unpaired metric's sums stay 0; the same case against itself differs by nothing
    const out = runChunk(fantasy.kernel as Kernel<unknown>, { ...task, state: deriveState('pairing', 'unpaired', 0) });
    const pairs = out.subarray(out.length - 2 * 2 * pairedSlots[0].length);
    const pBreach = pairedSlots[1].indexOf(-1);
    expect(Array.from(pairs.subarray(pBreach * 2, pBreach * 2 + 2))).toEqual([0, 0]);
    expect(Array.from(pairs.subarray(2 * pairedSlots[0].length))).toEqual(new Array(2 * pairedSlots[0].length).fill(0));
    expect(pairs.subarray(0, 2 * pairedSlots[0].length).some((x) => x !== 0)).toBe(true);
  });

  it('the Cry Havoc files with one-hot groups pair those metrics from codes', () => {
    for (const file of ['cry-havoc/melee-two-on-one.yaml', 'cry-havoc/missile-range-tables.yaml', 'cry-havoc/healing-tables.yaml']) {
      const sc = load(file);
      const job = jobsOf(sc, compilePoints(sc))[0];
      const names = cryHavoc.pairedSlots(job.compiled[0] as never).map((x) => x.metric);
      const coded = names.filter((_, p) => job.pairedCodes!.at.every((at, v) => job.pairedSlots[v][p] < 0 || at[p] !== null));
      expect(coded.length, file).toBeGreaterThanOrEqual(3);
      expect(coded.some((n) => /^p_(first|shot)_|^p_(undecided|healed)$/.test(n)), file).toBe(true);
    }
  });

  it('Crusader Rex sieges on the table path\'s walk pair from outcome codes (Trace.outcome): the same bytes, with the walk emptied mid-call too', () => {
    const kernel = crusaderRex.kernel as Kernel<unknown>;
    for (const file of ['crusader-rex/case-b-old-siege.yaml', 'crusader-rex/case-c-old-siege-2.yaml', 'crusader-rex/storm-or-starve.yaml']) {
      const sc = load(file);
      const job = jobsOf(sc, compilePoints(sc))[0];
      expect(job.compiled.every((c) => kernel.outcomes!(c)), `${file}: every case plays the walk`).toBe(true);
      // the codes a call wrote, seen by the engine (one call per variant and step: no rows)
      const seen: number[] = [];
      const spy = after(kernel, (_c, n, trace) => trace !== undefined && seen.push(n, trace.outcome ? 1 : 0, trace.out.length)); // (the reference's calls have none)
      expectSameThreeWays(spy, { ...job, trials: N }, `${file}#outcomes`, `${file} by outcome codes`);
      expect(seen.length).toBeGreaterThan(0);
      for (let i = 0; i < seen.length; i += 3) expect([seen[i + 1], seen[i + 2]]).toEqual([1, 0]);
      expect(Math.max(...seen.filter((_, i) => i % 3 === 0))).toBeGreaterThan(PAIR_BLOCK); // a whole step a call, not a block
    }
    // tables too large for a count of every pair of codes: paired trial by trial, the same bytes
    const sc2 = load('crusader-rex/case-c-old-siege-2.yaml');
    const counted = byTrialBlocks();
    expectSameThreeWays(kernel, { ...jobsOf(sc2, compilePoints(sc2))[0], trials: N }, 'counted', 'case-c, counted');
    expect(byTrialBlocks(), 'tables within the bound are counted').toBe(counted);
    const cells = setPairCellsMax(0);
    try {
      expectSameThreeWays(kernel, { ...jobsOf(sc2, compilePoints(sc2))[0], trials: N }, 'by-trial', 'case-c, paired trial by trial');
      expect(byTrialBlocks(), 'past the bound, trial by trial').toBeGreaterThan(counted);
    } finally {
      setPairCellsMax(cells);
    }
    // a walk emptied whenever it holds more than 200 edges: the codes written before keep their meaning
    const sc = load('crusader-rex/case-b-old-siege.yaml');
    const job = jobsOf(sc, compilePoints(sc))[0];
    const was = setEdgeMax(200);
    try {
      expectSameThreeWays(kernel, { ...job, trials: N }, 'emptied', 'case-b, walk emptied mid-call');
    } finally {
      setEdgeMax(was);
    }
  });

  it('outcome codes where a variant pairs a subset of the metrics, or none, and where no metric is paired', () => {
    const kernel = crusaderRex.kernel as Kernel<unknown>;
    const sc = load('crusader-rex/case-c-old-siege-2.yaml');
    const job = jobsOf(sc, compilePoints(sc))[0];
    const some = { ...job, pairedSlots: job.pairedSlots.map((s, v) => (v === 1 ? s.map((x, p) => (p % 3 === 1 ? -1 : x)) : s)), trials: N };
    expectSameThreeWays(kernel, some, 'some', 'case-c, the variant pairing every third metric less');
    const none = { ...job, pairedSlots: job.pairedSlots.map((s, v) => (v === 1 ? s.map(() => -1) : s)), trials: N };
    expectSameThreeWays(kernel, none, 'none-cr', 'case-c, the variant pairing nothing');
    const empty = { ...job, pairedSlots: job.pairedSlots.map(() => []), trials: N };
    expectSameThreeWays(kernel, empty, 'empty-cr', 'case-c, no paired metric');
  });

  it('a point where one case plays the walk and another does not (ties at random) pairs from rows', () => {
    const kernel = crusaderRex.kernel as Kernel<unknown>;
    const text = readFileSync(path.join(ROOT, 'scenarios/crusader-rex/case-b-old-siege.yaml'), 'utf8');
    const doc = parse(text) as { variants: { name: string; set?: Record<string, unknown> }[] };
    doc.variants = [doc.variants[0], { name: 'ties-at-random', set: { 'policy.tie_break': 'random' } }];
    const sc = load('case-b-random.yaml', stringify(doc));
    const job = jobsOf(sc, compilePoints(sc))[0];
    expect(job.compiled.map((c) => kernel.outcomes!(c))).toEqual([true, false]);
    const rows: number[] = [];
    const spy = after(kernel, (_c, _n, trace) => trace !== undefined && rows.push(trace.outcome === undefined && trace.out.length > 0 ? 1 : 0));
    expectSameThreeWays(spy, { ...job, trials: N }, 'mixed', 'case-b, the walk against ties at random');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r === 1)).toBe(true);
  });

  it('a kernel writing an outcome code outside its table is refused, not counted in another pair', () => {
    const sc = load('crusader-rex/case-b-old-siege.yaml');
    const job = jobsOf(sc, compilePoints(sc))[0];
    const kernel = crusaderRex.kernel as Kernel<unknown>;
    // one past its table, in the case `which` (0 the baseline, 1 the variant), at the trial `at` of a call
    const bad = (which: number, at: (n: number) => number, code: (t: Trace) => number): Kernel<unknown> =>
      after(kernel, (c, n, trace) => trace?.outcome && c === job.compiled[which] && (trace.outcome[at(n)] = code(trace)));
    const past = (t: Trace) => Math.floor(t.table!.length / t.width!);
    expectSameThreeWays(kernel, { ...job, trials: N }, 'before-bad', 'case-b before a refused chunk'); // (the walks' tables at their size)
    for (const [which, at, code] of [
      [1, (n: number) => n - 1, past],
      [0, (n: number) => n - 1, past],
      [1, () => 0, () => -1],
      [0, () => 0, () => -1],
    ] as [number, (n: number) => number, (t: Trace) => number][]) {
      expect(() => runChunk(bad(which, at, code), { ...job, trials: 3000, state: deriveState('pairing', 'bad', 0) }), `case ${which}`).toThrow(/outcome code outside its table/);
      // and where the tables are past the bound (paired trial by trial)
      const cells = setPairCellsMax(0);
      try {
        expect(() => runChunk(bad(which, at, code), { ...job, trials: 3000, state: deriveState('pairing', 'bad', 0) }), `case ${which}, trial by trial`).toThrow(/outcome code outside its table/);
      } finally {
        setPairCellsMax(cells);
      }
    }
    // the refused chunk leaves nothing behind: the thread's next chunk pairs as the reference does
    expectSameThreeWays(kernel, { ...job, trials: N }, 'after-bad', 'case-b after a refused chunk');
  });

  it("a thread's first block paired from outcome codes smaller than a later one (an in-process run's first slice is one trial): the later one pairs in full", async () => {
    // the pairing's scratch is kept by the thread (engine/chunk.ts): chunk.ts loaded anew is a new thread's
    const id = '../src/engine/chunk.js?new-thread';
    const thread = (await import(/* @vite-ignore */ id)) as typeof import('../src/engine/chunk.js');
    expect(thread.runChunk).not.toBe(runChunk);
    const kernel = crusaderRex.kernel as Kernel<unknown>;
    const sc = load('crusader-rex/case-b-old-siege.yaml');
    const job = jobsOf(sc, compilePoints(sc))[0];
    for (const [trials, i] of [[1, 0], [N, 1]] as [number, number][]) {
      const got = thread.runChunk(kernel, { ...job, trials, state: deriveState('pairing', 'new-thread', i) });
      expect(bytes(got), `${trials} trials`).toBe(bytes(pairTrialByTrial(kernel, { ...job, trials, state: deriveState('pairing', 'new-thread', i) })));
    }
  });

  it('a variant that pairs nothing at all, and a chunk with no paired metric', () => {
    const sc = load('surrender/fortress-readings.yaml');
    const job = jobsOf(sc, compilePoints(sc))[0];
    const kernel = sc.system.kernel as Kernel<unknown>;
    const none = { ...job, pairedSlots: job.pairedSlots.map((s, v) => (v === 1 ? s.map(() => -1) : s)), trials: 2300 };
    expectSameThreeWays(kernel, none, 'none', 'a variant pairing nothing');
    const empty = { ...job, pairedSlots: job.pairedSlots.map(() => []), trials: 2300 };
    expectSameThreeWays(kernel, empty, 'empty', 'no paired metric');
    // nothing to pair: a step is one call per case, with no trace
    const calls: [number, boolean][] = [];
    const spy = after(kernel, (_c, n, trace) => calls.push([n, trace !== undefined]));
    new ChunkRun(spy, { ...empty, state: deriveState('pairing', 'empty', 0) }).step(2300);
    expect(calls).toEqual(job.compiled.map(() => [2300, false]));
    // the same where the variants pair by traced rows (fantasy has no outcome codes): a variant without a trace is passed over
    const rows = load('fantasy/stone-wall-siege.yaml');
    const rowsJob = jobsOf(rows, compilePoints(rows))[0];
    expect(rows.system.kernel.outcomes).toBeUndefined();
    const rowsNone = { ...rowsJob, pairedSlots: rowsJob.pairedSlots.map((s, v) => (v === 1 ? s.map(() => -1) : s)), trials: 2300 };
    expectSameThreeWays(rows.system.kernel as Kernel<unknown>, rowsNone, 'rows-none', 'a variant pairing nothing, by rows');
  });

  it('outcome tables of one row, every code 0, pair (nothing to refuse); the bound is on the pairs of codes, inclusive', () => {
    // a toy outcome kernel: a trial adds `add` to slot 1; every code is 0, in a table of `rows` rows
    interface Rows {
      rows: number;
      add: number;
    }
    const kernel: Kernel<Rows> = {
      accLength: () => 2,
      outcomes: () => true,
      run(c, s, n, acc, trace) {
        for (let t = 0; t < n; t++) {
          nextU32(s);
          acc[1] += c.add;
          if (trace?.outcome !== undefined) trace.outcome[t] = 0;
        }
        acc[0] += n;
        if (trace?.outcome !== undefined) {
          trace.table = new Array(c.rows).fill(c.add);
          trace.width = 1;
          trace.column = Int32Array.from(trace.slots.map(() => 0));
        }
      },
    };
    const pairs = (compiled: Rows[], cells: number | undefined): { sums: number[]; byTrial: boolean } => {
      const was = cells === undefined ? undefined : setPairCellsMax(cells);
      const before = byTrialBlocks();
      try {
        const out = runChunk(kernel as Kernel<unknown>, { system: 'toy', compiled, accLengths: [2, 2], pairedSlots: [[1], [1]], trials: 700, state: deriveState('pairing', 'rows', 0) });
        return { sums: Array.from(out.subarray(4)), byTrial: byTrialBlocks() > before };
      } finally {
        if (was !== undefined) setPairCellsMax(was);
      }
    };
    // one row each (their codes all 0): d = 2 - 1 every trial, counted and trial by trial
    const single = [{ rows: 1, add: 1 }, { rows: 1, add: 2 }];
    expect(pairs(single, undefined)).toEqual({ sums: [700, 700], byTrial: false });
    expect(pairs(single, 0)).toEqual({ sums: [700, 700], byTrial: true });
    // 3 rows against 2: 6 pairs of codes, counted up to a bound of 6
    const wider = [{ rows: 2, add: 1 }, { rows: 3, add: 2 }];
    expect(pairs(wider, 6)).toEqual({ sums: [700, 700], byTrial: false });
    expect(pairs(wider, 5)).toEqual({ sums: [700, 700], byTrial: true });
  });
});

/**
 * A toy system with one-hot groups. Each trial rolls one die per group; a case's `codeOf[g]` maps
 * the die to group g's code, and the metric named at that code in `counts[g]` gains 1 in its
 * slot. `declared[g]` is what the case tells the engine (pairedGroups): `counts[g]`, or less.
 */
interface Toy {
  codeOf: number[][];
  counts: string[][];
  declared: string[][];
  slots: Record<string, number>;
  /** Metrics it pairs (default: every slot). */
  paired?: string[];
}
const toySeen = { coded: 0, slots: new Set<number>() };
const toyKernel: Kernel<Toy> = {
  accLength: (c) => 1 + Math.max(...Object.values(c.slots)),
  run(c: Toy, s: RngState, n: number, acc: Float64Array, trace?: Trace) {
    const G = c.codeOf.length;
    for (let t = 0; t < n; t++) {
      for (let g = 0; g < G; g++) {
        const code = c.codeOf[g][nextU32(s) % 6];
        const m = c.counts[g][code];
        if (m !== '') acc[c.slots[m]] += 1;
        if (trace?.codes !== undefined) trace.codes[t * G + g] = code;
      }
      acc[0] += 1;
      if (trace !== undefined) {
        for (let p = 0; p < trace.slots.length; p++) trace.out[t * trace.slots.length + p] = acc[trace.slots[p]];
        if (trace.codes !== undefined) toySeen.coded++;
        for (const x of trace.slots) toySeen.slots.add(x);
      }
    }
  },
};
const toySystem = {
  pairedSlots: (c: Toy): PairedSlot[] => (c.paired ?? Object.keys(c.slots)).map((metric) => ({ metric, slot: c.slots[metric] })),
  pairedGroups: (c: Toy): PairedGroup[] => c.declared.map((metrics) => ({ metrics })),
};

describe('one variant, and batches of chunks', () => {
  it("one variant: a step is the kernel's own call on the chunk's stream (none for no trials), its buffer the accumulator", () => {
    const sc = load('surrender/town-basic.yaml');
    const job = jobsOf(sc, compilePoints(sc))[0];
    expect(job.compiled.length).toBe(1);
    const kernel = sc.system.kernel as Kernel<unknown>;
    const calls: [number, boolean][] = [];
    const spy = after(kernel, (_c, n, trace) => calls.push([n, trace !== undefined]));
    const run = new ChunkRun(spy, { ...job, trials: 5000, state: deriveState('one', 'v', 0) });
    expect(run.step(0)).toBe(0);
    expect(calls).toEqual([]);
    expect(run.step(3000)).toBe(3000);
    expect(run.step(9000)).toBe(2000); // no more than the chunk holds
    expect(run.finished).toBe(true);
    expect(calls).toEqual([[3000, false], [2000, false]]);
    const acc = new Float64Array(job.accLengths[0]);
    const stream = deriveState('one', 'v', 0);
    kernel.run(job.compiled[0], stream, 5000, acc);
    expect(bytes(run.out)).toBe(bytes(acc));
    expect(resultLength({ ...job })).toBe(job.accLengths[0]);
  });

  it("a batch is its chunks end to end, chunk j on stream first + j; batchChunk keeps the task's paired codes", () => {
    const sc = load('cry-havoc/melee-two-on-one.yaml');
    const job = jobsOf(sc, compilePoints(sc))[0];
    expect(job.pairedCodes).toBeDefined();
    const kernel = sc.system.kernel as Kernel<unknown>;
    const task: BatchTask = { ...job, seed: 11, stream: 'point-0', first: 4, sizes: [700, 1, 1300] };
    const got = runBatch(kernel, task);
    const L = resultLength(task);
    expect(got.length).toBe(3 * L);
    task.sizes.forEach((n, j) => {
      const one = runChunk(kernel, { ...job, trials: n, state: deriveState(11, 'point-0', 4 + j) });
      expect(bytes(got.subarray(j * L, (j + 1) * L)), `chunk ${j}`).toBe(bytes(one));
      const c = batchChunk(task, j);
      expect([c.trials, c.pairedCodes === job.pairedCodes]).toEqual([n, true]);
    });
    // a task with no codes gives chunks with none
    const plain: BatchTask = { ...task, pairedCodes: undefined };
    delete plain.pairedCodes;
    expect(batchChunk(plain, 0).pairedCodes).toBeUndefined();
  });
});

describe('metrics of one-hot groups, paired from codes (engine/chunk.ts PairedCodes)', () => {
  const slots = { x: 1, y: 2, z: 3, u: 4, v: 5 };
  const base: Toy = { codeOf: [[0, 1, 2, 3, 0, 2], [0, 1, 1, 0, 1, 0]], counts: [['x', 'y', 'z', ''], ['u', 'v']], declared: [['x', 'y', 'z', ''], ['u', 'v']], slots };
  // its groups in the other order, each numbering its codes its own way (x is its group 1's code
  // 2), and one group with more codes than the baseline's
  const renumbered: Toy = {
    codeOf: [[1, 0, 0, 1, 0, 1], [1, 2, 3, 0, 2, 4]],
    counts: [['v', 'u'], ['', 'z', 'x', 'y', '']],
    declared: [['v', 'u'], ['', 'z', 'x', 'y', '']],
    slots: { x: 9, y: 8, z: 7, u: 6, v: 5 },
  };
  // z counted but in no declared group (paired by its slot in every case), y not paired at all
  const partial: Toy = { ...base, codeOf: [[0, 2, 2, 1, 3, 0], [1, 1, 0, 0, 1, 0]], declared: [['x', 'y', '', ''], ['u', 'v']], paired: ['x', 'z', 'u', 'v'] };
  const compiled = [base, renumbered, partial];
  const task = {
    system: 'toy',
    compiled,
    accLengths: compiled.map((c) => toyKernel.accLength(c)),
    pairedSlots: alignPairedSlots(toySystem as never, compiled),
    pairedCodes: alignPairedCodes(toySystem as never, compiled),
    trials: N,
  };
  const names = toySystem.pairedSlots(base).map((x) => x.metric);

  it('aligns codes by name: [group, code] in each case, null where a case has it in no group', () => {
    expect(names).toEqual(['x', 'y', 'z', 'u', 'v']);
    expect(task.pairedCodes.sizes).toEqual([[4, 2], [2, 5], [4, 2]]);
    expect(task.pairedCodes.at).toEqual([
      [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]],
      [[1, 2], [1, 3], [1, 1], [0, 1], [0, 0]],
      [[0, 0], [0, 1], null, [1, 0], [1, 1]],
    ]);
  });

  it('gives the trial-by-trial sums, byte for byte, whatever the slices; only z is traced by a slot', () => {
    toySeen.coded = 0;
    toySeen.slots.clear();
    expectSameThreeWays(toyKernel as Kernel<unknown>, task, 'toy', 'toy groups');
    expect(toySeen.coded).toBeGreaterThan(0);
    expect([...toySeen.slots].sort()).toEqual([3, 7]); // z (slot 3, 7 in the renumbered case): the partial case has it in no group
  });

  it('refuses a code outside its group rather than counting it in another cell', () => {
    const wrong: Toy = { ...base, codeOf: [[0, 1, 2, 3, 4, 0], base.codeOf[1]], counts: [['x', 'y', 'z', '', ''], ['u', 'v']] };
    const bad = { ...task, compiled: [base, wrong], accLengths: [6, 6], pairedSlots: alignPairedSlots(toySystem as never, [base, base]), pairedCodes: alignPairedCodes(toySystem as never, [base, base]) };
    expect(() => runChunk(toyKernel as Kernel<unknown>, { ...bad, state: deriveState('pairing', 'bad', 0) })).toThrow(/a code outside its one-hot group \(variant 1: 4 codes/);
    // one past the baseline's group (code 4 of 4)
    const badBase = { ...bad, compiled: [wrong, base] };
    expect(() => runChunk(toyKernel as Kernel<unknown>, { ...badBase, state: deriveState('pairing', 'bad', 0) })).toThrow(/a code outside its one-hot group \(variant 1: 4 codes, baseline: 4;/);
  });

  it('a group of one code, every trial in it, pairs (nothing to refuse)', () => {
    const single: Toy = { codeOf: [[0, 0, 0, 0, 0, 0]], counts: [['x']], declared: [['x']], slots: { x: 1 } };
    const compiled = [single, single];
    const t = { system: 'toy', compiled, accLengths: [2, 2], pairedSlots: alignPairedSlots(toySystem as never, compiled), pairedCodes: alignPairedCodes(toySystem as never, compiled), trials: 900 };
    const out = runChunk(toyKernel as Kernel<unknown>, { ...t, state: deriveState('pairing', 'single', 0) });
    expect(Array.from(out.subarray(4))).toEqual([0, 0]);
    expect(Array.from(out.subarray(0, 4))).toEqual([900, 900, 900, 900]);
  });

  it("Σd² counts the trials in which exactly one side's code is the metric's, not |Σd| nor n_variant + n_baseline", () => {
    const out = runChunk(toyKernel as Kernel<unknown>, { ...task, state: deriveState('pairing', 'toy-sums', 0) });
    const offsets = [0, task.accLengths[0], task.accLengths[0] + task.accLengths[1]];
    const accs = [0, 1, 2].map((v) => out.subarray(offsets[v], offsets[v] + task.accLengths[v]));
    const pairs = out.subarray(task.accLengths.reduce((a, b) => a + b, 0));
    const P = names.length;
    for (const v of [1, 2]) {
      for (const [p, name] of names.entries()) {
        if (task.pairedSlots[v][p] < 0) continue;
        const nv = accs[v][task.pairedSlots[v][p]];
        const n0 = accs[0][task.pairedSlots[0][p]];
        const [sd, sd2] = [pairs[((v - 1) * P + p) * 2], pairs[((v - 1) * P + p) * 2 + 1]];
        expect(sd, `${name}, variant ${v}: Σd`).toBe(nv - n0);
        // both shortcuts are wrong here: some trials have the code on both sides, some on one
        expect(sd2, `${name}, variant ${v}: Σd²`).toBeGreaterThan(Math.abs(sd));
        expect(sd2, `${name}, variant ${v}: Σd²`).toBeLessThan(nv + n0);
      }
    }
    // x: both sides' codes compared trial by trial, from the same dice
    let exactlyOne = 0;
    const [s0, s1] = [deriveState('pairing', 'toy-x', 0), deriveState('pairing', 'toy-x', 0)];
    for (let t = 0; t < N; t++) {
      const b = base.codeOf[0][nextU32(s0) % 6] === 0;
      nextU32(s0);
      nextU32(s1);
      const r = renumbered.codeOf[1][nextU32(s1) % 6] === 2;
      if (b !== r) exactlyOne++;
    }
    const xOut = runChunk(toyKernel as Kernel<unknown>, { ...task, state: deriveState('pairing', 'toy-x', 0) });
    expect(xOut[xOut.length - 2 * 2 * P + 1]).toBe(exactlyOne);
  });
});

describe('the trace contract (systems/types.ts Trace), every kernel path', () => {
  afterEach(() => crInternals.setPath('kernel'));

  /** A traced call of n trials: each row the slots' values after one call of one trial, and the same accumulator. */
  function expectTraceOf(kernel: Kernel<unknown>, c: unknown, slots: number[], n: number, what: string): void {
    const L = kernel.accLength(c);
    const seed = (): RngState => deriveState('trace', what, 1);
    const one = new Float64Array(L);
    one[slots[0]] = 7; // a value before the call: rows are running values, not counts from 0
    const traced = Float64Array.from(one);
    const plain = Float64Array.from(one);
    const sOne = seed();
    const rows: number[] = [];
    for (let t = 0; t < n; t++) {
      kernel.run(c, sOne, 1, one);
      for (const s of slots) rows.push(one[s]);
    }
    const sTraced = seed();
    const trace = { slots: Int32Array.from(slots), out: new Float64Array(n * slots.length + 3).fill(-1) };
    kernel.run(c, sTraced, n, traced, trace);
    expect(Array.from(trace.out.subarray(0, n * slots.length)), `${what}: rows`).toEqual(rows);
    expect(Array.from(trace.out.subarray(n * slots.length)), `${what}: nothing past the rows`).toEqual([-1, -1, -1]);
    expect(bytes(traced), `${what}: the accumulator`).toBe(bytes(one));
    const sPlain = seed();
    kernel.run(c, sPlain, n, plain);
    expect(bytes(plain), `${what}: untraced`).toBe(bytes(one));
    expect(Array.from(sTraced)).toEqual(Array.from(sOne));
    expect(Array.from(sPlain)).toEqual(Array.from(sOne));
  }

  const cases: [string, number][] = [
    ['surrender/port-blockade.yaml', 0],
    ['surrender/hopeless-citadel.yaml', 0],
    ['cry-havoc/melee-two-on-one.yaml', 0],
    ['cry-havoc/missile-range-tables.yaml', 0],
    ['cry-havoc/battering-ram.yaml', 0],
    ['cry-havoc/fire-siege-tower.yaml', 0],
    ['cry-havoc/healing-tables.yaml', 0],
    ['cry-havoc/healing-tables.yaml', 1],
    ['fantasy/stone-wall-siege.yaml', 0],
    ['fantasy/open-field-volley.yaml', 0],
  ];
  it.each(cases)('%s, variant %i', (file, variant) => {
    const sc = load(file);
    const c = sc.system.compile(sc.points[0].variants[Math.min(variant, sc.variantNames.length - 1)].scenario);
    const slots = sc.system.pairedSlots(c).map((s) => s.slot);
    expect(slots.length).toBeGreaterThan(0);
    expectTraceOf(sc.system.kernel as Kernel<unknown>, c, slots, 700, `${file}#${variant}`);
  });

  /** A traced call's codes (Trace.codes) against one-trial calls: each trial's code of each group names the one metric whose slot gained 1 (or none). */
  function expectCodesOf(c: unknown, n: number, what: string): void {
    const kernel = cryHavoc.kernel as Kernel<unknown>;
    const groups = cryHavoc.pairedGroups!(c as never);
    const slotOf = new Map(cryHavoc.pairedSlots(c as never).map((x) => [x.metric, x.slot]));
    const G = groups.length;
    expect(G).toBeGreaterThan(0);
    const seed = (): RngState => deriveState('codes', what, 1);
    const L = kernel.accLength(c);
    const one = new Float64Array(L);
    const sOne = seed();
    const changes: Float64Array[] = [];
    for (let t = 0; t < n; t++) {
      const before = Float64Array.from(one);
      kernel.run(c, sOne, 1, one);
      changes.push(one.map((x, i) => x - before[i]));
    }
    const traced = new Float64Array(L);
    const trace = { slots: new Int32Array(0), out: new Float64Array(0), codes: new Int32Array(n * G + 2).fill(-1) };
    kernel.run(c, seed(), n, traced, trace);
    expect(Array.from(trace.codes.subarray(n * G)), `${what}: nothing past the codes`).toEqual([-1, -1]);
    expect(bytes(traced), `${what}: the accumulator`).toBe(bytes(one));
    const seen = new Set<string>();
    for (let t = 0; t < n; t++) {
      for (let g = 0; g < G; g++) {
        const code = trace.codes[t * G + g];
        const metrics = groups[g].metrics;
        expect(code >= 0 && code < metrics.length, `${what}: trial ${t}, group ${g}: code ${code} of ${metrics.length}`).toBe(true);
        seen.add(`${g}:${code}`);
        metrics.forEach((m, k) => {
          if (m === '') return;
          expect(slotOf.has(m), `${what}: ${m} is paired`).toBe(true);
          expect(changes[t][slotOf.get(m)!], `${what}: trial ${t}, ${m}`).toBe(code === k ? 1 : 0);
        });
      }
    }
    expect(seen.size, `${what}: more than one code a group`).toBeGreaterThan(G);
  }

  const codedCases: [string, number][] = [
    ['cry-havoc/melee-two-on-one.yaml', 1],
    ['cry-havoc/melee-unhorse-the-knight.yaml', 0], // a mounted defender: the mounted table's slots
    ['cry-havoc/missile-range-tables.yaml', 0],
    ['cry-havoc/healing-tables.yaml', 0],
    ['cry-havoc/healing-tables.yaml', 1],
  ];
  it.each(codedCases)('%s, variant %i: the codes of its one-hot groups', (file, variant) => {
    const sc = load(file);
    expectCodesOf(cryHavoc.compile(sc.points[0].variants[variant].scenario as never), 700, `${file}#${variant}`);
  });

  it('a melee whose turn 1 allows no attack: its first-roll code counts in no letter', () => {
    const text = readFileSync(path.join(ROOT, 'scenarios', 'cry-havoc/melee-two-on-one.yaml'), 'utf8');
    const js = parse(text) as Record<string, unknown>;
    // odds 3 / 4, below 1-1 (1.1 DEFAULT: no attack): every trial ends before its first roll
    const sc = load('none.yaml', stringify({ ...js, expect: undefined, variants: undefined, attackers: [{ attack: 3 }], defender: { defence: 4 } }));
    const c = cryHavoc.compile(sc.points[0].variants[0].scenario as never);
    const kernel = cryHavoc.kernel as Kernel<unknown>;
    const trace = { slots: new Int32Array(0), out: new Float64Array(0), codes: new Int32Array(2 * 50) };
    kernel.run(c, deriveState('codes', 'none', 1), 50, new Float64Array(kernel.accLength(c)), trace);
    const groups = cryHavoc.pairedGroups!(c as never);
    for (let t = 0; t < 50; t++) {
      expect(groups[0].metrics[trace.codes[2 * t]]).toBe('p_no_attack');
      expect(groups[1].metrics[trace.codes[2 * t + 1]]).toBe('');
    }
  });

  const crPaths: [string, CrusaderRexPath][] = [
    ['crusader-rex/reference-field-battle.yaml', 'kernel'], // the field path
    ['crusader-rex/reference-field-battle.yaml', 'table'],
    ['crusader-rex/case-b-old-siege.yaml', 'kernel'], // the table path
    ['crusader-rex/case-b-old-siege.yaml', 'general'],
    ['crusader-rex/storm-or-starve.yaml', 'general'],
  ];
  it.each(crPaths)('%s, %s path', (file, p) => {
    const sc = load(file);
    const c = crusaderRex.compile(sc.points[0].variants[0].scenario);
    crInternals.setPath(p);
    const slots = crusaderRex.pairedSlots(c).map((s) => s.slot);
    expectTraceOf(crusaderRex.kernel as Kernel<unknown>, c, slots, 700, `${file}#${p}`);
  });

  /**
   * A call in outcome mode (Trace.outcome) against one-trial calls: trial t's code's row in the
   * table gives every paired slot's change in that trial; no rows; the accumulator and the stream
   * as an untraced call leaves them.
   */
  function expectOutcomesOf(c: unknown, n: number, what: string, sys: RulesSystem = crusaderRex as RulesSystem): number {
    const kernel = sys.kernel as Kernel<unknown>;
    expect(kernel.outcomes!(c), `${what}: writes outcome codes`).toBe(true);
    const slots = sys.pairedSlots(c as never).map((x) => x.slot);
    const seed = (): RngState => deriveState('outcomes', what, 1);
    const L = kernel.accLength(c);
    const one = new Float64Array(L);
    const sOne = seed();
    const changes: number[][] = [];
    for (let t = 0; t < n; t++) {
      const before = slots.map((x) => one[x]);
      kernel.run(c, sOne, 1, one);
      changes.push(slots.map((x, p) => one[x] - before[p]));
    }
    const traced = new Float64Array(L);
    const sTraced = seed();
    const trace: Trace = { slots: Int32Array.from(slots), out: new Float64Array(0), outcome: new Int32Array(n + 2).fill(-7) };
    kernel.run(c, sTraced, n, traced, trace);
    expect(Array.from(trace.outcome!.subarray(n)), `${what}: nothing past the codes`).toEqual([-7, -7]);
    expect(bytes(traced), `${what}: the accumulator`).toBe(bytes(one));
    expect(Array.from(sTraced)).toEqual(Array.from(sOne));
    const { table, width, column } = trace;
    const codes = new Set<number>();
    for (let t = 0; t < n; t++) {
      const k = trace.outcome![t];
      expect(k >= 0 && (k + 1) * width! <= table!.length, `${what}: trial ${t}'s code ${k} in its table`).toBe(true);
      codes.add(k);
      const got = slots.map((_, p) => (column![p] < 0 ? 0 : table![k * width! + column![p]]));
      expect(got, `${what}: trial ${t}, code ${k}`).toEqual(changes[t]);
    }
    return codes.size;
  }

  const outcomePaths: [string, number, CrusaderRexPath][] = [
    ['crusader-rex/reference-field-battle.yaml', 0, 'kernel'], // the closed field path
    ['crusader-rex/reference-field-battle.yaml', 1, 'kernel'], // the field path (knights charge)
    ['crusader-rex/reference-field-battle.yaml', 0, 'field'], // the field path on a closed battle
    ['crusader-rex/knights-charge.yaml', 2, 'kernel'], // the field path, charging when weaker
    ['crusader-rex/case-a-new-siege.yaml', 0, 'kernel'], // the table path's walk, reserves arriving
    ['crusader-rex/case-b-old-siege.yaml', 0, 'kernel'], // the walk, a siege
  ];
  it.each(outcomePaths)('%s, variant %i, %s path: outcome codes whose rows are each trial\'s changes', (file, variant, p) => {
    const sc = load(file);
    crInternals.setPath(p);
    const c = crusaderRex.compile(sc.points[0].variants[variant].scenario);
    expect(expectOutcomesOf(c, 1500, `${file}#${variant}#${p}`), 'more than a few outcomes met').toBeGreaterThan(5);
    // a second call on the same case: its codes keep their meaning
    expectOutcomesOf(c, 300, `${file}#${variant}#${p}#2`);
  });

  it.each([
    ['surrender/fortress-readings.yaml', 0],
    ['surrender/fortress-readings.yaml', 2], // a d10
    ['surrender/port-blockade.yaml', 0], // a port: turns without a test
  ] as [string, number][])('%s, variant %i: outcome codes (the probe, surrendered) whose rows are each trial\'s changes', (file, variant) => {
    const sc = load(file);
    const c = sc.system.compile(sc.points[0].variants[Math.min(variant, sc.variantNames.length - 1)].scenario);
    expect(expectOutcomesOf(c, 2000, `${file}#${variant}`, sc.system as RulesSystem), 'three or four of the codes met').toBeGreaterThanOrEqual(3);
  });
});

describe('two identical variants: every metric over all trials differs by exactly 0 [0, 0], paired', () => {
  /** The scenario with its baseline and an identical twin (both set one of the file's own values to itself), no expect:. */
  function twin(file: string) {
    const js = parse(readFileSync(path.join(ROOT, 'scenarios', file), 'utf8')) as Record<string, unknown>;
    const sweep = (js.sweep ?? {}) as Record<string, unknown>;
    const base = ((js.variants as { name: string; set?: Record<string, unknown> }[] | undefined) ?? [])[0] ?? { name: 'base' };
    let set = base.set;
    for (const [k, v] of Object.entries(js)) {
      if (set || ['name', 'system', 'description', 'seed', 'trials', 'sweep', 'variants', 'expect', 'headline', 'kind', 'mode'].includes(k)) continue;
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const leaf = Object.entries(v).find(([k2, v2]) => typeof v2 !== 'object' && !(`${k}.${k2}` in sweep));
        if (leaf) set = { [`${k}.${leaf[0]}`]: leaf[1] };
      }
    }
    if (!set) throw new Error(`${file}: no value to set`);
    return load(file, stringify({ ...js, expect: undefined, variants: [{ name: base.name, set }, { name: 'twin', set }] }));
  }
  const picked = [
    'crusader-rex/case-b-old-siege.yaml',
    'crusader-rex/reference-field-battle.yaml',
    'fantasy/stone-wall-siege.yaml',
    'fantasy/open-field-volley.yaml',
    'cry-havoc/melee-two-on-one.yaml',
    'cry-havoc/missile-range-tables.yaml',
    'cry-havoc/battering-ram.yaml',
    'cry-havoc/fire-siege-tower.yaml',
    'cry-havoc/healing-tables.yaml',
    'surrender/town-basic.yaml',
  ];
  it.each(picked)('%s', async (file) => {
    const sc = twin(file);
    const r = await runScenario(sc, { trials: 3000 });
    const twins = r.cases.filter((c) => c.variant === 'twin');
    expect(twins.length).toBeGreaterThan(0);
    for (const c of twins) {
      const base = r.cases.find((b) => b.case === c.case && b.variant !== 'twin')!;
      expect(c.metrics).toEqual(base.metrics);
      for (const [m, d] of Object.entries(c.differences)) {
        if (sc.system.conditionalOn && m in sc.system.conditionalOn) expect(d.paired, `${m}: a mean over the trials of an event is Welch`).toBe(false);
        else expect([m, d.value, d.ci_low, d.ci_high, d.paired]).toEqual([m, 0, 0, 0, true]);
      }
    }
  }, 60_000);
});
