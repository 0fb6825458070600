/**
 * siegesim deletes or replaces only what it wrote, run
 * through the built CLI: a folder holding files siegesim did not write is refused before any
 * trial runs, naming them, unless --force, which keeps them; a user's own index.html is never
 * replaced; reports from before manifests are still replaced (the legacy rule); no output
 * replaces a file the command reads or a scenario file; and a signal in the write phase, also
 * with the user's files beside the report, leaves the old report and those files as they were,
 * and no temporary.
 */
import { describe, expect, it } from 'vitest';
import { cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, runCli, startCli, STACK_FRAME, tempDirs } from '../cli-child.js';
import { runCliBatch } from '../cli-batch.js';
import { MANIFEST } from '../../src/report/manifest.js';
import { MSG } from '../../src/scenario/messages.js';

/** One case, one chart: a quick report. */
const QUICK = path.join(ROOT, 'scenarios/surrender/town-basic.yaml');
const OTHER = path.join(ROOT, 'scenarios/surrender/port-blockade.yaml');
const BALANCE = path.join(ROOT, 'test/fixtures/balance/climbers-dc12.yaml');
// would run for hours: a refusal must come before the run (on one worker thread: the pool that a big
// run starts at once still starts, and the refusal must close it; a second thread adds only CPU)
const BIG = ['--trials', '2000000000', '--threads', '1'];
// The runs that write, of port-blockade's four cases and more, on one thread too: what is checked
// here is what is written and refused, which does not depend on it (a pool of two: ~0.35 s more CPU a run).
const tmp = tempDirs('siegesim-ownership-');

/** Every file under `dir` (dot files too), by relative path, with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name), rel + e.name + '/');
      else out[rel + e.name] = e.isSymbolicLink() ? '-> link' : readFileSync(path.join(d, e.name), 'latin1');
    }
  };
  walk(dir, '');
  return out;
}

/** Each command line in a process of its own, one after another. */
async function inTurn(commands: string[][], cwd: string): Promise<Awaited<ReturnType<typeof runCli>>[]> {
  const out = [];
  for (const args of commands) out.push(await runCli(args, { cwd }));
  return out;
}

const leftovers = (dir: string) => readdirSync(dir).filter((n) => /^\.tmp-|\.old-\d+-\d+@/.test(n));

/** A user's project folder that an unguarded writer would delete: a summary.json of theirs, a source file, notes. */
function project(dir: string, summary = '{"total":3}\n'): string {
  const p = path.join(dir, 'proj');
  mkdirSync(path.join(p, 'src'), { recursive: true });
  writeFileSync(path.join(p, 'summary.json'), summary);
  writeFileSync(path.join(p, 'src', 'main.c'), 'int main(){}\n');
  writeFileSync(path.join(p, 'README.md'), 'notes\n');
  return p;
}

/**
 * A refusal: exit 2, one line naming `message`, no stack trace, quickly (before any trial). A
 * command run through runCliBatch has no timedOut: a hang there fails the whole batch.
 */
function refused(r: { code: number | null; stderr: string; timedOut?: boolean }, message: RegExp): void {
  if ('timedOut' in r) expect(r.timedOut).toBe(false);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(STACK_FRAME);
}

/**
 * A report of QUICK (`run --trials 1000`, and `more` options) at `to`, a folder that is not there
 * yet: the tests that need one before what they check (a report to refuse to overwrite, to leave
 * as it was, to read) each get their own copy of one the CLI wrote once for the file, not a process
 * of their own (~0.7 s of CPU each, the report's charts drawn again). A report folder moved or
 * copied is still siegesim's (its manifest goes with it), and a copy at the same depth under the
 * temporary folder has the same source path (summary.json's, relative to the report) as one written there.
 */
const quickReports = new Map<string, Promise<string>>();
async function quickReportAt(to: string, more: string[] = []): Promise<void> {
  const key = JSON.stringify(more);
  if (!quickReports.has(key)) {
    quickReports.set(key, (async () => {
      const rep = path.join(tmp(), 'rep');
      const r = await runCli(['run', QUICK, '--trials', '1000', '--no-charts', ...more, '--out', rep, '--no-progress']);
      expect(r.code, r.stderr).toBe(0);
      return rep;
    })());
  }
  const from = await quickReports.get(key)!;
  expect(path.dirname(path.dirname(to)), 'a copy at the depth of the one written').toBe(path.dirname(path.dirname(from)));
  cpSync(from, to, { recursive: true });
}

describe('a folder holding files siegesim did not write', () => {
  it.each([
    ['run', '{"total":3}\n'],
    ['run', 'not json\n'],
    ['merge', '{"total":3}\n'],
  ])('%s --out a project folder with a summary.json (%j) is refused naming its files, and nothing is deleted', async (cmd, summary) => {
    const dir = tmp();
    const proj = project(dir, summary);
    const before = snapshot(proj);
    let args = ['run', QUICK, ...BIG, '--out', proj];
    if (cmd === 'merge') {
      const s = path.join(dir, 's.json');
      const shard = await runCli(['run', QUICK, '--trials', '1000', '--shard', '1/1', '--out', s, '--no-progress']);
      expect(shard.code, shard.stderr).toBe(0);
      args = ['merge', QUICK, s, '--out', proj];
    }
    const r = await runCli(args);
    refused(r, /^siegesim: cannot write to .*proj: it is a folder with other files, not a siegesim report \(README\.md, src\/, summary\.json\); choose another --out, or add --force/);
    expect(snapshot(proj)).toEqual(before);
    // --force keeps the user's files, so it does not replace their summary.json either
    const forced = await runCli([...args, '--force']);
    refused(forced, /cannot write to .*proj: the report would replace summary\.json, which siegesim did not write/);
    expect(snapshot(proj)).toEqual(before);
  });

  it('sensitivity --out a folder holding a sensitivity.json of the user\'s: refused, nothing deleted', async () => {
    const dir = tmp();
    const p = path.join(dir, 'mine');
    mkdirSync(p);
    writeFileSync(path.join(p, 'sensitivity.json'), '{"mine":true}\n');
    writeFileSync(path.join(p, 'thesis.tex'), '\\section{x}\n');
    const before = snapshot(p);
    const r = await runCli(['sensitivity', QUICK, '--trials', '2000000000', '--out', p]);
    refused(r, /cannot write to .*mine: it is a folder with other files, not a siegesim sensitivity report \(sensitivity\.json, thesis\.tex\)/);
    expect(snapshot(p)).toEqual(before);
  });

  it('a report folder the user added files to: refused naming them; --force writes the new report and keeps them, again and again', async () => {
    const dir = tmp();
    const rep = path.join(dir, 'rep');
    const first = await runCli(['run', QUICK, '--trials', '1000', '--no-charts', '--seed', 'a', '--out', rep, '--no-progress']);
    expect(first.code, first.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(path.join(rep, MANIFEST), 'utf8'));
    expect(manifest).toEqual({ format: 'siegesim-report/1', version: expect.any(String), kind: 'run', files: expect.arrayContaining(['summary.json', 'index.html', 'scenario.yaml']) });
    expect([...manifest.files, MANIFEST].sort()).toEqual(Object.keys(snapshot(rep)).sort());
    writeFileSync(path.join(rep, 'notes.txt'), 'mine\n');
    mkdirSync(path.join(rep, 'mydata'));
    writeFileSync(path.join(rep, 'mydata', 'thesis.tex'), '\\section{mine}\n');
    writeFileSync(path.join(rep, 'charts', 'my-sketch.svg'), '<svg/>\n');
    const mine = () => ({ notes: readFileSync(path.join(rep, 'notes.txt'), 'utf8'), thesis: readFileSync(path.join(rep, 'mydata', 'thesis.tex'), 'utf8'), sketch: readFileSync(path.join(rep, 'charts', 'my-sketch.svg'), 'utf8') });
    const before = snapshot(rep);
    const r = await runCli(['run', QUICK, ...BIG, '--out', rep]);
    refused(r, /cannot write to .*rep: it holds files siegesim did not write there \(charts\/my-sketch\.svg, mydata\/, notes\.txt\); choose another --out, or add --force/);
    expect(snapshot(rep)).toEqual(before);
    for (const seed of ['b', 'c']) {
      const f = await runCli(['run', QUICK, '--trials', '1000', '--no-charts', '--seed', seed, '--out', rep, '--no-progress', '--force']);
      expect(f.code, f.stderr).toBe(0);
      expect(JSON.parse(readFileSync(path.join(rep, 'summary.json'), 'utf8')).seed).toBe(seed);
      expect(mine()).toEqual({ notes: 'mine\n', thesis: '\\section{mine}\n', sketch: '<svg/>\n' });
      expect(JSON.parse(readFileSync(path.join(rep, MANIFEST), 'utf8')).files).toEqual(manifest.files);
      expect(leftovers(dir)).toEqual([]);
    }
    // a report of another scenario there: the old one's files that the new one does not write go, the user's stay
    const other = await runCli(['run', OTHER, '--trials', '1000', '--no-charts', '--threads', '1', '--out', rep, '--no-progress', '--force']);
    expect(other.code, other.stderr).toBe(0);
    const files = JSON.parse(readFileSync(path.join(rep, MANIFEST), 'utf8')).files as string[];
    expect(Object.keys(snapshot(rep)).sort()).toEqual([...files, MANIFEST, 'charts/my-sketch.svg', 'mydata/thesis.tex', 'notes.txt'].sort());
    expect(mine()).toEqual({ notes: 'mine\n', thesis: '\\section{mine}\n', sketch: '<svg/>\n' });
  });

  it('names at most 10 files, then how many more', async () => {
    const dir = tmp();
    for (let i = 0; i < 14; i++) writeFileSync(path.join(dir, `f${String(i).padStart(2, '0')}.txt`), 'x');
    const r = await runCli(['run', QUICK, ...BIG, '--out', dir]);
    refused(r, /\(f00\.txt, f01\.txt, f02\.txt, f03\.txt, f04\.txt, f05\.txt, f06\.txt, f07\.txt, f08\.txt, f09\.txt and 4 more\)/);
  });

  it('a report written before manifests (the committed examples) is replaced without --force, and gets a manifest; with a file of the user\'s it is refused', async () => {
    const dir = tmp();
    const name = 'surrender-heavy-guns-grid';
    const legacy = path.join(dir, name);
    cpSync(path.join(ROOT, 'reports/examples', name), legacy, { recursive: true });
    rmSync(path.join(legacy, MANIFEST), { force: true }); // as every report was written before manifests
    expect(existsSync(path.join(legacy, MANIFEST))).toBe(false);
    writeFileSync(path.join(legacy, 'notes.txt'), 'mine\n');
    refused(await runCli(['run', QUICK, ...BIG, '--out', legacy]), /cannot write to .*: it holds files siegesim did not write there \(notes\.txt\)/);
    rmSync(path.join(legacy, 'notes.txt'));
    // and a folder of reports from before manifests (with a file of the user's beside them): its index is replaced, the file kept
    const root = path.join(dir, 'examples');
    cpSync(path.join(ROOT, 'reports/examples'), root, { recursive: true });
    const png = readFileSync(path.join(root, 'report.png'));
    // both runs through one child (test/cli-batch.ts; the refusal above is a process of its own)
    const [r, two] = await runCliBatch([
      ['run', path.join(ROOT, 'scenarios/surrender/heavy-guns-grid.yaml'), '--trials', '1000', '--no-charts', '--threads', '1', '--out', legacy, '--no-progress'],
      ['run', QUICK, OTHER, '--trials', '1000', '--no-charts', '--threads', '1', '--out', root, '--no-progress'],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(legacy, MANIFEST), 'utf8')).kind).toBe('run');
    expect(two.code, two.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'index.html'), 'utf8')).toContain('surrender-town-basic');
    expect(readFileSync(path.join(root, 'report.png'))).toEqual(png);
    expect(JSON.parse(readFileSync(path.join(root, MANIFEST), 'utf8'))).toMatchObject({ kind: 'index', files: ['index.html'] });
  });

  it('a user\'s own index.html in a folder of reports (--out with several scenarios, or reports/) is never replaced, --force or not', async () => {
    const dir = tmp();
    const multi = path.join(dir, 'multi');
    mkdirSync(multi);
    writeFileSync(path.join(multi, 'index.html'), '<p>my page</p>\n');
    const cwd = path.join(dir, 'work');
    mkdirSync(path.join(cwd, 'reports'), { recursive: true });
    writeFileSync(path.join(cwd, 'reports', 'index.html'), '<p>mine</p>\n');
    // a process of its own for each command; run's other two refusals through one child (test/cli-batch.ts)
    const multiRefused = /cannot write to .*multi: its index\.html was not written by siegesim, and the reports index would replace it/;
    const reportsRefused = /cannot write to reports: its index\.html was not written by siegesim/;
    refused(await runCli(['run', QUICK, OTHER, ...BIG, '--out', multi]), multiRefused);
    const [forced, inReports] = await runCliBatch([['run', QUICK, OTHER, ...BIG, '--out', multi, '--force'], ['run', QUICK, ...BIG]], cwd);
    refused(forced, multiRefused);
    refused(inReports, reportsRefused);
    expect(snapshot(multi)).toEqual({ 'index.html': '<p>my page</p>\n' });
    for (const args of [['sensitivity', QUICK, ...BIG], ['merge', QUICK, path.join(dir, 'none.json')]]) {
      refused(await runCli(args, { cwd }), reportsRefused);
    }
    expect(snapshot(path.join(cwd, 'reports'))).toEqual({ 'index.html': '<p>mine</p>\n' });
  });
});

describe('a report of the same file before an edit', () => {
  it('is replaced, as siegesim wrote it, and the run says so before it runs; the same file unchanged: no note', async () => {
    const dir = tmp();
    const file = path.join(dir, 'keep.yaml');
    writeFileSync(file, readFileSync(QUICK, 'utf8'));
    const rep = path.join(dir, 'first');
    const run = () => runCli(['run', file, '--trials', '1000', '--threads', '1', '--no-charts', '--out', rep, '--no-progress']);
    expect((await run()).code).toBe(0);
    const again = await run();
    expect(again.code).toBe(0);
    expect(again.stderr).not.toMatch(/note: .*another version/);
    writeFileSync(file, readFileSync(QUICK, 'utf8').replace(/^seed: .*$/m, 'seed: 99'));
    const edited = await run();
    expect(edited.code).toBe(0);
    expect(edited.stderr, edited.stderr).toContain(`note: ${rep} holds the report of another version of ${path.relative(ROOT, file)} (its scenario.yaml differs from the file now); this run replaces it (to keep it, run into another --out)`);
    expect(readFileSync(path.join(rep, 'scenario.yaml'), 'utf8')).toMatch(/^seed: 99$/m);
  });
});

describe('a folder holding the report of another scenario', () => {
  /** `dir`/rep: QUICK's report; `dir`/town.yaml: a copy of QUICK (the same name:, another file). */
  async function townReport(dir: string): Promise<string> {
    const rep = path.join(dir, 'rep');
    await quickReportAt(rep);
    writeFileSync(path.join(dir, 'town.yaml'), readFileSync(QUICK, 'utf8'));
    return rep;
  }
  const quick = path.relative(path.join(ROOT), QUICK);

  it('run --out the report of a scenario of another name: refused naming it and its file, unless --force; the same scenario again is replaced silently', async () => {
    const dir = tmp();
    const rep = await townReport(dir);
    const before = snapshot(rep);
    // run and merge each in a process of their own (townReport's run, the merge below); the other
    // runs through one child a step (test/cli-batch.ts; what writes first: a refusal ends writing)
    const s = path.join(dir, 's.json');
    const [shard, r] = await runCliBatch([
      ['run', OTHER, '--trials', '1000', '--shard', '1/1', '--out', s, '--no-progress'],
      ['run', OTHER, ...BIG, '--out', rep],
    ]);
    refused(r, /cannot write to/);
    expect(r.stderr).toBe(`siegesim: cannot write to ${rep}: ${MSG.otherScenarioReport({ name: 'surrender-town-basic', file: quick }, { name: 'surrender-port-blockade', file: path.relative(ROOT, OTHER) }, true)}\n`);
    expect(r.stderr).toContain(`it holds the report of scenario "surrender-town-basic" (made from ${quick}), not of "surrender-port-blockade" (scenarios/surrender/port-blockade.yaml); choose another --out, or add --force to replace it`);
    expect(r.stderr).not.toContain('both');
    expect(snapshot(rep)).toEqual(before);
    // merge checks the same
    expect(shard.code, shard.stderr).toBe(0);
    refused(await runCli(['merge', OTHER, s, '--out', rep]), /cannot write to .*rep: it holds the report of scenario "surrender-town-basic"/);
    expect(snapshot(rep)).toEqual(before);
    // the same scenario again: replaced, nothing said but the status line; then the other with --force
    const [again, forced] = await runCliBatch([
      ['run', QUICK, '--trials', '1000', '--no-charts', '--seed', 'again', '--out', rep, '--no-progress'],
      ['run', OTHER, '--trials', '1000', '--no-charts', '--threads', '1', '--out', rep, '--no-progress', '--force'],
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(/^surrender-town-basic: 1 case\(s\) x 1,000 trials/);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(rep, 'summary.json'), 'utf8')).name).toBe('surrender-port-blockade');
  });

  it('a report copied away from its file: another name is refused (its file named as gone), the same name replaced', async () => {
    const dir = tmp();
    const rep = await townReport(dir);
    const copy = path.join(dir, 'deeper', 'copy');
    cpSync(rep, copy, { recursive: true }); // its source, a path from the report folder, now leads nowhere
    const before = snapshot(copy);
    const r = await runCli(['run', OTHER, ...BIG, '--out', copy]);
    refused(r, /: it holds the report of scenario "surrender-town-basic" \(made from town-basic\.yaml, no longer where the report says\), not of "surrender-port-blockade"/);
    expect(snapshot(copy)).toEqual(before);
    const same = await runCli(['run', path.join(dir, 'town.yaml'), '--trials', '1000', '--no-charts', '--out', copy, '--no-progress']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('another file of the same name: refused naming both, with --out and without (reports/<name>/, and under --out with several)', async () => {
    const dir = tmp();
    const rep = await townReport(dir);
    const before = snapshot(rep);
    const r = await runCli(['run', 'town.yaml', ...BIG, '--out', 'rep'], { cwd: dir });
    refused(r, /cannot write to rep: /);
    expect(r.stderr).toBe(`siegesim: cannot write to rep: it holds the report of "surrender-town-basic" made from ${path.relative(dir, QUICK)}, not from town.yaml (both files are named "surrender-town-basic"); choose another --out, or add --force to replace it\n`);
    expect(snapshot(rep)).toEqual(before);
    // reports/<name>/ of QUICK: town.yaml would go there too, and a name: of its own is a way out
    const cwd = path.join(dir, 'w');
    mkdirSync(cwd);
    writeFileSync(path.join(cwd, 'town.yaml'), readFileSync(QUICK, 'utf8'));
    const first = await runCli(['run', QUICK, '--trials', '1000', '--no-charts', '--no-progress'], { cwd });
    expect(first.code, first.stderr).toBe(0);
    const reports = snapshot(path.join(cwd, 'reports'));
    const mine = `it holds the report of "surrender-town-basic" made from ${path.relative(cwd, QUICK)}, not from town.yaml (both files are named "surrender-town-basic"); give one of them another name:, choose another --out, or add --force to replace it`;
    // (these runs through one child a step: test/cli-batch.ts; the runs above are processes of their own)
    // several scenarios: each folder under reports/ is checked before any trial
    writeFileSync(path.join(cwd, 'port.yaml'), readFileSync(OTHER, 'utf8'));
    const [one, several] = await runCliBatch([['run', 'town.yaml', ...BIG], ['run', 'port.yaml', 'town.yaml', ...BIG]], cwd);
    refused(one, new RegExp(`^siegesim: cannot write to reports/surrender-town-basic: ${mine.replace(/[()[\].*+?^$|\\]/g, '\\$&')}\n$`));
    refused(several, /cannot write to reports\/surrender-town-basic: it holds the report of "surrender-town-basic" made from/);
    expect(snapshot(path.join(cwd, 'reports'))).toEqual(reports);
    // the same two files again once written with --force: nothing said
    const [forced, again] = await runCliBatch([
      ['run', 'port.yaml', 'town.yaml', '--trials', '1000', '--no-charts', '--threads', '1', '--no-progress', '--force'],
      ['run', 'port.yaml', 'town.yaml', '--trials', '1000', '--no-charts', '--threads', '1', '--no-progress'],
    ], cwd);
    expect(forced.code, forced.stderr).toBe(0);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/cannot|warning/);
  });

  it('sensitivity --out the sensitivity report of another scenario: refused naming it, unless --force; the same scenario again is replaced', async () => {
    const dir = tmp();
    const rep = path.join(dir, 'sens');
    const sensArgs = (file: string, ...more: string[]) => ['sensitivity', file, '--trials', '1000', '--threads', '1', '--out', rep, '--no-progress', ...more];
    expect((await runCli(sensArgs(QUICK))).code).toBe(0);
    const before = snapshot(rep);
    refused(await runCli(['sensitivity', OTHER, '--trials', '2000000000', '--threads', '1', '--out', rep]), /cannot write to .*sens: it holds the sensitivity report of scenario "surrender-town-basic", not of "surrender-port-blockade" \(scenarios\/surrender\/port-blockade\.yaml\); choose another --out, or add --force to replace it/);
    expect(snapshot(rep)).toEqual(before);
    // the same scenario again, then the other with --force: through one child (test/cli-batch.ts)
    const [again, forced] = await runCliBatch([sensArgs(QUICK), sensArgs(OTHER, '--force')]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/cannot|warning/);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(rep, 'sensitivity.json'), 'utf8')).name).toBe('surrender-port-blockade');
  });
});

describe('a report written into a folder of scenarios (--out . --force)', () => {
  it('run, validate and test of that folder (and of its parent) read the user\'s scenarios and not the report\'s copy; a user\'s scenario.yaml there is refused, --force or not', async () => {
    const dir = tmp();
    const sc = path.join(dir, 'sc');
    mkdirSync(sc);
    writeFileSync(path.join(sc, 'town.yaml'), readFileSync(QUICK, 'utf8'));
    writeFileSync(path.join(sc, 'port.yaml'), readFileSync(OTHER, 'utf8'));
    const w = await runCli(['run', 'town.yaml', '--trials', '1000', '--no-charts', '--out', '.', '--force', '--no-progress'], { cwd: sc });
    expect(w.code, w.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(sc, MANIFEST), 'utf8')).files).toContain('scenario.yaml');
    const mine = { 'town.yaml': readFileSync(QUICK, 'latin1'), 'port.yaml': readFileSync(OTHER, 'latin1') };
    const commands = (args: readonly string[]) => [
      ['validate', ...args],
      ['run', ...args, '--trials', '1000', '--no-charts', '--threads', '1', '--no-progress'],
      ['test', ...args, '--threads', '1', '--junit', path.join(dir, 'junit.xml')],
    ];
    for (const [args, cwd] of [[['.'], sc], [['sc'], dir]] as const) {
      // the folder's three commands through one child (test/cli-batch.ts), its parent's each in a process of its own
      const [v, r, t] = cwd === sc ? await runCliBatch(commands(args), cwd) : await inTurn(commands(args), cwd);
      expect(v.code, v.stderr).toBe(0);
      expect(v.stdout).not.toContain('scenario.yaml');
      expect(v.stdout.trimEnd().split('\n')).toHaveLength(2);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('-> reports/surrender-port-blockade');
      expect(t.code, t.stderr + t.stdout).toBe(0);
      expect(t.stdout).toMatch(/1 scenario\(s\) tested, 1 skipped/);
      expect(t.stdout + t.stderr).not.toContain('scenario.yaml');
    }
    expect(Object.fromEntries(Object.entries(snapshot(sc)).filter(([f]) => f in mine))).toEqual(mine);
    // a scenario of the user's named scenario.yaml: the report would replace it, so it is refused even with --force
    const d2 = path.join(dir, 'd2');
    mkdirSync(d2);
    writeFileSync(path.join(d2, 'scenario.yaml'), readFileSync(QUICK, 'utf8'));
    writeFileSync(path.join(d2, 'port.yaml'), readFileSync(OTHER, 'utf8'));
    const before = snapshot(d2);
    for (const r of await runCliBatch(['scenario.yaml', 'port.yaml'].map((f) => ['run', f, ...BIG, '--out', '.', '--force']), d2)) {
      refused(r, /cannot write to \.: the report would replace scenario\.yaml, which siegesim did not write \(--force keeps such files\)/);
    }
    expect(snapshot(d2)).toEqual(before);
  });

  it('a report folder given as the folder to read: its copy is not a scenario, and the message says how to run it', async () => {
    const dir = tmp();
    const rep = path.join(dir, 'rep');
    await quickReportAt(rep);
    const r = await runCli(['validate', rep]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${rep}  (folder)  ${MSG.noScenariosInReport(rep, path.join(rep, 'scenario.yaml'))}`);
    const copy = await runCli(['validate', path.join(rep, 'scenario.yaml')]);
    expect(copy.code, copy.stderr).toBe(0);
  });
});

describe('no output over an input', () => {
  const dir = tmp();
  const f = path.join(dir, 'f.yaml');
  writeFileSync(f, readFileSync(QUICK, 'utf8'));
  const b = path.join(dir, 'b.yaml');
  writeFileSync(b, readFileSync(BALANCE, 'utf8'));
  linkSync(f, path.join(dir, 'hard.json'));
  symlinkSync('f.yaml', path.join(dir, 'soft.json'));
  writeFileSync(path.join(dir, 'other.yaml'), 'name: other\n');
  const before = snapshot(dir);
  const reads = /it is a file this command reads, and an output never replaces an input/;
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ['run --shard --out the scenario', ['run', f, ...BIG, '--shard', '1/2', '--out', f], {}, reads],
    ['run --shard --out a hard link to it', ['run', f, ...BIG, '--shard', '1/2', '--out', path.join(dir, 'hard.json')], {}, /hard\.json: it is the same file as .*f\.yaml, which this command reads/],
    ['run --shard --out a symbolic link to it', ['run', f, ...BIG, '--shard', '1/2', '--out', path.join(dir, 'soft.json')], {}, /soft\.json: it is the same file as .*f\.yaml, which this command reads/],
    ['run --shard --out another scenario file', ['run', f, ...BIG, '--shard', '1/2', '--out', path.join(dir, 'other.yaml')], {}, /other\.yaml: it is a scenario file \(\.yaml\), and an output never replaces one/],
    ['test --junit the scenario', ['test', b, ...BIG, '--junit', b], {}, reads],
    ['schema --out a scenario file', ['schema', '--out', f], {}, /f\.yaml: it is a scenario file \(\.yaml\)/],
    ['GITHUB_STEP_SUMMARY the scenario', ['test', b, ...BIG], { GITHUB_STEP_SUMMARY: b }, /cannot write to .*b\.yaml \(GITHUB_STEP_SUMMARY\): it is a file this command reads/],
    ['GITHUB_STEP_SUMMARY a link to it', ['test', b, ...BIG], { GITHUB_STEP_SUMMARY: path.join(dir, 'soft.json') }, /soft\.json \(GITHUB_STEP_SUMMARY\): it is a scenario file/],
    ['run --out the scenario', ['run', f, ...BIG, '--out', f], {}, reads],
  ];
  // A process of its own for run --out and for those with an environment of their own; the others
  // through one child (test/cli-batch.ts: the same main(), refusals all, so none ends another's writing)
  const batched = cases.filter(([name, , env]) => name !== 'run --out the scenario' && Object.keys(env).length === 0);
  let batch: ReturnType<typeof runCliBatch> | undefined;
  it.each(cases)('%s: exit 2 with the reason, before the run, nothing changed', async (name, args, env, message) => {
    const i = batched.findIndex(([n]) => n === name);
    refused(i < 0 ? await runCli(args, { env }) : (await (batch ??= runCliBatch(batched.map(([, a]) => a))))[i], message);
    expect(snapshot(dir)).toEqual(before);
  });

  it("a report's own scenario copy, run again into that report: refused (the report would replace it)", async () => {
    const d = tmp();
    const rep = path.join(d, 'rep');
    await quickReportAt(rep);
    const was = snapshot(rep);
    refused(await runCli(['run', path.join(rep, 'scenario.yaml'), ...BIG, '--out', rep]), /cannot write to .*rep: the report would replace its scenario\.yaml: it is a file this command reads/);
    expect(snapshot(rep)).toEqual(was);
  });
});

describe('a file siegesim did not write, named as an output file', () => {
  const dir = tmp();
  const b = path.join(dir, 'b.yaml');
  writeFileSync(b, readFileSync(BALANCE, 'utf8'));
  writeFileSync(path.join(dir, 'package.json'), '{ "name": "our-game" }\n');
  writeFileSync(path.join(dir, 'README.md'), '# our rules\n');
  writeFileSync(path.join(dir, 'NOTES.txt'), 'playtest notes\n');
  const before = snapshot(dir);
  const theirs = (f: string, kind: string) => new RegExp(`${f.replace('.', '\\.')}: it is a file siegesim did not write \\(not ${kind}\\), and siegesim replaces only files it wrote`);
  const cases: [string, string[], RegExp][] = [
    ['schema --out package.json', ['schema', '--out', path.join(dir, 'package.json')], theirs('package.json', "siegesim's scenario schema")],
    ['run --shard --out README.md', ['run', b, ...BIG, '--shard', '1/2', '--out', path.join(dir, 'README.md')], theirs('README.md', 'a siegesim shard file')],
    ['test --junit NOTES.txt', ['test', b, ...BIG, '--junit', path.join(dir, 'NOTES.txt')], theirs('NOTES.txt', "a JUnit file of siegesim test's")],
  ];
  it.each(cases)('%s: exit 2 with the reason, before the run, nothing changed', async (_name, args, message) => {
    refused(await runCli(args), message);
    expect(snapshot(dir)).toEqual(before);
  });

  it('what siegesim wrote there is replaced, and an empty file (touch) is taken', async () => {
    const d = tmp();
    const small = ['--trials', '2000', '--threads', '1', '--no-progress'];
    const jobs = [
      ['schema', '--out', path.join(d, 'schema.json')],
      ['run', QUICK, ...small, '--shard', '1/2', '--out', path.join(d, 'shard.json')],
      ['test', b, ...small, '--junit', path.join(d, 'junit.xml')],
    ];
    for (const args of jobs) writeFileSync(args.at(-1)!, '');
    // each twice in one child (test/cli-batch.ts; the refusals above are real processes): over the empty file, then over its own
    const results = await runCliBatch(jobs.flatMap((args) => [args, args]));
    results.forEach((r, i) => expect(r.code, `${jobs[i >> 1].join(' ')}: ${r.stderr}`).not.toBe(2));
    for (const args of jobs) expect(readFileSync(args.at(-1)!, 'utf8').length).toBeGreaterThan(0);
  });
});

/**
 * A report of QUICK (seed "old") at `to`: the tests below need an old report that a signal or a
 * failure must leave as it was (written once, each test's its own copy: quickReportAt).
 */
async function oldReportAt(to: string): Promise<void> {
  await quickReportAt(to, ['--seed', 'old']);
  expect(JSON.parse(readFileSync(path.join(to, 'summary.json'), 'utf8')).seed).toBe('old');
}

describe('signals and failures in the write phase with the user\'s files beside the report', () => {
  /** A report with files of the user's in it (written with --force), and a snapshot of all. */
  async function mixed(dir: string): Promise<{ rep: string; before: Record<string, string> }> {
    const rep = path.join(dir, 'rep');
    await oldReportAt(rep);
    writeFileSync(path.join(rep, 'notes.txt'), 'mine\n');
    mkdirSync(path.join(rep, 'mydata'));
    writeFileSync(path.join(rep, 'mydata', 'thesis.tex'), 'mine\n');
    return { rep, before: snapshot(rep) };
  }

  it.each([
    ['SIGINT', 'tmp'],
    ['SIGINT', 'swap'],
    ['SIGTERM', 'swap'],
    ['SIGHUP', 'tmp'],
  ] as const)('%s at %s: exit 130 (143 for SIGTERM, 129 for SIGHUP), the old report and the user\'s files as they were, no temporaries', async (sig, step) => {
    const dir = tmp();
    const { rep, before } = await mixed(dir);
    const run = startCli(['run', QUICK, '--trials', '2000', '--out', rep, '--no-progress', '--force'], { env: { SIEGESIM_FAULT: `write-pause:${step}` } });
    await run.waitFor(new RegExp(`siegesim-fault: write paused at ${step}`));
    if (step === 'swap') expect(existsSync(path.join(rep, 'summary.json'))).toBe(false); // the old files are aside right now
    run.child.kill(sig);
    const r = await run.done;
    expect(r.code, r.stderr).toBe({ SIGINT: 130, SIGTERM: 143, SIGHUP: 129 }[sig]);
    expect(snapshot(rep)).toEqual(before);
    expect(leftovers(dir)).toEqual([]);
  });

  it('sensitivity --out a folder of run reports says it holds other siegesim reports, not files siegesim did not write (the new-user audit)', async () => {
    const dir = tmp();
    const runs = path.join(dir, 'runs');
    const made = await runCli(['run', QUICK, path.join(ROOT, 'scenarios/surrender/port-blockade.yaml'), '--trials', '1000', '--out', runs, '--no-progress', '--no-charts']);
    expect(made.code, made.stderr).toBe(0);
    const before = snapshot(runs);
    const r = await runCli(['sensitivity', QUICK, '--trials', '1000', '--out', runs, '--no-progress']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('it holds other siegesim reports, each in its own folder, not a sensitivity report (surrender-port-blockade/, surrender-town-basic/)');
    expect(snapshot(runs)).toEqual(before);
  });

  it('two runs of different scenarios into one --out at once: the one that finishes second is refused as it is about to swap (exit 2), the other\'s report intact (the new-user audit: both exited 0, one report silently replaced)', async () => {
    const dir = tmp();
    const rep = path.join(dir, 'rep');
    const go = path.join(dir, 'go');
    // the first passes its check before any report is there, then waits at its swap
    const first = startCli(['run', QUICK, '--trials', '2000', '--out', rep, '--no-progress'], { env: { SIEGESIM_FAULT: `write-wait:tmp:${go}` } });
    await first.waitFor(/siegesim-fault: write waiting at tmp/);
    // meanwhile another scenario's run writes its report there
    const other = await runCli(['run', path.join(ROOT, 'scenarios/surrender/port-blockade.yaml'), '--trials', '1000', '--out', rep, '--no-progress', '--no-charts']);
    expect(other.code, other.stderr).toBe(0);
    const theirs = snapshot(rep);
    writeFileSync(go, '');
    const r = await first.done;
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('it holds the report of scenario "surrender-port-blockade"');
    expect(r.stderr).toContain('(found as the new report was about to take its place: written there while this run ran)');
    expect(r.stderr).not.toMatch(STACK_FRAME);
    expect(snapshot(rep)).toEqual(theirs);
    expect(leftovers(dir).filter((n) => n !== 'go')).toEqual([]);
  });

  it('SIGKILL while the old files are aside: the next run puts them back, and the user\'s files were never moved', async () => {
    const dir = tmp();
    const { rep, before } = await mixed(dir);
    const run = startCli(['run', QUICK, '--trials', '2000', '--out', rep, '--no-progress', '--force'], { env: { SIEGESIM_FAULT: 'write-pause:swap' } });
    await run.waitFor(/siegesim-fault: write paused at swap/);
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    expect(readFileSync(path.join(rep, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(leftovers(dir).length).toBeGreaterThan(0);
    // the next run of this report undoes it first (only a report's own leftovers are its to
    // clean); its own write fails (a full disk), so the folder shows what the undo left
    const later = await runCli(['run', QUICK, '--trials', '1000', '--no-charts', '--out', rep, '--no-progress', '--force'], { env: { SIEGESIM_FAULT: 'write-fail:ENOSPC' } });
    expect(later.code, later.stderr).toBe(1);
    expect(later.stderr).toMatch(/no space left on the device \(ENOSPC\); the previous one there is unchanged\n$/);
    expect(snapshot(rep)).toEqual(before);
    expect(leftovers(dir)).toEqual([]);
  });

  it('ENOSPC: exit 1, the old report and the user\'s files as they were', async () => {
    const dir = tmp();
    const { rep, before } = await mixed(dir);
    const r = await runCli(['run', QUICK, '--trials', '2000', '--out', rep, '--no-progress', '--force'], { env: { SIEGESIM_FAULT: 'write-fail:ENOSPC' } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/no space left on the device \(ENOSPC\); the previous one there is unchanged\n$/);
    expect(snapshot(rep)).toEqual(before);
    expect(leftovers(dir)).toEqual([]);
  });
});

describe('a signal while the temporary folder is being made', () => {
  it('leaves no temporary folder, and the old report intact', async () => {
    // A file system that makes the folder late (a loaded or network disk): the mkdir is still
    // in flight when the signal's handler has removed the temporaries, and lands as the process
    // exits. A module loaded first (node --import) makes every mkdir of a temporary so.
    const dir = tmp();
    const rep = path.join(dir, 'report');
    await oldReportAt(rep);
    const before = snapshot(rep);
    const preload = path.join(dir, 'slow-mkdir.mjs');
    writeFileSync(
      preload,
      [
        "import fs from 'node:fs';",
        "import { syncBuiltinESMExports } from 'node:module';",
        "const isTmp = (p) => /(^|\\/)\\.tmp-[^/]*$/.test(String(p));",
        "const say = () => process.stderr.write('siegesim-test: making the temporary folder\\n');",
        'const mkdirSync = fs.mkdirSync;',
        "fs.mkdirSync = function (p, o) { if (isTmp(p)) { say(); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500); } return mkdirSync.call(fs, p, o); };",
        'const mkdir = fs.promises.mkdir;',
        'fs.promises.mkdir = function (p, o) {',
        '  if (!isTmp(p)) return mkdir.call(fs.promises, p, o);',
        '  say();',
        '  return new Promise((resolve, reject) => {',
        '    const made = () => { try { resolve(mkdirSync.call(fs, p, o)); } catch (e) { reject(e); } };',
        '    const t = setTimeout(made, 1500);',
        "    process.once('exit', () => { clearTimeout(t); try { mkdirSync.call(fs, p, o); } catch {} });",
        '  });',
        '};',
        'syncBuiltinESMExports();',
      ].join('\n') + '\n',
    );
    const run = startCli(['run', QUICK, '--trials', '2000', '--out', rep, '--no-progress'], { nodeArgs: ['--import', preload] });
    await run.waitFor(/siegesim-test: making the temporary folder/);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(leftovers(dir)).toEqual([]);
    expect(snapshot(rep)).toEqual(before);
  });
});
