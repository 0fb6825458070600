/**
 * What the static site's run worker computes: a scenario's text -> validated, compiled, run in
 * the engine's chunks (engine/run.ts: the same chunk plan, streams and merge order as the
 * command line), summarized -> the summary.json object `siegesim run --json` prints. Pure: no
 * node:*, no DOM; the chunks run on whatever executor it is given (Web Workers in the page, the
 * in-process executor in Node tests).
 */
import { runScenario, validateText, type RunScenarioOptions } from '../api/run.js';
import type { ScenarioIssue } from '../scenario/load.js';
import type { ValidScenario } from '../scenario/validate.js';
import type { ScenarioResult } from '../systems/types.js';
import { reportOverrides, scenarioProvenance, summaryJson } from '../report/summary-json.js';
import { sha256Hex } from './sha256.js';

export interface SiteRunOptions extends Pick<RunScenarioOptions, 'executor' | 'signal' | 'onPartial' | 'onProgress'> {
  /** Trials per case over the file's (recorded as an override, as `--trials`). */
  trials?: number;
  /** Seed over the file's (recorded as an override, as `--seed`). */
  seed?: string | number;
  /** Where the scenario came from, for provenance.scenario.source (its address on the site, or `pasted`). */
  source: string;
}

export type SiteRun = { ok: true; result: ScenarioResult; summary: Record<string, unknown> } | { ok: false; issues: ScenarioIssue[] };

/**
 * Validate and run one scenario's text as `siegesim run --json` does (stale `expect:` items are
 * left out, as the commands that run leave them), and build its summary.json.
 *
 * @example const r = await runSiteScenario('town-basic.yaml', text, { trials: 20000, source: 'scenarios/surrender/town-basic.yaml' });
 */
export async function runSiteScenario(file: string, text: string, opts: SiteRunOptions): Promise<SiteRun> {
  const v = validateText(file, text, { staleExpect: 'warn' });
  if (!v.ok) return { ok: false, issues: v.issues.filter((i) => !i.stale) };
  return { ok: true, ...(await runValidScenario(v.value, text, opts)) };
}

/** runSiteScenario for a scenario validated already (from `text`). */
export async function runValidScenario(v: ValidScenario, text: string, opts: SiteRunOptions): Promise<{ result: ScenarioResult; summary: Record<string, unknown> }> {
  const result = await runScenario(v, { trials: opts.trials, seed: opts.seed, executor: opts.executor, signal: opts.signal, onPartial: opts.onPartial, onProgress: opts.onProgress });
  const summary = summaryJson(result, scenarioProvenance(sha256Hex(text), opts.source, reportOverrides({ trials: opts.trials, seed: opts.seed }, v)));
  return { result, summary };
}

/** summary.json's text, as the command line writes it. */
export function summaryText(summary: Record<string, unknown>): string {
  return JSON.stringify(summary, null, 2) + '\n';
}
