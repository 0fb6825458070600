/**
 * A chunk run slice by slice is the chunk run in one call, byte for byte, so that a slow
 * in-process run can be stopped between slices. The in-process executor runs each chunk a slice of
 * trials at a time with turns of the event loop between them; that is only allowed because every
 * kernel's run(compiled, stream, n, acc) continues the same stream and buffer when called again.
 * Held here for every case of every bundled scenario, and for the engine's multi-variant path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateText } from '../src/api.js';
import { compilePoints, jobsOf } from '../src/api/run.js';
import { BatchRun, ChunkRun, runBatch, runChunk, STEP_TRIALS, type BatchTask } from '../src/engine/chunk.js';
import type { Trace } from '../src/engine/kernel.js';
import { InlineExecutor } from '../src/engine/executor.js';
import { deriveState } from '../src/engine/rng.js';
import { KERNELS } from '../src/systems/kernels.js';
import { ROOT } from './cli-child.js';

const files = readdirSync(path.join(ROOT, 'scenarios'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.yaml'))
  .sort();

/** Slices of 1, 2, 3, 5, 8, ... trials (then the rest): every size a slice can end at. */
function slices(n: number): number[] {
  const out: number[] = [];
  let a = 1;
  let b = 2;
  for (let left = n; left > 0; ) {
    const k = Math.min(a, left);
    out.push(k);
    left -= k;
    [a, b] = [b, a + b];
  }
  return out;
}

const bytes = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex');

describe('a chunk in slices is the chunk in one call, byte for byte', () => {
  it('finds the bundled scenarios', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files)('%s: every case, one kernel call of n against slices; every point, its variants together', (file) => {
    const v = validateText(file, readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const sc = v.value;
    const kernel = sc.system.kernel;
    const points = compilePoints(sc);
    const jobs = jobsOf(sc, points);
    const n = 60;
    points.forEach((p, pi) => {
      p.compiled.forEach((c, ci) => {
        // the kernel alone: one call of n trials, then the same chunk as slices
        const one = deriveState('slices', file, pi * 100 + ci);
        const accOne = new Float64Array(kernel.accLength(c));
        kernel.run(c, one, n, accOne);
        const state = deriveState('slices', file, pi * 100 + ci);
        const sliced = new ChunkRun(kernel as never, { system: sc.system.id, compiled: [c], accLengths: [accOne.length], pairedSlots: [[]], state, trials: n });
        for (const k of slices(n)) expect(sliced.step(k)).toBe(k);
        expect(sliced.finished).toBe(true);
        expect(sliced.step(5)).toBe(0); // a finished chunk runs nothing more
        expect(bytes(sliced.out), `${file} point ${pi} case ${ci}`).toBe(bytes(accOne));
        expect(Array.from(state)).toEqual(Array.from(one)); // the chunk's stream as far on
      });
      // the engine's chunk: every variant on the same dice, with the paired sums
      const task = { ...jobs[pi], state: deriveState('slices', file, pi), trials: n };
      const whole = runChunk(kernel as never, { ...task, state: deriveState('slices', file, pi) });
      const run = new ChunkRun(kernel as never, task);
      for (const k of slices(n).reverse()) run.step(k);
      expect(bytes(run.out), `${file} point ${pi}`).toBe(bytes(whole));
    });
  });

  it('the in-process executor gives runBatch\'s buffers, whatever slices its clock makes', async () => {
    const file = 'fantasy/stone-wall-siege.yaml';
    const v = validateText(file, readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const [job] = jobsOf(v.value, compilePoints(v.value));
    const task: BatchTask = { ...job, seed: 3, stream: 'point-0', first: 5, sizes: [700, 300, 1] };
    const expected = runBatch(KERNELS[task.system], task);
    let said = 0;
    const got = await new InlineExecutor(KERNELS).run(task, { onTrials: (t) => (said = t) });
    expect(bytes(got)).toBe(bytes(expected));
    expect(said).toBeLessThanOrEqual(1001);
  });

  it("a group's next batch starts at the slice size its last batch reached, not at one trial; another group starts at one", async () => {
    const file = 'surrender/town-basic.yaml';
    const v = validateText(file, readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const [job] = jobsOf(v.value, compilePoints(v.value));
    const calls: number[] = [];
    const spy = { ...KERNELS[job.system], run: (c: unknown, s: Int32Array, n: number, acc: Float64Array) => (calls.push(n), KERNELS[job.system].run(c, s, n, acc)) };
    const exec = new InlineExecutor({ [job.system]: spy });
    const batch = (first: number, compiled = job.compiled): BatchTask => ({ ...job, compiled, seed: 3, stream: 'point-0', first, sizes: [200_000] });
    const first = await exec.run(batch(0));
    expect(calls[0]).toBe(1);
    expect(calls.length).toBeGreaterThan(3); // 1, 8, 64, ... (grown from measured times)
    const reached = calls[calls.length - 2]; // the last slice of the first batch (its last call may be the rest)
    calls.length = 0;
    const second = await exec.run(batch(1));
    expect(calls[0]).toBeGreaterThan(1);
    expect(calls[0]).toBeGreaterThanOrEqual(Math.min(reached, 200_000) / 8);
    // the same numbers as in one call
    expect(bytes(second)).toBe(bytes(runBatch(KERNELS[job.system], batch(1))));
    expect(bytes(first)).toBe(bytes(runBatch(KERNELS[job.system], batch(0))));
    // a group of other cases (another compiled array) starts at one
    calls.length = 0;
    await exec.run(batch(2, [...job.compiled]));
    expect(calls[0]).toBe(1);
  });
});

/** A batch's chunk buffers summed in chunk order, as the run merges them (engine/run.ts). */
function batchSum(out: Float64Array, task: BatchTask): Float64Array {
  const L = out.length / task.sizes.length;
  const sum = new Float64Array(L);
  for (let j = 0; j < task.sizes.length; j++) for (let k = 0; k < L; k++) sum[k] += out[j * L + k];
  return sum;
}

describe('a batch read as its sum alone (BatchTask.whole) holds its kernels\' sums across chunks, to the same total', () => {
  it.each(files)('%s: every point, the batch whole in steps of every size against chunk by chunk', (file) => {
    const v = validateText(file, readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const kernel = KERNELS[v.value.system.id];
    const jobs = jobsOf(v.value, compilePoints(v.value));
    jobs.forEach((job, pi) => {
      const task: BatchTask = { ...job, seed: 11, stream: `point-${pi}`, first: 2, sizes: [90, 40, 1, 130] };
      const apart = runBatch(kernel, task);
      const whole = runBatch(kernel, { ...task, whole: true });
      expect(bytes(batchSum(whole, task)), `${file} point ${pi}`).toBe(bytes(batchSum(apart, task)));
      // in steps that end anywhere, within a chunk or across several
      const run = new BatchRun(kernel, { ...task, whole: true });
      // (a batch that does not hold steps within one chunk: a step may run fewer than asked, never more, never none)
      const sizes = slices(261);
      let ran = 0;
      for (let i = 0; !run.finished; i++) {
        const asked = sizes[i % sizes.length];
        const k = run.step(asked);
        expect(k > 0 && k <= asked, `${file} point ${pi}: a step of ${asked} after ${ran} ran ${k}`).toBe(true);
        ran += k;
      }
      expect(ran).toBe(261);
      expect(run.finished).toBe(true);
      expect(run.step(5)).toBe(0); // a finished batch runs nothing more
      expect(bytes(batchSum(run.out, task)), `${file} point ${pi}, in steps`).toBe(bytes(batchSum(apart, task)));
    });
  });

  it('a paired Crusader Rex siege (the walk, outcome mode) holds: a chunk\'s buffer alone differs, every chunk keeps its trial count, the total is the same', () => {
    const file = 'crusader-rex/case-a-new-siege.yaml';
    const v = validateText(file, readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const [job] = jobsOf(v.value, compilePoints(v.value));
    expect(job.compiled.length).toBe(3);
    const task: BatchTask = { ...job, seed: 5, stream: 'point-0', first: 0, sizes: [3000, 3000, 3000] };
    const apart = runBatch(KERNELS[task.system], task);
    const whole = runBatch(KERNELS[task.system], { ...task, whole: true });
    const L = apart.length / 3;
    // the first chunk's records and outcomes were held for the last chunk's buffer
    expect(bytes(whole.subarray(0, L))).not.toBe(bytes(apart.subarray(0, L)));
    const V = task.accLengths.length;
    for (let j = 0; j < 3; j++) {
      let off = j * L;
      for (let c = 0; c < V; c++) {
        expect(whole[off]).toBe(3000); // acc[0]: every call counts its own trials
        off += task.accLengths[c];
      }
    }
    expect(bytes(batchSum(whole, task))).toBe(bytes(batchSum(apart, task)));
  });

  it('one case of a Crusader Rex siege (the walk, nothing paired) holds too: its last call settles, in steps within and across chunks', () => {
    const file = 'crusader-rex/case-a-new-siege.yaml';
    const v = validateText(file, readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const [job] = jobsOf(v.value, compilePoints(v.value));
    const task: BatchTask = { system: job.system, compiled: [job.compiled[1]], accLengths: [job.accLengths[1]], pairedSlots: [[]], seed: 6, stream: 'point-0', first: 0, sizes: [2500, 2500, 2500] };
    const kernel = KERNELS[task.system];
    const apart = runBatch(kernel, task);
    const L = apart.length / 3;
    for (const step of [Infinity, 4000, 1000]) {
      const run = new BatchRun(kernel, { ...task, whole: true });
      while (!run.finished) run.step(step);
      // held: the first chunk's sums went to a later chunk's buffer (a step of one chunk holds nothing)
      if (step > 2500) expect(bytes(run.out.subarray(0, L)), `steps of ${step}`).not.toBe(bytes(apart.subarray(0, L)));
      for (let j = 0; j < 3; j++) expect(run.out[j * L]).toBe(2500);
      expect(bytes(batchSum(run.out, task)), `steps of ${step}`).toBe(bytes(batchSum(apart, task)));
    }
  });

  it('a step of a batch that holds plays the trials asked across its chunks: with variants at most STEP_TRIALS (each keeps its codes for the step), with one case any number', () => {
    const file = 'surrender/fortress-readings.yaml';
    const v = validateText(file, readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const [job] = jobsOf(v.value, compilePoints(v.value));
    const kernel = KERNELS[job.system];
    // the baseline and one variant, paired by outcome codes: the batch holds
    const two = { ...job, compiled: job.compiled.slice(0, 2), accLengths: job.accLengths.slice(0, 2), pairedSlots: job.pairedSlots.slice(0, 2) };
    expect(two.compiled.every((c) => kernel.outcomes?.(c))).toBe(true);
    // two chunks of more trials together than a step of variants may play
    const sizes = [STEP_TRIALS / 2 + 5000, STEP_TRIALS / 2 + 5000];
    const total = sizes[0] + sizes[1];
    const task: BatchTask = { ...two, seed: 8, stream: 'point-0', first: 0, sizes };
    const run = new BatchRun(kernel, { ...task, whole: true });
    expect(run.step(Infinity)).toBe(STEP_TRIALS);
    expect(run.step(100)).toBe(100);
    expect(run.step(Infinity)).toBe(total - STEP_TRIALS - 100);
    expect(run.finished).toBe(true);
    expect(bytes(batchSum(run.out, task))).toBe(bytes(batchSum(runBatch(kernel, task), task)));
    // one case keeps no codes: one step plays the whole batch
    const one: BatchTask = { system: job.system, compiled: [job.compiled[0]], accLengths: [job.accLengths[0]], pairedSlots: [[]], seed: 8, stream: 'point-0', first: 0, sizes };
    const oneRun = new BatchRun(kernel, { ...one, whole: true });
    expect(oneRun.step(Infinity)).toBe(total);
    expect(oneRun.finished).toBe(true);
    expect(bytes(batchSum(oneRun.out, one))).toBe(bytes(batchSum(runBatch(kernel, one), one)));
  });

  it('a batch that holds where a variant pairs nothing, or where no metric is paired: the same total', () => {
    const file = 'crusader-rex/case-b-old-siege.yaml';
    const v = validateText(file, readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const [job] = jobsOf(v.value, compilePoints(v.value));
    const kernel = KERNELS[job.system];
    const ways: [string, number[][]][] = [
      ['variant 1 pairing nothing', job.pairedSlots.map((s, c) => (c === 1 ? s.map(() => -1) : s))],
      ['no paired metric', job.pairedSlots.map(() => [])],
    ];
    for (const [what, pairedSlots] of ways) {
      const task: BatchTask = { ...job, pairedSlots, seed: 4, stream: 'point-0', first: 0, sizes: [900, 600, 1300] };
      const apart = runBatch(kernel, task);
      const L = apart.length / 3;
      for (const step of [Infinity, 1000]) {
        const run = new BatchRun(kernel, { ...task, whole: true });
        while (!run.finished) run.step(step);
        // held: the first chunk's sums went to a later chunk's buffer
        if (step === Infinity) expect(bytes(run.out.subarray(0, L)), what).not.toBe(bytes(apart.subarray(0, L)));
        expect(bytes(batchSum(run.out, task)), `${what}, steps of ${step}`).toBe(bytes(batchSum(apart, task)));
      }
    }
  });

  it('between a held call and the call that settles it, the engine calls nothing else in the thread (the Kernel contract\'s hold)', async () => {
    const file = 'crusader-rex/case-b-old-siege.yaml';
    const v = validateText(file, readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const [job] = jobsOf(v.value, compilePoints(v.value));
    const real = KERNELS[job.system];
    let pending: unknown = undefined;
    let held = 0;
    const wrong: string[] = [];
    const spy = {
      ...real,
      run: (c: unknown, s: Int32Array, n: number, acc: Float64Array, trace?: Trace, hold?: boolean) => {
        if (pending !== undefined && pending !== c) wrong.push(`case ${job.compiled.indexOf(c)} called while case ${job.compiled.indexOf(pending)} held`);
        pending = hold === true ? c : undefined;
        if (hold === true) held++;
        real.run(c, s, n, acc, trace, hold);
      },
    };
    const task: BatchTask = { ...job, seed: 9, stream: 'point-0', first: 0, sizes: [4000, 4000, 4000, 4000, 17], whole: true };
    const out = runBatch(spy, task);
    const run = new BatchRun(spy, task);
    while (!run.finished) run.step(2500);
    const exec = await new InlineExecutor({ [job.system]: spy }, 1).run(task);
    expect(wrong).toEqual([]);
    expect(pending).toBeUndefined(); // the last call settled
    expect(held).toBeGreaterThan(0);
    const apart = runBatch(real, { ...task, whole: undefined });
    for (const got of [out, run.out, exec]) expect(bytes(batchSum(got, task))).toBe(bytes(batchSum(apart, task)));
  });
});
