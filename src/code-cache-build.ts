/**
 * The build's last step (`npm run build`): the V8 code caches of the two bundles the bundle
 * script made (src/code-cache.ts says why), each saved after sample work so it holds the
 * functions real use compiles, not only each bundle's top level:
 *  - vega's (dist/vendor/vega.cjs): after drawing the renderer's warm-up chart and every chart
 *    of reports/examples/ (all four rules systems' kinds of chart), in this process;
 *  - the command line's (dist/cli/siegesim.cjs): after `siegesim run` of a few bundled scenarios
 *    (SAMPLES: each system's validation, compile, kernel, summary and report), in a child
 *    process that saves it as it exits (SIEGESIM_CODE_CACHE=write, src/cli/main.ts).
 *
 * The two run at once (two cores). The child draws its report's charts with vega from
 * node_modules (SIEGESIM_VEGA), so that it never saves a code cache for vega's bundle of its own
 * while this process makes that one (a first use saves one: render-worker.ts).
 *
 *   node dist/src/code-cache-build.js
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cacheFileOf, saveCache } from './code-cache.js';
import { packageFile } from './paths.js';
import { VEGA_BUNDLE } from './report/vega.js';

const CLI_BUNDLE = 'dist/cli/siegesim.cjs';

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

async function vegaCache(): Promise<void> {
  const bundle = packageFile(VEGA_BUNDLE);
  rmSync(cacheFileOf(bundle), { force: true }); // render.ts below must compile the new bundle from its source
  const { renderSvg, vegaLoaded, WARM_UP_SPEC } = await import('./report/render.js');
  if (!vegaLoaded.bundle) throw new Error(`${VEGA_BUNDLE} was not loaded`);
  for (const s of [WARM_UP_SPEC, ...exampleSpecs()]) await renderSvg(s);
  saveCache(vegaLoaded.bundle);
}

/**
 * The bundled scenarios the command line's cache is made from: one or two of each rules system
 * (their validation, compile, kernel, summary and report), named so that a user's own file in
 * scenarios/ can never fail the build.
 */
const SAMPLES = [
  'scenarios/surrender/town-basic.yaml',
  'scenarios/crusader-rex/storm-or-starve.yaml',
  'scenarios/crusader-rex/reference-field-battle.yaml',
  'scenarios/fantasy/stone-wall-siege.yaml',
  'scenarios/cry-havoc/battering-ram.yaml',
  'scenarios/cry-havoc/melee-two-on-one.yaml',
];

/** The command line's cache: made by a child `siegesim run` that saves it as it exits (only after a run that succeeded). */
async function cliCache(): Promise<void> {
  const bundle = packageFile(CLI_BUNDLE);
  rmSync(cacheFileOf(bundle), { force: true });
  const files = SAMPLES.map((f) => packageFile(f)).filter((f) => existsSync(f));
  const out = mkdtempSync(path.join(tmpdir(), 'siegesim-cache-'));
  try {
    const child = spawn(process.execPath, [packageFile('dist/src/cli/main.js'), 'run', ...files, '--trials', '200', '--threads', '1', '--no-progress', '--out', out], {
      env: { ...process.env, SIEGESIM_CODE_CACHE: 'write', SIEGESIM_NO_BUNDLE: '', SIEGESIM_VEGA: 'node_modules' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    // Without a cache the command line only starts slower: a warning, not a failed build.
    if (status !== 0 || !existsSync(cacheFileOf(bundle))) process.stderr.write(`warning: the command line's code cache was not made (exit ${status}): ${stderr}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

await Promise.all([cliCache(), vegaCache()]);
