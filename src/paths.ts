/**
 * Where siegesim's own files are (and what file any path names: realPathOr). Found from the
 * package's root — the first folder upward from this module whose package.json is siegesim's —
 * not from this module's own place, which differs
 * between the sources (src/ under vitest), the compiled files (dist/src/) and the command line's
 * bundle (dist/cli/, see src/cli/main.ts).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The package's root folder (where package.json, scenarios/ and bench/ are). */
export function packageRoot(): string {
  if (root !== undefined) return root;
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === 'siegesim') return (root = dir);
      } catch {
        // not ours (or unreadable): keep looking upward
      }
    }
    if (path.dirname(dir) === dir) throw new Error(`siegesim's package.json not found above ${here}`);
  }
}

/** A file of the package, by its path from the root (`dist/workers/worker.js`). */
export function packageFile(rel: string): string {
  return path.join(packageRoot(), rel);
}

/** The file a path names: its real path (links resolved), or its absolute form when it does not exist. */
export function realPathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Is this code running from the TypeScript sources (vitest), not from the build? */
export function fromSources(): boolean {
  return fileURLToPath(import.meta.url).endsWith('.ts');
}
