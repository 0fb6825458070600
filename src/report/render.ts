/** Vega-Lite -> Vega -> SVG, headless (no browser, no canvas: vega's SVG renderer). */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

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
