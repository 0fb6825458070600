/** The chart renderer's thread (see renderer.ts): loads vega once, renders specs on request. */
import { parentPort } from 'node:worker_threads';
import { renderSvg } from './render.js';

parentPort!.on('message', (msg: { id: number; spec: Record<string, unknown> }) => {
  renderSvg(msg.spec).then(
    (svg) => parentPort!.postMessage({ id: msg.id, svg }),
    (e: unknown) => parentPort!.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e) }),
  );
});

// Warm up while the run goes on: the first chart through vega compiles its parser, dataflow and
// SVG code paths (tens of milliseconds) — paid now, on an otherwise idle core, not at the end.
void renderSvg({
  data: { values: [{ x: 1, y: 0.5, c: 'a' }, { x: 2, y: 0.25, c: 'b' }] },
  layer: [
    { mark: 'line', encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' }, color: { field: 'c' } } },
    { mark: 'rect', encoding: { x: { field: 'x', type: 'ordinal' }, y: { field: 'c', type: 'nominal' }, color: { field: 'y', type: 'quantitative' } } },
  ],
}).catch(() => undefined);
