/**
 * `siegesim init` in a repository that already has some of what it writes (the new-user audit,
 * defect 5): a "balance" script of the repository's own is kept, and the next steps and the
 * starters then say siegesim's command rather than `npm run balance`; a file of the user's own
 * where a starter scenario would go is kept, with a warning that `siegesim test scenarios`
 * refuses it (checked: it does). The full starter layout and a second init are in team-repo.test.ts.
 */
import { afterAll, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../cli-child.js';
import { INIT_SCRIPTS } from '../../src/api.js';

const dirs: string[] = [];
const repo = (name: string): string => {
  const d = mkdtempSync(path.join(tmpdir(), `siegesim-init-${name}-`));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const nextOf = (stdout: string): string[] => stdout.slice(stdout.indexOf('next:\n') + 'next:\n'.length).trimEnd().split('\n').map((l) => l.trim());

it('a repository with its own "balance" script: kept, and the next steps and the starter name siegesim test itself, not npm run balance', async () => {
  const dir = repo('own-balance');
  writeFileSync(path.join(dir, 'package.json'), '{"name":"mygame","scripts":{"balance":"echo my own"}}\n');
  const r = await runCli(['init', '--system', 'fantasy'], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('package.json: kept its own "balance" script (not changed)');
  expect(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).scripts).toEqual({ balance: 'echo my own', 'balance:serve': INIT_SCRIPTS['balance:serve'] });
  const next = nextOf(r.stdout);
  expect(next.some((l) => l.startsWith('npm run balance '))).toBe(false);
  expect(next).toContain(`npx ${INIT_SCRIPTS.balance}  # judges every expect: assertion in scenarios/ (exit 1 on a FAIL); your own "balance" script was kept, so not npm run balance`);
  // balance:serve was added: its npm script is init's, so it is named
  expect(next.some((l) => l.startsWith('npm run balance:serve '))).toBe(true);
  const starter = readFileSync(path.join(dir, 'scenarios/fantasy-climbers-dc.yaml'), 'utf8');
  expect(starter).toContain(`\`npx ${INIT_SCRIPTS.balance}\` judges the expect:`);
  expect(starter).not.toContain('npm run balance');
});

it('a second init (the scripts are init\'s own, kept) still says npm run balance', async () => {
  const dir = repo('again');
  expect((await runCli(['init', '--system', 'surrender'], { cwd: dir })).code).toBe(0);
  const again = await runCli(['init', '--system', 'surrender'], { cwd: dir });
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toContain('kept its own "balance" script');
  const next = nextOf(again.stdout);
  expect(next.some((l) => l.startsWith('npm run balance '))).toBe(true);
  expect(next.some((l) => l.startsWith('npm run balance:serve '))).toBe(true);
  expect(again.stderr).toBe(''); // its own starter, kept, is a valid scenario: no warning
});

it("a file of the user's own where a starter would go: kept, and a warning that siegesim test scenarios refuses it (it does)", async () => {
  const dir = repo('own-file');
  mkdirSync(path.join(dir, 'scenarios'));
  const notes = 'notes about the climb, not a scenario\n';
  writeFileSync(path.join(dir, 'scenarios/fantasy-climbers-dc.yaml'), notes);
  const r = await runCli(['init', '--system', 'fantasy'], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('kept scenarios/fantasy-climbers-dc.yaml  (already there; not changed)');
  expect(readFileSync(path.join(dir, 'scenarios/fantasy-climbers-dc.yaml'), 'utf8')).toBe(notes);
  expect(r.stderr).toMatch(/^siegesim init: warning: scenarios\/fantasy-climbers-dc\.yaml was already there and is not a valid scenario \(scenarios\/fantasy-climbers-dc\.yaml\S* .+\): siegesim test scenarios, as the balance workflow runs it, will refuse it; fix it, or move it out of scenarios\/$/m);
  const test = await runCli(['test', 'scenarios', '--no-progress'], { cwd: dir });
  expect(test.code).not.toBe(0);
  expect(test.stderr + test.stdout).toContain('scenarios/fantasy-climbers-dc.yaml');
});
