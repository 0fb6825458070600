/**
 * reports/examples/ is committed: the command `npm run examples` runs (read from package.json,
 * so there is one list of examples) is run again into a temporary folder, and every CSV must
 * come out byte for byte as committed (timing in summary.json and the pages differs; CSV does
 * not). A change that moves a number fails here until the examples are regenerated.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, runCli, tempDirs } from '../cli-child.js';

const EXAMPLES = path.join(ROOT, 'reports/examples');
const tempDir = tempDirs('siegesim-examples-');

/** The CLI arguments of `npm run examples`, writing to `out` instead of reports/examples. */
function examplesArgs(out: string): string[] {
  const script = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.examples;
  const cmd = script.split('&&').pop()!.trim().split(/\s+/);
  expect(cmd.slice(0, 3)).toEqual(['node', 'dist/src/cli/main.js', 'run']);
  const args = cmd.slice(2);
  const at = args.indexOf('--out');
  expect(args[at + 1]).toBe('reports/examples');
  args[at + 1] = out;
  return args;
}

const reportsIn = (root: string) =>
  readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(root, d.name, 'summary.csv')))
    .map((d) => d.name)
    .sort();

describe('the committed example reports', () => {
  it('are what `npm run examples` writes today (every CSV byte for byte)', async () => {
    const out = tempDir();
    const r = await runCli(examplesArgs(out), { timeoutMs: 280_000 });
    expect(r.code, r.stderr).toBe(0);
    const names = reportsIn(EXAMPLES);
    expect(names.length).toBeGreaterThanOrEqual(4);
    expect(reportsIn(out)).toEqual(names);
    for (const name of names) {
      const csvs = readdirSync(path.join(EXAMPLES, name)).filter((f) => f.endsWith('.csv'));
      expect(csvs).toContain('summary.csv');
      expect(readdirSync(path.join(out, name)).filter((f) => f.endsWith('.csv'))).toEqual(csvs);
      for (const f of csvs) {
        const committed = readFileSync(path.join(EXAMPLES, name, f), 'utf8');
        expect(readFileSync(path.join(out, name, f), 'utf8'), `${name}/${f} differs from the committed example: run npm run examples`).toBe(committed);
      }
      // the committed page and charts are whole (their content is checked in a browser by reports.test.ts)
      expect(existsSync(path.join(EXAMPLES, name, 'index.html'))).toBe(true);
    }
    expect(existsSync(path.join(EXAMPLES, 'index.html'))).toBe(true);
  }, 300_000);
});
