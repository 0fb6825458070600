/**
 * Messages between the site's page and its run worker (run-worker.ts). The page posts a request;
 * the worker answers with events carrying the request's id. A newer `run` cancels the older one
 * at once, as the workbench server does for a tab's live run.
 */
import type { ScenarioIssue } from '../scenario/load.js';
import type { CaseResult } from '../systems/types.js';

export type RunRequest = {
  type: 'run';
  id: number;
  /** The name messages give the scenario (`file:line:col`). */
  file: string;
  text: string;
  /** Where it came from: summary.json's provenance.scenario.source. */
  source: string;
  trials?: number;
  seed?: string | number;
};
export type ValidateRequest = { type: 'validate'; id: number; file: string; text: string };
export type CancelRequest = { type: 'cancel'; id: number };
export type PageRequest = RunRequest | ValidateRequest | CancelRequest;

/** A case as the page shows it while it refines: no curves (they go with `done`). */
export type WireCase = Pick<CaseResult, 'case' | 'variant' | 'params' | 'trials' | 'metrics' | 'differences'>;

export type WorkerEvent =
  | { type: 'ready'; threads: number }
  | { type: 'start'; id: number; name: string; system: string; description?: string; headline: string[]; answer: AnswerInputs; cases: number; trials: number; seed: string | number; threads: number }
  | { type: 'partial'; id: number; point: number; trials: number; cases: WireCase[]; ms: number }
  | { type: 'done'; id: number; summary: Record<string, unknown>; ms: number }
  | { type: 'valid'; id: number; name: string; system: string; description?: string }
  | { type: 'invalid'; id: number; issues: ScenarioIssue[] }
  | { type: 'error'; id: number; message: string };

/** What api/answer.ts's answerMetrics takes, for the page to choose the Answer's columns by the rule every front end uses. */
export interface AnswerInputs {
  headline: string[];
  outcomes: string[][];
  metrics: string[];
  chosen?: string[];
}
