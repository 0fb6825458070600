import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageFile } from '../src/paths.js';
import { VEGA_BUNDLE, VEGA_CACHE } from '../src/report/vega.js';

// The build bundles vega and vega-lite into one file and saves V8's code cache for it
// (src/report/vega-cache.ts); the renderer thread loads that (src/report/vega.ts).
describe("vega's bundle and code cache (report/vega.ts)", () => {
  it('the build makes both, and a plain node process loads the bundle with its cache accepted', () => {
    expect(existsSync(packageFile(VEGA_BUNDLE))).toBe(true);
    expect(existsSync(packageFile(VEGA_CACHE))).toBe(true);
    // as the command line's renderer thread does: the built render module, in a node without flags
    const script = `const m = await import(${JSON.stringify(packageFile('dist/src/report/render.js'))}); console.log(JSON.stringify({ loaded: m.vegaScript !== undefined, rejected: m.vegaScript?.cachedDataRejected }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { loaded: boolean; rejected: boolean };
    expect(out).toEqual({ loaded: true, rejected: false });
  });

  it('draws the same SVG bytes as vega from node_modules', () => {
    // every example report's charts: all four systems' kinds of chart
    const root = packageFile('reports/examples');
    const specs = readdirSync(root)
      .filter((d) => existsSync(path.join(root, d, 'charts')))
      .flatMap((d) => readdirSync(path.join(root, d, 'charts')).filter((f) => f.endsWith('.vl.json')).map((f) => path.join(root, d, 'charts', f)));
    expect(specs.length).toBeGreaterThan(4);
    const draw = (fromBundle: boolean) =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { renderSvg, vegaScript } = await import(${JSON.stringify(packageFile('dist/src/report/render.js'))});
           if ((vegaScript !== undefined) !== ${fromBundle}) throw new Error('loaded from the wrong place');
           const { readFileSync } = await import('node:fs');
           const out = [];
           for (const f of ${JSON.stringify(specs)}) out.push(await renderSvg(JSON.parse(readFileSync(f, 'utf8'))));
           process.stdout.write(JSON.stringify(out));`,
        ],
        // SIEGESIM_VEGA=node_modules: vega.ts's switch to the packages as installed
        { encoding: 'utf8', env: { ...process.env, SIEGESIM_VEGA: fromBundle ? '' : 'node_modules' }, maxBuffer: 64 * 1024 * 1024 },
      );
    const bundled = JSON.parse(draw(true)) as string[];
    const plain = JSON.parse(draw(false)) as string[];
    expect(bundled).toHaveLength(specs.length);
    expect(bundled).toEqual(plain);
    // and the example reports' own SVGs (made by the build that wrote them) are these bytes
    expect(bundled[0]).toBe(readFileSync(specs[0].replace(/\.vl\.json$/, '.svg'), 'utf8'));
  });
});
