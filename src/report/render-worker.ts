/** The chart renderer's thread (see renderer.ts): loads vega once, renders specs on request. */
import { parentPort } from 'node:worker_threads';
import { saveCacheQuietly } from '../code-cache.js';
import { renderSvg, vegaLoaded } from './render.js';

/** Whether vega's code cache is still to be saved for this Node (an installed package's first chart: code-cache.ts). */
let cacheToSave = vegaLoaded.firstUse === true;

parentPort!.on('message', (msg: { id: number; spec: Record<string, unknown> }) => {
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
