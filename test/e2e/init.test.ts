/**
 * `siegesim init` in a repository that already has some of what it writes (the new-user audit,
 * defect 5): a "balance" script of the repository's own is kept, and the next steps and the
 * starters then say siegesim's command rather than `npm run balance`; a file of the user's own
 * where a starter scenario would go is kept, with a warning that `siegesim test scenarios`
 * refuses it (checked: it does). The full starter layout and a second init are in team-repo.test.ts.
 */
import { afterAll, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli, STACK_FRAME } from '../cli-child.js';
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
  expect(r.stdout).toContain("package.json: added the script balance:serve\n"); // one script: not "the scripts"
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

it('a "balance" script that is no command (npm takes it as missing): kept, and a warning that says so', async () => {
  const dir = repo('number-balance');
  writeFileSync(path.join(dir, 'package.json'), '{"name":"mygame","scripts":{"balance":3}}\n');
  const r = await runCli(['init', '--system', 'surrender'], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('package.json: kept its "balance" script (not changed), which is a number, not a command');
  expect(r.stdout).not.toContain('kept its own');
  expect(r.stderr).toContain(`siegesim init: warning: package.json's "balance" script is a number, not a command: npm takes it as missing (npm run balance says Missing script); make it ${JSON.stringify(INIT_SCRIPTS.balance)} to run siegesim`);
  expect(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).scripts).toEqual({ balance: 3, 'balance:serve': INIT_SCRIPTS['balance:serve'] });
  // npm run balance would not run siegesim: the next steps name the command itself
  expect(nextOf(r.stdout).some((l) => l.startsWith(`npx ${INIT_SCRIPTS.balance}`))).toBe(true);
});

it('a second init (the scripts are init\'s own, kept) still says npm run balance', async () => {
  const dir = repo('again');
  expect((await runCli(['init', '--system', 'surrender'], { cwd: dir })).code).toBe(0);
  const again = await runCli(['init', '--system', 'surrender'], { cwd: dir });
  expect(again.code, again.stderr).toBe(0);
  // its scripts are init's own from the first init: said as such, not as the repository's own (fresh-eyes helper)
  expect(again.stdout).toContain(`package.json: already has siegesim's "balance" script (not changed)`);
  expect(again.stdout).not.toContain('kept its own');
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

it('a repository where init cannot write what it plans is refused before anything is written (exit 2, a message, no stack trace, never waits on a pipe)', async () => {
  /** Every file under `dir` (folders end with /), to see that nothing was written. */
  const tree = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .map((e) => path.relative(dir, path.join(e.parentPath, e.name)) + (e.isDirectory() ? '/' : ''))
      .sort();
  const cases: { name: string; setup: (dir: string) => void; args?: string[]; says: RegExp }[] = [
    { name: 'scenarios-file', setup: (d) => writeFileSync(path.join(d, 'scenarios'), 'x\n'), says: /scenarios is a file, not a folder \(nothing was written\)/ },
    // .github a file: the four starters were written before the workflow failed
    { name: 'github-file', setup: (d) => writeFileSync(path.join(d, '.github'), 'x\n'), says: /\.github is a file, not a folder \(nothing was written\)/ },
    {
      name: 'starter-folder',
      setup: (d) => mkdirSync(path.join(d, 'scenarios/fantasy-climbers-dc.yaml'), { recursive: true }),
      args: ['--system', 'fantasy'],
      says: /^siegesim: scenarios\/fantasy-climbers-dc\.yaml is a folder, where init writes a file: move it and run init again \(nothing was written\)$/m,
    },
    { name: 'package-folder', setup: (d) => mkdirSync(path.join(d, 'package.json')), says: /^siegesim: package\.json is a folder, where init writes a file/m },
    { name: 'package-pipe', setup: (d) => execFileSync('mkfifo', [path.join(d, 'package.json')]), says: /^siegesim: package\.json is not a regular file \(a pipe or a device\)/m },
    { name: 'gitignore-link', setup: (d) => symlinkSync('nowhere', path.join(d, '.gitignore')), says: /^siegesim: \.gitignore is a symbolic link to nowhere/m },
    // a folder that is a link to nowhere: the starters were written before the workflow failed
    { name: 'github-link', setup: (d) => symlinkSync('nowhere', path.join(d, '.github')), says: /^siegesim: \.github is a symbolic link to nowhere, where init makes a folder/m },
    // nested past the stack: JSON.parse reads it, writing it back recursed (a RangeError)
    { name: 'package-deep', setup: (d) => writeFileSync(path.join(d, 'package.json'), `{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}`), says: /^siegesim: package\.json:1:200005: nested too deeply to write back \(200,001 levels there; Maximum call stack size exceeded\): add the scripts yourself/m },
    { name: 'package-null-scripts', setup: (d) => writeFileSync(path.join(d, 'package.json'), '{\n  "name": "g",\n  "scripts": null\n}\n'), says: /^siegesim: package\.json:3:3: "scripts" is not an object \(null\): fix it, or add the scripts yourself/m },
    { name: 'package-bad-json', setup: (d) => writeFileSync(path.join(d, 'package.json'), '{\n "name": tru\n}\n'), says: /^siegesim: package\.json:2:10: not valid JSON \(.*\): fix it, or add the scripts yourself: \{"balance":/m },
  ];
  for (const c of cases) {
    const dir = repo(c.name);
    c.setup(dir);
    const before = tree(dir);
    const r = await runCli(['init', ...(c.args ?? [])], { cwd: dir, timeoutMs: 30_000 });
    expect(r.code, `${c.name}: ${r.stderr}`).toBe(2);
    expect(r.stderr, c.name).toMatch(c.says);
    expect(r.stderr, c.name).not.toMatch(STACK_FRAME);
    expect(tree(dir), c.name).toEqual(before);
  }
  // a path under a file, and a file system that takes no new files (Node's recursive mkdir looped for ever under /proc)
  const dir = repo('under');
  writeFileSync(path.join(dir, 'f.txt'), 'x\n');
  const under = await runCli(['init', 'f.txt/x'], { cwd: dir, timeoutMs: 30_000 });
  expect([under.code, under.stderr]).toEqual([2, expect.stringMatching(/f\.txt is a file, not a folder \(nothing was written\)/)]);
  const proc = await runCli(['init', '/proc/siegesim-init-test'], { cwd: dir, timeoutMs: 30_000 });
  expect([proc.code, proc.stderr]).toEqual([2, expect.stringMatching(/^siegesim: cannot write to \/proc\/siegesim-init-test\/\S+: this file system does not allow new files there/)]);
  expect(tree(dir)).toEqual(['f.txt']);
});

it('a package.json that is a symbolic link is written where it points (the link stays); one with a byte-order mark is read, and keeps it', async () => {
  const dir = repo('pkg-link');
  const outside = repo('pkg-target');
  writeFileSync(path.join(outside, 'package.json'), '{ "name": "g" }\n');
  symlinkSync(path.join(outside, 'package.json'), path.join(dir, 'package.json'));
  const linked = await runCli(['init', '--system', 'surrender'], { cwd: dir });
  expect(linked.code, linked.stderr).toBe(0);
  expect(lstatSync(path.join(dir, 'package.json')).isSymbolicLink()).toBe(true);
  expect(JSON.parse(readFileSync(path.join(outside, 'package.json'), 'utf8')).scripts).toEqual(INIT_SCRIPTS);
  const bom = repo('pkg-bom');
  writeFileSync(path.join(bom, 'package.json'), '\uFEFF{ "name": "g" }\n');
  const r = await runCli(['init', '--system', 'surrender'], { cwd: bom });
  expect(r.code, r.stderr).toBe(0);
  const text = readFileSync(path.join(bom, 'package.json'), 'utf8');
  expect(text.startsWith('\uFEFF{')).toBe(true);
  expect(JSON.parse(text.slice(1)).scripts).toEqual(INIT_SCRIPTS);
});
