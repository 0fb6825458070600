/** End-to-end: `siegesim sensitivity` and `siegesim tune` through the built CLI, and their pages in Chromium. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { describeBrowser, launchBrowser, pageReuser, screenshot, strayTornadoLabels, tornadoPanels, watchPage } from '../browser.js';
import { ROOT, runCli as cli, tempDirs } from '../cli-child.js';
import { runCliBatch } from '../cli-batch.js';
import { DIRECTION_COLOURS } from '../../src/systems/chart-kit.js';
import { writeIndex } from '../../src/report/write.js';

const dir = tempDirs('siegesim-analysis-')();
const SURRENDER = path.join(ROOT, 'scenarios/surrender/town-basic.yaml');
const FANTASY = path.join(ROOT, 'test/fixtures/tune-siege.yaml');
const TUNE = ['--trials', '150', '--params', 'wall.hp,wall.dc', '--target', 'p_attacker_wins in [0.45, 0.55]', '--target', 'mean_rounds in [3.6, 4.2]', '--range', 'wall.hp=20..60', '--range', 'wall.dc=8..16'];

describe('siegesim sensitivity', () => {
  it('writes sensitivity.csv (the same with 1 and 2 threads), the tornado and the page, and prints the ranking', async () => {
    const a = await cli(['sensitivity', SURRENDER, '--trials', '20000', '--threads', '1', '--out', path.join(dir, 's1')]);
    const b = await cli(['sensitivity', SURRENDER, '--trials', '20000', '--threads', '2', '--out', path.join(dir, 's2')]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const csv = readFileSync(path.join(dir, 's1', 'sensitivity.csv'), 'utf8');
    expect(readFileSync(path.join(dir, 's2', 'sensitivity.csv'), 'utf8')).toBe(csv);
    const lines = csv.trim().split('\n');
    expect(lines[0].startsWith('param,from,to,metric,effect,ci_low,ci_high,rank')).toBe(true);
    expect(lines[1].startsWith('rules.modifiers_apply_to,roll,level,p_test,')).toBe(true);
    expect(lines).toContain(lines.find((l) => l.startsWith('structure.surrender_level,3,2,p_test,')));
    expect(readdirSync(path.join(dir, 's1', 'charts')).sort()).toEqual(['sensitivity.svg', 'sensitivity.vl.json']);
    expect(readFileSync(path.join(dir, 's1', 'charts', 'sensitivity.svg'), 'utf8').startsWith('<svg')).toBe(true);
    expect(existsSync(path.join(dir, 's1', 'index.html'))).toBe(true);
    expect(a.stdout).toMatch(/^p_test = 0\.6\d+ \[/);
    expect(a.stdout).toMatch(/\n {3}1 {2}rules\.modifiers_apply_to +roll→level -0\.6/);
    expect(a.stdout).toMatch(/more settings in the report/);
    // a sensitivity folder is replaced by the next run into it; a report of another kind is refused
    const again = await cli(['sensitivity', SURRENDER, '--trials', '2000', '--params', 'turns', '--threads', '1', '--out', path.join(dir, 's1')]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 's1', 'sensitivity.csv'), 'utf8').trim().split('\n')).toHaveLength(3);
    // turning only `turns` moves nothing: no tornado (it would be its 0 axis alone), a note in its place
    expect(existsSync(path.join(dir, 's1', 'charts'))).toBe(false);
    const still = readFileSync(path.join(dir, 's1', 'index.html'), 'utf8');
    expect(still).not.toContain('<figure');
    expect(still).toContain('No tornado: every turned case gave the same p_test');
    expect(again.stderr).toMatch(/-> /);
    // an index beside it says what its page says (never a 'largest' of 0: turns)
    const root = path.join(dir, 'nothing-moved');
    cpSync(path.join(dir, 's1'), path.join(root, 's1'), { recursive: true });
    await writeIndex(root);
    const listed = readFileSync(path.join(root, 'index.html'), 'utf8');
    expect(listed).toContain('no setting turned here moved it');
    expect(listed).not.toContain('largest:');
    // a sensitivity report (a copy of the one written above: a report folder copied is still siegesim's) where tune would write
    cpSync(path.join(dir, 's2'), path.join(dir, 't0'), { recursive: true });
    expect(readdirSync(path.join(dir, 't0'))).toContain('sensitivity.csv');
    const refused = await cli(['tune', FANTASY, ...TUNE, '--out', path.join(dir, 't0')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot write to .*t0: it holds a siegesim sensitivity report, not a tune report; choose another --out, or add --force to replace it/);
  });

  it('bad input: exit 2, one line, nothing written', async () => {
    const out = path.join(dir, 'never');
    const cases = [
      [['--metric', 'p_tset'], /^siegesim: unknown metric "p_tset" \(did you mean "p_test"\?\)$/m],
      [['--params', 'structure.levle'], /^siegesim: "structure.levle" is not a tunable setting of this surrender scenario/],
      [['--step', '-2'], /^siegesim: --step must be a positive number or a percentage/],
      [['--where', 'structure.surrender_level=banana'], /^siegesim: the case structure.surrender_level=banana is not valid/],
    ] as [string[], RegExp][];
    // the first in a process of its own, the others through one child (test/cli-batch.ts): refusals all
    const job = (args: string[]) => ['sensitivity', SURRENDER, '--trials', '100', '--out', out, ...args];
    const results = [await cli(job(cases[0][0])), ...(await runCliBatch(cases.slice(1).map(([args]) => job(args))))];
    for (const [i, [, msg]] of cases.entries()) {
      const r = results[i];
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe('siegesim tune', () => {
  it('finds wall HP and DC for two targets (exit 0), the same with 1 and 2 threads', async () => {
    const a = await cli(['tune', FANTASY, ...TUNE, '--threads', '1', '--out', path.join(dir, 't1')]);
    const b = await cli(['tune', FANTASY, ...TUNE, '--threads', '2', '--out', path.join(dir, 't2')]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const csv = readFileSync(path.join(dir, 't1', 'tune.csv'), 'utf8');
    expect(readFileSync(path.join(dir, 't2', 'tune.csv'), 'utf8')).toBe(csv);
    expect(csv.split('\n')[0]).toBe('eval,stage,wall.hp,wall.dc,trials,p_attacker_wins,p_attacker_wins_ci_low,p_attacker_wins_ci_high,mean_rounds,mean_rounds_ci_low,mean_rounds_ci_high,targets_met,distance,score,note');
    // (at 600 trials a target met by the estimate alone is said on the same line)
    expect(a.stdout).toMatch(/^found: wall\.hp = \d+, wall\.dc = \d+ meets all 2 targets \(600 trials\)(; \d of 2 by the estimate alone: their 95% intervals reach past an edge)?\n {2}p_attacker_wins = 0\.\d+ \[/);
    expect(readdirSync(path.join(dir, 't1', 'charts')).sort()).toEqual(['tune_region.svg', 'tune_region.vl.json']);
    const json = JSON.parse(readFileSync(path.join(dir, 't1', 'tune.json'), 'utf8'));
    expect(json.found).toBe(true);
    // each value and interval printed as run's answer and the tune page write it (estimateText:
    // 4 decimals, a certainty 1, a tail 7.7e-7), not in a 4-significant-digit form of its own
    // (it printed mean_rounds = 3.902 [3.792, 4.011] where the page said 3.9017 [3.7921, 4.0112])
    expect(a.stdout).toMatch(/\n {2}mean_rounds = \d\.\d{4} \[\d\.\d{4}, \d\.\d{4}\] {3}target \[3\.6, 4\.2\] {3}met/);
    const page = readFileSync(path.join(dir, 't1', 'index.html'), 'utf8');
    for (const metric of ['p_attacker_wins', 'mean_rounds']) {
      const cell = page.match(new RegExp(`<code>${metric}</code></td><td class="num">[^<]*</td><td class="num">([^<]*) <span class="ci">([^<]*)</span>`));
      expect(cell, metric).not.toBeNull();
      expect(a.stdout).toContain(`  ${metric} = ${cell![1]} ${cell![2]}   target [`);
    }
  });

  it('says plainly when no candidate meets every target, and which came closest (exit 3)', async () => {
    // one thread: the answers do not depend on it (the test above), and tune's many small evaluations cost more CPU on a pool of two
    const r = await cli(['tune', FANTASY, '--params', 'wall.dc', '--target', 'p_attacker_wins in [0.9, 1]', '--target', 'mean_rounds in [5, 8]', '--range', 'wall.dc=5..20', '--trials', '100', '--threads', '1', '--out', path.join(dir, 't3')]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^no candidate meets all 2 targets; closest: wall\.dc = \d+ \(\d of 2 met, [\d.]+ target widths away; 400 trials\)/);
    // in target widths and in the metric's own units ("5.885 below 8")
    expect(r.stdout).toMatch(/missed by [\d.]+ target widths \([\d.]+ (below|above) [\d.]+\)/);
    // a certainty and a tail as run writes them: p_undecided's upper end 0.0xxx (4 decimals), not 0.00xxxx
    const sure = await cli(['tune', FANTASY, '--params', 'wall.dc', '--target', 'p_attacker_wins in [0.999, 1]', '--target', 'p_undecided in [0, 0.0001]', '--range', 'wall.dc=1..16', '--trials', '150', '--threads', '1', '--out', path.join(dir, 't4')]);
    expect(sure.code, sure.stderr).toBe(0);
    expect(sure.stdout).toMatch(/\n {2}p_attacker_wins = 1 \[0\.99\d\d, 1\] {3}target \[0\.999, 1\]/);
    expect(sure.stdout).toMatch(/\n {2}p_undecided = 0 \[0, 0\.0\d\d\d\] {3}target \[0, 0\.0001\]/);
    expect(existsSync(path.join(dir, 't3', 'index.html'))).toBe(true);
  });

  it('bad input: exit 2, one line, nothing written', async () => {
    const out = path.join(dir, 'never-t');
    const cases = [
      [['--params', 'wall.hp', '--target', 'p_attacker_wins in [0.4 0.6]'], /^siegesim: a target is "<metric> in \[lo, hi\]"/],
      [['--params', 'wall.hp', '--target', 'p_atacker_wins in [0.4, 0.6]'], /^siegesim: unknown metric "p_atacker_wins" \(did you mean "p_attacker_wins"\?\)$/m],
      [['--params', 'wall.hpp', '--target', 'p_attacker_wins in [0.4, 0.6]'], /^siegesim: "wall.hpp" is not a tunable setting of this fantasy scenario \(did you mean "wall.hp"\?\)/],
      [['--params', 'wall.dc', '--target', 'p_attacker_wins in [0.4, 0.6]', '--range', 'wall.dc=0..50'], /^siegesim: --range wall.dc=0..50 must be inside the schema's bounds 1..40/],
      [['--params', 'wall.dc', '--target', 'p_attacker_wins in [0.4, 0.6]', '--range', 'wall.dc=5to9'], /^siegesim: a range is <param>=LO..HI/],
      [['--params', 'wall.type', '--target', 'p_attacker_wins in [0.4, 0.6]'], /^siegesim: "wall.type" is not an integer setting/],
    ] as [string[], RegExp][];
    // the first in a process of its own, the others through one child (test/cli-batch.ts): refusals all
    const job = (args: string[]) => ['tune', FANTASY, '--trials', '50', '--out', out, ...args];
    const results = [await cli(job(cases[0][0])), ...(await runCliBatch(cases.slice(1).map(([args]) => job(args))))];
    for (const [i, [args, msg]] of cases.entries()) {
      const r = results[i];
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe('the all-reports index', () => {
  it('lists the sensitivity and tune reports beside the runs, with what each asks and its answer', async () => {
    const work = path.join(dir, 'own-folder');
    mkdirSync(work, { recursive: true });
    // one thread throughout (not what is checked here: the 1-and-2-thread tests above)
    const s = await cli(['sensitivity', SURRENDER, '--trials', '2000', '--params', 'turns,structure.surrender_level', '--threads', '1'], { cwd: work });
    expect(s.code, s.stderr).toBe(0);
    const index = path.join(work, 'reports', 'index.html');
    expect(readFileSync(index, 'utf8')).toContain('href="surrender-town-basic-sensitivity/index.html"'); // written by sensitivity itself
    const t = await cli(['tune', FANTASY, ...TUNE, '--threads', '1'], { cwd: work });
    expect(t.code, t.stderr).toBe(0);
    const r = await cli(['run', SURRENDER, '--trials', '600', '--threads', '1', '--no-progress'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(index, 'utf8');
    expect(html).toContain('href="surrender-town-basic/index.html"');
    const analyses = html.slice(html.indexOf('<h2 id="analyses">'));
    expect(analyses).toContain('href="surrender-town-basic-sensitivity/index.html"');
    expect(analyses).toContain('href="tune-siege-tune/index.html"');
    expect(analyses).toMatch(/which settings move <code>p_test<\/code>.*largest: <code>structure\.surrender_level<\/code>, <code>turns<\/code>/);
    expect(analyses).toMatch(/a search of <code>wall\.hp<\/code>, <code>wall\.dc<\/code> for <code>p_attacker_wins<\/code> in \[0\.45, 0\.55\] and <code>mean_rounds<\/code> in \[3\.6, 4\.2\]/);
    expect(analyses).toMatch(/found: wall\.hp = \d+, wall\.dc = \d+/);
    // each page links back to the index it is listed in, as a run's page does; with --out (no index beside it) none does
    for (const sub of ['surrender-town-basic-sensitivity', 'tune-siege-tune', 'surrender-town-basic']) {
      expect(readFileSync(path.join(work, 'reports', sub, 'index.html'), 'utf8'), sub).toContain('<a href="../index.html">all reports</a>');
    }
    for (const sub of ['s1', 's2', 't1', 't3']) expect(readFileSync(path.join(dir, sub, 'index.html'), 'utf8'), sub).not.toContain('all reports');
  }, 120_000);
});

describeBrowser('the sensitivity and tune pages in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  /** The pages: one context, each test's page the last one's navigated again (browser.ts pageReuser). */
  const newPage = pageReuser(() => browser.newContext());
  afterAll(async () => {
    await browser?.close();
  });

  for (const [name, sub] of [
    ['sensitivity-page', 's2'],
    ['tune-page', 't1'],
  ]) {
    it(`${name}: loads offline with its chart drawn and no errors`, async () => {
      const file = path.join(dir, sub, 'index.html');
      if (!existsSync(file)) throw new Error(`${file} missing: the CLI tests above write it`);
      const page = await newPage({ width: 1200, height: 900 });
      const problems = watchPage(page);
      await page.goto('file://' + file);
      const img = page.locator('figure img').first();
      await img.waitFor();
      const width = await img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth);
      expect(width).toBeGreaterThan(300);
      expect(await page.locator('table').count()).toBeGreaterThan(0);
      await screenshot(page, name);
      expect(problems).toEqual([]);
      await page.close();
    });
  }

  it('a sensitivity page where nothing moved: the lead says so, no empty tornado, a note in its place, the ranking below', async () => {
    const file = path.join(dir, 's1', 'index.html'); // s1 was re-run turning only `turns`, which moves nothing
    if (!existsSync(file)) throw new Error(`${file} missing: the CLI tests above write it`);
    const page = await newPage({ width: 1200, height: 900 });
    const problems = watchPage(page);
    await page.goto('file://' + file);
    const lead = await page.locator('p').first().innerText();
    expect(lead).toContain('No setting turned here moved it'); // no "largest effect" of 0
    expect(lead).not.toContain('Largest effects');
    expect(await page.locator('figure').count()).toBe(0);
    await expect(page.getByText('No tornado: every turned case gave the same p_test').isVisible()).resolves.toBe(true);
    expect(await page.locator('table tr').count()).toBe(3); // the header and turns ±1
    await screenshot(page, 'sensitivity-page-nothing-moved');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('"all reports" on the sensitivity and tune pages opens the index that lists them', async () => {
    const root = path.join(dir, 'own-folder', 'reports');
    if (!existsSync(path.join(root, 'index.html'))) throw new Error('the index test above writes it');
    const page = await newPage({ width: 1200, height: 900 });
    const problems = watchPage(page);
    for (const sub of ['surrender-town-basic-sensitivity', 'tune-siege-tune']) {
      await page.goto('file://' + path.join(root, sub, 'index.html'));
      if (sub === 'tune-siege-tune') await screenshot(page, 'tune-page-with-index-link');
      await page.getByRole('link', { name: 'all reports' }).click();
      await page.waitForURL('file://' + path.join(root, 'index.html'));
      expect(await page.locator(`#analyses ~ table a[href="${sub}/index.html"]`).count()).toBe(1);
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the tornado: its axis and legend at the top, bars at most 14 px thick, every "→ value" label inside the plot, clear of the settings\' names', async () => {
    const file = path.join(dir, 's2', 'charts', 'sensitivity.svg'); // every setting (s1 was re-run with one)
    if (!existsSync(file)) throw new Error(`${file} missing: the CLI tests above write it`);
    const page = await newPage({ width: 1200, height: 900 });
    await page.goto('file://' + file);
    type Box = { left: number; right: number; top: number; bottom: number; height: number; text: string };
    const boxes = (sel: string) =>
      page.locator(sel).evaluateAll((els) =>
        els.map((e) => {
          const r = (e as unknown as { getBoundingClientRect(): Box }).getBoundingClientRect();
          return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: r.height, text: (e as unknown as { textContent: string }).textContent };
        }),
      ) as Promise<Box[]>;
    const yNames = await boxes('[aria-label^="Y-axis"] .role-axis-label text');
    const yDomain = (await boxes('[aria-label^="Y-axis"] .role-axis-domain path, [aria-label^="Y-axis"] .role-axis-domain line'))[0];
    const xLabels = await boxes('[aria-label^="X-axis"] .role-axis-label text');
    const legend = await boxes('.role-legend-label text');
    const bars = await boxes('.mark-rect.role-mark path'); // the bars
    const labels = await boxes('.mark-text.role-mark text'); // the "→ value" labels
    expect(yNames.length).toBeGreaterThan(5);
    expect(labels.length).toBeGreaterThan(5);
    const barTop = Math.min(...bars.map((b) => b.top));
    expect(Math.max(...xLabels.map((b) => b.bottom)), 'the numeric axis is above the bars').toBeLessThan(barTop);
    expect(Math.max(...legend.map((b) => b.bottom)), 'the legend is above the bars').toBeLessThan(barTop);
    for (const b of bars) expect(b.height, 'a bar thicker than 14 px').toBeLessThanOrEqual(14.5);
    const namesRight = Math.max(...yNames.map((b) => b.right));
    for (const l of labels) {
      expect(l.left, `"${l.text}" starts left of the plot`).toBeGreaterThanOrEqual(yDomain.left);
      expect(l.left, `"${l.text}" runs into the settings' names`).toBeGreaterThan(namesRight);
    }
    // colour says the change's direction, as in the tables: orange bars left of 0, blue ones
    // right, grey ones (interval through 0) either side; never orange for "another option"
    const zero = (await boxes('.mark-rule.role-mark line')).find((b) => b.height > 50)!; // the 0 rule spans the plot
    const fills = await page.locator('.mark-rect.role-mark path').evaluateAll((els) => els.map((e) => (e as unknown as { getAttribute(n: string): string | null }).getAttribute('fill')));
    const side = bars.map((b, i) => ({ fill: fills[i], left: b.right <= zero.right + 0.5, right: b.left >= zero.left - 0.5 }));
    expect(side.filter((b) => b.fill === DIRECTION_COLOURS.down).length, 'orange bars').toBeGreaterThan(0);
    expect(side.filter((b) => b.fill === DIRECTION_COLOURS.up).length, 'blue bars').toBeGreaterThan(0);
    for (const b of side) {
      expect(Object.values(DIRECTION_COLOURS), 'a bar of another colour').toContain(b.fill);
      if (b.fill === DIRECTION_COLOURS.down) expect(b.left, 'an orange bar right of 0').toBe(true);
      if (b.fill === DIRECTION_COLOURS.up) expect(b.right, 'a blue bar left of 0').toBe(true);
    }
    const keys = (await boxes('.role-legend-label text')).map((b) => b.text);
    expect(keys).toEqual(expect.arrayContaining(['up', 'down', 'no clear change', 'one step up', 'one step down', 'other option']));
    expect(await strayTornadoLabels(page), 'a "→ value" label beside another bar').toEqual([]);
    await screenshot(page, 'sensitivity-tornado', page.locator('svg').first());
    await page.close();
  });

  it('a tornado one setting dwarfs (stone-wall-siege: rules.hp_preset -> one, -0.77): its own panel, the rest zoomed and readable below, no axis past ±1, the lead not nested', async () => {
    const out = path.join(dir, 'dwarf');
    const params = 'rules.hp_preset,attacker.archers,attacker.mages,defender.archers,defender.clerics,rules.tower_bonus';
    // read with H28 end_of_phase, where 1-HP armies wipe each other out and
    // hp_preset dwarfs the rest (test/sensitivity.test.ts says why the DEFAULT does not)
    const file = path.join(dir, 'stone-wall-siege.yaml');
    writeFileSync(file, `${readFileSync(path.join(ROOT, 'scenarios/fantasy/stone-wall-siege.yaml'), 'utf8')}\nrules: { wall_fall: end_of_phase }\n`);
    const run = await cli(['sensitivity', file, '--params', params, '--trials', '2000', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const page = await newPage({ width: 1300, height: 900 });
    const problems = watchPage(page);
    await page.goto('file://' + path.join(out, 'index.html'));
    await page.locator('figure img').first().waitFor();
    const lead = (await page.locator('p', { hasText: 'Largest effects' }).first().textContent()) ?? '';
    expect(lead).toMatch(/^p_attacker_wins on the baseline variant \(as-written\): /);
    expect(lead, 'nested parentheses').not.toMatch(/\([^()]*\(/);
    await screenshot(page, 'sensitivity-page-dwarfed');
    await page.goto('file://' + path.join(out, 'charts', 'sensitivity.svg'));
    const panels = await tornadoPanels(page);
    expect(panels, 'one panel for hp_preset, one for the rest').toHaveLength(2);
    expect(Math.min(...panels[0].bars.map((b) => b.effect))).toBeLessThan(-0.5);
    for (const p of panels) {
      expect(p.ticks.length).toBeGreaterThan(2);
      for (const t of p.ticks) expect(Math.abs(t), 'an axis tick past ±1 for a change in a probability').toBeLessThanOrEqual(1);
    }
    // the rest's bars are read, not slivers: a change of 0.005 or more is at least 20 px long
    const small = panels[1].bars.filter((b) => Math.abs(b.effect) >= 0.005);
    expect(small.length).toBeGreaterThan(3);
    for (const b of small) expect(b.width, `the bar of ${b.effect}`).toBeGreaterThanOrEqual(20);
    expect(Math.max(...panels[1].bars.map((b) => Math.abs(b.effect)))).toBeLessThan(0.1);
    expect(await strayTornadoLabels(page), 'a "→ value" label beside another bar').toEqual([]);
    await screenshot(page, 'sensitivity-tornado-dwarfed', page.locator('svg').first());
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the all-reports index with sensitivity and tune reports: every link opens, no errors', async () => {
    const file = path.join(dir, 'own-folder', 'reports', 'index.html');
    if (!existsSync(file)) throw new Error(`${file} missing: the index test above writes it`);
    const page = await newPage({ width: 1280, height: 800 });
    const problems = watchPage(page);
    await page.goto('file://' + file);
    const links = await page.locator('#analyses ~ table a').evaluateAll((as) => as.map((a) => (a as unknown as { getAttribute(n: string): string }).getAttribute('href')));
    expect(links).toHaveLength(2);
    for (const href of links) expect(existsSync(path.join(path.dirname(file), decodeURI(href)))).toBe(true);
    const width = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(1280);
    await screenshot(page, 'index-with-analyses');
    expect(problems).toEqual([]);
    await page.close();
  });
});
