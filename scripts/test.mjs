#!/usr/bin/env node
/**
 * npm test (after its build): the type-check of the tests (tsc -p tsconfig.test.json, against the
 * declarations the build's tsc wrote for the code, which that tsc has type-checked)
 * beside the test suite (vitest run), not before it. tsc runs on one core for a few tens of seconds;
 * started first, it left the other core idle on a two-core machine (CI's) until the suite began.
 * Both run to the end; the exit code is the first failure's (tsc's, else vitest's). tsc's output is
 * printed whole when it ends, so it never breaks into vitest's lines. Arguments go to vitest
 * (`npm test -- test/stats.test.ts`).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** Run a Node program of node_modules; its exit code (1 when it was ended by a signal). */
function node(file, args, stdio) {
  const child = spawn(process.execPath, [file, ...args], { cwd: root, stdio });
  let out = '';
  if (stdio === 'pipe') {
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
  }
  return new Promise((resolve) => {
    child.on('error', (e) => resolve({ code: 1, out: `${out}${e}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

const tsc = node(require.resolve('typescript/bin/tsc'), ['-p', 'tsconfig.test.json'], 'pipe').then((r) => {
  process.stdout.write(r.code === 0 ? '' : `\ntsc -p tsconfig.test.json failed (exit ${r.code}):\n${r.out}\n`);
  return r.code;
});
const vitest = node(path.join(path.dirname(require.resolve('vitest/package.json')), 'vitest.mjs'), ['run', ...process.argv.slice(2)], 'inherit').then((r) => r.code);
const [t, v] = await Promise.all([tsc, vitest]);
if (t !== 0) console.error(`npm test: the type-check failed (tsc -p tsconfig.test.json, exit ${t}; its errors are above)`);
process.exitCode = t !== 0 ? t : v;
