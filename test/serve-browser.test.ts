/**
 * The workbench in a real headless Chromium (issue 11 item 5): pick the fantasy siege, change
 * wall.hp, see the headline move and the paired difference appear with its interval; open a
 * `?scenario=...` link; a bad value's message beside its control; a sweep with its solve answer;
 * no console error anywhere. Screenshots go to test-artifacts/ (look at them).
 *
 * The time from each change to the first number and to the precision is read from the page's
 * own marks and printed, not asserted (speed is measured in bench/, not in a test).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, launchBrowser, screenshot, watchPage } from './browser.js';
import { PoolExecutor } from '../src/engine/pool.js';
import { rootsOf } from '../src/serve/catalogue.js';
import { startWorkbench, type Workbench } from '../src/serve/server.js';

const ROOT = path.resolve(import.meta.dirname, '..');

interface RunRecord {
  seq: number;
  scenario: string;
  values: Record<string, unknown>;
  firstMs: number | null;
  doneMs: number | null;
  trials: number;
  reached: boolean | null;
}

describeBrowser('the workbench page', () => {
  let wb: Workbench;
  let exec: PoolExecutor;
  let browser: Browser;

  beforeAll(async () => {
    exec = new PoolExecutor(2);
    exec.warm();
    wb = await startWorkbench({ roots: rootsOf([path.join(ROOT, 'scenarios')]).roots, port: 0, executor: exec, log: () => {} });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await wb?.close();
    await exec?.close();
  });

  /** A page with its problems watched; the page's own cancelled runs are not problems. */
  async function openPage(query = '') {
    const page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
    const problems = watchPage(page);
    await page.goto(`${wb.url}${query}`);
    await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim.ready === true, null, { timeout: 60_000 });
    return {
      page,
      // A superseded run is aborted by the page on purpose (issue 11: no queue of stale runs).
      problems: () => problems.filter((p) => !/request failed: .*\/api\/(run|sweep) \(net::ERR_ABORTED\)/.test(p)),
    };
  }

  /** Wait until the page has finished a run of this scenario with these tuned values; its record. */
  async function doneWith(page: Page, scenario: string, values: Record<string, unknown>): Promise<RunRecord> {
    const want = JSON.stringify([scenario, values]);
    await page.waitForFunction(
      (w) => (globalThis as unknown as { __siegesim: { runs: RunRecord[] } }).__siegesim.runs.some((r) => JSON.stringify([r.scenario, r.values]) === w && r.doneMs !== null),
      want,
      { timeout: 120_000 },
    );
    const runs = await page.evaluate(() => (globalThis as unknown as { __siegesim: { runs: RunRecord[] } }).__siegesim.runs);
    return runs.filter((r) => JSON.stringify([r.scenario, r.values]) === want).at(-1)!;
  }

  async function setNumber(page: Page, p: string, value: string) {
    const input = page.locator(`[id="in-${p}"]`);
    await input.fill(value);
    await input.dispatchEvent('change');
  }

  const latencies: string[] = [];
  const note = (what: string, r: RunRecord) => latencies.push(`${what}: first number ${Math.round(r.firstMs!)} ms, done ${Math.round(r.doneMs!)} ms at ${r.trials.toLocaleString('en-US')} trials (precision ${r.reached ? 'reached' : 'not reached'})`);
  afterAll(() => process.stderr.write(`\nworkbench latencies (this machine, now):\n  ${latencies.join('\n  ')}\n`));

  it('picks the fantasy siege, changes wall.hp, and shows the headline moving with its paired difference', async () => {
    const SC = 'fantasy/stone-wall-siege.yaml';
    const { page, problems } = await openPage();
    await page.selectOption('#scenario', SC);
    note('fantasy stone-wall-siege, opened', await doneWith(page, SC, {}));
    const before = await page.locator('.card[data-metric="p_attacker_wins"] [data-role="value"]').textContent();
    expect(before).toMatch(/^\d+\.\d%$/);
    expect(await page.locator('.card [data-role="difference"]').count()).toBe(0); // nothing tuned yet
    await setNumber(page, 'wall.hp', '60');
    const r = await doneWith(page, SC, { 'wall.hp': 60 });
    note('fantasy stone-wall-siege, wall.hp 30 -> 60', r);
    const card = page.locator('.card[data-metric="p_attacker_wins"]');
    const after = await card.locator('[data-role="value"]').textContent();
    expect(after).not.toBe(before);
    const diff = await card.locator('[data-role="difference"]').textContent();
    expect(diff).toMatch(/^[−+±]\d+\.\d pts \[-?\d+\.\d to -?\d+\.\d\]vs \d+\.\d% as loaded/);
    expect(await page.locator('.ctl[data-path="wall.hp"]').getAttribute('class')).toContain('changed');
    expect(new URL(page.url()).searchParams.get('wall.hp')).toBe('60');
    expect(await page.locator('#charts figure svg').count()).toBeGreaterThan(0);
    await screenshot(page, 'workbench-fantasy-wall-hp');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('opens a ?scenario= link with its values, and shows a bad value\'s message beside its control', async () => {
    const SC = 'fantasy/stone-wall-siege.yaml';
    const { page, problems } = await openPage('?scenario=fantasy/stone-wall-siege.yaml&wall.hp=40&wall.dc=14');
    await doneWith(page, SC, { 'wall.hp': 40, 'wall.dc': 14 });
    expect(await page.inputValue('[id="in-wall.hp"]')).toBe('40');
    expect(await page.inputValue('[id="in-wall.dc"]')).toBe('14');
    expect(await page.locator('#scenario').inputValue()).toBe('fantasy/stone-wall-siege.yaml');
    expect(await page.locator('.card[data-metric="p_breach"] [data-role="difference"]').textContent()).toMatch(/pts \[/);
    await setNumber(page, 'wall.dc', '99');
    const error = page.locator('.ctl[data-path="wall.dc"] .ctl-error');
    await expect.poll(() => error.textContent(), { timeout: 30_000 }).toBe('Too big: expected number to be <=40');
    await page.locator('.ctl[data-path="wall.dc"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'workbench-bad-value');
    await setNumber(page, 'wall.dc', '13');
    await doneWith(page, SC, { 'wall.hp': 40, 'wall.dc': 13 });
    expect(await error.textContent()).toBe('');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('answers the Crusader Rex reference battle and a surrender scenario, and reproduces them on the command line', async () => {
    let SC = 'crusader-rex/reference-field-battle.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}`);
    note('crusader-rex reference battle, opened', await doneWith(page, SC, {}));
    await setNumber(page, 'blocks.0.steps', '3');
    note('crusader-rex reference battle, Saladin 4 -> 3 steps', await doneWith(page, SC, { 'blocks.0.steps': 3 }));
    await setNumber(page, 'blocks.1.steps', '2');
    note('crusader-rex reference battle, and Al Adil 3 -> 2', await doneWith(page, SC, { 'blocks.0.steps': 3, 'blocks.1.steps': 2 }));
    expect(await page.locator('.card[data-metric="p_attacker_wins"] [data-role="difference"]').textContent()).toMatch(/^−/);
    await screenshot(page, 'workbench-crusader-rex');
    await page.click('.tabs button[data-tab="reproduce"]');
    expect(await page.locator('#command').textContent()).toMatch(/^npx siegesim run reference-field-battle\.tuned\.yaml --trials \d+$/);
    SC = 'surrender/fortress-readings.yaml';
    await page.selectOption('#scenario', SC);
    note('surrender fortress-readings, opened', await doneWith(page, SC, {}));
    await setNumber(page, 'structure.surrender_level', '4');
    note('surrender fortress-readings, level 3 -> 4', await doneWith(page, SC, { 'structure.surrender_level': 4 }));
    await screenshot(page, 'workbench-reproduce');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('sweeps a parameter, solves for a target and marks the answer; sweeps two into a heatmap', async () => {
    const SC = 'surrender/heavy-guns-grid.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}`);
    await doneWith(page, SC, {});
    await page.click('.tabs button[data-tab="sweep"]');
    // the file's own 2-D sweep is offered: run it (the contour at 50% by default)
    await page.selectOption('#sweep-metric', 'p_test');
    await page.click('#sweep-form button[type="submit"]');
    await expect.poll(() => page.locator('#sweep-answer').textContent(), { timeout: 60_000 }).toMatch(/^contour:/);
    await page.waitForSelector('#sweep-chart svg');
    await screenshot(page, 'workbench-sweep-heatmap');
    await page.selectOption('.axis[data-axis="1"] .axis-path', '');
    await page.fill('#sweep-target', '0.45');
    await page.click('#sweep-form button[type="submit"]');
    await expect.poll(() => page.locator('#sweep-answer').textContent(), { timeout: 60_000 }).toMatch(/^structure\.surrender_level = \d+ is the smallest value/);
    await page.waitForSelector('#sweep-chart svg');
    await screenshot(page, 'workbench-sweep-solve');
    expect(problems()).toEqual([]);
    await page.close();
  });
});
