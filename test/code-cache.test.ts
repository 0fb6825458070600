import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
      console.log(JSON.stringify({ cli: cli.cached, start: typeof cli.exports.start, vega: vegaLoaded.bundle?.cached }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(out).toEqual({ cli: true, start: 'function', vega: true });
  });

  it("vega's bundle loads none of Node's network modules and asks for no canvas (scripts/build.mjs: its fetch and canvas are left out)", () => {
    const bundle = packageFile(VEGA_BUNDLE);
    const text = readFileSync(bundle, 'utf8');
    for (const m of ['http', 'https', 'net', 'tls', 'zlib', 'canvas', 'node-fetch']) expect(text, m).not.toMatch(new RegExp(`require\\(["']${m}["']\\)`));
    // in a worker thread, as the renderer loads it: what Node loaded for it
    const script = `const { Worker } = await import('node:worker_threads');
      const w = new Worker(\`const before = new Set(process.moduleLoadList);
        const { parentPort } = await import('node:worker_threads');
        import(${JSON.stringify(packageFile('dist/src/report/vega.js'))}).then((m) => {
          const v = m.loadVega();
          parentPort.postMessage({ bundle: v.bundle !== undefined, view: typeof v.vega.View, loaded: process.moduleLoadList.filter((x) => !before.has(x)) });
        });\`, { eval: true });
      w.on('message', (m) => { console.log(JSON.stringify(m)); void w.terminate(); });`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { bundle: boolean; view: string; loaded: string[] };
    expect(out.bundle).toBe(true);
    expect(out.view).toBe('function');
    expect(out.loaded.filter((m) => /^NativeModule (https?|net|tls|_tls_wrap|zlib|punycode)$/.test(m))).toEqual([]);
  });

  it('a cache damaged anywhere, or made for another source, is not used (release V8 trusts all but its header: such a cache aborted node)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'siegesim-cache-'));
    try {
      const bundle = path.join(dir, 'siegesim.cjs');
      copyFileSync(packageFile('dist/cli/siegesim.cjs'), bundle);
      const good = readFileSync(cacheFileOf(packageFile('dist/cli/siegesim.cjs')));
      const load = () =>
        JSON.parse(
          execFileSync(process.execPath, ['--input-type=module', '-e', `const { loadBundle } = await import(${JSON.stringify(packageFile('dist/src/code-cache.js'))}); const b = loadBundle(${JSON.stringify(bundle)}); console.log(JSON.stringify({ cached: b.cached, start: typeof b.exports.start }));`], { encoding: 'utf8' }),
        ) as { cached: boolean; start: string };
      writeFileSync(cacheFileOf(bundle), good);
      expect(load()).toEqual({ cached: true, start: 'function' });
      // offsets past the header where a damaged cache was accepted and aborted node (exit 133) or failed later
      for (const at of [40, 500, 5000, 200_000, good.length - 1000]) {
        const bad = Buffer.from(good);
        bad.writeUInt32LE(0x3713_00ff, at);
        writeFileSync(cacheFileOf(bundle), bad);
        expect(load(), `damaged at ${at}`).toEqual({ cached: false, start: 'function' });
      }
      // the same cache for a source of the same length but other bytes (V8 checks only the length)
      writeFileSync(cacheFileOf(bundle), good);
      writeFileSync(bundle, readFileSync(bundle, 'utf8').replace('case(s) x', 'CASE(s) x'));
      expect(load()).toEqual({ cached: false, start: 'function' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
           if ((vegaLoaded.bundle !== undefined) !== ${fromBundle}) throw new Error('loaded from the wrong place');
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
