/**
 * A build step (`npm run build`): bundle vega and vega-lite into one CommonJS file and save V8's
 * code cache for it after drawing sample charts — every chart of reports/examples/ (all four
 * rules systems' kinds) and the renderer's warm-up — so the cache holds the functions a
 * report's charts run, not only those run at load (vega.ts says why).
 *
 *   node dist/src/report/vega-cache.js
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { packageFile } from '../paths.js';
import { VEGA_BUNDLE, VEGA_CACHE } from './vega.js';

/** The Vega-Lite specs of the example reports (charts/*.vl.json), in a fixed order. */
function exampleSpecs(): Record<string, unknown>[] {
  const root = packageFile('reports/examples');
  if (!existsSync(root)) return [];
  const out: Record<string, unknown>[] = [];
  for (const dir of readdirSync(root).sort()) {
    const charts = path.join(root, dir, 'charts');
    if (!existsSync(charts)) continue;
    for (const f of readdirSync(charts).sort()) if (f.endsWith('.vl.json')) out.push(JSON.parse(readFileSync(path.join(charts, f), 'utf8')) as Record<string, unknown>);
  }
  return out;
}

async function main(): Promise<void> {
  const bundle = packageFile(VEGA_BUNDLE);
  const cache = packageFile(VEGA_CACHE);
  rmSync(cache, { force: true }); // render.ts below must compile the new bundle from its source
  mkdirSync(path.dirname(bundle), { recursive: true });
  const { build } = await import('esbuild');
  await build({
    stdin: { contents: "module.exports = { vega: require('vega'), vegaLite: require('vega-lite') };", resolveDir: packageFile('.'), sourcefile: 'vega-entry.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: bundle,
    logLevel: 'warning',
  });
  const { renderSvg, vegaScript, WARM_UP_SPEC } = await import('./render.js');
  if (!vegaScript) throw new Error(`${VEGA_BUNDLE} was not loaded`);
  const samples = [WARM_UP_SPEC, ...exampleSpecs()];
  for (const s of samples) await renderSvg(s);
  const tmp = `${cache}.tmp-${process.pid}`;
  writeFileSync(tmp, vegaScript.createCachedData());
  renameSync(tmp, cache);
}

await main();
