/** Scenario builders and checks shared by the Crusader Rex test files. */
import { expect } from 'vitest';
import { stringify } from 'yaml';
import { checkScenario, exactScenario, runScenario, validateText, CHECK_Z_LIMIT, type ValidScenario } from '../src/api.js';
import { compileCrusaderRex, type CrusaderRexCompiled } from '../src/systems/crusader-rex/compile.js';
import { crusaderRexKernel, _internals, type CrusaderRexPath } from '../src/systems/crusader-rex/kernel.js';
import { deriveState } from '../src/engine/rng.js';
import type { ScenarioResult } from '../src/systems/types.js';
import { merge, zAll, type Tree } from './helpers.js';

const HEAD = 'name: cr\nsystem: crusader-rex\nseed: crusader-tests\n';
export function valid(body: Tree, trials = 20000) {
  const v = validateText('cr.yaml', `${HEAD}trials: ${trials}\n${stringify(body)}`);
  if (!v.ok) throw new Error(v.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  return v.value;
}
export const compiled = (body: Tree) => compileCrusaderRex(valid(body).points[0].variants[0].scenario);
export async function pair(body: Tree, path: string, value: unknown, trials = 20000): Promise<ScenarioResult> {
  return runScenario(valid(merge(body, { variants: [{ name: 'base' }, { name: 'alt', set: { [path]: value } }] }), trials));
}
export const m = (r: ScenarioResult, vi: number, metric: string) => r.cases[vi].metrics[metric].value;
/** The attrition curve's point (turn, round, side, place) of variant vi. */
export const att = (r: ScenarioResult, vi: number, x: Record<string, string | number>) =>
  r.cases[vi].curves.attrition.find((p) => Object.entries(x).every(([k, v]) => p.x[k] === v))!.m;
export const up = (z: number) => expect(z).toBeGreaterThan(4);
export const down = (z: number) => expect(z).toBeLessThan(-4);

/**
 * Let the test worker answer vitest's calls: the chain and an in-process run are synchronous, and
 * a file of them that never yields can hold a reply past vitest's 60 s RPC timeout on a busy
 * machine ("Timeout calling onTaskUpdate").
 */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The kernel against the exact chain on every metric and curve point (|z| < 4.5); returns both.
 * The kernel's own choice of path (the field path for a plain field battle, the table path for
 * other battles of at most 5 blocks a side), or one forced: 'table' (the table path for a field
 * battle too), 'general'.
 */
export async function agreesWithExact(body: Tree, trials = 60000, path: CrusaderRexPath = 'kernel') {
  const v = valid(body, trials);
  await yieldToEventLoop();
  const exact = exactScenario(v);
  expect(exact[0].exact).not.toBeNull();
  await yieldToEventLoop();
  _internals.setPath(path);
  const result = await runScenario(v).finally(() => _internals.setPath('kernel'));
  await yieldToEventLoop();
  const rows = checkScenario(result, exact);
  expect(rows.length).toBeGreaterThan(4);
  for (const r of rows) expect(Math.abs(r.z), `${r.metric}: ${r.simulated} vs ${r.exact}`).toBeLessThan(CHECK_Z_LIMIT);
  return { result, exact: exact[0].exact! };
}

/** The scenario run on `path` (the kernel's choice or one forced) and on the forced general path. */
export async function withGeneral(v: ValidScenario, path: CrusaderRexPath): Promise<{ fast: ScenarioResult; general: ScenarioResult }> {
  try {
    _internals.setPath(path);
    const fast = await runScenario(v);
    await yieldToEventLoop();
    _internals.setPath('general');
    const general = await runScenario(v);
    return { fast, general };
  } finally {
    _internals.setPath('kernel');
  }
}

/**
 * The kernel on `path` against the forced general path: two runs on different dice (the general
 * path rolls volley by volley) that must agree on every metric and curve point (|z| < 4.5).
 */
export async function agreesWithGeneral(body: Tree, path: CrusaderRexPath) {
  const { fast, general } = await withGeneral(valid(body, 40000), path);
  const [a, b] = [fast.cases[0].metrics, general.cases[0].metrics];
  expect(Object.keys(a).some((k) => a[k].value !== b[k].value), 'not the same dice').toBe(true);
  const zs = zAll(fast, general);
  expect(zs.length).toBeGreaterThan(30);
  for (const [label, z] of zs) expect(Math.abs(z), label).toBeLessThan(CHECK_Z_LIMIT);
}

/** The accumulators of `trials` battles of case c on `path`, from a fixed stream (paths compared bit for bit). */
export function kernelAcc(c: CrusaderRexCompiled, path: CrusaderRexPath, trials: number, label: string): number[] {
  const a = new Float64Array(crusaderRexKernel.accLength(c));
  _internals.setPath(path);
  try {
    crusaderRexKernel.run(c, deriveState('paths', label, 0), trials, a);
  } finally {
    _internals.setPath('kernel');
  }
  return Array.from(a);
}

export const FIELD_BATTLE: Tree = {
  town: { rating: 0 },
  player1: 'saracens',
  attacker: 'saracens',
  blocks: [{ block: 'Saladin' }, { block: 'Al Adil' }, { block: 'Turks 3' }, { block: 'Kurds 1' }, { block: 'King Guy' }, { block: 'Conrad' }, { block: 'Jerusalem Templars' }, { block: 'Genoa Pilgrims' }],
};
export const SIEGE: Tree = {
  town: { rating: 2 },
  player1: 'saracens',
  situation: 'existing_siege',
  besieged: 'franks',
  blocks: [{ block: 'Raymond (Tiberias)', at: 'castle' }, { block: 'Walter', at: 'castle' }, { block: 'Saladin' }, { block: 'Al Mashtub' }, { block: 'Tuman' }],
  policy: { storm: 'always' },
};
