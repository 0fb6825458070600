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
import { ChunkRun, runBatch, runChunk, type BatchTask } from '../src/engine/chunk.js';
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
