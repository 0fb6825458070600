/**
 * The static site in a real headless Chromium, served by a plain static server
 * (`python3 -m http.server`) from the folder `siegesim site` wrote: the page picks a scenario,
 * runs it in Web Workers and shows the answer; its summary.json download is the command line's,
 * byte for byte but for what is measured where it ran (threads, seconds, trials/s) and where the
 * scenario was read from (a case of every system); a malformed link and a pasted scenario with
 * an error get a message; a pasted scenario travels in the link and runs again from it; the page
 * asks nothing of any other origin. The workbench page (workbench.html) does as under `serve`:
 * a change of a value shows its number and paired difference, what matters and tune give
 * `siegesim sensitivity`'s and `siegesim tune`'s numbers, a pasted scenario with an error is said
 * with file:line:col and a did-you-mean, a good one opens and its link reopens it tuned, a
 * malformed link and a request over the server's caps get a message. Screenshots go to
 * test-artifacts/ (look at them).
 *
 * The time from a change to the first number is read from the page's own records and printed,
 * not asserted (speed is measured in bench/, not in a test).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { inflateRawSync } from 'node:zlib';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, downloadText, launchBrowser, pageReuser, screenshot, stillAnimations, watchPage } from './browser.js';
import { runCli } from './cli-child.js';
import { expectRankingOfLine } from './ranking-line.js';
import { runCliBatch } from './cli-batch.js';
import { summaryText } from '../src/site/summary.js';
import { answerMetrics, answerOrder } from '../src/api/answer.js';
import { crusaderRex } from '../src/systems/crusader-rex/index.js';

/** A file dropped on the page as a person drops one (a drop event carrying it). */
const dropFile = (page: Page, name: string, text: string) =>
  page.evaluate(`(() => { const dt = new DataTransfer(); dt.items.add(new File([${JSON.stringify(text)}], ${JSON.stringify(name)})); dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true })); })()`);
type Summary = { seed: string | number; provenance: Record<string, unknown> & { scenario: Record<string, unknown> } };
interface RunRecord {
  id: number;
  scenario: string;
  firstMs: number | null;
  doneMs: number | null;
  error?: string;
}
interface Probe {
  ready: boolean;
  runs: RunRecord[];
  summaryText?: string;
  messages: string[];
}

/** The CLI's summary.json with the site's measured and where-read keys, so every other byte can be compared. */
function withSiteMeasured(cli: Summary, site: Summary): string {
  const copy = JSON.parse(JSON.stringify(cli)) as Summary;
  for (const k of ['threads', 'seconds', 'trials_per_second']) copy.provenance[k] = site.provenance[k];
  copy.provenance.scenario.source = site.provenance.scenario.source;
  return summaryText(copy);
}

// one case of each system, as the Node test (test/site-summary.test.ts): variants, a sweep, a seed
const CASES: { file: string; name: string; trials: number; seed?: string }[] = [
  { file: 'scenarios/surrender/town-basic.yaml', name: 'surrender-town-basic', trials: 600_000 },
  { file: 'scenarios/crusader-rex/case-a-new-siege.yaml', name: 'crusader-rex-6-56-new-siege', trials: 40_000, seed: 'site-check' },
  { file: 'scenarios/fantasy/climbers-dc.yaml', name: 'fantasy-climbers-dc', trials: 9_000 },
  { file: 'scenarios/cry-havoc/melee-unhorse-the-knight.yaml', name: 'cry-havoc-melee-unhorse-the-knight', trials: 140_000 },
];

describeBrowser('the static site', () => {
  let dir: string;
  let server: ChildProcess;
  let origin: string;
  let browser: Browser;
  const cli = new Map<string, string>();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'siegesim-site-browser-'));
    const site = path.join(dir, 'site');
    const built = await runCli(['site', 'scenarios', '--out', site]);
    expect(built.stderr).toMatch(/site: \d+ scenario\(s\) of 4 system\(s\)/);
    expect(built.code).toBe(0);
    // the command line's report of each case: the first in a process of its own, the others through
    // one child (test/cli-batch.ts: the same program's main(), loaded once)
    const args = CASES.map((c) => ['run', c.file, '--trials', String(c.trials), ...(c.seed ? ['--seed', c.seed] : []), '--no-progress', '--out', path.join(dir, c.name)]);
    const runs = [await runCli(args[0]), ...(await runCliBatch(args.slice(1)))];
    CASES.forEach((c, i) => {
      expect(runs[i].code, runs[i].stderr).toBe(0);
      cli.set(c.name, readFileSync(path.join(dir, c.name, 'summary.json'), 'utf8'));
    });
    server = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', site], { stdio: ['ignore', 'pipe', 'pipe'] });
    origin = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /port (\d+)/.exec(out);
        if (m) resolve(`http://127.0.0.1:${m[1]}`);
      });
      server.on('exit', (code) => reject(new Error(`python3 -m http.server exited (${code}): ${out}`)));
    });
    browser = await launchBrowser();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    server?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** openPage's pages: one context, each the last one's navigated again (browser.ts pageReuser). */
  const reusedPage = pageReuser(async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await stillAnimations(context); // the status dot's pulse while a run goes on: Chromium's CPU, nothing a test looks at
    return context;
  });

  /** A page with its problems and every request it makes recorded. */
  async function openPage(hash = '') {
    const page = await reusedPage({ width: 1280, height: 900 });
    const problems = watchPage(page);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    // workers' requests (the kernel workers are started by the run worker) are the page's too
    page.context().on('request', (r) => requests.push(r.url()));
    await page.goto(`${origin}/${hash}`);
    await page.waitForFunction(() => (globalThis as unknown as { __siegesim: Probe }).__siegesim?.ready === true, null, { timeout: 60_000, polling: 100 });
    return { page, problems, requests };
  }

  const probeOf = (page: Page) => page.evaluate(() => (globalThis as unknown as { __siegesim: Probe }).__siegesim);

  /** Wait until the page's last run is over (done or refused); its record. */
  async function lastRun(page: Page, after: number): Promise<RunRecord> {
    await page.waitForFunction(
      (n) => {
        const runs = (globalThis as unknown as { __siegesim: Probe }).__siegesim.runs;
        const r = runs[runs.length - 1];
        return runs.length > n && r !== undefined && (r.doneMs !== null || r.error !== undefined);
      },
      after,
      { timeout: 240_000, polling: 100 },
    );
    return (await probeOf(page)).runs.at(-1)!;
  }

  const foreign = (requests: string[]) => requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:'));

  it('picks a scenario of each system, shows the answer, and its summary.json download is the command line\'s', async () => {
    const { page, problems, requests } = await openPage();
    const first = await lastRun(page, 0);
    expect(first.error).toBeUndefined();
    await expect.poll(() => page.locator('table.answer td.num').count()).toBeGreaterThan(0);
    await screenshot(page, 'site-first');
    for (const c of CASES) {
      const before = (await probeOf(page)).runs.length;
      await page.fill('#trials', String(c.trials));
      await page.fill('#seed', c.seed ?? '');
      await page.locator('#seed').blur(); // its change (a run of the scenario shown) happens now, not at the download's click
      await page.selectOption('#scenario', `file:scenarios/${c.name}.yaml`);
      const run = await lastRun(page, before);
      expect(run.error).toBeUndefined();
      expect(run.scenario).toBe(`scenarios/${c.name}.yaml`);
      expect(await page.locator('#title').textContent()).toBe(c.name);
      const download = page.waitForEvent('download');
      await page.click('#download');
      const text = await downloadText(await download);
      expect(text).toBe((await probeOf(page)).summaryText);
      const site = JSON.parse(text) as Summary;
      expect(site.provenance.scenario.source).toBe(`scenarios/${c.name}.yaml`);
      expect(text).toBe(withSiteMeasured(JSON.parse(cli.get(c.name)!) as Summary, site));
      // the answer says the trials and the seed it holds over, as run's does
      expect(await page.locator('#status').textContent()).toMatch(new RegExp(`^${c.trials.toLocaleString('en')} of ${c.trials.toLocaleString('en')} trials a case \\(seed ${site.seed}\\) — done in `));
      process.stderr.write(`site ${c.name} at ${c.trials} trials: first number ${run.firstMs?.toFixed(0)} ms, done ${run.doneMs?.toFixed(0)} ms after the change\n`);
      await screenshot(page, `site-${c.name}`);
    }
    expect(problems).toEqual([]);
    expect(foreign(requests)).toEqual([]);
    await page.close();
  }, 600_000);

  it("colours each difference by its direction as the report and the workbench do (blue up, orange down, grey holding 0), says so, and links the workbench", async () => {
    // every difference was the accent blue: a drop of 11 points and a 0 looked like rises
    const { page, problems, requests } = await openPage('#scenario=scenarios/crusader-rex-6-56-new-siege.yaml&trials=20000&seed=site-colours');
    const run = await lastRun(page, 0);
    expect(run.error).toBeUndefined();
    expect(run.scenario).toBe('scenarios/crusader-rex-6-56-new-siege.yaml');
    const summary = JSON.parse((await probeOf(page)).summaryText!) as { cases: { metrics: Record<string, unknown>; differences?: Record<string, { ci_low: number; ci_high: number }> }[] };
    // its columns are the Answer's by the one rule (api/answer.ts): every way a trial ends, then the rest of the headline (it showed the headline alone, without the siege that goes on)
    const columns = answerOrder(answerMetrics(crusaderRex.headline, crusaderRex.outcomes ?? [], (m) => summary.cases.some((c) => c.metrics[m] !== undefined), crusaderRex.metricOrder));
    expect(columns).toContain('p_siege_continues');
    expect((await page.locator('table.answer thead th').allTextContents()).slice(2)).toEqual(columns);
    // a CSS variable's colour as the page computes it (page code as text: the tests' types have no DOM)
    const colour = (v: string): Promise<string> =>
      page.evaluate(`(() => { const s = document.createElement('span'); s.style.color = 'var(${v})'; document.body.append(s); const c = getComputedStyle(s).color; s.remove(); return c; })()`);
    const want = { up: await colour('--rise'), down: await colour('--fall'), flat: await colour('--muted') };
    expect(new Set(Object.values(want)).size).toBe(3);
    const cells = (await page.evaluate(
      `[...document.querySelectorAll('table.answer tbody tr')].flatMap((r, i) => [...r.querySelectorAll('td.num')].flatMap((td) => { const d = td.querySelector('.diff'); return d ? [{ row: i, metric: td.dataset.metric, text: d.textContent, color: getComputedStyle(d).color }] : []; }))`,
    )) as { row: number; metric: string; text: string; color: string }[];
    expect(cells.length).toBeGreaterThan(3);
    const seen = new Set<string>();
    for (const c of cells) {
      const d = summary.cases[c.row].differences![c.metric];
      const direction = d.ci_low > 0 ? 'up' : d.ci_high < 0 ? 'down' : 'flat';
      seen.add(direction);
      expect(c.color, `${c.metric} of case ${c.row + 1}: ${c.text} is ${direction}`).toBe(want[direction]);
    }
    expect([...seen].sort()).toEqual(['down', 'flat', 'up']);
    expect(await page.locator('#answer .key').textContent()).toMatch(/Blue: up, orange: down, when its 95% interval excludes 0; grey when it holds 0/);
    await screenshot(page, 'site-difference-colours', page.locator('#answer'));
    // on a phone's width the page never scrolls sideways: the table scrolls in its own box (it spilled out of its card)
    const wide = page.viewportSize()!;
    const sideways = () => page.evaluate('document.documentElement.scrollWidth') as Promise<number>;
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sideways()).toBeLessThanOrEqual(390);
    await screenshot(page, 'site-narrow');
    await page.setViewportSize(wide);
    // the workbench is one click away, and opens
    const link = page.locator('a#to-workbench');
    expect(await link.isVisible()).toBe(true);
    await screenshot(page, 'site-top-bar', page.locator('header.top'));
    await link.click();
    // it opens what was shown, at its trials and seed (it opened the first scenario at its own defaults)
    await page.waitForURL(/\/workbench\.html\?scenario=scenarios(%2F|\/)crusader-rex-6-56-new-siege\.yaml&trials=20000&seed=site-colours/);
    await page.waitForSelector('#scenario option', { state: 'attached', timeout: 60_000 });
    await expect.poll(() => page.locator('#scenario').inputValue()).toBe('scenarios/crusader-rex-6-56-new-siege.yaml');
    // and runs it at that seed, saying so; the address keeps it
    await expect.poll(() => page.locator('#status-text').textContent(), { timeout: 60_000 }).toMatch(/^done: 20,000 trials \(seed site-colours\) · /);
    expect(new URL(page.url()).searchParams.get('seed')).toBe('site-colours');
    // the workbench on a phone: the answer first, nothing wider than the screen but in its own box
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate('window.scrollTo(0, 0)');
    expect(await sideways()).toBeLessThanOrEqual(390);
    expect(await page.locator('#headline').evaluate((h) => (h as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top)).toBeLessThan(844);
    await screenshot(page, 'site-workbench-narrow');
    await page.setViewportSize(wide);
    expect(problems).toEqual([]);
    expect(foreign(requests)).toEqual([]);
    await page.close();
  }, 300_000);

  it('a malformed link gets a message, and the page still works', async () => {
    for (const hash of ['#yaml=%%%not-base64', '#yaml=AAAA', '#scenario=scenarios/no-such.yaml']) {
      const { page, problems, requests } = await openPage(hash);
      const box = page.locator('#messages');
      await expect.poll(() => box.isVisible()).toBe(true);
      await expect.poll(() => box.textContent()).toMatch(hash.startsWith('#yaml') ? /the link's scenario cannot be read/ : /the link names a scenario this site does not have: scenarios\/no-such\.yaml/);
      // the first scenario is shown instead
      const r = await lastRun(page, 0);
      expect(r.error).toBeUndefined();
      if (hash === '#yaml=AAAA') await screenshot(page, 'site-bad-link');
      expect(problems).toEqual([]);
      expect(foreign(requests)).toEqual([]);
      await page.close();
    }
  }, 300_000);

  it('a pasted scenario with an error is said with the command line\'s message; a good one runs and travels in the link', async () => {
    const { page, problems, requests } = await openPage();
    await lastRun(page, 0);
    const good = readFileSync('scenarios/surrender/port-blockade.yaml', 'utf8');
    const bad = good.replace(/^trials:/m, 'trails:');
    let before = (await probeOf(page)).runs.length;
    await page.fill('#yaml', bad);
    await page.click('#use-yaml');
    const refused = await lastRun(page, before);
    expect(refused.error).toBe('invalid');
    await expect.poll(() => page.locator('#messages').textContent()).toMatch(/pasted\.yaml:\d+:\d+ .*did you mean "trials"/);
    await screenshot(page, 'site-pasted-error');
    // a dropped file that is not a .yaml is said so, and not added to the picker
    await dropFile(page, 'notes.txt', 'shopping list\n');
    await expect.poll(() => page.locator('#messages').textContent()).toBe("notes.txt is not a .yaml file: drop a scenario's .yaml (or paste its text)");
    expect(await page.locator('#scenario option', { hasText: 'notes.txt' }).count()).toBe(0);

    before = (await probeOf(page)).runs.length;
    await page.fill('#trials', '300000');
    await page.locator('#trials').blur();
    await page.fill('#yaml', good);
    await page.click('#use-yaml');
    const ran = await lastRun(page, before);
    expect(ran.error).toBeUndefined();
    expect(await page.locator('#messages').isHidden()).toBe(true);
    const pasted = (await probeOf(page)).summaryText!;
    // the link is written by writeHash, not awaited by the run (the scenario deflated by a CompressionStream, then
    // history.replaceState), and the run of the bad text before wrote one too (trials=300000 as well): wait for the one carrying this text
    const carried = () => {
      const m = /#yaml=([A-Za-z0-9_-]+)&trials=300000$/.exec(page.url());
      return m ? inflateRawSync(Buffer.from(m[1], 'base64url')).toString('utf8') : null;
    };
    await expect.poll(carried, { interval: 250 }).toBe(good);
    const link = page.url();
    expect(link).toMatch(/#yaml=[A-Za-z0-9_-]+&trials=300000$/);
    expect(problems).toEqual([]);
    expect(foreign(requests)).toEqual([]);
    await page.close();

    const again = await openPage(link.slice(link.indexOf('#')));
    const r = await lastRun(again.page, 0);
    expect(r.error).toBeUndefined();
    expect(await again.page.locator('#scenario').inputValue()).toBe('yaml');
    const relinked = (await probeOf(again.page)).summaryText!;
    // the same scenario, seed and trials: the same numbers (the linked copy is named linked.yaml)
    const strip = (t: string) => {
      const s = JSON.parse(t) as Summary;
      s.provenance = {} as Summary['provenance'];
      return JSON.stringify(s);
    };
    expect(strip(relinked)).toBe(strip(pasted));
    await screenshot(again.page, 'site-linked-yaml');
    expect(again.problems).toEqual([]);
    expect(foreign(again.requests)).toEqual([]);
    await again.page.close();
  }, 300_000);
  it('the workbench page (workbench.html) runs on the workbench worker: pick, change a value, see the number and its paired difference, reopen the link', async () => {
    interface WbRun {
      scenario: string;
      values: Record<string, unknown>;
      firstMs: number | null;
      doneMs: number | null;
      trials: number;
    }
    const page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
    await stillAnimations(page); // the status dot's pulse while a run goes on: Chromium's CPU, nothing a test looks at
    const problems = watchPage(page);
    const requests: string[] = [];
    page.context().on('request', (r) => requests.push(r.url()));
    const doneWith = async (scenario: string, values: Record<string, unknown>): Promise<WbRun> => {
      const want = JSON.stringify([scenario, values]);
      await page.waitForFunction(
        (w) => (globalThis as unknown as { __siegesim: { runs: WbRun[] } }).__siegesim.runs.some((r) => JSON.stringify([r.scenario, r.values]) === w && r.doneMs !== null),
        want,
        { timeout: 240_000, polling: 100 },
      );
      const runs = await page.evaluate(() => (globalThis as unknown as { __siegesim: { runs: WbRun[] } }).__siegesim.runs);
      return runs.filter((r) => JSON.stringify([r.scenario, r.values]) === want).at(-1)!;
    };
    await page.goto(`${origin}/workbench.html`);
    await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim?.ready === true, null, { timeout: 120_000, polling: 100 });
    const SC = 'scenarios/fantasy-stone-wall-siege.yaml';
    await page.selectOption('#scenario', SC);
    const opened = await doneWith(SC, {});
    const card = page.locator('.card[data-metric="p_attacker_wins"]');
    const before = await card.locator('[data-role="value"]').textContent();
    expect(before).toMatch(/^\d+\.\d%$/);
    const input = page.locator('[id="in-wall.hp"]');
    await input.fill('60');
    await input.dispatchEvent('change');
    const changed = await doneWith(SC, { 'wall.hp': 60 });
    expect(await card.locator('[data-role="value"]').textContent()).not.toBe(before);
    expect(await card.locator('[data-role="difference"]').textContent()).toMatch(/^[−+]?\d+\.\d+ pts \[[−-]?\d+\.\d+ to [−-]?\d+\.\d+\]vs \d+\.\d+% as loaded/);
    // the charts are drawn after the numbers are painted (renderChartsAfterPaint): a moment after done
    await expect.poll(() => page.locator('#charts figure svg').count(), { interval: 250 }).toBeGreaterThan(0);
    process.stderr.write(`site workbench ${SC}: opened, first number ${opened.firstMs?.toFixed(0)} ms; wall.hp 30 -> 60, first number ${changed.firstMs?.toFixed(0)} ms, done ${changed.doneMs?.toFixed(0)} ms at ${changed.trials} trials\n`);
    await screenshot(page, 'site-workbench-wall-hp');
    // the link follows the controls: reopened, the same case
    const link = page.url();
    expect(new URL(link).searchParams.get('wall.hp')).toBe('60');
    await page.goto('about:blank');
    await page.goto(link);
    await doneWith(SC, { 'wall.hp': 60 });
    expect(await page.locator('[id="in-wall.hp"]').inputValue()).toBe('60');
    // a value the scenario cannot take: the run refuses it (no check asked first here) and the setting is marked
    await page.locator('[id="in-wall.hp"]').fill('-5');
    await page.locator('[id="in-wall.hp"]').dispatchEvent('change');
    await expect.poll(() => page.locator('#status-text').textContent(), { timeout: 120_000, interval: 250 }).toBe('a value is not valid: see the marked setting');
    expect(await page.locator('.ctl.invalid').textContent()).toContain('must be at least 0, got -5');
    expect(problems.filter((p) => !/net::ERR_ABORTED/.test(p))).toEqual([]);
    expect(foreign(requests)).toEqual([]);
    await page.close();
  }, 600_000);
  /** A workbench.html page with its problems and every request it makes recorded, once ready. */
  async function openWorkbench(query = '') {
    const page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
    await stillAnimations(page); // the status dot's pulse while a run goes on: Chromium's CPU, nothing a test looks at
    const problems = watchPage(page);
    const requests: string[] = [];
    page.context().on('request', (r) => requests.push(r.url()));
    await page.goto(`${origin}/workbench.html${query}`);
    await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim?.ready === true, null, { timeout: 120_000, polling: 100 });
    return { page, problems, requests };
  }

  /** The live run of `scenario` at these tuned values, once done. */
  const liveDone = (page: Page, scenario: string, values: Record<string, unknown>) =>
    page.waitForFunction(
      (w) => (globalThis as unknown as { __siegesim: { runs: { scenario: string; values: unknown; doneMs: number | null }[] } }).__siegesim.runs.some((r) => JSON.stringify([r.scenario, r.values]) === w && r.doneMs !== null),
      JSON.stringify([scenario, values]),
      { timeout: 240_000, polling: 100 },
    );

  it('what matters and tune on workbench.html: the ranking and the search run in the browser, with the numbers of siegesim sensitivity and tune', async () => {
    type Row = { param: string; from: unknown; to: unknown; effect: number; ci_low: number; ci_high: number; rank: number };
    type Check = { metric: string; value: number; ci_low: number; ci_high: number; met: boolean };
    type Answers = { sensitivity?: { trials: number; rows: Row[] }; tune?: { found: boolean; best: { values: Record<string, number>; checks: Check[] }; params: { path: string; lo: number; hi: number }[]; trialsUsed: number; evaluated: number } };
    const FILE = 'scenarios/fantasy/stone-wall-siege.yaml';
    const TARGET = 'p_attacker_wins in [0.6, 0.7]'; // met inside the searched range (wall.hp 57, wall.dc 20 at 4,096 trials)
    // the command line's search, started now (it needs nothing from the page): the page's smallest trials per candidate, its default budget
    const cliTune = runCli(['tune', FILE, '--params', 'wall.hp,wall.dc', '--target', TARGET, '--trials', '1024', '--budget', '204800', '--json', '--no-progress', '--out', path.join(dir, 'tune')]);
    const { page, problems, requests } = await openWorkbench('?scenario=scenarios/fantasy-stone-wall-siege.yaml');
    const answers = () => page.evaluate(() => (globalThis as unknown as { __siegesim: { answers?: Answers } }).__siegesim.answers ?? {});
    await page.click('.tabs button[data-tab="matters"]');
    expect(await page.inputValue('#sens-trials')).toBe('4096');
    await page.click('#sens-form button[type="submit"]');
    await expect.poll(() => page.locator('#sens-status').textContent(), { timeout: 240_000, interval: 250 }).toMatch(/^\d+ settings ranked by their effect on p_attacker_wins \(\d+\.\d% for the scenario as loaded at 4,096 trials per case, on the cards' dice/);
    await page.waitForSelector('#sens-chart svg');
    expect(await page.locator('#sens-chart svg .mark-rect path').count()).toBeGreaterThan(4); // the tornado's bars
    expect(await page.locator('#sens-table tr.not-ranked').textContent()).toContain('not ranked: mode, which changes the kind of game');
    const sens = (await answers()).sensitivity!;
    const ranked = [...new Set(sens.rows.map((r) => r.param))];
    // the line the tab prints, run where the site's files are (started now: the search needs nothing from it)
    expect(await page.textContent('#sens-case')).toBe('The ranking holds for one case, the one on screen: the scenario as loaded (variant "as-written"); this command gives its numbers.');
    const cliSens = expectRankingOfLine(page, path.join(dir, 'site'), path.join(dir, 'sensitivity'));
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'site-workbench-what-matters');

    await page.selectOption('.tparam[data-i="0"] .tp-path', 'wall.hp');
    await page.selectOption('.tparam[data-i="1"] .tp-path', 'wall.dc');
    await page.selectOption('#tune-trials', '1024');
    expect(await page.inputValue('.target .tg-lo')).toBe('0.45'); // the page's default band around one half
    await page.fill('.target .tg-lo', '0.6');
    await page.fill('.target .tg-hi', '0.7');
    expect(await page.inputValue('#tune-budget')).toBe('204800');
    await page.click('#tune-form button[type="submit"]');
    await expect.poll(() => page.locator('#tune-answer').textContent(), { timeout: 240_000, interval: 250 }).toMatch(/^found: wall\.hp = \d+, wall\.dc = \d+ meets the target \(/);
    await page.waitForSelector('#tune-chart svg');
    await page.addStyleTag({ content: '.top { position: static !important; }' }); // a part's picture without the sticky bar over it
    await screenshot(page, 'site-workbench-tune', page.locator('#tune'));
    const tune = (await answers()).tune!;
    // under the answer, the line that gives it: the command compared below, named where the site's files are, with the ranges as searched
    expect(await page.textContent('#tune-case')).toBe('The search holds for one case, the one on screen: the scenario as loaded (variant "as-written"); this command gives its candidates and numbers.');
    const ranges = tune.params.map((p) => `--range ${p.path}=${p.lo}..${p.hi}`).join(' ');
    expect(await page.textContent('#tune-command')).toBe(`npx siegesim tune scenarios/fantasy-stone-wall-siege.yaml --params wall.hp,wall.dc --target '${TARGET}' ${ranges} --trials 1024 --budget 204800 --seed 1001`);

    // the same numbers as the command line's for the same scenario, seed and trials (its JSON rounds to 12 digits)
    const round = (x: number) => Number(x.toPrecision(12));
    const { line } = await cliSens;
    expect(line).toMatch(/^npx siegesim sensitivity scenarios\/fantasy-stone-wall-siege\.yaml --metric p_attacker_wins --trials 4096 --seed \S+ --params [\w.,]+$/);
    const tj = await cliTune;
    expect(tj.code, tj.stderr).toBe(0);
    const t = JSON.parse(tj.stdout) as { found: boolean; best: { values: Record<string, number>; checks: Check[] }; params: { path: string; lo: number; hi: number }[]; trials_used: number; evaluations: unknown[] };
    expect(t.params.map((p) => [p.path, p.lo, p.hi])).toEqual(tune.params.map((p) => [p.path, p.lo, p.hi])); // the line's ranges are the command's defaults
    const checkKey = (c: Check) => [c.metric, round(c.value), round(c.ci_low), round(c.ci_high), c.met];
    expect([tune.found, tune.best.values, tune.trialsUsed, tune.evaluated, tune.best.checks.map(checkKey)]).toEqual([t.found, t.best.values, t.trials_used, t.evaluations.length, t.best.checks.map(checkKey)]);
    process.stderr.write(`site workbench: ranked ${ranked.length} settings at 4,096 trials, searched ${tune.evaluated} candidates: found ${JSON.stringify(tune.best.values)}, as the command line\n`);
    expect(problems).toEqual([]);
    expect(foreign(requests)).toEqual([]);
    await page.close();
  }, 600_000);

  it('your own scenario on workbench.html: a pasted one with an error gets file:line:col and a did-you-mean; a good one opens, is tuned, and its link reopens it; a malformed link and a runaway request get a message', async () => {
    const { page, problems, requests } = await openWorkbench();
    const good = readFileSync('scenarios/surrender/port-blockade.yaml', 'utf8');
    await page.click('#yours-toggle');
    await page.fill('#yours-yaml', good.replace(/^trials:/m, 'trails:'));
    await page.click('#yours-open');
    const issues = page.locator('#yours-issues');
    await expect.poll(() => issues.isVisible()).toBe(true);
    expect(await issues.textContent()).toMatch(/^pasted\.yaml is not a valid scenario\n(.*\n)*pasted\.yaml:\d+:\d+ {2}trails {2}unknown key "trails" \(did you mean "trials"\?\)/);
    expect(await page.locator('#scenario option[value^="yours/"]').count()).toBe(0); // nothing added
    await screenshot(page, 'site-workbench-pasted-error');
    // a dropped file that is not a .yaml: said so by its own name (it read "notes.txt.yaml is not a valid scenario"), nothing added
    await dropFile(page, 'notes.txt', 'shopping list\n');
    await expect.poll(() => issues.textContent()).toBe("notes.txt is not a .yaml file: drop a scenario's .yaml (or paste its text)");
    expect(await page.locator('#scenario option[value^="yours/"]').count()).toBe(0);

    await page.fill('#yours-yaml', good);
    await page.click('#yours-open');
    const OWN = 'yours/pasted.yaml';
    await liveDone(page, OWN, {});
    expect(await issues.isHidden()).toBe(true);
    expect(await page.locator('#yours').isHidden()).toBe(true);
    expect(await page.locator('#scenario').inputValue()).toBe(OWN);
    expect(await page.locator('#title').textContent()).toBe('surrender-port-blockade');
    const level = page.locator('[id="in-structure.surrender_level"]');
    await level.fill('3');
    await level.dispatchEvent('change');
    await liveDone(page, OWN, { 'structure.surrender_level': 3 });
    const card = page.locator('.card[data-metric="p_test"] [data-role="value"]');
    const shown = await card.textContent();
    expect(shown).toMatch(/^\d+\.\d%$/);
    const link = page.url();
    expect(link).toMatch(/\/workbench\.html\?scenario=yours\/pasted\.yaml&structure\.surrender_level=3#yaml=[A-Za-z0-9_-]+$/);
    await screenshot(page, 'site-workbench-pasted');
    await page.close();

    // the link alone: the scenario, its tuned value and its numbers
    const again = await openWorkbench(link.slice(link.indexOf('/workbench.html') + '/workbench.html'.length));
    await liveDone(again.page, OWN, { 'structure.surrender_level': 3 });
    expect(await again.page.locator('#scenario').inputValue()).toBe(OWN);
    expect(await again.page.locator('[id="in-structure.surrender_level"]').inputValue()).toBe('3');
    expect(await again.page.locator('.card[data-metric="p_test"] [data-role="value"]').textContent()).toBe(shown);
    expect(await again.page.locator('#link-banner').isHidden()).toBe(true);
    await screenshot(again.page, 'site-workbench-linked-yaml');
    await again.page.close();

    // a link cut short, and a trial count over the cap: each said, the rest of the link opens and runs
    const SC = 'scenarios/fantasy-stone-wall-siege.yaml';
    const bad = await openWorkbench(`?scenario=${SC}&trials=1000000000#yaml=AAAA`);
    await liveDone(bad.page, SC, {});
    const said = await bad.page.locator('#link-banner').textContent();
    expect(said).toContain("#yaml=: the link's scenario cannot be read (it is not a compressed scenario)");
    expect(said).toContain('trials=1000000000: a whole number of trials from 1 to 100,000,000');
    // a sweep over the server's cap of points is refused with its message, as serve refuses it
    await bad.page.click('.tabs button[data-tab="sweep"]');
    const axis = bad.page.locator('.axis[data-axis="0"]');
    await axis.locator('.axis-path').selectOption('wall.hp');
    await axis.locator('.axis-kind').selectOption('range');
    await axis.locator('.axis-from').fill('1');
    await axis.locator('.axis-to').fill('1000');
    await axis.locator('.axis-step').fill('1');
    await bad.page.locator('.axis[data-axis="1"] .axis-path').selectOption('');
    await bad.page.click('#sweep-form button[type="submit"]');
    await expect.poll(() => bad.page.locator('#sweep-status').textContent(), { timeout: 60_000, interval: 250 }).toMatch(/the sweep would make 1,000 cases; at most 441 are allowed/);
    await screenshot(bad.page, 'site-workbench-bad-link');
    for (const p of [problems, again.problems, bad.problems]) expect(p.filter((x) => !/net::ERR_ABORTED/.test(x))).toEqual([]);
    for (const r of [requests, again.requests, bad.requests]) expect(foreign(r)).toEqual([]);
    await bad.page.close();
  }, 600_000);

  it('opened as a file (file://), index.html and workbench.html say they must be served and how, not "loading…" forever; served, they do not', async () => {
    const site = path.join(dir, 'site');
    for (const f of ['index.html', 'workbench.html']) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 700 } });
      await page.goto(pathToFileURL(path.join(site, f)).href);
      const notice = page.locator('#served-notice');
      await expect.poll(() => notice.isVisible()).toBe(true);
      const text = (await notice.innerText()).replace(/\s+/g, ' ');
      expect(text).toContain('This page must be served, not opened as a file.');
      expect(text).toContain(`python3 -m http.server 8000 --bind 127.0.0.1 --directory ${site}`);
      expect(text).toContain(`open http://127.0.0.1:8000/${f}`);
      await expect.poll(() => page.locator('body').innerText()).not.toContain('loading…');
      expect(await page.locator('body').innerText()).toContain('not running: this page was opened as a file (see above)');
      expect(text).not.toContain('--base-url');
      await screenshot(page, `site-file-${f.replace('.html', '')}`);
      await page.close();
    }
    const { page, problems } = await openPage();
    expect(await page.locator('#served-notice').isHidden()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('a link whose trials are not a whole number of at least 1 (abc as -5 and 2.5) is refused with its message, not run at the file\'s trials', async () => {
    for (const t of ['abc', '-5', '2.5', '']) {
      const { page, problems } = await openPage(`#scenario=scenarios/surrender-town-basic.yaml&trials=${t}`);
      const runs = (await probeOf(page)).runs;
      if (t === '') {
        // an empty trials is the file's own
        expect((await lastRun(page, 0)).error).toBeUndefined();
      } else {
        expect(runs.map((r) => r.error)).toEqual([`trials must be a whole number of at least 1 (got ${t})`]);
        expect(await page.locator('#messages').textContent()).toBe(`trials must be a whole number of at least 1 (got ${t})`);
        expect(await page.locator('#trials').inputValue()).toBe(t);
        expect(page.url()).toContain(`trials=${t}`);
        if (t === 'abc') await screenshot(page, 'site-bad-trials');
      }
      expect(problems).toEqual([]);
      await page.close();
    }
  }, 120_000);

  it('a link to a scenario the site does not have and a trials= it cannot take: both named, the first scenario shown, and it runs once the trials are a number', async () => {
    const { page, problems } = await openPage('#scenario=scenarios/nope.yaml&trials=abc');
    const first = await page.locator('#scenario option').first().textContent();
    const TRIALS = 'trials must be a whole number of at least 1 (got abc)';
    // the trials' refusal was replaced by the scenario's lines (and never said)
    expect((await page.locator('#messages').textContent())!.split('\n')).toEqual([
      'the link names a scenario this site does not have: scenarios/nope.yaml',
      `showing ${first} instead`,
      TRIALS,
    ]);
    expect((await probeOf(page)).runs.map((r) => r.error)).toEqual([TRIALS]); // refused, as with a scenario it has: not run at the file's trials
    expect(await page.locator('#status').textContent()).toBe('not run (see above)');
    await screenshot(page, 'site-unknown-scenario-bad-trials');
    // a number typed: the scenario shown runs and shows numbers; the link's scenario is still said
    await page.fill('#trials', '5000');
    await page.dispatchEvent('#trials', 'change');
    const r = await lastRun(page, 1);
    expect(r.error).toBeUndefined();
    const values = await page.locator('#answer td .value').allTextContents();
    expect(values.length).toBeGreaterThan(0);
    for (const v of values) expect(v).toMatch(/^\d+(\.\d+)?%$|^\d+\.\d+$/);
    expect((await page.locator('#messages').textContent())!.split('\n')).toEqual(['the link names a scenario this site does not have: scenarios/nope.yaml', `showing ${first} instead`]);
    expect(problems).toEqual([]);
    await page.close();
  }, 240_000);

  it('workbench.html: a link to a scenario since renamed opens the first at its own defaults, names the variant and setting it did not apply, and runs', async () => {
    const { page, problems, requests } = await openWorkbench('?scenario=renamed.yaml&variant=gone&wall.dc=14&trials=5000');
    const first = (await page.locator('#scenario option:not([disabled])').first().getAttribute('value'))!;
    await liveDone(page, first, {});
    expect((await page.locator('#link-banner').innerText()).split('\n')).toEqual([
      'This link has values the page cannot use:',
      'scenario=renamed.yaml: not one of the served files (the first is opened)',
      `variant=gone, wall.dc=14: not applied (they are for renamed.yaml); ${first} opens at its own defaults`,
    ]);
    expect(await page.locator('#banner').isHidden()).toBe(true); // was `unknown variant "gone"` twice, and no run
    expect(await page.locator('#status-text').textContent()).not.toMatch(/cannot be opened/);
    expect(await page.locator('.card [data-role="value"]').count()).toBeGreaterThan(0);
    for (const v of await page.locator('.card [data-role="value"]').allTextContents()) expect(v).toMatch(/^\d+(\.\d+)?%$|^\d+\.\d+$/);
    const q = new URL(page.url()).searchParams;
    expect([q.get('scenario'), q.has('variant'), q.has('wall.dc'), q.get('trials')]).toEqual([first, false, false, '5000']);
    await screenshot(page, 'site-workbench-renamed-link');
    expect(problems).toEqual([]);
    expect(foreign(requests)).toEqual([]);
    await page.close();
  }, 240_000);

  it('writes its numbers by the workbench\'s rule: 0.99985 is not 100.0%, a difference clear of 0 is not +0.0, an exact 0 has no sign', async () => {
    // the run worker answers with set numbers (what a long run of a near-certain event gives)
    const stub = `onmessage = (e) => { const r = e.data; if (r.type !== 'run') return;
      const m = (value, lo, hi, kind = 'probability') => ({ kind, value, ci_low: lo, ci_high: hi });
      postMessage({ type: 'start', id: r.id, name: 'set numbers', system: 'surrender', headline: ['p_near', 'p_even', 'mean_x'], cases: 2, trials: 4000000, threads: 1 });
      const metrics = { p_near: m(0.99985, 0.99975, 0.99992), p_even: m(0.5, 0.4995, 0.5005), mean_x: m(3.25, 3.2, 3.3, 'mean') };
      postMessage({ type: 'done', id: r.id, ms: 1, summary: { trials: 4000000, cases: [
        { case: 1, variant: 'base', params: {}, trials: 4000000, metrics, differences: {} },
        { case: 2, variant: 'other', params: {}, trials: 4000000, metrics, differences: { p_near: m(1.5e-4, 0.5e-4, 2.5e-4), p_even: m(0, 0, 0), mean_x: m(-0.00002, -0.00004, -0.00001, 'mean') } },
      ] } });
    };
    postMessage({ type: 'ready', threads: 1 });`;
    const page = await browser.newPage({ viewport: { width: 1280, height: 700 } });
    const problems = watchPage(page);
    await page.route('**/run.js', (route) => route.fulfill({ contentType: 'text/javascript', body: stub }));
    await page.goto(`${origin}/`);
    await expect.poll(() => page.locator('table.answer tbody tr').count()).toBe(2);
    const cell = (row: number, metric: string) => page.locator(`table.answer tbody tr:nth-child(${row}) td[data-metric="${metric}"]`);
    expect(await cell(1, 'p_near').locator('.value').textContent()).toBe('99.985%');
    expect(await cell(1, 'p_near').locator('.ci').textContent()).toBe('99.975–99.992%');
    expect(await cell(2, 'p_near').locator('.diff').textContent()).toBe('Δ +0.015 pts [0.005 to 0.025]');
    expect(await cell(2, 'p_near').locator('.diff').getAttribute('class')).toBe('diff up');
    expect(await cell(2, 'p_even').locator('.diff').textContent()).toBe('Δ 0.0 pts [0.0 to 0.0]');
    expect(await cell(2, 'mean_x').locator('.diff').textContent()).toBe('Δ −0.00002 [−0.00004 to −0.00001]');
    const all = (await page.locator('table.answer').textContent())!;
    expect(all).not.toMatch(/100\.0%|[+−-]0\.0\b(?!\d)/);
    await screenshot(page, 'site-adaptive-digits', page.locator('#answer'));
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});
