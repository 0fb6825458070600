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

/** Render one Vega-Lite spec (data inline) to an SVG string. */
export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  const vg = compile(spec as unknown as TopLevelSpec).spec;
  const view = new vega.View(vega.parse(vg), { renderer: 'none', logLevel: vega.Error });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
