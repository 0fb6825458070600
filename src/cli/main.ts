#!/usr/bin/env node
/**
 * The `siegesim` executable. It runs the command line from its bundle, dist/cli/entry.js (one
 * file and a few chunks made by esbuild at `npm run build`: loading the ~300 modules of the
 * compiled program and of zod and yaml one by one cost a tiny run about a fifth of its time),
 * and from the compiled modules (entry.ts) when the bundle is missing or older than them — after
 * a `tsc` alone, or with SIEGESIM_NO_BUNDLE=1 (stack traces then point at dist/src).
 */
import { statSync } from 'node:fs';

const bundle = new URL('../../cli/entry.js', import.meta.url);
const compiled = new URL('./entry.js', import.meta.url);

function mtime(u: URL): number {
  try {
    return statSync(u).mtimeMs;
  } catch {
    return -1;
  }
}

const built = process.env.SIEGESIM_NO_BUNDLE ? -1 : mtime(bundle);
const useBundle = built >= 0 && built >= mtime(compiled);
await import(useBundle ? bundle.href : compiled.href);
