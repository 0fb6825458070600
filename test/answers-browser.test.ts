/**
 * Report pages in a real headless Chromium, written as `siegesim run` writes them
 * (writeReport, writeIndex): a conditional mean's difference says it averages other trials
 * where its event moved (item 1); the HP × DC grid's curves tell dc 9, 12 and 14 apart by dash and
 * point shape as well as colour, and a caption says "bands" only where they can be seen (item 6);
 * the index writes a tail probability as the page does (item 6). Screenshots go to
 * test-artifacts/ (look at them).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { describeBrowser, launchBrowser, screenshot, watchPage } from './browser.js';
import { readFileSync } from 'node:fs';
import { writeIndex, writeReport } from '../src/report/write.js';
import { showHtml } from '../src/report/format.js';
import { systemById } from '../src/systems/registry.js';
import { runFile } from './helpers.js';

describeBrowser('report pages: conditional means, told-apart curves, tails in the index', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    dir = mkdtempSync(path.join(tmpdir(), 'siegesim-i31-'));
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(rel: string) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = watchPage(page);
    await page.goto(pathToFileURL(path.join(dir, rel)).href);
    return { page, problems };
  }

  it("a conditional mean's difference says, in its own cell, that it averages other trials (p_breach moved)", async () => {
    const r = await runFile('test/fixtures/conditional-breach.yaml', 4000);
    await writeReport(r, path.join(dir, 'conditional-breach'), { index: true });
    await writeIndex(dir);
    const { page, problems } = await open('conditional-breach/index.html');
    const notes = page.locator('.over');
    // the Answer (its headline leads with mean_breach_round) and the table of every metric
    expect(await notes.count()).toBe(2);
    for (const t of await notes.allTextContents()) expect(t).toMatch(/^over different trials: p_breach 0\.99\d+ → 0\.8\d+$/);
    expect(await notes.first().isVisible()).toBe(true);
    // it sits in the cell of the variant's Δ of mean_breach_round, under the difference
    const cell = page.locator('table.answer td', { has: page.locator('.over') });
    expect(await cell.textContent()).toMatch(/Δ [+−]\S+ \[.*\] \(Welch\)over different trials/);
    await screenshot(page, 'report-conditional-mean', page.locator('table.answer'));
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('the HP × DC grid: every dc line has its own dash and point shape in every panel, and the caption says bands only where they show', async () => {
    const r = await runFile('scenarios/fantasy/wall-hp-dc-grid.yaml', 2000);
    const charts = systemById('fantasy')!.charts(r);
    for (const name of ['breach_by_round', 'wall_hp']) {
      const c = charts.find((x) => x.name === name)!;
      const spec = c.spec as { spec: { layer: { encoding: Record<string, { field?: string; scale?: { domain: string[]; range: unknown[] } }> }[] } };
      const line = spec.spec.layer[1].encoding;
      // the panels are per hp, the lines per dc: colour, dash and shape all on the same field, each dc its own
      expect(line.strokeDash?.scale?.domain).toEqual(['6', '9', '12', '14', '17']);
      expect(new Set(line.strokeDash!.scale!.range.map((d) => JSON.stringify(d))).size).toBe(5);
      expect(new Set(line.shape!.scale!.range).size).toBe(5);
    }
    // a band too narrow to see is not promised: the caption says how narrow instead
    const wall = charts.find((x) => x.name === 'wall_hp')!;
    expect(wall.caption).toMatch(/95% intervals at most ±[\d.]+, too narrow to see beside the lines(;|$)/);
    await writeReport(r, path.join(dir, 'grid'), { index: true, charts });
    const { page, problems } = await open('grid/index.html');
    const fig = page.locator('figure', { has: page.locator('img[src="charts/breach_by_round.svg"]') });
    await screenshot(page, 'report-grid-breach-by-round', fig);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('the index writes a tail probability as the page does (1.6×10⁻⁴, never 1.6e-4)', async () => {
    const r = await runFile('scenarios/fantasy/stone-wall-siege.yaml', 50_000);
    await writeReport(r, path.join(dir, 'stone'), { index: true });
    await writeIndex(dir);
    const index = readFileSync(path.join(dir, 'index.html'), 'utf8');
    const tiny = r.cases.map((c) => c.metrics.p_defender_wins.value).filter((v) => v > 0 && v < 0.001);
    expect(tiny.length).toBeGreaterThan(0);
    for (const v of tiny) expect(index).toContain(showHtml(Number(v.toPrecision(12))));
    const { page, problems } = await open('index.html');
    const text = (await page.locator('table.index').allTextContents()).join(' ');
    expect(text).not.toMatch(/\d(\.\d+)?e-\d/);
    await screenshot(page, 'report-index-tail-probability', page.locator('table.index').first());
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});
