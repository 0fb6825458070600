/**
 * The site's run worker: validation, compile, the engine's run loop (chunk plan and merge
 * order: engine/run.ts), summarize and the statistics, off the page's thread; the chunks go to
 * one kernel worker per core (WebWorkerExecutor). Partial results are posted as chunks merge
 * (throttled), so the first number shows at once and sharpens; `done` carries summary.json.
 */
import { runValidScenario } from './summary.js';
import { validateText } from '../api/run.js';
import { CancelledError } from '../engine/executor.js';
import { LIMITS } from '../serve/requests.js';
import { showCount } from '../report/format.js';
import { WebWorkerExecutor } from './web-executor.js';
import { startWorker, workerScope, type Message } from './browser.js';
import type { PageRequest, RunRequest, WireCase, WorkerEvent } from './protocol.js';

/** Partial results at most this often (ms): the page redraws no faster than a person reads. */
const PARTIAL_MS = 80;

const scope = workerScope();
const post = (e: WorkerEvent) => scope.postMessage(e);
const threads = Math.max(1, Math.min(16, scope.navigator.hardwareConcurrency ?? 2));
const kernelUrl = new URL('kernel.js', scope.location.href).href;
const executor = new WebWorkerExecutor(threads, () => startWorker(kernelUrl));
let current: { id: number; abort: AbortController } | undefined;

async function run(req: RunRequest): Promise<void> {
  current?.abort.abort();
  const abort = new AbortController();
  current = { id: req.id, abort };
  const t0 = performance.now();
  const v = validateText(req.file, req.text, { staleExpect: 'warn' });
  if (!v.ok) return post({ type: 'invalid', id: req.id, issues: v.issues.filter((i) => !i.stale) });
  const trials = req.trials ?? v.value.trials;
  // a runaway case is capped as the workbench server caps it (serve/requests.ts LIMITS)
  const total = trials * v.value.points.length * v.value.variantNames.length;
  if (trials > LIMITS.maxTrials || total > LIMITS.maxSweepTotal) {
    return post({
      type: 'error',
      id: req.id,
      message: `${showCount(trials)} trials x ${v.value.points.length * v.value.variantNames.length} case(s) is more than the page runs (at most ${showCount(LIMITS.maxTrials)} trials a case, ${showCount(LIMITS.maxSweepTotal)} in all): ask for fewer trials`,
    });
  }
  post({
    type: 'start',
    id: req.id,
    name: v.value.name,
    system: v.value.system.id,
    ...(v.value.description ? { description: v.value.description } : {}),
    headline: [...(v.value.headline ?? v.value.system.headline)],
    // what the Answer shows is the one rule of every front end (api/answer.ts): these are its inputs
    answer: {
      headline: [...v.value.system.headline],
      outcomes: (v.value.system.outcomes ?? []).map((o) => [...o]),
      metrics: [...v.value.system.metricOrder],
      ...(v.value.headline ? { chosen: [...v.value.headline] } : {}),
    },
    cases: v.value.points.length * v.value.variantNames.length,
    trials,
    seed: req.seed ?? v.value.seed,
    threads,
  });
  let last = -Infinity;
  try {
    const r = await runValidScenario(v.value, req.text, {
      trials: req.trials,
      seed: req.seed,
      source: req.source,
      executor,
      signal: abort.signal,
      onPartial: (point, n, cases) => {
        const now = performance.now();
        if (now - last < PARTIAL_MS && n < trials) return;
        last = now;
        post({ type: 'partial', id: req.id, point, trials: n, cases: cases().map(wireCase), ms: now - t0 });
      },
    });
    if (abort.signal.aborted) return;
    post({ type: 'done', id: req.id, summary: r.summary, ms: performance.now() - t0 });
  } catch (e) {
    if (e instanceof CancelledError) return;
    post({ type: 'error', id: req.id, message: e instanceof Error ? e.message : String(e) });
  } finally {
    if (current?.id === req.id) current = undefined;
  }
}

function wireCase(c: WireCase): WireCase {
  return { case: c.case, variant: c.variant, params: c.params, trials: c.trials, metrics: c.metrics, differences: c.differences };
}

scope.onmessage = (e: Message) => {
  const req = e.data as PageRequest;
  if (req.type === 'run') void run(req);
  else if (req.type === 'cancel') {
    if (current?.id === req.id) current.abort.abort();
  } else if (req.type === 'validate') {
    const v = validateText(req.file, req.text, { staleExpect: 'warn' });
    if (v.ok) post({ type: 'valid', id: req.id, name: v.value.name, system: v.value.system.id, ...(v.value.description ? { description: v.value.description } : {}) });
    else post({ type: 'invalid', id: req.id, issues: v.issues.filter((i) => !i.stale) });
  }
};
post({ type: 'ready', threads });
