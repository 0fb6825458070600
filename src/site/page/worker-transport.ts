/**
 * The page's Transport (src/serve/page/transport.ts) for the static site: every question and
 * job goes to the workbench worker (src/site/workbench-worker.ts), which answers them as
 * `siegesim serve` does, with the same code, the kernels running in its own workers. Messages
 * carry an id; a job's messages come one by one and end with `end`; aborting a job's signal
 * tells the worker to cancel it.
 */
import type { CheckAnswer, SaveAnswer, ScenarioEntry, ScenarioInfo, ScenarioList, StreamRoute, StreamRoutes } from '../../api/protocol.js';
import { TransportError, type Transport } from '../../serve/page/transport.js';
import type { WorkbenchReply, WorkbenchRequest } from '../workbench-protocol.js';

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

export function workerTransport(worker: Worker): Transport {
  let nextId = 1;
  const waiting = new Map<number, (r: WorkbenchReply) => void>();
  worker.onmessage = (e: MessageEvent) => {
    const r = e.data as WorkbenchReply;
    waiting.get(r.id)?.(r);
  };
  const ask = <T>(req: WithoutId<WorkbenchRequest>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, (r) => {
        waiting.delete(id);
        if ('refused' in r) reject(new TransportError(r.refused, r.status));
        else if ('value' in r) resolve(r.value as T);
      });
      worker.postMessage({ ...req, id });
    });
  return {
    streamChecksValues: true, // the worker's run job refuses invalid values as check would (serve/jobs.ts streamLive)
    scenarios: () => ask<ScenarioList>({ op: 'scenarios' }),
    scenario: (path, variant) => ask<ScenarioInfo>({ op: 'scenario', path, ...(variant !== undefined ? { variant } : {}) }),
    check: (request) => ask<CheckAnswer>({ op: 'check', request: request as unknown as Record<string, unknown> }),
    save: (request) => ask<SaveAnswer>({ op: 'save', request: request as unknown as Record<string, unknown> }),
    addScenario: (name, text) => ask<ScenarioEntry>({ op: 'add', name, text }),
    stream<R extends StreamRoute>(route: R, request: StreamRoutes[R]['request'], signal: AbortSignal): AsyncIterable<StreamRoutes[R]['message']> {
      const id = nextId++;
      const queue: WorkbenchReply[] = [];
      let wake: (() => void) | undefined;
      waiting.set(id, (r) => {
        queue.push(r);
        wake?.();
      });
      const aborted = () => Object.assign(new Error('the job was cancelled'), { name: 'AbortError' });
      const onAbort = () => {
        worker.postMessage({ id, op: 'cancel' });
        wake?.();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ id, op: 'stream', route, request });
      return {
        async *[Symbol.asyncIterator]() {
          try {
            for (;;) {
              if (signal.aborted) throw aborted();
              const r = queue.shift();
              if (!r) {
                await new Promise<void>((resolve) => (wake = resolve));
                wake = undefined;
                continue;
              }
              if ('refused' in r) throw new TransportError(r.refused, r.status);
              if ('end' in r) return;
              if ('message' in r) yield r.message as StreamRoutes[R]['message'];
            }
          } finally {
            waiting.delete(id);
            signal.removeEventListener('abort', onAbort);
          }
        },
      };
    },
  };
}
