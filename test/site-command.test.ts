/**
 * `siegesim site`: the folder it writes (the page, the built workers, the scenarios and their
 * index, a manifest of kind site), --base-url, and the manifest rule every writer follows: a
 * later site replaces only what it wrote, a folder holding other files is refused unless
 * --force (and they are kept), a bad scenario or base address is a user error (exit 2).
 */
import { afterAll, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli, startCli } from './cli-child.js';
import { MANIFEST } from '../src/report/manifest.js';

const dir = mkdtempSync(path.join(tmpdir(), 'siegesim-site-command-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('writes the page, the workers, the scenarios with their index and a manifest; --base-url is the page\'s <base>', async () => {
  const out = path.join(dir, 'public');
  const r = await runCli(['site', 'scenarios/surrender/town-basic.yaml', 'scenarios/fantasy', '--out', out, '--base-url', '/siegesim/']);
  expect(r.stderr).toMatch(/site: 6 scenario\(s\) of 2 system\(s\)/);
  expect(r.code).toBe(0);
  for (const f of ['index.html', 'run.js', 'kernel.js', 'site.js', 'site.css', 'app.css', 'icon.svg', 'scenarios/index.json', 'scenarios/surrender-town-basic.yaml', 'workbench.html', 'workbench.js', 'assets/app.js', 'assets/vega.min.js']) {
    expect(existsSync(path.join(out, f)), f).toBe(true);
  }
  expect(readFileSync(path.join(out, 'index.html'), 'utf8')).toContain('<base href="/siegesim/">');
  const workbench = readFileSync(path.join(out, 'workbench.html'), 'utf8');
  expect(workbench).toContain('<base href="/siegesim/">');
  expect(workbench).toContain('src="assets/app.js"');
  expect(workbench).not.toMatch(/["']\/assets\//); // every address relative, under the base
  // vega's scripts wait for the first chart (the page answers before ~850 kB of script is parsed)
  expect(workbench).toContain('<meta name="siegesim:lazy-scripts" content="assets/vega.min.js assets/vega-lite.min.js assets/vega-embed.min.js">');
  expect(workbench).not.toMatch(/<script[^>]*vega/);
  const index = JSON.parse(readFileSync(path.join(out, 'scenarios/index.json'), 'utf8')) as { scenarios: { path: string; system: string }[] };
  expect(index.scenarios[0]).toMatchObject({ path: 'scenarios/surrender-town-basic.yaml', system: 'surrender' });
  expect(index.scenarios.filter((s) => s.system === 'fantasy')).toHaveLength(5);
  expect(readFileSync(path.join(out, 'scenarios/surrender-town-basic.yaml'), 'utf8')).toBe(readFileSync('scenarios/surrender/town-basic.yaml', 'utf8'));
  const manifest = JSON.parse(readFileSync(path.join(out, MANIFEST), 'utf8')) as { kind: string; files: string[] };
  expect(manifest.kind).toBe('site');
  expect(manifest.files).toContain('scenarios/surrender-town-basic.yaml');
  // the built workers hold no Node globals (the browser has none)
  for (const f of ['run.js', 'kernel.js', 'workbench.js', 'assets/app.js']) expect(readFileSync(path.join(out, f), 'utf8')).not.toMatch(/\b(?:Buffer\.from|process\.env|require\(["']node:)/);

  // a second site replaces the first: a scenario left out is gone, the page has no <base> now
  const again = await runCli(['site', 'scenarios/surrender/town-basic.yaml', '--out', out]);
  expect(again.code).toBe(0);
  expect(existsSync(path.join(out, 'scenarios/fantasy-climbers-dc.yaml'))).toBe(false);
  expect(readFileSync(path.join(out, 'index.html'), 'utf8')).not.toContain('<base');
}, 120_000);

it('refuses a folder holding other files unless --force, which keeps them', async () => {
  const out = path.join(dir, 'theirs');
  mkdirSync(out);
  writeFileSync(path.join(out, 'notes.txt'), 'mine\n');
  const refused = await runCli(['site', 'scenarios/surrender/town-basic.yaml', '--out', out]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/notes\.txt/);
  expect(existsSync(path.join(out, 'index.html'))).toBe(false);
  const forced = await runCli(['site', 'scenarios/surrender/town-basic.yaml', '--out', out, '--force']);
  expect(forced.code).toBe(0);
  expect(readFileSync(path.join(out, 'notes.txt'), 'utf8')).toBe('mine\n');
  expect(existsSync(path.join(out, 'index.html'))).toBe(true);
  // a report folder is not a site: refused (another kind of siegesim folder)
  const report = path.join(dir, 'report');
  expect((await runCli(['run', 'scenarios/surrender/town-basic.yaml', '--trials', '1000', '--no-progress', '--out', report])).code).toBe(0);
  const over = await runCli(['site', 'scenarios/surrender/town-basic.yaml', '--out', report]);
  expect(over.code).toBe(2);
  expect(over.stderr).toMatch(/report/);
}, 120_000);

it('--force beside the user\'s files: every file of theirs where the site writes one is named at once, exit 2, before anything is written; a report another command wrote into a site is named as that', async () => {
  const out = path.join(dir, 'clash');
  mkdirSync(path.join(out, 'scenarios'), { recursive: true });
  for (const [f, text] of [['scenarios/surrender-town-basic.yaml', 'MINE\n'], ['site.css', 'mine\n'], ['index.html', '<p>mine</p>\n']]) writeFileSync(path.join(out, f), text);
  const refused = await runCli(['site', 'scenarios/surrender/town-basic.yaml', '--out', out, '--force']);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toBe(`siegesim: cannot write to ${out}: the site would replace index.html, site.css, scenarios/surrender-town-basic.yaml, which siegesim did not write (--force keeps such files); move them, or choose another --out\n`);
  expect(readFileSync(path.join(out, 'scenarios/surrender-town-basic.yaml'), 'utf8')).toBe('MINE\n');
  expect(existsSync(path.join(out, 'workbench.html'))).toBe(false);
  // the page's "what matters" command, run from the site's folder, writes its report under reports/ there
  const site = path.join(dir, 'with reports');
  expect((await runCli(['site', 'scenarios/surrender/town-basic.yaml', '--out', site])).code).toBe(0);
  const sens = await runCli(['sensitivity', 'scenarios/surrender-town-basic.yaml', '--metric', 'p_surrender', '--params', 'turns', '--trials', '256', '--no-progress'], { cwd: site });
  expect(sens.code, sens.stderr).toBe(0);
  const again = await runCli(['site', 'scenarios/surrender/town-basic.yaml', '--out', site]);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain(`another command wrote siegesim reports into this site's folder, beside its files (reports/)`);
  expect(again.stderr).not.toContain('not a static workbench');
  // the hint to serve it quotes a folder with a space
  const forced = await runCli(['site', 'scenarios/surrender/town-basic.yaml', '--out', site, '--force']);
  expect(forced.code, forced.stderr).toBe(0);
  expect(forced.stderr).toContain(`python3 -m http.server --bind 127.0.0.1 -d '${site}'`);
  expect(existsSync(path.join(site, 'reports'))).toBe(true);
}, 120_000);

it('a file of the user\'s put where the site writes one while it is written (--force): refused as the site is about to take its place (exit 2), theirs and the old site intact, nothing left behind', async () => {
  const out = path.join(dir, 'meanwhile');
  mkdirSync(out);
  writeFileSync(path.join(out, 'notes.txt'), 'mine\n');
  expect((await runCli(['site', 'scenarios/surrender/town-basic.yaml', '--out', out, '--force'])).code).toBe(0);
  const oldIndex = readFileSync(path.join(out, 'index.html'), 'utf8');
  const go = path.join(dir, 'meanwhile-go');
  const run = startCli(['site', 'scenarios/surrender', '--out', out, '--force'], { env: { SIEGESIM_FAULT: `write-wait:tmp:${go}` } });
  await run.waitFor(/siegesim-fault: write waiting at tmp/);
  writeFileSync(path.join(out, 'scenarios/surrender-port-blockade.yaml'), 'MINE\n');
  writeFileSync(go, '');
  const r = await run.done;
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain('the site would replace scenarios/surrender-port-blockade.yaml, which siegesim did not write');
  expect(r.stderr).toContain('(found as the new site was about to take its place: written there while this run ran)');
  expect(readFileSync(path.join(out, 'scenarios/surrender-port-blockade.yaml'), 'utf8')).toBe('MINE\n');
  expect(readFileSync(path.join(out, 'notes.txt'), 'utf8')).toBe('mine\n');
  expect(readFileSync(path.join(out, 'index.html'), 'utf8')).toBe(oldIndex);
  expect(readdirSync(dir).filter((n) => /^\.tmp-|\.old-\d+-\d+@/.test(n))).toEqual([]); // no temporary or moved-aside folder (write.ts's names)
}, 120_000);

it('a bad --base-url or a broken scenario is a user error, and nothing is written', async () => {
  const out = path.join(dir, 'bad');
  const base = await runCli(['site', 'scenarios/surrender/town-basic.yaml', '--out', out, '--base-url', 'https://elsewhere.example/']);
  expect(base.code).toBe(2);
  expect(base.stderr).toMatch(/--base-url must be the path the site is served under/);
  const broken = path.join(dir, 'broken.yaml');
  writeFileSync(broken, readFileSync('scenarios/surrender/town-basic.yaml', 'utf8').replace(/^trials:/m, 'trails:'));
  const bad = await runCli(['site', broken, '--out', out]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/broken\.yaml:\d+:\d+ +trails +unknown key "trails" \(did you mean "trials"\?\)/);
  expect(existsSync(out)).toBe(false);
}, 120_000);

it('never writes over its input: --out the folder holding the scenario is refused; --force writes beside it, and the scenario stays byte for byte, at every later site too', async () => {
  const mine = path.join(dir, 'mine');
  mkdirSync(mine);
  const file = path.join(mine, 'town.yaml');
  const text = readFileSync('scenarios/surrender/town-basic.yaml', 'utf8');
  writeFileSync(file, text);
  const refused = await runCli(['site', file, '--out', mine]);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toMatch(/town\.yaml/);
  expect(existsSync(path.join(mine, 'index.html'))).toBe(false);
  for (let k = 0; k < 2; k++) {
    const forced = await runCli(['site', file, '--out', mine, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(path.join(mine, 'index.html'))).toBe(true);
  }
}, 120_000);
