/**
 * What the kernel-acc-*.test.ts files share. They test the kernels' accumulator bookkeeping,
 * seeded, against what each trial says about itself. A kernel run over N trials must add up to the same kernel run one trial at a time on
 * the same stream (each trial draws its own generator state), and each one-trial accumulator is
 * one trial's record, whose slots must agree with each other: one outcome, Σx² the square of Σx,
 * a histogram's single 1 where the totals put it, a turn of death equal to the number of turns
 * the dice were rolled. Those relations are worked out here from the documented layouts, not
 * from the kernels' code, and hold whatever dice the kernel draws, so the checks survive a
 * rewrite of the rules code that keeps the layout.
 */
import { expect } from 'vitest';
import { stringify } from 'yaml';
import { validateText } from '../src/api.js';
import { deriveState } from '../src/engine/rng.js';
import type { Kernel } from '../src/systems/types.js';
import type { Tree } from './helpers.js';

/** The scenario's first compiled case. */
export function scenario(system: string, body: Tree): Record<string, unknown> {
  const v = validateText('k.yaml', `name: k\nsystem: ${system}\nseed: 1\ntrials: 1000\n${stringify(body)}`);
  if (!v.ok) throw new Error(v.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  return v.value.points[0].variants[0].scenario;
}

/**
 * `trials` one-trial accumulators of c, run one after another on one stream, after checking that
 * their sum is the accumulator of one run of all the trials on the same stream.
 */
export function oneByOne<C>(kernel: Kernel<C>, c: C, trials: number, label: string): Float64Array[] {
  const len = kernel.accLength(c);
  const batch = new Float64Array(len);
  kernel.run(c, deriveState('kernel-acc', label, 0), trials, batch);
  const stream = deriveState('kernel-acc', label, 0);
  const each: Float64Array[] = [];
  const sum = new Float64Array(len);
  for (let i = 0; i < trials; i++) {
    const a = new Float64Array(len);
    kernel.run(c, stream, 1, a);
    for (let k = 0; k < len; k++) sum[k] += a[k];
    each.push(a);
  }
  expect([...batch], `${label}: the run of ${trials} trials is the sum of its trials`).toEqual([...sum]);
  return each;
}

/**
 * The same trials (`each`, from oneByOne with the same label) run at once with a trace of `slots`
 * (engine/kernel.ts `Trace`, what pairs variants): the accumulator must be the untraced run's,
 * slot for slot, and trace row t each traced slot's value after trial t, the sum of the first
 * t + 1 one-trial accumulators.
 */
export function checkTrace<C>(kernel: Kernel<C>, c: C, each: Float64Array[], slots: number[], label: string): void {
  const len = kernel.accLength(c);
  const plain = new Float64Array(len);
  kernel.run(c, deriveState('kernel-acc', label, 0), each.length, plain);
  const acc = new Float64Array(len);
  const trace = { slots: Int32Array.from(slots), out: new Float64Array(each.length * slots.length) };
  kernel.run(c, deriveState('kernel-acc', label, 0), each.length, acc, trace);
  expect([...acc], `${label}: the traced run's accumulator is the untraced run's`).toEqual([...plain]);
  const running = slots.map(() => 0);
  const want: number[] = [];
  for (const a of each) {
    slots.forEach((k, p) => (running[p] += a[k]));
    want.push(...running);
  }
  expect([...trace.out], `${label}: each trace row is the traced slots' sums over the trials so far`).toEqual(want);
}

/** The slots of a from `from` to `to` (exclusive) that are not 0, as [slot, value] pairs. */
export function nonZero(a: Float64Array, from: number, to = a.length): [number, number][] {
  const out: [number, number][] = [];
  for (let k = from; k < to; k++) if (a[k] !== 0) out.push([k, a[k]]);
  return out;
}

/**
 * The trial-by-trial checks, collected rather than asserted one by one (thousands of them): each
 * failure names the trial; the test asserts the list is empty.
 */
export class Checks {
  readonly failed: string[] = [];
  trial = 0;
  /** x and y (numbers or arrays of them) are equal. */
  eq(x: unknown, y: unknown, what: string): void {
    if (JSON.stringify(x) !== JSON.stringify(y) && this.failed.length < 20) this.failed.push(`trial ${this.trial}: ${what}: ${JSON.stringify(x)}, want ${JSON.stringify(y)}`);
  }
  ok(cond: boolean, what: string): void {
    if (!cond && this.failed.length < 20) this.failed.push(`trial ${this.trial}: ${what}`);
  }
}

/** How many trials have each value of f (the test's check that a case exercises what it claims). */
export function tally<T>(xs: T[], f: (x: T) => string | number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[f(x)] = (out[f(x)] ?? 0) + 1;
  return out;
}
