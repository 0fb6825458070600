/** Vega-Lite -> Vega -> SVG, headless (no browser, no canvas: vega's SVG renderer). */
import type { TopLevelSpec } from 'vega-lite';
import { loadVega } from './vega.js';

/** vega as this thread loaded it (code-cache-build.ts saves the code cache of its bundle). */
export const vegaLoaded = loadVega();
const { vega, vegaLite } = vegaLoaded;
const { compile } = vegaLite;

// In vega's build (vega-scenegraph) but not in its type declarations.
const { resetSVGDefIds } = vega as unknown as { resetSVGDefIds: () => void };

let queue: Promise<unknown> = Promise.resolve();

/** A small chart through vega's common paths (line, rect, legends, axes): one of the code cache's samples (code-cache-build.ts), beside the bundled reports' charts. */
export const WARM_UP_SPEC: Record<string, unknown> = {
  data: { values: [{ x: 1, y: 0.5, c: 'a' }, { x: 2, y: 0.25, c: 'b' }] },
  layer: [
    { mark: 'line', encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' }, color: { field: 'c' } } },
    { mark: 'rect', encoding: { x: { field: 'x', type: 'ordinal' }, y: { field: 'c', type: 'nominal' }, color: { field: 'y', type: 'quantitative' } } },
  ],
};

/**
 * Render one Vega-Lite spec (data inline) to an SVG string. One at a time, each with vega's
 * gradient and clip ids counted from the start: they are module-wide counters, so an SVG would
 * otherwise depend on what this thread drew before it (a warm-up, an earlier scenario, another
 * render in flight) and the same report could come out with other bytes.
 */
export function renderSvg(spec: Record<string, unknown>): Promise<string> {
  const svg = queue.then(() => renderOne(spec));
  queue = svg.catch(() => undefined);
  return svg;
}

async function renderOne(spec: Record<string, unknown>): Promise<string> {
  const vg = compile(spec as unknown as TopLevelSpec).spec;
  const view = new vega.View(vega.parse(vg), { renderer: 'none', logLevel: vega.Error });
  try {
    resetSVGDefIds();
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
