/** Helpers shared by the rules systems' tests. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runScenario, validateText } from '../src/api.js';
import { welchDifference, Z95 } from '../src/stats/intervals.js';
import type { Metric, ScenarioResult } from '../src/systems/types.js';
import { InlineExecutor } from '../src/engine/executor.js';
import { KERNELS } from '../src/systems/kernels.js';
import type { BatchTask } from '../src/engine/chunk.js';

/** The repository's root. */
export const ROOT = path.resolve(import.meta.dirname, '..');

/** Run a bundled scenario file (path from the root) in this thread with `trials` per case. */
export async function runFile(rel: string, trials: number): Promise<ScenarioResult> {
  const file = path.join(ROOT, rel);
  const v = validateText(file, readFileSync(file, 'utf8'));
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return runScenario(v.value, { trials });
}

/** Every object in a tree of plain data (a Vega-Lite spec), depth first. */
export function* nodes(x: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(x)) for (const y of x) yield* nodes(y);
  else if (x && typeof x === 'object') {
    yield x as Record<string, unknown>;
    for (const y of Object.values(x)) yield* nodes(y);
  }
}

export type Tree = Record<string, unknown>;

/** Deep-merge scenario fragments (later wins; arrays are replaced), so a test states only what it changes. */
export function merge(...parts: Tree[]): Tree {
  const out: Tree = {};
  for (const p of parts) {
    for (const [k, v] of Object.entries(p)) {
      const cur = out[k];
      const both = v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur);
      out[k] = both ? merge(cur as Tree, v as Tree) : v;
    }
  }
  return out;
}

/** z of an estimate against zero, from its 95% interval. */
function zOf(value: number, ciLow: number, ciHigh: number): number {
  const half = (ciHigh - ciLow) / 2;
  if (half === 0) return value === 0 ? 0 : Math.sign(value) * Infinity;
  return value / (half / Z95);
}

/** z of the difference a - b of two independent means (Welch). */
function zWelch(a: Metric, b: Metric): number {
  const d = welchDifference({ n: a.n, sum: a.sum!, sumSq: a.sumSq! }, { n: b.n, sum: b.sum!, sumSq: b.sumSq! });
  return zOf(d.value, d.ci_low, d.ci_high);
}

/** z of variant 1's difference from the baseline (paired where the engine pairs the metric). */
export function zDiff(r: ScenarioResult, metric: string): number {
  const d = r.cases[1].differences[metric];
  return zOf(d.value, d.ci_low, d.ci_high);
}

/** A curve point of variant `vi`. */
export function curvePoint(r: ScenarioResult, vi: number, curve: string, match: Record<string, string | number>): Metric {
  const pt = r.cases[vi].curves[curve].find((p) => Object.entries(match).every(([k, v]) => p.x[k] === v));
  if (!pt) throw new Error(`no ${curve} point ${JSON.stringify(match)}`);
  return pt.m;
}

/** z of a curve point's change from the baseline to variant 1 (Welch on the two means). */
export function zCurve(r: ScenarioResult, curve: string, match: Record<string, string | number>): number {
  const a = curvePoint(r, 0, curve, match);
  const b = curvePoint(r, 1, curve, match);
  return zWelch(b, a);
}

/**
 * z of the difference between two independent estimates of one quantity (two runs on
 * unrelated dice): pooled two-proportion z for a probability, Welch for a mean. 0 when both
 * are certain and equal.
 */
export function zTwo(a: Metric, b: Metric): number {
  if (a.kind === 'probability') {
    const p = (a.value * a.n + b.value * b.n) / (a.n + b.n);
    const se = Math.sqrt(p * (1 - p) * (1 / a.n + 1 / b.n));
    return se === 0 ? (a.value === b.value ? 0 : Infinity) : (a.value - b.value) / se;
  }
  return zWelch(a, b);
}

/** Every metric and curve point of two results' first cases, as [label, z] pairs (zTwo). */
export function zAll(a: ScenarioResult, b: ScenarioResult): [string, number][] {
  const out: [string, number][] = [];
  const ca = a.cases[0];
  const cb = b.cases[0];
  for (const [name, m] of Object.entries(ca.metrics)) out.push([name, zTwo(m, cb.metrics[name])]);
  for (const [curve, pts] of Object.entries(ca.curves)) {
    pts.forEach((p, i) => out.push([`${curve} ${JSON.stringify(p.x)}`, zTwo(p.m, cb.curves[curve][i].m)]));
  }
  return out;
}

/**
 * The in-process executor, letting the event loop turn before each batch: a long in-process
 * run is otherwise one unbroken stretch of microtasks, during which the test worker cannot
 * answer vitest's RPC (which times out on a loaded machine).
 */
export class YieldingExecutor extends InlineExecutor {
  constructor() {
    super(KERNELS);
  }
  override async run(task: BatchTask): Promise<Float64Array> {
    await new Promise((resolve) => setImmediate(resolve));
    return super.run(task);
  }
}
