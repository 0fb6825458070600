/**
 * Load a one-file CommonJS bundle with V8's code cache (Node 20 has no module compile cache,
 * only vm.Script's cachedData; Node 22's module.enableCompileCache would do this for any
 * module). The build makes the bundles and their caches: the command line's (src/cli/main.ts)
 * and vega's (src/report/vega.ts). A cache is a file beside its bundle, `<bundle>.v8cache`,
 * saved after the bundle has run sample work, so it holds the functions that work compiled,
 * not only the top level. V8 checks a cache against the source, its own version and flags and
 * rejects one that does not fit (another Node, `--expose-gc`, a profiler): that costs only the
 * compile it would have saved. A bundle must not import(): a script compiled from a cache has
 * no module loader for it (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING); packages left out of a
 * bundle are required.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

export interface LoadedBundle<T> {
  exports: T;
  script: vm.Script;
}

/** The code cache file of a bundle. */
export const cacheFileOf = (bundle: string): string => `${bundle}.v8cache`;

/** Run a CommonJS bundle as Node would (the module wrapper, a require from its own place), compiled with its cache when there. */
export function loadBundle<T>(bundle: string, opts: { cache?: boolean } = {}): LoadedBundle<T> {
  const cacheFile = cacheFileOf(bundle);
  const cachedData = opts.cache !== false && existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8')}\n})`, {
    filename: bundle,
    cachedData,
  });
  const module = { exports: {} as T };
  (script.runInThisContext() as (...a: unknown[]) => void).call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
  return { exports: module.exports, script };
}

/** Save a loaded bundle's code cache now (everything compiled so far), atomically. */
export function saveCache(loaded: LoadedBundle<unknown>, bundle: string): void {
  const file = cacheFileOf(bundle);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, loaded.script.createCachedData());
  renameSync(tmp, file);
}
