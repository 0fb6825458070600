/**
 * The chart renderer thread of the built program (dist/src/report/renderer.js: tests from source
 * render in their own thread): the SVG it returns is the one rendering in this thread gives, in
 * the order asked.
 */
import { afterAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderSvg } from '../../src/report/render.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
type Renderer = typeof import('../../src/report/renderer.js');
const built = (): Promise<Renderer> => import(pathToFileURL(path.join(ROOT, 'dist/src/report/renderer.js')).href) as Promise<Renderer>;

const specs: Record<string, unknown>[] = [
  { data: { values: [{ t: 1, p: 0.2 }, { t: 2, p: 0.5 }, { t: 3, p: 0.9 }] }, mark: 'line', encoding: { x: { field: 't', type: 'quantitative' }, y: { field: 'p', type: 'quantitative' } } },
  { data: { values: [{ a: 'x', b: 1, v: 0.3 }, { a: 'y', b: 2, v: 0.7 }] }, mark: 'rect', encoding: { x: { field: 'a', type: 'nominal' }, y: { field: 'b', type: 'ordinal' }, color: { field: 'v', type: 'quantitative' } } },
  { data: { values: [{ c: 'storm', p: 0.36 }, { c: 'starve', p: 0.01 }] }, mark: 'bar', encoding: { y: { field: 'c', type: 'nominal' }, x: { field: 'p', type: 'quantitative' } } },
];

describe('the chart renderer thread', () => {
  let r: Renderer | undefined;
  afterAll(async () => {
    await r?.stopRenderer();
  });

  it('draws what this thread draws, in the order asked', async () => {
    r = await built();
    const expected = [];
    for (const s of specs) expected.push(await renderSvg(s));
    r.startRenderer();
    expect(await r.renderSvgs(specs)).toEqual(expected);
    expect(await r.renderSvgs([...specs].reverse())).toEqual([...expected].reverse());
    expect(expected.every((svg) => svg.startsWith('<svg'))).toBe(true);
  });
});
