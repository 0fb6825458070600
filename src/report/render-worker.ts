/** The chart renderer's thread (see renderer.ts): loads vega once, renders specs on request. */
import { parentPort } from 'node:worker_threads';
import { saveCacheQuietly } from '../code-cache.js';
import { renderSvg, vegaLoaded } from './render.js';

/** Whether vega's code cache is still to be saved for this Node (an installed package's first chart: code-cache.ts). */
let cacheToSave = vegaLoaded.firstUse === true;

/** Warm-up charts still to draw (dropped once a chart is asked for: it goes first). */
let warmQueue: Record<string, unknown>[] = [];
let warming = false;

parentPort!.on('message', (msg: { id: number; spec: Record<string, unknown> } | { warm: Record<string, unknown>[] }) => {
  if ('warm' in msg) return warmUp(msg.warm);
  warmQueue = []; // a chart the report waits for: the warm-up charts not started are not drawn
  renderSvg(msg.spec).then(
    (svg) => {
      // before the answer: the process may exit as soon as it has its last chart
      if (cacheToSave && vegaLoaded.bundle) {
        cacheToSave = false;
        saveCacheQuietly(vegaLoaded.bundle);
      }
      parentPort!.postMessage({ id: msg.id, svg });
    },
    (e: unknown) => parentPort!.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e) }),
  );
});

/**
 * A warm-up, when asked (renderer.ts, warmRenderer): the report's kinds of chart drawn once
 * and thrown away, one at a time, each only if no chart was asked for meanwhile. Their SVGs
 * change nothing later: each chart's ids are counted from the start (render.ts).
 */
function warmUp(specs: Record<string, unknown>[]): void {
  warmQueue.push(...specs);
  if (warming) return;
  warming = true;
  const next = (): void => {
    const spec = warmQueue.shift();
    if (spec === undefined) {
      warming = false;
      return;
    }
    renderSvg(spec).then(next, next);
  };
  next();
}
