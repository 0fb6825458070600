import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageFile } from '../src/paths.js';
import { cacheFileOf } from '../src/code-cache.js';
import { VEGA_BUNDLE } from '../src/report/vega.js';

// The build bundles the command line and vega into one CommonJS file each and saves V8's code
// cache for both (src/code-cache-build.ts); main.ts and the renderer thread load them with it
// (src/code-cache.ts).
describe("the bundles' code caches (src/code-cache.ts)", () => {
  it('the build makes both, and a plain node process loads each bundle with its cache accepted', () => {
    const cli = packageFile('dist/cli/siegesim.cjs');
    for (const f of [cli, packageFile(VEGA_BUNDLE)]) {
      expect(existsSync(f), f).toBe(true);
      expect(existsSync(cacheFileOf(f)), cacheFileOf(f)).toBe(true);
    }
    // as the siegesim executable and the renderer thread load them, in a node without flags
    const script = `const { loadBundle } = await import(${JSON.stringify(packageFile('dist/src/code-cache.js'))});
      const { vegaLoaded } = await import(${JSON.stringify(packageFile('dist/src/report/render.js'))});
      const cli = loadBundle(${JSON.stringify(cli)});
      console.log(JSON.stringify({ cli: cli.script.cachedDataRejected, start: typeof cli.exports.start, vega: vegaLoaded.script?.cachedDataRejected }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(out).toEqual({ cli: false, start: 'function', vega: false });
  });

  it("vega's bundle draws the same SVG bytes as vega from node_modules", () => {
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
          `const { renderSvg, vegaLoaded } = await import(${JSON.stringify(packageFile('dist/src/report/render.js'))});
           if ((vegaLoaded.script !== undefined) !== ${fromBundle}) throw new Error('loaded from the wrong place');
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
