/** Vega-Lite -> Vega -> SVG, headless (no browser, no canvas: vega's SVG renderer). */
import { createRequire } from 'node:module';
import type * as VegaModule from 'vega';
import type * as VegaLiteModule from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';

// vega and vega-lite ship CommonJS builds for Node. Loaded with require, not import: importing
// CommonJS from an ES module makes Node scan every re-exported vega-* module for its export
// names first (cjs-module-lexer), which more than doubled the time to load them.
const require = createRequire(import.meta.url);
const vega = require('vega') as typeof VegaModule;
const { compile } = require('vega-lite') as typeof VegaLiteModule;

// In vega's build (vega-scenegraph) but not in its type declarations.
const { resetSVGDefIds } = vega as unknown as { resetSVGDefIds: () => void };

let queue: Promise<unknown> = Promise.resolve();

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
