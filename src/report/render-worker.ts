/** The chart renderer's thread (see renderer.ts): loads vega once, renders specs on request. */
import { parentPort } from 'node:worker_threads';
import { renderSvg } from './render.js';

parentPort!.on('message', (msg: { id: number; spec: Record<string, unknown> }) => {
  renderSvg(msg.spec).then(
    (svg) => parentPort!.postMessage({ id: msg.id, svg }),
    (e: unknown) => parentPort!.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e) }),
  );
});
