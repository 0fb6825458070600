#!/usr/bin/env node
/**
 * The package.json a packed siegesim carries (`npm pack`, `npm publish`): this checkout's,
 * without its scripts.
 *
 *   node scripts/pack-manifest.mjs strip     prepack: keep package.json aside, write it without "scripts"
 *   node scripts/pack-manifest.mjs restore   postpack: put the kept package.json back
 *
 * prepack builds first (a no-op when dist/ is current), its lines on stderr so that
 * `npm pack --json` prints only the JSON.
 *
 * Every script is for the checkout (build, test, bench: they run scripts/ and test/, which the
 * tarball does not hold), and `prepare` is one npm treats as an install script: npm 11 names it
 * on every install of the tarball as a script not allowed to run, though the package is built
 * already and has nothing to run. npm tars package.json as it is on disk after prepack, so the
 * file is swapped for the pack and put back after it (the pattern of pinst, for husky's
 * postinstall). A pack that failed half way leaves the kept file: the next strip or restore puts
 * it back first, so the checkout's package.json is never lost.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = path.join(root, 'package.json');
/** The checkout's package.json while a pack runs (.gitignore'd). */
const KEPT = path.join(root, '.package.json.unpacked');

function restore() {
  if (existsSync(KEPT)) renameSync(KEPT, PACKAGE);
}

function strip() {
  restore();
  const text = readFileSync(PACKAGE, 'utf8');
  const pkg = JSON.parse(text);
  delete pkg.scripts;
  writeFileSync(KEPT, text);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  writeFileSync(PACKAGE, JSON.stringify(pkg, null, 2).replace(/\n/g, eol) + eol);
}

const step = process.argv[2];
if (step === 'strip') strip();
else if (step === 'restore') restore();
else {
  console.error(`usage: node scripts/pack-manifest.mjs strip | restore (not "${step}")`);
  process.exit(2);
}
