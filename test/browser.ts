/**
 * A real headless Chromium for tests that look at pages as a person does (reports, the
 * workbench): Debian's `chromium` package driven by playwright-core, never a downloaded browser.
 * Where the binary is missing (`HAVE_CHROMIUM` false), the tests that need it are skipped with a
 * visible message (`describeBrowser`); `.ci/run` installs chromium so CI always runs them.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, inject } from 'vitest';
import type { Browser, BrowserContext, ConsoleMessage, Download, Locator, Page } from 'playwright-core';
import { CHROMIUM, HAVE_CHROMIUM, launchOwnChromium } from './chromium.js';

export { CHROMIUM, HAVE_CHROMIUM };

/** Where tests leave their screenshots (look at them: they are what a designer sees). */
export const ARTIFACTS = path.resolve(import.meta.dirname, '..', 'test-artifacts');

/**
 * `describe` for browser tests: runs them when Chromium is present, otherwise skips them and
 * says so on stderr, once per suite, so a missing browser is never a silent pass.
 */
export function describeBrowser(name: string, fn: () => void): void {
  if (HAVE_CHROMIUM) {
    describe(name, fn);
    return;
  }
  process.stderr.write(`\n!! SKIPPED browser tests "${name}": ${CHROMIUM} not found (apt-get install -y chromium; .ci/run does this)\n`);
  describe.skip(name, fn);
}

/**
 * A headless Chromium for one test file: a connection to the run's shared browser
 * (test/chromium-server.ts, vitest's global setup), or where there is none, or it cannot be
 * reached within a minute, a browser launched for this file alone. Either way `close()` ends
 * what the file opened (its pages and their contexts), and each `newPage` is a context of its own.
 * A download's file is read with `downloadText` (a connected browser has no local path for it).
 */
export async function launchBrowser(): Promise<Browser> {
  const broker = inject('chromiumBroker');
  if (broker) {
    try {
      const res = await fetch(broker, { signal: AbortSignal.timeout(60_000) });
      const ws = await res.text();
      if (!res.ok) throw new Error(ws);
      const { chromium } = await import('playwright-core');
      return await chromium.connect(ws, { timeout: 60_000 });
    } catch (e) {
      process.stderr.write(`\nthe shared Chromium could not be reached (${String(e)}); launching one for this test file\n`);
    }
  }
  return launchOwnChromium();
}

/**
 * Stop the endless CSS animations of every page `target` opens (a page, or each page of a
 * context): the workbench's status dot pulses for as long as a run goes on (app.css, `pulse`,
 * `infinite`), and each frame of it is Chromium's work: ~0.15 s of its CPU a second of running,
 * whatever the test is waiting for, and more wall seconds on a loaded machine. The dot is still
 * there, in the run's colour; only its pulse stands still (as playwright's screenshots do with
 * `animations: 'disabled'`). No test looks at an animation; finite transitions are left as they are.
 */
export async function stillAnimations(target: Page | BrowserContext): Promise<void> {
  await target.addInitScript(() => {
    // (the page's DOM, typed here as far as used: the tests compile without the DOM library)
    type Node = { append(n: unknown): void };
    const doc = (globalThis as unknown as { document: { head: Node | null; documentElement: Node; createElement(t: 'style'): Node & { textContent: string }; addEventListener(e: string, f: () => void): void } }).document;
    doc.addEventListener('DOMContentLoaded', () => {
      const style = doc.createElement('style');
      style.textContent = '*, *::before, *::after { animation: none !important; }';
      (doc.head ?? doc.documentElement).append(style);
    });
  });
}

/**
 * Pages for a test file, in one context (`makeContext`, made on first use): each is the page the
 * last test closed where there is one, navigated again, rather than a new tab. A new page (its
 * tab, its renderer) cost ~0.8 s more of Chromium's CPU than a navigation of one already open
 * (1.7 s against 0.9 s a workbench load, measured). A page's close() goes to about:blank (its
 * runs, streams and workers end) and drops the test's listeners (the page's, and the context's
 * `request` ones), so the next test gets it as fresh as a new one, at its own viewport; a second
 * page open at once is a new one, and is closed for real. The pages siegesim shows keep nothing in
 * the browser (no storage, no cookies, no service worker).
 */
export function pageReuser(makeContext: () => Promise<BrowserContext>): (viewport: { width: number; height: number }) => Promise<Page> {
  let context: Promise<BrowserContext> | undefined;
  let spare: Page | undefined;
  return async (viewport) => {
    const ctx = await (context ??= makeContext());
    let page = spare;
    spare = undefined;
    if (!page || page.isClosed()) {
      page = await ctx.newPage();
      const opened = page;
      const close = opened.close.bind(opened);
      opened.close = async () => {
        if (spare !== undefined || opened.isClosed()) return close();
        await opened.goto('about:blank');
        opened.removeAllListeners();
        opened.context().removeAllListeners('request');
        spare = opened;
      };
    }
    const size = page.viewportSize();
    if (size?.width !== viewport.width || size?.height !== viewport.height) await page.setViewportSize(viewport);
    return page;
  };
}

/** The text of a downloaded file (UTF-8). */
export async function downloadText(download: Download): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) parts.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Collect a page's console errors, uncaught exceptions and failed requests, so a test can
 * fail on any of them (`expect(problems).toEqual([])`).
 */
export function watchPage(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e: Error) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText ?? '?'})`));
  return problems;
}

/**
 * `problems` without the page's own cancellations: a superseded run is aborted by the page on
 * purpose (no queue of stale runs), and the browser's late favicon fetch is aborted when a test
 * goes to its next link.
 */
export function notCancelled(problems: string[]): string[] {
  return problems.filter((p) => !/request failed: .*\/(api\/(run|sweep|sensitivity|tune)|assets\/icon\.svg) \(net::ERR_ABORTED\)/.test(p));
}

/**
 * Save a full-page screenshot (or one of a part of the page) under test-artifacts/ and return its path.
 * The text caret is left as it is (`caret: 'initial'`, a person sees it too): hiding it, playwright's
 * default, restyles and repaints the whole page twice a shot, about a third of a full-page shot's
 * Chromium CPU (~0.1 s of ~0.45 s here; the rest is compositing and encoding the page's pixels).
 */
export async function screenshot(page: Page, name: string, part?: Locator): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  if (part) await part.screenshot({ path: file, caret: 'initial' });
  else await page.screenshot({ path: file, fullPage: true, caret: 'initial' });
  return file;
}

/**
 * The "→ value" labels of a drawn tornado (report/sensitivity.ts) that are not beside a bar of
 * their own side: a label right of 0 needs a bar starting at 0 at its height, a label left of 0
 * one ending at 0 (the 0 of its own panel when the chart has two: see `tornadoPanels`). Empty
 * when every label sits beside its bar. `root` holds the chart's svg.
 */
export async function strayTornadoLabels(page: Page, root = 'svg'): Promise<string[]> {
  return page.locator(root).first().evaluate((svg) => {
    type R = { left: number; right: number; top: number; bottom: number };
    type E = { getBoundingClientRect(): R; getAttribute(n: string): string | null; textContent: string };
    const all = (sel: string) => [...(svg as unknown as { querySelectorAll(s: string): Iterable<E> }).querySelectorAll(sel)];
    // each panel's 0 line spans its plot: the one whose height holds the label is its panel's
    const zeros = all('.mark-rule.role-mark line')
      .map((e) => e.getBoundingClientRect())
      .filter((r) => r.bottom - r.top > 12);
    const bars = all('.mark-rect.role-mark path').map((e) => e.getBoundingClientRect());
    return all('.mark-text.role-mark text')
      .filter((t) => {
        const r = t.getBoundingClientRect();
        const y = (r.top + r.bottom) / 2;
        const zero = zeros.find((z) => z.top - 1 <= y && y <= z.bottom + 1);
        if (!zero) return true;
        const x0 = (zero.left + zero.right) / 2;
        const right = t.getAttribute('text-anchor') !== 'end';
        return !bars.some((b) => b.top <= y && y <= b.bottom && (right ? Math.abs(b.left - x0) < 1.5 && b.right <= r.left + 1 : Math.abs(b.right - x0) < 1.5 && b.left >= r.right - 1));
      })
      .map((t) => t.textContent);
  });
}

/**
 * The axis labels of a drawn Vega chart (in `root`, which holds its svg), one list per axis, each
 * with the labels that overlap another label of any axis (boxes sharing more than half a pixel
 * each way): `overlapping` is empty when every label can be read.
 */
export async function axisLabels(root: Locator): Promise<{ axes: string[][]; overlapping: string[] }> {
  return root.evaluate((box) => {
    type R = { left: number; right: number; top: number; bottom: number };
    type E = { getBoundingClientRect(): R; textContent: string; querySelectorAll(s: string): Iterable<E> };
    const axes = [...(box as unknown as E).querySelectorAll('svg .role-axis')].map((a) => [...a.querySelectorAll('.role-axis-label text')]);
    const all = axes.flat().filter((t) => t.textContent !== '').map((t) => ({ text: t.textContent, r: t.getBoundingClientRect() }));
    const hit = (a: R, b: R) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const overlapping = all.filter((a, i) => all.some((b, j) => i !== j && hit(a.r, b.r))).map((a) => a.text);
    return { axes: axes.map((ts) => ts.map((t) => t.textContent)), overlapping };
  });
}

/**
 * The panels of a drawn tornado (report/sensitivity.ts): for each (one, or two when a few
 * settings dwarf the rest), its x axis's tick values, its bars' widths in px and the effects
 * they draw, read from the SVG. `root` holds the chart's svg.
 */
export async function tornadoPanels(page: Page, root = 'svg'): Promise<{ ticks: number[]; bars: { width: number; effect: number }[] }[]> {
  return page.locator(root).first().evaluate((svg) => {
    type R = { left: number; right: number; top: number; bottom: number; width: number };
    type E = { getBoundingClientRect(): R; getAttribute(n: string): string | null; textContent: string; querySelectorAll(s: string): Iterable<E> };
    const q = (e: unknown, sel: string) => [...(e as E).querySelectorAll(sel)];
    // with two panels vega draws each in a group of its own (concat_0_group, concat_1_group)
    const groups = q(svg, 'g.mark-group.role-scope[class*="concat_"]');
    const num = (t: string) => Number(t.replace(/\u2212/g, '-'));
    return (groups.length > 0 ? groups : [svg as unknown as E])
      .map((cell) => ({
        ticks: q(cell, '[aria-label^="X-axis"] .role-axis-label text').map((t) => num(t.textContent)),
        bars: q(cell, '.mark-rect.role-mark path').map((b) => {
          // the tooltip's "effect: -0.771 [-0.78, -0.76]" (report/tornado-chart.ts), as vega writes it into the aria-label
          const m = /effect: ([^;\s]+)/.exec(b.getAttribute('aria-label') ?? '');
          return { width: b.getBoundingClientRect().width, effect: m ? num(m[1]) : NaN };
        }),
      }))
      .filter((p) => p.bars.length > 0);
  });
}
