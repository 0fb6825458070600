#!/usr/bin/env node
/**
 * The `siegesim` executable. It runs the command line from its bundle, dist/cli/siegesim.cjs
 * (one CommonJS file made by esbuild at `npm run build`: loading the ~300 modules of the
 * compiled program and of zod and yaml one by one cost a tiny run about a fifth of its time),
 * compiled with the V8 code cache the build saved for it (src/code-cache.ts: ~20-35 ms less CPU a
 * command); and from the compiled modules (entry.ts) when the bundle is missing or older than
 * what tsc last wrote, or with SIEGESIM_NO_BUNDLE set (not empty, not 0). Either way an internal
 * error's stack is printed at its places in src/ (source-stack.ts).
 * What tsc last wrote, in two stats: entry.js, which a whole compile rewrites, and
 * dist/tsconfig.tsbuildinfo, which every compile that emits anything rewrites (tsconfig.json is
 * `incremental`, so `tsc`, `tsc --incremental` and `tsc -w` all keep it), even one that re-emits
 * a single module: the bundle must never run beside compiled modules newer than it (the worker
 * threads load those). `npm run build` deletes the build info before its tsc (so it compiles
 * everything: an incremental compile does not write again an output that was deleted) and
 * bundles after it.
 * SIEGESIM_CODE_CACHE=write saves the bundle's code cache as the command exits, when it
 * succeeded (the build's last step, src/code-cache-build.ts). An installed package has no cache
 * (the tarball leaves them out: each is for one Node version): the first command that succeeds
 * under a Node saves one for that Node (SIEGESIM_CODE_CACHE=off: never).
 */
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../../cli/siegesim.cjs', import.meta.url));
const compiled = new URL('./entry.js', import.meta.url);
const buildInfo = new URL('../../tsconfig.tsbuildinfo', import.meta.url);

function mtime(f: string | URL): number {
  try {
    return statSync(f).mtimeMs;
  } catch {
    return -1;
  }
}

const noBundle = (process.env.SIEGESIM_NO_BUNDLE ?? '') !== '' && process.env.SIEGESIM_NO_BUNDLE !== '0';
const built = noBundle ? -1 : mtime(bundle);
// An installed package has no build info (the tarball leaves it out), and npm extracts its
// files in any order, so there the compiled modules' times say nothing: its bundle is current.
const compiledAt = mtime(buildInfo) < 0 ? -1 : Math.max(mtime(compiled), mtime(buildInfo));
if (built >= 0 && built >= compiledAt) {
  const { hasNoCache, loadBundle, saveCache, saveCacheQuietly } = await import('../code-cache.js');
  const first = hasNoCache(bundle) && process.env.SIEGESIM_CODE_CACHE !== 'off';
  const loaded = loadBundle<{ start: () => Promise<void> }>(bundle);
  if (process.env.SIEGESIM_CODE_CACHE === 'write') process.on('exit', (code) => code === 0 && saveCache(loaded));
  else if (first) process.on('exit', (code) => code === 0 && saveCacheQuietly(loaded));
  await loaded.exports.start();
} else await import(compiled.href);
