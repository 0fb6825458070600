#!/usr/bin/env node
/**
 * The build (docs/architecture.md, "The built command").
 *
 *   node scripts/build.mjs          npm run build: everything below, in order
 *   node scripts/build.mjs bundle   npm run bundle: the bundles only (dist/ compiled already)
 *
 * 1. tsc compiles src/ and workers/ to dist/ (from scratch: the build info is deleted first, so a
 *    dist/ removed by hand is rebuilt whole), and type-checks the workbench page
 *    (tsconfig.page.json: the browser's DOM types, nothing of Node);
 * 2. the bundles, by esbuild: the command line (dist/src/cli/start.js and what it imports except
 *    vega, vega-lite, piscina and cli-progress, to dist/cli/siegesim.cjs), vega with vega-lite
 *    (dist/vendor/vega.cjs), the workbench page (src/serve/page/main.ts, for the browser, to
 *    dist/page/app.js, served as /assets/app.js), and the static site's workers
 *    (src/site/run-worker.ts, kernel-worker.ts and workbench-worker.ts, for the browser, minified,
 *    to dist/site/run.js, kernel.js and workbench.js), its index page (src/site/page/index-page.js,
 *    to dist/site/site.js) and its workbench page (src/site/page/main.ts, to
 *    dist/site/workbench-page.js), which `siegesim site` copies;
 * 3. the V8 code caches of the two Node bundles (dist/src/code-cache-build.js).
 *
 * Steps 1 and 2 overlap: the bundles made from src/ (all but the command line's) and the page's
 * type check run while tsc compiles; the command line's bundle follows tsc.
 *
 * A whole build whose inputs (src/, workers/, this script, the tsconfigs, package.json and its
 * lock) hash to what the last whole build wrote in dist/.build-inputs, with every output in
 * place and nothing compiled into dist/ since (a `tsc` run by hand rewrites entry.js or the build
 * info), is skipped: `npm test` after `npm ci` (which builds) does not build twice.
 * `--force` builds anyway.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (p) => path.join(root, p);
const require = createRequire(import.meta.url);

/** The workbench page's bundle (src/serve/server.ts serves it as /assets/app.js). */
export const PAGE_BUNDLE = 'dist/page/app.js';

function run(file, args) {
  const r = spawnSync(process.execPath, [file, ...args], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** tsc -p project in a child of its own; a failure ends the build with its exit code (its errors on the terminal). */
const tscAsync = (project) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', project], { cwd: root, stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : process.exit(code ?? 1)));
  });

/**
 * For the browser's bundles (the static site's workers): src/api.ts without its re-exports of the
 * Node-only pieces (api/pool.ts, the worker pool; api/read.ts, the file reader), which a browser
 * worker never calls. The barrel is read as it is at each build, so a new export reaches the site
 * by itself, and a new Node-only one fails the site's build loudly (node:* cannot be resolved).
 */
const NODE_ONLY = /^export\s*\{[^}]*\}\s*from\s*'\.\/api\/(?:pool|read)\.js';\n/gm;
const apiWithoutNode = {
  name: 'api-without-node',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]api\.ts$/ }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      return { contents: (await readFile(args.path, 'utf8')).replace(NODE_ONLY, ''), loader: 'ts', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * vega's Node build loads two things siegesim's charts never use, at the top of the bundle:
 * node-fetch (vega-loader's fetch of data URLs: with it http, https, tls, net, zlib and punycode,
 * ~40 ms of loading on the renderer thread before its first chart) and an optional `canvas`
 * package (vega-canvas; a require that fails, or, where some `canvas` happens to resolve, text
 * measured by it instead of vega's estimate: other SVG bytes on another machine). The charts'
 * data is inline and they are drawn as SVG with vega's own text estimate, so both are replaced:
 * a fetch that says it loads nothing, and no canvas.
 */
const vegaWithoutNetwork = {
  name: 'vega-without-network',
  setup(b) {
    b.onResolve({ filter: /^(node-fetch|canvas)$/ }, (args) => ({ path: args.path, namespace: 'vega-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'vega-stub' }, (args) => ({
      contents:
        args.path === 'canvas'
          ? 'module.exports = null;'
          : "module.exports = function fetch(url) { return Promise.reject(new Error('siegesim draws charts from inline data and loads no URL: ' + url)); };",
      loader: 'js',
    }));
  },
};

/** What every bundle's esbuild options start from. */
const COMMON = { bundle: true, logLevel: 'warning', absWorkingDir: root };

/** The command line's bundle: from tsc's output (dist/src/cli/start.js), so after tsc. */
function bundleCli() {
  rmSync(at('dist/cli'), { recursive: true, force: true });
  return build({
    ...COMMON,
    entryPoints: ['dist/src/cli/start.js'],
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outfile: 'dist/cli/siegesim.cjs',
    sourcemap: true,
    sourcesContent: false,
    external: ['vega', 'vega-lite', 'piscina', 'cli-progress'],
    // the bundle is CommonJS: import.meta.url is the bundle's own file
    define: { 'import.meta.url': '__siegesimUrl' },
    banner: { js: "var __siegesimUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
}

/** The other bundles: from src/ and node_modules, not from tsc's output (a whole build makes them while tsc runs). */
function bundleOthers() {
  rmSync(at('dist/page'), { recursive: true, force: true });
  rmSync(at('dist/site'), { recursive: true, force: true });
  return Promise.all([
    // vega and vega-lite for Node, minified (names kept): a fifth smaller in the npm tarball, and less to read at start
    build({ ...COMMON, entryPoints: ['src/report/vega-entry.cjs'], format: 'cjs', platform: 'node', target: 'node20', minify: true, keepNames: true, outfile: 'dist/vendor/vega.cjs', plugins: [vegaWithoutNetwork] }),
    // the serve page, minified like the site's (less to ship in the npm tarball and to load)
    build({ ...COMMON, entryPoints: ['src/serve/page/main.ts'], format: 'esm', platform: 'browser', target: 'es2022', minify: true, outfile: PAGE_BUNDLE }),
    // classic workers (iife): `new Worker(url)` without type: 'module' starts them in every browser;
    // and index.html's page, a classic script too: it still runs from file://, to say the site must be served
    build({
      ...COMMON,
      entryPoints: { run: 'src/site/run-worker.ts', kernel: 'src/site/kernel-worker.ts', workbench: 'src/site/workbench-worker.ts', site: 'src/site/page/index-page.js' },
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      outdir: 'dist/site',
      plugins: [apiWithoutNode],
    }),
    // the workbench page on the workbench worker's transport (src/site/page/main.ts)
    build({ ...COMMON, entryPoints: ['src/site/page/main.ts'], format: 'esm', platform: 'browser', target: 'es2022', minify: true, outfile: 'dist/site/workbench-page.js', plugins: [apiWithoutNode] }),
  ]);
}

async function bundle() {
  await Promise.all([bundleCli(), bundleOthers()]);
}

/** What a whole build reads: its hash decides whether the last build's dist/ is current. */
const INPUTS = ['src', 'workers', 'scripts/build.mjs', 'tsconfig.json', 'tsconfig.page.json', 'package.json', 'package-lock.json'];
/** What a whole build writes that the command line, the workbench and the site need. */
const OUTPUTS = ['dist/src/cli/main.js', 'dist/src/cli/entry.js', 'dist/cli/siegesim.cjs', 'dist/vendor/vega.cjs', PAGE_BUNDLE, 'dist/site/run.js', 'dist/site/kernel.js', 'dist/site/workbench.js', 'dist/site/workbench-page.js', 'dist/site/site.js'];
const STAMP = 'dist/.build-inputs';

function inputsHash() {
  const h = createHash('sha256');
  const add = (rel) => {
    const abs = at(rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) {
      for (const name of readdirSync(abs).sort()) add(path.join(rel, name));
      return;
    }
    h.update(`${rel}\0`);
    h.update(readFileSync(abs));
    h.update('\0');
  };
  for (const rel of INPUTS) add(rel);
  return h.digest('hex');
}

/** The last whole build's dist/ is current: same inputs, every output there, no compile since. */
function upToDate(hash) {
  if (!existsSync(at(STAMP)) || readFileSync(at(STAMP), 'utf8') !== hash) return false;
  if (!OUTPUTS.every((f) => existsSync(at(f)))) return false;
  const built = statSync(at(STAMP)).mtimeMs;
  return ['dist/src/cli/entry.js', 'dist/tsconfig.tsbuildinfo'].every((f) => !existsSync(at(f)) || statSync(at(f)).mtimeMs <= built);
}

const step = process.argv[2];
const hash = step === undefined || step === '--force' ? inputsHash() : '';
if (step === 'bundle') await bundle();
else if (step === undefined && upToDate(hash)) {
  console.log('build: dist/ is current for these sources (node scripts/build.mjs --force builds anyway)');
} else if (step === undefined || step === '--force') {
  rmSync(at(STAMP), { force: true });
  rmSync(at('dist/tsconfig.tsbuildinfo'), { force: true });
  // tsc of the program then its bundle, beside the page's type check and the other bundles
  // (two cores: the build's ~26 s were one after the other)
  await Promise.all([
    tscAsync('.').then(() => {
      chmodSync(at('dist/src/cli/main.js'), 0o755);
      return bundleCli();
    }),
    tscAsync('tsconfig.page.json'),
    bundleOthers(),
  ]);
  run(at('dist/src/code-cache-build.js'), []);
  writeFileSync(at(STAMP), hash);
} else {
  console.error(`usage: node scripts/build.mjs [bundle | --force] (not "${step}")`);
  process.exit(2);
}
