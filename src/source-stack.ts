/**
 * Stack traces at the program's sources. The command line runs from its bundle
 * (dist/cli/siegesim.cjs, compiled through vm.Script with its code cache: src/code-cache.ts),
 * whose line numbers mean nothing to a reader, and Node maps no frame of a script compiled
 * through vm.Script — not under `--enable-source-maps`, not after
 * `process.setSourceMapsEnabled(true)` (which also leaves alone the modules loaded before it) —
 * and `--enable-source-maps` for every command would cost every start. So a stack is mapped
 * here, as text, only when an internal error is about to be printed: each frame in a file of the
 * package's dist/ that has a source map beside it (`<file>.map`: esbuild's for the bundle, which
 * carries tsc's through to src/; tsc's for each compiled module) is rewritten to the position
 * in src/ the map gives. Nothing is read before that; a frame without a map or a mapping stays
 * as it was, and so does the whole stack if anything goes wrong.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUNDLE_HEAD } from './code-cache.js';
import { packageFile } from './paths.js';

/** Source maps by generated file (null: none or unreadable). */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** A frame line as V8 prints it: `    at [async ]name (where:line:col)` or `    at [async ]where:line:col`. */
const FRAME = /^(\s+at (?:async )?(?:.*? \()?)(.+?):(\d+):(\d+)(\)?)$/gm;

/** One frame's place in src/, as `where:line:col` in the frame's own form (a path or a file: URL), or undefined. */
function original(where: string, line: number, col: number, dist: string): string | undefined {
  const url = where.startsWith('file://');
  const file = url ? fileURLToPath(where) : where;
  if (!file.startsWith(dist)) return undefined;
  const map = mapOf(file);
  if (!map) return undefined;
  // loadBundle wraps a bundle's source on its first line
  const head = line === 1 && file.endsWith('.cjs') ? BUNDLE_HEAD.length : 0;
  const e = map.findEntry(line - 1, col - 1 - head);
  if (!('originalSource' in e) || !e.originalSource) return undefined;
  const source = path.resolve(path.dirname(file), e.originalSource);
  return `${url ? pathToFileURL(source).href : source}:${e.originalLine + 1}:${e.originalColumn + 1}`;
}

/** A stack with its frames in the package's built files at their places in src/ (see above). */
export function sourceStack(stack: string): string {
  try {
    const dist = packageFile('dist') + path.sep;
    return stack.replace(FRAME, (all: string, head: string, where: string, line: string, col: string, tail: string) => {
      const at = original(where, Number(line), Number(col), dist);
      return at === undefined ? all : `${head}${at}${tail}`;
    });
  } catch {
    return stack;
  }
}

/** A thrown value as an internal error prints it: its stack at src/, or the value itself when it has none. */
export function errorText(e: unknown): string {
  const stack = (e as Error | null | undefined)?.stack;
  return typeof stack === 'string' && stack !== '' ? sourceStack(stack) : String(e);
}

/** What the command line prints on stderr for an internal error (a bug): a line saying so, then errorText. */
export function internalErrorText(e: unknown): string {
  return `siegesim: internal error\n${errorText(e)}\n`;
}
