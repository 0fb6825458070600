/**
 * Paired variants run block by block (engine/chunk.ts): each variant's kernel plays a block of
 * trials in one call from a copy of the chunk's stream, tracing its paired slots, and the engine
 * pairs the rows afterwards. Held here to the plain way of pairing — every trial, every variant
 * from the same start, one kernel call per trial and variant, the accumulators differenced
 * around each call — byte for byte, for every point of every bundled scenario with variants,
 * whatever the slices; and every kernel path held to the trace contract (systems/types.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runScenario, validateText } from '../src/api.js';
import { alignPairedSlots, compilePoints, jobsOf } from '../src/api/run.js';
import { ChunkRun, PAIR_BLOCK, resultLength, runChunk, type ChunkTask } from '../src/engine/chunk.js';
import { deriveState, type RngState } from '../src/engine/rng.js';
import { crusaderRex } from '../src/systems/crusader-rex/index.js';
import { _internals as crInternals, type CrusaderRexPath } from '../src/systems/crusader-rex/kernel.js';
import { fantasy } from '../src/systems/fantasy/index.js';
import type { Kernel, RulesSystem } from '../src/systems/types.js';
import { ROOT } from './cli-child.js';

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
  for (const k of oddSlices(task.trials)) expect(run.step(k)).toBe(k);
  expect(run.finished).toBe(true);
  expect(bytes(run.out), `${what}: odd slices`).toBe(bytes(expected));
  // the chunk's stream as far on as the reference's
  const refState = deriveState('pairing', key, 0);
  pairTrialByTrial(kernel, { ...task, state: refState });
  expect(Array.from(state)).toEqual(Array.from(refState));
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

  it('a variant that pairs nothing at all, and a chunk with no paired metric', () => {
    const sc = load('surrender/fortress-readings.yaml');
    const job = jobsOf(sc, compilePoints(sc))[0];
    const kernel = sc.system.kernel as Kernel<unknown>;
    const none = { ...job, pairedSlots: job.pairedSlots.map((s, v) => (v === 1 ? s.map(() => -1) : s)), trials: 2300 };
    expectSameThreeWays(kernel, none, 'none', 'a variant pairing nothing');
    const empty = { ...job, pairedSlots: job.pairedSlots.map(() => []), trials: 2300 };
    expectSameThreeWays(kernel, empty, 'empty', 'no paired metric');
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
