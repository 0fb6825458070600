/**
 * `siegesim history` end to end: a scratch git repository of several commits, one of
 * which raises the climbers' DC; each commit's `test --json` and a bench JSON are recorded; the
 * trend page marks that commit, `history check` exits 1 there and 0 elsewhere; a rerun replaces;
 * a foreign or damaged store is refused. The page is opened in Chromium and screenshotted.
 */
import { beforeAll, describe, expect, it, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { ROOT, runCli, startCli, tempDirs } from '../cli-child.js';
import { HISTORY_MARKER_DOC } from '../../src/api/history.js';
import { describeBrowser, launchBrowser, screenshot, watchPage } from '../browser.js';

const tmp = tempDirs('siegesim-history-');
const CLIMBERS = path.join(ROOT, 'test/fixtures/balance/climbers-dc12.yaml');

/** A bench document as bench/run.mjs prints it (only what history reads: calibration, results, relative). */
function benchDoc(relative: Record<string, number>): string {
  return JSON.stringify({ date: '2026-11-28T00:00:00Z', node: 'v20', cpu: 'x', cores: 2, seconds_per_measure: 0.1, calibration: { ops_per_second: 1 }, results: { dice: {} }, targets: [], relative });
}

interface Step {
  subject: string;
  edit?: (text: string) => string;
  bench: number;
}

// the DC change is the third commit; the bench rate wobbles by under 15% throughout
const STEPS: Step[] = [
  { subject: 'first', bench: 42.0 },
  { subject: 'a comment in the scenario', edit: (t) => t.replace('# raises the DC', '# lifts the DC'), bench: 43.1 },
  { subject: 'Climb DC 13', edit: (t) => t.replace('dc: 12,', 'dc: 13,'), bench: 41.5 },
  { subject: 'another comment', edit: (t) => t.replace('# lifts the DC', '# bumps the DC'), bench: 42.6 },
];

describe('siegesim history on a scratch git repository', () => {
  let repo: string;
  const shas: string[] = [];
  const checks: (number | null)[] = [];
  const cli = (args: string[]) => runCli(args, { cwd: repo, timeoutMs: 240_000, env: { GITHUB_REF_NAME: '' } });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

  beforeAll(async () => {
    repo = tmp();
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'ci@example.com');
    git('config', 'user.name', 'ci');
    writeFileSync(path.join(repo, 'climbers.yaml'), readFileSync(CLIMBERS, 'utf8'));
    for (const s of STEPS) {
      const f = path.join(repo, 'climbers.yaml');
      if (s.edit) {
        const before = readFileSync(f, 'utf8');
        writeFileSync(f, s.edit(before));
        expect(readFileSync(f, 'utf8')).not.toBe(before);
      }
      git('add', '-A');
      git('commit', '-q', '-m', s.subject);
      shas.push(git('rev-parse', 'HEAD'));
      const t = await cli(['test', 'climbers.yaml', '--json', '--threads', '1', '--no-progress']);
      expect([0, 1]).toContain(t.code);
      writeFileSync(path.join(repo, 'test.json'), t.stdout);
      writeFileSync(path.join(repo, 'bench.json'), benchDoc({ 'dice.d6_per_second': s.bench }));
      const add = await cli(['history', 'add', 'test.json', 'bench.json', '--store', 'store']);
      expect(add.code, add.stderr).toBe(0);
      checks.push((await cli(['history', 'check', '--last', '2', '--store', 'store'])).code);
    }
  }, 600_000);

  it('check exits 1 at the commit that changed the DC and 0 at every other', () => {
    expect(checks).toEqual([0, 0, 1, 0]);
  });

  it('records one line per commit with sha, date, subject and branch from git; a rerun replaces, never duplicates', async () => {
    const lines = () => readFileSync(path.join(repo, 'store/commits.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines().map((r) => [r.sha, r.subject, r.branch])).toEqual(shas.map((sha, i) => [sha, STEPS[i].subject, 'main']));
    expect(lines()[0].date).toMatch(/^\d{4}-\d\d-\d\dT/);
    const again = await cli(['history', 'add', 'test.json', '--store', 'store']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^history: replaced [0-9a-f]{7} "another comment"/);
    expect(lines()).toHaveLength(STEPS.length);
    // the bench recorded earlier for that commit is kept (only the test results were brought again)
    expect(Object.keys(lines().at(-1)!.metrics)).toContain('bench:dice.d6_per_second');
    // an earlier commit named by --commit (short sha): its place and subject kept
    const early = await cli(['history', 'add', 'bench.json', '--commit', shas[0].slice(0, 9), '--store', 'store']);
    expect(early.code, early.stderr).toBe(0);
    expect(lines().map((r) => r.sha)).toEqual(shas);
    // over all four commits: the move at the DC commit is found
    const all = await cli(['history', 'check', '--last', '4', '--store', 'store']);
    expect(all.code).toBe(1);
    expect(all.stdout).toContain(`moved at ${shas[2].slice(0, 7)} "Climb DC 13"`);
    // a mean over the trials of an event says which (test --json carries it: conditional_on)
    expect(all.stdout).toMatch(/: test:balance-climbers · mean_breach_round \(a mean over the trials with p_breach\) \d\.\d{4} -> \d\.\d{4} \(z = /); // 4 decimals, as run's answer writes them
  });

  it('an --commit git does not know is refused inside a repository (exit 2, nothing written); check counts only the metrics it compared', async () => {
    const typo = await cli(['history', 'add', 'bench.json', '--commit', 'deadbeef', '--store', 'typo']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`siegesim: --commit "deadbeef": no such commit in the git repository ${realpathSync(repo)}; give one it holds`);
    const unset = await cli(['history', 'add', 'bench.json', '--commit', '', '--store', 'typo']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('--commit "": no such commit in the git repository');
    expect(existsSync(path.join(repo, 'typo'))).toBe(false);
    // a second metric at the last commit only: it is not compared, and the count says so
    writeFileSync(path.join(repo, 'b0.json'), benchDoc({ a: 10 }));
    writeFileSync(path.join(repo, 'b1.json'), benchDoc({ a: 10.5, b: 3 }));
    expect((await cli(['history', 'add', 'b0.json', '--commit', shas[0], '--store', 'counted'])).code).toBe(0);
    expect((await cli(['history', 'add', 'b1.json', '--commit', shas[1], '--store', 'counted'])).code).toBe(0);
    const check = await cli(['history', 'check', '--store', 'counted']);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toBe(`history check: nothing moved over the last 2 commits (${shas[0].slice(0, 7)}..${shas[1].slice(0, 7)}), 1 metric compared (1 recorded at only one of these commits)\n`);
  });

  it('history adds at once into one store each keep their commit (a lock: one lost before); commits of one second stand in git\'s order, whatever order they are recorded in', async () => {
    // a repository whose four commits share one committer date, as a script or a rebase makes them
    const r2 = tmp();
    const g2 = (...args: string[]) => execFileSync('git', args, { cwd: r2, encoding: 'utf8', env: { ...process.env, GIT_COMMITTER_DATE: '2026-03-01T12:00:00Z', GIT_AUTHOR_DATE: '2026-03-01T12:00:00Z' } }).trim();
    g2('init', '-q', '-b', 'main');
    g2('config', 'user.email', 'ci@example.com');
    g2('config', 'user.name', 'ci');
    const order: string[] = [];
    for (let i = 0; i < 4; i++) {
      writeFileSync(path.join(r2, `f${i}.txt`), `${i}\n`);
      g2('add', '-A');
      g2('commit', '-q', '-m', `c${i}`);
      order.push(g2('rev-parse', 'HEAD'));
    }
    writeFileSync(path.join(r2, 'b.json'), benchDoc({ a: 10 }));
    const add = (sha: string) => runCli(['history', 'add', 'b.json', '--commit', sha, '--store', 'store'], { cwd: r2, timeoutMs: 120_000, env: { GITHUB_REF_NAME: '' } });
    // newest first, all at once
    const rs = await Promise.all([...order].reverse().map(add));
    for (const r of rs) expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(path.join(r2, 'store/commits.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { sha: string; date: string });
    expect(lines.map((l) => l.sha)).toEqual(order);
    expect(new Set(lines.map((l) => l.date)).size).toBe(1);
    expect(existsSync(path.join(r2, 'store/.siegesim-history.lock'))).toBe(false);
    // Ctrl-C while it holds the lock (paused writing the log): exit 130, the lock gone with it, the log as it was
    const log = readFileSync(path.join(r2, 'store/commits.jsonl'), 'utf8');
    const held = startCli(['history', 'add', 'b.json', '--commit', order[1], '--store', 'store'], { cwd: r2, env: { GITHUB_REF_NAME: '', SIEGESIM_FAULT: 'write-pause:file' } });
    await held.waitFor(/siegesim-fault: write paused at file/);
    expect(existsSync(path.join(r2, 'store/.siegesim-history.lock'))).toBe(true);
    held.child.kill('SIGINT');
    expect((await held.done).code).toBe(130);
    expect(existsSync(path.join(r2, 'store/.siegesim-history.lock'))).toBe(false);
    expect(readFileSync(path.join(r2, 'store/commits.jsonl'), 'utf8')).toBe(log);
    // a lock left by a killed process (no such pid on this host) is taken over
    writeFileSync(path.join(r2, 'store/.siegesim-history.lock'), `999999999@${hostname().replace(/[^A-Za-z0-9.-]/g, '_')}\n`);
    const after = await add(order[0]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/^history: replaced /);
    expect(existsSync(path.join(r2, 'store/.siegesim-history.lock'))).toBe(false);
  }, 240_000);

  it('show writes a page that marks the DC commit as where p_breach first moved, its bound drawn', async () => {
    const r = await cli(['history', 'show', '--store', 'store', '--out', 'page']);
    expect(r.code, r.stderr).toBe(0);
    const data = JSON.parse(readFileSync(path.join(repo, 'page/history.json'), 'utf8'));
    const series = Object.fromEntries(data.series.map((s: { key: string }) => [s.key, s]));
    expect(series['test:balance-climbers · p_breach']).toMatchObject({ first_moved: shas[2], moved: [shas[2]], bound: [0.955, 0.985] });
    expect(series['test:balance-climbers · mean_breach_round']).toMatchObject({ first_moved: shas[2], bound: [null, 1.5] });
    expect(series['bench:dice.d6_per_second']).toMatchObject({ first_moved: null });
    const html = readFileSync(path.join(repo, 'page/index.html'), 'utf8');
    expect(html).toContain(`moved at ${shas[2].slice(0, 7)}`);
    expect(html).toContain('Climb DC 13'); // the subject, in the tooltips and the table of moves
    expect(html).toContain('test:balance-climbers · mean_breach_round</a> (a mean over the trials with p_breach)</td>');
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/); // offline
  });

  describeBrowser('the trend page in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
    });
    it('draws a chart per metric, the band, the bound and the marked commit; the tooltip names the commit', async () => {
      const file = path.join(repo, 'page/index.html');
      if (!existsSync(file)) await cli(['history', 'show', '--store', 'store', '--out', 'page']);
      const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
      const problems = watchPage(page);
      await page.goto(`file://${file}`, { waitUntil: 'load' });
      expect(await page.locator('figure.chart svg').count()).toBe(3);
      // the p_breach chart by its title (mean_breach_round's says it is over the trials with p_breach)
      const breach = page.locator('figure.chart', { has: page.locator('h3', { hasText: /· p_breach$/ }) });
      expect(await breach.locator('path.band').count()).toBe(1);
      expect(await breach.locator('line.bound').count()).toBe(2);
      expect(await breach.locator('text.firsttext').textContent()).toBe(`moved at ${shas[2].slice(0, 7)}`);
      // hover the third commit's column
      const box = (await breach.locator('svg').boundingBox())!;
      const x = box.x + ((64 + 2.5 * ((760 - 64 - 12) / 4)) * box.width) / 760;
      await page.mouse.move(x, box.y + box.height / 2);
      await expect.poll(() => page.locator('#tip').textContent()).toContain('Climb DC 13');
      await screenshot(page, 'history/trend-page');
      await page.mouse.move(0, 0);
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});

describe('siegesim history refuses what it cannot trust (exit 2)', () => {
  it('a foreign folder, a damaged line, another tool\'s marker, a JUnit file, a document it does not know', async () => {
    const dir = tmp();
    const cli = (args: string[]) => runCli(args, { cwd: dir });
    writeFileSync(path.join(dir, 'bench.json'), benchDoc({ a: 1 }));
    mkdirSync(path.join(dir, 'foreign'));
    writeFileSync(path.join(dir, 'foreign', 'notes.txt'), 'mine');
    const foreign = await cli(['history', 'add', 'bench.json', '--commit', 'abcdef1', '--store', 'foreign']);
    expect([foreign.code, foreign.stderr]).toEqual([2, 'siegesim: foreign is not a siegesim history store (no siegesim-history.json, and it holds other files: notes.txt); refused, nothing written\n']);
    expect(existsSync(path.join(dir, 'foreign', 'commits.jsonl'))).toBe(false);

    const ok = await cli(['history', 'add', 'bench.json', '--commit', 'abcdef1', '--store', 'store']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('not in a git repository here');
    const log = path.join(dir, 'store', 'commits.jsonl');
    writeFileSync(log, readFileSync(log, 'utf8') + '{"sha": "abc\n');
    const damaged = await cli(['history', 'show', '--store', 'store']);
    expect([damaged.code, damaged.stderr]).toEqual([2, `siegesim: ${path.join('store', 'commits.jsonl')}:2: damaged (not a JSON line); fix or remove that line, the store is left as it is\n`]);
    const text = readFileSync(log, 'utf8');
    expect((await cli(['history', 'add', 'bench.json', '--commit', 'abcdef2', '--store', 'store'])).code).toBe(2);
    expect(readFileSync(log, 'utf8')).toBe(text); // untouched

    // a folder where the log should be: refused as the user's problem, not an EISDIR stack trace
    mkdirSync(path.join(dir, 'dirlog'));
    writeFileSync(path.join(dir, 'dirlog', 'siegesim-history.json'), JSON.stringify(HISTORY_MARKER_DOC));
    mkdirSync(path.join(dir, 'dirlog', 'commits.jsonl'));
    const dirlog = await cli(['history', 'show', '--store', 'dirlog']);
    expect([dirlog.code, dirlog.stderr]).toEqual([2, `siegesim: ${path.join('dirlog', 'commits.jsonl')} cannot be read (a folder, not a file): not a history store siegesim can use; refused, nothing written\n`]);

    writeFileSync(path.join(dir, 'store', 'siegesim-history.json'), '{"tool":"other"}');
    const other = await cli(['history', 'check', '--store', 'store']);
    expect([other.code, other.stderr]).toEqual([2, "siegesim: store: siegesim-history.json is not siegesim's (a foreign store); refused\n"]);

    // a move too large for a double's normal tail: its p is printed as the bound diff prints, not "0.0"
    mkdirSync(path.join(dir, 'far'));
    writeFileSync(path.join(dir, 'far', 'siegesim-history.json'), JSON.stringify(HISTORY_MARKER_DOC));
    const rec = (sha: string, date: string, v: number) =>
      JSON.stringify({ sha, date, subject: sha, branch: 'main', recorded: date, sources: { test: ['t.json'] }, metrics: { 'test:x · p_win': { v, lo: v - 0.001, hi: v + 0.001, n: 1_000_000, k: 'p' } } });
    writeFileSync(path.join(dir, 'far', 'commits.jsonl'), rec('aaaaaaa', '2026-01-01T00:00:00Z', 0.1) + '\n' + rec('bbbbbbb', '2026-01-02T00:00:00Z', 0.9) + '\n');
    const far = await cli(['history', 'check', '--store', 'far']);
    expect(far.code, far.stderr).toBe(1);
    expect(far.stdout).toMatch(/test:x · p_win 0\.1000 -> 0\.9000 \(z = [\d.]+, Holm p < 1e-300\)\n$/);

    writeFileSync(path.join(dir, 'j.xml'), '<?xml version="1.0"?><testsuites/>');
    const junit = await cli(['history', 'add', 'j.xml', '--commit', 'abcdef1', '--store', 'fresh']);
    expect([junit.code, junit.stderr]).toEqual([2, "siegesim: j.xml: a JUnit file carries verdicts, not the estimates history draws; record `siegesim test --json`'s output instead\n"]);
    writeFileSync(path.join(dir, 'x.json'), '{"a":1}');
    const unknown = await cli(['history', 'add', 'x.json', '--commit', 'abcdef1', '--store', 'fresh']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/x\.json: not a result history records/);
    expect(existsSync(path.join(dir, 'fresh'))).toBe(false);
  });
});
