/**
 * Issue 31's report pages in a real headless Chromium, written as `siegesim run` writes them
 * (writeReport, writeIndex): a conditional mean's difference says it averages other trials
 * where its event moved (item 1). Screenshots go to test-artifacts/ (look at them).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { describeBrowser, launchBrowser, screenshot, watchPage } from './browser.js';
import { writeIndex, writeReport } from '../src/report/write.js';
import { runFile } from './helpers.js';

describeBrowser('issue 31 report pages', () => {
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
    expect(await cell.textContent()).toMatch(/Δ [+−]\S+ \[.*\]over different trials/);
    await screenshot(page, 'report-conditional-mean', page.locator('table.answer'));
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});
