/**
 * vega and vega-lite, loaded as fast as Node 20 allows. They are the heaviest code siegesim
 * runs: ~2.5 MB of JavaScript whose parsing and compiling, not running, is most of a report's
 * fixed cost (~75 ms to load, ~50 ms more for the first chart, every run). The build bundles
 * both into one CommonJS file (VEGA_BUNDLE) and saves V8's code cache for it after drawing
 * sample charts (VEGA_CACHE, made by vega-cache.ts): loading compiles nothing that the cache
 * holds, the first chart included (~30 + ~25 ms). Node 22's module compile cache does this for
 * any module; Node 20 has only vm.Script's cachedData, hence the one-file bundle.
 *
 * Same code either way, so the same SVG bytes. Without the bundle (tests from the sources, a
 * build without it) the packages are required as they are; a cache V8 rejects (another Node or
 * V8 flags: `--expose-gc`, a profiler) only costs the compile it would have saved.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import type * as VegaModule from 'vega';
import type * as VegaLiteModule from 'vega-lite';
import { packageFile } from '../paths.js';

export const VEGA_BUNDLE = 'dist/vendor/vega.cjs';
export const VEGA_CACHE = 'dist/vendor/vega.cjs.v8cache';

export interface Vega {
  vega: typeof VegaModule;
  vegaLite: typeof VegaLiteModule;
  /** The compiled bundle, when loaded from it (vega-cache.ts saves its code cache). */
  script?: vm.Script;
}

// vega and vega-lite ship CommonJS builds for Node. Loaded with require, not import: importing
// CommonJS from an ES module makes Node scan every re-exported vega-* module for its export
// names first (cjs-module-lexer), which more than doubled the time to load them.
const require = createRequire(import.meta.url);

/**
 * Load vega and vega-lite: from the build's bundle with its code cache when there, else from
 * node_modules (also with SIEGESIM_VEGA=node_modules: stack traces then name vega's own files).
 */
export function loadVega(opts: { cache?: boolean } = {}): Vega {
  const file = packageFile(VEGA_BUNDLE);
  if (process.env.SIEGESIM_VEGA === 'node_modules' || !existsSync(file)) return { vega: require('vega') as typeof VegaModule, vegaLite: require('vega-lite') as typeof VegaLiteModule };
  const cacheFile = packageFile(VEGA_CACHE);
  const cachedData = opts.cache !== false && existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  // the bundle is CommonJS: run it as Node would, in the module wrapper, with a require of its own place
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`, { filename: file, cachedData });
  const module = { exports: {} as { vega: typeof VegaModule; vegaLite: typeof VegaLiteModule } };
  (script.runInThisContext() as (...a: unknown[]) => void).call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  return { ...module.exports, script };
}
