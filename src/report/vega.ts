/**
 * vega and vega-lite, loaded as fast as Node 20 allows. They are the heaviest code siegesim
 * runs: ~2.5 MB of JavaScript whose parsing and compiling, not running, is most of a report's
 * fixed cost (~75 ms to load, ~50 ms more for the first chart, every run). The build bundles
 * both into one CommonJS file (VEGA_BUNDLE) and saves V8's code cache for it after drawing
 * sample charts (src/code-cache-build.ts; src/code-cache.ts loads it): loading compiles nothing that the
 * cache holds, the first chart included (~30 + ~25 ms).
 *
 * Same code either way, so the same SVG bytes. Without the bundle (a build without it) or with
 * SIEGESIM_VEGA=node_modules (stack traces then name vega's own files), the packages are
 * required as they are installed.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as VegaModule from 'vega';
import type * as VegaLiteModule from 'vega-lite';
import { hasNoCache, loadBundle, type LoadedBundle } from '../code-cache.js';
import { packageFile } from '../paths.js';

export const VEGA_BUNDLE = 'dist/vendor/vega.cjs';

export interface Vega {
  vega: typeof VegaModule;
  vegaLite: typeof VegaLiteModule;
  /** The bundle as loaded, when loaded from it. */
  bundle?: LoadedBundle<unknown>;
  /** Whether this Node had no code cache for the bundle when it was loaded (an installed package's first chart saves one: render-worker.ts). */
  firstUse?: boolean;
}

// vega and vega-lite ship CommonJS builds for Node. Loaded with require, not import: importing
// CommonJS from an ES module makes Node scan every re-exported vega-* module for its export
// names first (cjs-module-lexer), which more than doubled the time to load them.
const require = createRequire(import.meta.url);

/** Load vega and vega-lite: from the build's bundle with its code cache when there, else from node_modules. */
export function loadVega(): Vega {
  const file = packageFile(VEGA_BUNDLE);
  if (process.env.SIEGESIM_VEGA === 'node_modules' || !existsSync(file)) return { vega: require('vega') as typeof VegaModule, vegaLite: require('vega-lite') as typeof VegaLiteModule };
  const firstUse = hasNoCache(file) && process.env.SIEGESIM_CODE_CACHE !== 'off';
  const bundle = loadBundle<Omit<Vega, 'bundle' | 'firstUse'>>(file);
  return { ...bundle.exports, bundle, firstUse };
}
