/**
 * Load a one-file CommonJS bundle with V8's code cache (Node 20 has no module compile cache,
 * only vm.Script's cachedData; Node 22's module.enableCompileCache would do this for any
 * module). The build makes the bundles and their caches: the command line's (src/cli/main.ts)
 * and vega's (src/report/vega.ts). A cache is a file beside its bundle, `<bundle>.v8cache`,
 * saved after the bundle has run sample work, so it holds the functions that work compiled,
 * not only the top level. V8 checks a cache's header against its own version and flags and the
 * source's length, and rejects one that does not fit (another Node, `--expose-gc`, a profiler):
 * that costs only the compile it would have saved. But a release build of V8 trusts the rest:
 * a cache damaged past its header (a disk error, a copy cut short, an edit) was accepted and
 * aborted the process (exit 133 or 139), and one made for another source of the same length
 * ran that source's code. So the file starts with a SHA-256 of the bundle's source and the
 * cache, and a cache whose digest does not match is not used. A bundle must not import(): a script compiled from a cache has
 * no module loader for it (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING); packages left out of a
 * bundle are required.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

export interface LoadedBundle<T> {
  /** The bundle's file. */
  file: string;
  exports: T;
  script: vm.Script;
  /** The bundle's source as read (its cache's digest covers it). */
  source: Buffer;
  /** Whether a cache was given to V8 and V8 took it (false: none, a digest that did not match, or V8 rejected it). */
  cached: boolean;
}

/**
 * The code cache file of a bundle for the running Node: `<bundle>.node-<version>.v8cache`. One
 * file per Node version, so an installed package (whose tarball carries no cache: `files` in
 * package.json) makes its own for whichever Node runs it, and a second Node beside the first
 * never finds the first one's cache and never replaces it.
 */
export const cacheFileOf = (bundle: string): string => `${bundle}.node-${process.version}.v8cache`;

/** Whether this Node has no code cache for a bundle yet: the first use then saves one (saveCacheQuietly). */
export const hasNoCache = (bundle: string): boolean => !existsSync(cacheFileOf(bundle));

/** Bytes of the SHA-256 digest at the start of a cache file. */
const DIGEST = 32;
const digestOf = (source: Buffer, data: Buffer): Buffer => createHash('sha256').update(source).update(data).digest();

/** A cache file's V8 data when its digest matches this source, else undefined. */
function cacheFor(source: Buffer, cacheFile: string): Buffer | undefined {
  if (!existsSync(cacheFile)) return undefined;
  const file = readFileSync(cacheFile);
  const data = file.subarray(DIGEST);
  return file.length > DIGEST && digestOf(source, data).equals(file.subarray(0, DIGEST)) ? data : undefined;
}

/** What loadBundle puts before a bundle's source, on its first line (source-stack.ts takes it off that line's columns). */
export const BUNDLE_HEAD = '(function (exports, require, module, __filename, __dirname) {';

/** Run a CommonJS bundle as Node would (the module wrapper, a require from its own place), compiled with its cache when there and whole. */
export function loadBundle<T>(bundle: string): LoadedBundle<T> {
  const source = readFileSync(bundle);
  const cachedData = cacheFor(source, cacheFileOf(bundle));
  const script = new vm.Script(`${BUNDLE_HEAD}${source.toString('utf8')}\n})`, {
    filename: bundle,
    cachedData,
  });
  const module = { exports: {} as T };
  (script.runInThisContext() as (...a: unknown[]) => void).call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
  return { file: bundle, exports: module.exports, script, source, cached: cachedData !== undefined && script.cachedDataRejected === false };
}

/**
 * Save a loaded bundle's code cache on its first use under this Node (none saved yet), ignoring
 * any failure: an installed package's folder may be read-only, and without a cache a command
 * only starts slower. Never replaces a cache: the build's, made after sample work, holds more.
 */
export function saveCacheQuietly(loaded: LoadedBundle<unknown>): void {
  if (!hasNoCache(loaded.file)) return;
  try {
    saveCache(loaded);
  } catch {
    // read-only install, disk full: the next run tries again
  }
}

/** Save a loaded bundle's code cache now (everything compiled so far), with its digest, atomically. */
export function saveCache(loaded: LoadedBundle<unknown>): void {
  const file = cacheFileOf(loaded.file);
  const tmp = `${file}.tmp-${process.pid}`;
  const data = loaded.script.createCachedData();
  writeFileSync(tmp, Buffer.concat([digestOf(loaded.source, data), data]));
  renameSync(tmp, file);
}
