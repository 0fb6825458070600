/**
 * The site's executor over Web Workers (src/site/web-executor.ts), with workers simulated in
 * this thread (each answers its batch after a delay of its own, so batches come back out of
 * order): the engine's merge in chunk order gives the in-process executor's result exactly; a
 * cancelled run's waiting batches never reach a worker; a failing worker fails the run.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { runBatch, type BatchTask } from '../src/engine/chunk.js';
import { KERNELS } from '../src/systems/kernels.js';
import { CancelledError } from '../src/engine/executor.js';
import { runScenario, validateText } from '../src/api/run.js';
import { summaryJson } from '../src/report/summary-json.js';
import { WebWorkerExecutor } from '../src/site/web-executor.js';
import type { Message, WebWorker } from '../src/site/browser.js';

/** A worker in this thread: runs each batch after `delay(n)` ms (n: its batch count), or fails the `failAt`-th. */
function fakeWorker(log: BatchTask[], delay: (n: number) => number, failAt = Infinity): WebWorker {
  let n = 0;
  const w: WebWorker = {
    onmessage: null,
    onerror: null,
    terminate: () => {},
    postMessage(m: unknown) {
      const { id, task } = m as { id: number; task: BatchTask };
      log.push(task);
      const k = ++n;
      setTimeout(() => {
        if (k === failAt) return w.onerror?.({ message: 'out of memory' });
        w.onmessage?.({ data: { id, out: runBatch(KERNELS[task.system], task) } } as Message);
      }, delay(k));
    },
  };
  return w;
}

const text = readFileSync('scenarios/crusader-rex/case-a-new-siege.yaml', 'utf8');

describe('WebWorkerExecutor', () => {
  it('gives the in-process result exactly, whatever order the workers answer in', async () => {
    const v = validateText('case-a.yaml', text);
    if (!v.ok) throw new Error('invalid');
    const log: BatchTask[] = [];
    let made = 0;
    const exec = new WebWorkerExecutor(3, () => fakeWorker(log, (k) => ((made * 7 + k * 13) % 5) * 3 + (made++ % 3)));
    const strip = (s: Record<string, unknown>) => JSON.stringify({ ...s, provenance: undefined });
    const web = await runScenario(v.value, { trials: 70_000, executor: exec });
    const inline = await runScenario(v.value, { trials: 70_000 });
    expect(strip(summaryJson(web))).toBe(strip(summaryJson(inline)));
    expect(web.provenance.threads).toBe(3);
    expect(log.length).toBeGreaterThan(1);
    await exec.close();
  }, 120_000);

  it('a cancelled run\'s waiting batches never reach a worker; a failing worker fails the run', async () => {
    const v = validateText('case-a.yaml', text);
    if (!v.ok) throw new Error('invalid');
    const log: BatchTask[] = [];
    const exec = new WebWorkerExecutor(1, () => fakeWorker(log, () => 30));
    const ac = new AbortController();
    const run = runScenario(v.value, { trials: 16_384 * 20, executor: exec, signal: ac.signal });
    await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    await new Promise((r) => setTimeout(r, 100));
    expect(log.length).toBe(1); // the batch already in the worker; the one waiting was dropped
    await exec.close();

    const failing = new WebWorkerExecutor(2, () => fakeWorker([], () => 1, 2));
    await expect(runScenario(v.value, { trials: 16_384 * 12, executor: failing })).rejects.toThrow(/a kernel worker failed: out of memory/);
    await failing.close();
  }, 120_000);
});
