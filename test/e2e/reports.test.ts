/**
 * Every bundled scenario's report, written by the CLI (small trial counts) and opened in a real
 * headless Chromium as a designer opens it: no console error, no
 * failed request, no link to a missing file, every chart drawn (an <img> that loaded, an SVG
 * with marks), and no sideways scrolling on a laptop screen. Screenshots go to
 * test-artifacts/reports/. The CLI runs in an async child process: the test worker never blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, launchBrowser, screenshot, watchPage } from '../browser.js';
import { ROOT, runCli, tempDirs } from '../cli-child.js';
import { nodes } from '../helpers.js';
import { systemById } from '../../src/systems/registry.js';
import { show as showOf } from '../../src/report/format.js';

const tempDir = tempDirs('siegesim-reports-');

/** The page's document, as the code run in the browser (page.evaluate) sees it. */
declare const document: {
  images: ArrayLike<{ complete: boolean; naturalWidth: number; getAttribute(n: string): string | null }>;
  documentElement: { scrollWidth: number };
  querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null }>;
};

/** A laptop screen: the page must fit its width. */
const LAPTOP = { width: 1280, height: 800 };

/** The relief of an existing siege (6.56): its sides box names the besieger as the attacker. */
const RELIEF = 'crusader-rex-6-56-old-siege-2';

let dir = '';
let stderr = '';

/** The report folders under `root` (each with its index.html). */
function reportsIn(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(root, d.name, 'index.html')))
    .map((d) => d.name)
    .sort();
}


beforeAll(async () => {
  dir = tempDir();
  const r = await runCli(['run', path.join(ROOT, 'scenarios'), '--trials', '600', '--out', dir, '--no-progress'], { timeoutMs: 280_000 });
  expect(r.code, r.stderr).toBe(0);
  stderr = r.stderr;
}, 300_000);

describe('every bundled report, as written', () => {
  it('is written for every scenario, without a warning from the chart compiler', () => {
    expect(reportsIn(dir).length).toBeGreaterThan(20);
    expect(existsSync(path.join(dir, 'index.html'))).toBe(true);
    expect(stderr.split('\n').filter((l) => /WARN|ERROR|Error/.test(l))).toEqual([]);
  });

  it('draws every chart: each SVG has marks, and no row x column grid is sorted by a list', () => {
    let charts = 0;
    for (const name of reportsIn(dir)) {
      const cdir = path.join(dir, name, 'charts');
      for (const f of readdirSync(cdir)) {
        const where = `${name}/${f}`;
        if (f.endsWith('.svg')) {
          charts++;
          const svg = readFileSync(path.join(cdir, f), 'utf8');
          const marks = svg.match(/class="mark-[a-z]+ role-mark[^"]*"[^>]*>\s*<(path|line|text|g)/g) ?? [];
          expect(marks.length, `${where} drew no marks`).toBeGreaterThan(0);
        } else if (f.endsWith('.vl.json')) {
          // vega-lite 5 misplaces the cells of a sparse row x column grid sorted by a list (chart-kit facetKey)
          for (const n of nodes(JSON.parse(readFileSync(path.join(cdir, f), 'utf8')))) {
            const facet = n.facet as { row?: { sort?: unknown }; column?: { sort?: unknown } } | undefined;
            if (facet?.row && facet.column) {
              expect(Array.isArray(facet.row.sort) || Array.isArray(facet.column.sort), `${where}: a row x column facet sorted by a list`).toBe(false);
            }
          }
        }
      }
    }
    expect(charts).toBeGreaterThan(60);
  });
});

describe('the answer of every bundled report', () => {
  it("accounts for every trial: the system's outcome partition sums to 1 in each case, and a page without a sweep shows all of it", () => {
    let checked = 0;
    for (const name of reportsIn(dir)) {
      const s = JSON.parse(readFileSync(path.join(dir, name, 'summary.json'), 'utf8')) as {
        system: string;
        params: string[];
        headline?: string[];
        cases: { variant: string; metrics: Record<string, { value: number | null }> }[];
      };
      const outcome = systemById(s.system)!.outcomes?.find((o) => o.every((m) => s.cases.some((c) => c.metrics[m]?.value != null)));
      if (!outcome) continue;
      for (const c of s.cases) expect(outcome.reduce((t, m) => t + c.metrics[m].value!, 0), `${name} ${c.variant}: ${outcome.join(' + ')}`).toBeCloseTo(1, 9);
      if (s.params.length === 0) {
        const html = readFileSync(path.join(dir, name, 'index.html'), 'utf8');
        const answer = html.slice(html.indexOf('<h2>Answer'), html.indexOf('<h2>All metrics'));
        // a scenario's own `headline:` is its answer: those metrics, in that order, and when it names a way of ending, the rest of its partition (so it sums to 1)
        const shown = [...answer.matchAll(/<th(?: class="sep")?(?: rowspan="2")?>([a-z_]+)<\/th>/g)].map((m) => m[1]);
        if (s.headline) {
          const head = s.headline;
          expect(shown.filter((m) => head.includes(m)), name).toEqual(head);
          expect(shown.filter((m) => !head.includes(m)), name).toEqual(head.some((m) => outcome.includes(m)) ? outcome.filter((m) => !head.includes(m)) : []);
        } else for (const m of outcome) expect(answer, `${name}: ${m} in the answer`).toContain(`>${m}</th>`);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });
});

describeBrowser('every bundled report in a browser', () => {
  let browser: Browser;
  /**
   * The tab the pages are looked at in, one after another: a navigation in a tab reuses its
   * renderer process, where a new tab starts a context and a renderer of its own (~1 s of CPU a
   * page, most of the cost of looking at a small report). Its problems (watchPage) are taken
   * afresh at each page; one look at a time (`turn`).
   */
  let tab: { page: Page; problems: string[] } | undefined;
  let turn: Promise<unknown> = Promise.resolve();
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** What a look at one page found: its problems, and what the second test reads of a report page. */
  interface Seen {
    problems: string[];
    sides: string | null;
    placed: boolean | null;
    defined: string[];
    meanings: string[];
    tabled: string[];
  }

  /**
   * Opens a page once and reads everything the tests below check of it: what is wrong with it
   * (console errors, failed requests, undrawn charts, sideways scrolling, broken links), and the
   * sides box and the metrics the page defines and tables. `shot` names its full-page screenshot,
   * if one is wanted. Each page is loaded once for both tests (loading and drawing a page is most
   * of their time); a test run alone loads the pages it needs itself.
   */
  function look(file: string, shot?: string): Promise<Seen> {
    const seen = turn.then(() => lookNow(file, shot));
    turn = seen.catch(() => undefined);
    return seen;
  }

  async function lookNow(file: string, shot?: string): Promise<Seen> {
    if (!tab) {
      const page = await browser.newPage({ viewport: LAPTOP });
      tab = { page, problems: watchPage(page) };
    }
    const { page } = tab;
    tab.problems.length = 0;
    const problems = tab.problems;
    await page.goto(`file://${file}`, { waitUntil: 'load' });
    const seen = await page.evaluate(() => {
      const q = (sel: string) => Array.from(document.querySelectorAll(sel)) as unknown as { textContent: string; getBoundingClientRect(): { top: number; height: number } }[];
      const answer = q('h2').find((h) => h.textContent.startsWith('Answer'));
      const all = q('h2').find((h) => h.textContent.startsWith('All metrics'));
      const box = q('.sides')[0];
      return {
        broken: Array.from(document.images).filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.getAttribute('src')),
        images: document.images.length,
        width: document.documentElement.scrollWidth,
        links: Array.from(document.querySelectorAll('a[href]')).map((a) => a.getAttribute('href')!),
        sides: box ? box.textContent : null,
        // the sides box sits between the Answer's heading and the All metrics heading, visible
        placed: box ? box.getBoundingClientRect().height > 0 && box.getBoundingClientRect().top > answer!.getBoundingClientRect().top && box.getBoundingClientRect().top < all!.getBoundingClientRect().top : null,
        defined: q('dl.glossary dt').map((d) => d.textContent),
        meanings: q('dl.glossary dd').map((d) => d.textContent),
        // the metrics of the All metrics table: its row heads (a few cases) or its column heads (many)
        tabled: q('h2 ~ table th.m, h2 ~ div.scroll table.compact th').map((t) => t.textContent).filter((t) => /^(p|mean)_/.test(t)),
      };
    });
    for (const src of seen.broken) problems.push(`chart did not draw: ${src}`);
    if (seen.width > LAPTOP.width) problems.push(`scrolls sideways: ${seen.width} px wide on a ${LAPTOP.width} px screen`);
    for (const href of seen.links) {
      if (/^[a-z]+:/i.test(href)) problems.push(`links off the page's folder: ${href}`);
      else if (!existsSync(path.resolve(path.dirname(file), decodeURI(href)))) problems.push(`broken link: ${href}`);
    }
    if (shot !== undefined) await screenshot(page, `reports/${shot}`);
    if (file === path.join(dir, RELIEF, 'index.html')) await screenshot(page, 'reports/sides-and-metrics-relief');
    return { problems: [...problems], sides: seen.sides, placed: seen.placed, defined: seen.defined, meanings: seen.meanings, tabled: seen.tabled };
  }

  /** Opens a page and lists what is wrong with it (empty when all is well). */
  async function inspect(file: string, shot?: string): Promise<string[]> {
    return (await look(file, shot)).problems;
  }

  /** The look at each bundled report, taken once (with its screenshot, if its test wants one). */
  const looks = new Map<string, Promise<Seen>>();
  const lookAt = (name: string, shot?: string): Promise<Seen> => {
    if (!looks.has(name)) looks.set(name, look(path.join(dir, name, 'index.html'), shot));
    return looks.get(name)!;
  };

  /** The screenshot name of each bundled report: one report of each system (the committed examples below have theirs). */
  function shots(names: string[]): Map<string, string | undefined> {
    // a full-page screenshot of every report cost the suite ~20 s and nobody looks at 26 of them
    const shown = new Set<string>();
    const out = new Map<string, string | undefined>();
    for (const name of names) {
      const system = name.split('-').slice(0, name.startsWith('crusader-rex') || name.startsWith('cry-havoc') ? 2 : 1).join('-');
      out.set(name, shown.has(system) ? undefined : name);
      shown.add(system);
    }
    return out;
  }

  it('opens every report and the index with no console error, failed request, undrawn chart or broken link', async () => {
    const names = reportsIn(dir);
    const problems: string[] = [];
    for (const p of await inspect(path.join(dir, 'index.html'), 'index')) problems.push(`index: ${p}`);
    const shot = shots(names);
    for (const name of names) {
      for (const p of (await lookAt(name, shot.get(name))).problems) problems.push(`${name}: ${p}`);
    }
    // and the committed examples (reports/examples/, linked from the README and docs/cli.md)
    const examples = path.join(ROOT, 'reports/examples');
    for (const p of await inspect(path.join(examples, 'index.html'), 'examples-index')) problems.push(`examples index: ${p}`);
    for (const name of reportsIn(examples)) {
      for (const p of await inspect(path.join(examples, name, 'index.html'), `examples-${name}`)) problems.push(`examples/${name}: ${p}`);
    }
    expect(problems).toEqual([]);
  }, 240_000);

  it('says who the attacker and defender are by the Answer, and what every metric in its tables counts (a relief of an existing siege: the besieger is the attacker, 6.56)', async () => {
    const problems: string[] = [];
    let sides = 0;
    const names = reportsIn(dir);
    const shot = shots(names);
    expect(names).toContain(RELIEF);
    for (const name of names) {
      const s = JSON.parse(readFileSync(path.join(dir, name, 'summary.json'), 'utf8')) as { system: string; sides?: string[]; metric_docs: Record<string, string> };
      const seen = await lookAt(name, shot.get(name));
      if (s.sides) {
        sides++;
        if (seen.sides !== `Who is who: ${s.sides.join('')}`) problems.push(`${name}: sides box says ${JSON.stringify(seen.sides)}`);
        if (!seen.placed) problems.push(`${name}: the sides box is not by the Answer`);
      } else if (seen.sides !== null) problems.push(`${name}: a sides box where the system names no sides`);
      const tabled = [...new Set(seen.tabled)];
      if (tabled.length === 0) problems.push(`${name}: no metric found in the All metrics table`);
      if (seen.defined.join() !== tabled.join()) problems.push(`${name}: defines ${seen.defined.join()} for the table's ${tabled.join()}`);
      seen.defined.forEach((m, i) => {
        if (seen.meanings[i] !== s.metric_docs[m].replace(/`/g, '') || !(seen.meanings[i].length > 20)) problems.push(`${name}: ${m} means ${JSON.stringify(seen.meanings[i])}`);
      });
      if (name === RELIEF) {
        if (!/^Who is who: attacker = the besieger, saracens: Zangi, Sanjar; defender = the besieged, franks: .*Conrad \(main road\).*counts with the defender here, so p_attacker_wins is the besieger's\.$/.test(seen.sides ?? ''))
          problems.push(`${name}: the relief's sides read ${JSON.stringify(seen.sides)}`);
      }
    }
    expect(problems).toEqual([]);
    expect(sides).toBeGreaterThan(10);
  }, 240_000);

  it('a sweep with variants answers with the readings and their differences, intervals shown, in the Answer; the difference chart labels each sweep point (fresh-eyes trial: heavy-is-artillery)', async () => {
    const out = path.join(dir, 'alone', 'heavy');
    const r = await runCli(['run', path.join(ROOT, 'test/fixtures/heavy-is-artillery.yaml'), '--out', out, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(await inspect(path.join(out, 'index.html'), 'heavy-is-artillery')).toEqual([]);
    const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')) as { cases: { variant: string; params: Record<string, number>; differences: Record<string, { value: number; ci_low: number; ci_high: number }> }[] };
    const d = summary.cases.find((c) => c.variant === 'heavy-alone' && c.params['besieger.heavy_siege_artillery'] === 1)!.differences.p_test;
    const page = await browser.newPage({ viewport: LAPTOP });
    try {
      await page.goto(`file://${path.join(out, 'index.html')}`, { waitUntil: 'load' });
      const table = page.locator('#answer-differences');
      await expect.poll(() => table.isVisible()).toBe(true);
      // in the Answer: below its heading, above All metrics
      const top = async (text: string) => (await page.locator('h2', { hasText: text }).boundingBox())!.y;
      const box = (await table.boundingBox())!;
      expect(box.y).toBeGreaterThan(await top('Answer'));
      expect(box.y + box.height).toBeLessThan(await top('All metrics'));
      // the difference at 1 heavy gun and its interval are on screen without ticking anything (as the page writes them: a true minus)
      const minus = (x: number) => showOf(x).replace(/^-/, '−');
      const shown = await table.innerText();
      expect(shown).toContain(`Δ ${minus(d.value)} [${minus(d.ci_low)}, ${minus(d.ci_high)}]`);
      expect(await page.locator('#show-ci').isChecked()).toBe(false);
      for (const ci of await table.locator('.ci').all()) expect(await ci.isVisible()).toBe(true);
      await screenshot(page, 'reports/heavy-is-artillery-answer', page.locator('#answer-differences'));
      // under All metrics, the label beside the differences ticks the one box, and their intervals show
      await page.locator('label.mirror').click();
      expect(await page.locator('#show-ci').isChecked()).toBe(true);
      expect(await page.locator('.compact .ci').first().isVisible()).toBe(true);
      await screenshot(page, 'reports/heavy-is-artillery-difference-chart', page.locator('figure', { has: page.locator('img[src="charts/p_surrender_by_variant.svg"]') }));
      // the difference chart, as drawn: each sweep point labelled in both panels, the difference panel's labels left of its bars
      await page.goto(`file://${path.join(out, 'charts', 'p_surrender_by_variant.svg')}`, { waitUntil: 'load' });
      const labels = await page.locator('text').evaluateAll((ts: { textContent: string | null; getBoundingClientRect(): { x: number } }[]) => ts.map((t) => ({ text: t.textContent ?? '', x: t.getBoundingClientRect().x })));
      const title = labels.find((l) => l.text === 'difference from heavy-counts')!;
      expect(title).toBeDefined();
      for (const guns of [0, 1, 2]) {
        const xs = labels.filter((l) => l.text === `heavy_siege_artillery=${guns}`).map((l) => l.x);
        expect(xs, `heavy_siege_artillery=${guns}`).toHaveLength(2);
        expect(Math.max(...xs), `heavy_siege_artillery=${guns} beside the difference panel`).toBeGreaterThan(labels.find((l) => l.text === 'p_surrender')!.x);
        expect(Math.max(...xs)).toBeLessThan(title.x);
      }
    } finally {
      await page.close();
    }
  }, 60_000);

  it('a report written with --out to its own folder has no "all reports" link (there is no index beside it)', async () => {
    const one = path.join(dir, 'alone', 'town');
    const r = await runCli(['run', path.join(ROOT, 'scenarios/surrender/town-basic.yaml'), '--trials', '600', '--out', one, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'alone', 'index.html'))).toBe(false);
    expect(readFileSync(path.join(one, 'index.html'), 'utf8')).not.toContain('all reports');
    expect(await inspect(path.join(one, 'index.html'), 'alone-town-basic')).toEqual([]);
  }, 60_000);
});
