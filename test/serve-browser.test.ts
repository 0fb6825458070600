/**
 * The workbench in a real headless Chromium: pick the fantasy siege, change
 * wall.hp, see the headline move and the paired difference appear with its interval; open a
 * `?scenario=...` link; a bad value's message beside its control; a sweep with its solve answer;
 * an edited sweep kept in the address (reloaded, the same sweep; a bad one in a link said);
 * the "what matters" panel (the tornado of the tuned case, a search meeting a target, one that
 * cannot, a stopped one, its answer used); no console error anywhere. Screenshots go to test-artifacts/ (look at them).
 *
 * The time from each change to the first number and to the precision is read from the page's
 * own marks and printed, not asserted (speed is measured in bench/, not in a test).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemById } from '../src/systems/registry.js';
import { parse as parseYaml } from 'yaml';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { axisLabels, describeBrowser, downloadText, launchBrowser, notCancelled, pageReuser, screenshot, stillAnimations, strayTornadoLabels, watchPage } from './browser.js';
import { PoolExecutor } from '../src/engine/pool.js';
import { rootsOf } from '../src/serve/catalogue.js';
import { startWorkbench, type Workbench } from '../src/serve/server.js';
import { num } from '../src/report/format.js';
import { MSG } from '../src/scenario/messages.js';
import { runCli } from './cli-child.js';
import { expectRankingOfLine, expectSearchOfLine } from './ranking-line.js';
import { decimalResolution } from '../src/api/tunables.js';

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

/**
 * One Chromium for the file's two suites (a launch costs about a second of CPU), and one browser
 * context for its pages: a context of each page's own cost ~0.3 s of Chromium CPU a page, and the
 * next load of the page's scripts (vega's ~1 MB) came from the network again. The workbench keeps
 * nothing in the browser (no storage, no cookies), so a page opened after another starts as fresh;
 * only the assets the server lets a browser cache (`max-age`) are shared, as in a person's browser.
 */
let browser: Browser | undefined;
/** The file's pages: one context, each test's page the last one's navigated again (browser.ts pageReuser). */
const newPage = pageReuser(async () => {
  browser ??= await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1440, height: 960 } });
  await stillAnimations(context);
  return context;
});
afterAll(async () => {
  await browser?.close();
});

describeBrowser('the workbench page', () => {
  let wb: Workbench;
  let exec: PoolExecutor;

  beforeAll(async () => {
    exec = new PoolExecutor(2);
    exec.warm();
    wb = await startWorkbench({ roots: rootsOf([path.join(ROOT, 'scenarios')]).roots, port: 0, executor: exec, log: () => {} });
  });
  afterAll(async () => {
    await wb?.close();
    await exec?.close();
  });

  /** A page with its problems watched; the page's own cancelled runs are not problems. */
  async function openPage(query = '') {
    const page = await newPage({ width: 1440, height: 960 });
    const problems = watchPage(page);
    await page.goto(`${wb.url}${query}`);
    await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim.ready === true, null, { timeout: 60_000, polling: 100 });
    return {
      page,
      problems: () => notCancelled(problems),
    };
  }

  // The waits poll, not on every animation frame (waitForFunction's default, ~0.1 s of Chromium CPU
  // a second of waiting) but every 100 ms; an expect.poll on the server's work (a sweep, a ranking,
  // a search: seconds) every 250 ms, not vitest's 50 (each look is a round trip through Chromium).
  /** Wait until the page has finished a run of this scenario with these tuned values; its record. */
  async function doneWith(page: Page, scenario: string, values: Record<string, unknown>): Promise<RunRecord> {
    const want = JSON.stringify([scenario, values]);
    await page.waitForFunction(
      (w) => (globalThis as unknown as { __siegesim: { runs: RunRecord[] } }).__siegesim.runs.some((r) => JSON.stringify([r.scenario, r.values]) === w && r.doneMs !== null),
      want,
      { timeout: 120_000, polling: 100 },
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
    expect(diff).toMatch(/^[−+]?\d+\.\d+ pts \[[−-]?\d+\.\d+ to [−-]?\d+\.\d+\]vs \d+\.\d+% as loaded/);
    expect(await page.locator('.ctl[data-path="wall.hp"]').getAttribute('class')).toContain('changed');
    expect(new URL(page.url()).searchParams.get('wall.hp')).toBe('60');
    // the charts are drawn after the numbers are painted (renderChartsAfterPaint): a moment after done
    await expect.poll(() => page.locator('#charts figure svg').count(), { interval: 250 }).toBeGreaterThan(0);
    await screenshot(page, 'workbench-fantasy-wall-hp');
    // each slider steps by solve's rule over its own ends (whole numbers, or decimalResolution): the page has no rule of its own
    const sliders = await page.locator('.ctl input[type="range"]').evaluateAll((xs) =>
      xs.map((x) => ({ path: x.closest('.ctl')!.getAttribute('data-path')!, lo: Number(x.getAttribute('min')), hi: Number(x.getAttribute('max')), step: Number(x.getAttribute('step')) })),
    );
    const kinds = new Map(((await (await fetch(`${wb.url}api/scenario?path=${SC}`)).json()) as { controls: { path: string; kind: string }[] }).controls.map((c) => [c.path, c.kind]));
    expect(sliders.length).toBeGreaterThan(20);
    for (const x of sliders) expect(x.step, x.path).toBe(kinds.get(x.path) === 'int' ? 1 : decimalResolution(x.lo, x.hi));
    expect(new Set(sliders.filter((x) => kinds.get(x.path) === 'number').map((x) => x.step))).toEqual(new Set([0.01, 0.1]));
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('writes an interval clear of 0 with the digits that show it (not "+0.2 pts [0.0 to 0.3]" coloured significant), never "−0.0"', async () => {
    const { page, problems } = await openPage();
    const f = (d: { value: number; ci_low: number; ci_high: number }, prob: boolean) =>
      page.evaluate(
        ([d, prob]) => {
          const fmt = (globalThis as unknown as { __siegesim: { format: { fmtDiff: (d: unknown, p: boolean) => string; fmtDiffInterval: (d: unknown, p: boolean) => string } } }).__siegesim.format;
          return `${fmt.fmtDiff(d, prob)} [${fmt.fmtDiffInterval(d, prob)}]`;
        },
        [d, prob] as const,
      );
    expect(await f({ value: 0.0017, ci_low: 0.0002, ci_high: 0.0031 }, true)).toBe('+0.2 pts [0.02 to 0.3]');
    expect(await f({ value: -0.0001, ci_low: -0.0004, ci_high: 0.0002 }, true)).toBe('−0.01 pts [−0.04 to 0.02]');
    expect(await f({ value: 0, ci_low: 0, ci_high: 0 }, true)).toBe('0.0 pts [0.0 to 0.0]');
    expect(await f({ value: -0.0002, ci_low: -0.0004, ci_high: -0.00001 }, false)).toBe('−0.0002 [−0.0004 to −0.00001]');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('says beside a conditional mean that it averages other trials where its event moved (mean_breach_round over far fewer breaches)', async () => {
    const SC = 'fantasy/stone-wall-siege.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}&wall.hp=400&wall.dc=16`);
    await doneWith(page, SC, { 'wall.hp': 400, 'wall.dc': 16 });
    const row = page.locator('#metrics tr', { has: page.locator('td.l', { hasText: /^mean_breach_round$/ }) });
    await expect(row.locator('[data-role="over"]').textContent()).resolves.toMatch(/^over different trials: p_breach 100\.0% → 8\d\.\d%$/);
    // the event's own row and a mean over every trial say nothing of it
    const plain = page.locator('#metrics tr', { has: page.locator('td.l', { hasText: /^(p_breach|mean_rounds)$/ }) });
    expect(await plain.locator('[data-role="over"]').count()).toBe(0);
    await screenshot(page, 'workbench-conditional-mean', page.locator('#metrics'));
    expect(problems()).toEqual([]);
    await page.close();
  });

  it("shows every way a trial ends (the system's outcome partition, summing to 1) first, then the other headline metrics, as the report's Answer does", async () => {
    const SC = 'crusader-rex/attrition-exact.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}`);
    await doneWith(page, SC, {});
    const metricsOf = (group: string) => page.locator(`#headline [data-group="${group}"] .card`).evaluateAll((cs) => cs.map((c) => (c as unknown as { dataset: { metric?: string } }).dataset.metric));
    const outcome = ['p_attacker_wins', 'p_defender_holds', 'p_siege_continues', 'p_both_gone'];
    expect(await metricsOf('outcome')).toEqual(outcome);
    expect(await metricsOf('also')).toEqual(['p_castle_falls']);
    expect(await page.locator('#headline [data-group="outcome"] .card-group-name').textContent()).toBe('how each trial ends (one of these, so they sum to 1)');
    expect(await page.locator('#headline [data-group="also"] .card-group-name').textContent()).toBe('also');
    const shown = async () => {
      const v: Record<string, number> = {};
      for (const m of outcome) v[m] = Number((await page.locator(`.card[data-metric="${m}"] [data-role="value"]`).textContent())!.replace('%', ''));
      return v;
    };
    const loaded = await shown();
    expect(loaded.p_siege_continues).toBeGreaterThan(90); // the garrison mostly holds on: what the headline alone hid
    // each shown to 0.1 points: the four sum to 100 within their rounding
    expect(Math.abs(Object.values(loaded).reduce((a, b) => a + b, 0) - 100)).toBeLessThanOrEqual(0.2 + 1e-9);
    await screenshot(page, 'workbench-outcomes-loaded', page.locator('#headline'));
    await setNumber(page, 'turns', '12');
    await doneWith(page, SC, { turns: 12 });
    const tuned = await shown();
    expect(Math.abs(Object.values(tuned).reduce((a, b) => a + b, 0) - 100)).toBeLessThanOrEqual(0.2 + 1e-9);
    expect(tuned.p_siege_continues).toBeLessThan(loaded.p_siege_continues);
    for (const m of [...outcome, 'p_castle_falls']) expect(await page.locator(`.card[data-metric="${m}"] [data-role="difference"]`).textContent(), m).toMatch(/pts \[.*\]vs \d+\.\d% as loaded/);
    expect(await page.locator('.card[data-metric="p_siege_continues"] .card-diff').getAttribute('class')).toContain('down');
    await screenshot(page, 'workbench-outcomes-tuned');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it("a scenario's headline: its cards are exactly those metrics, in its order (engines-vs-wall: the round the wall falls first)", async () => {
    const SC = 'fantasy/engines-vs-wall.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}`);
    await doneWith(page, SC, {});
    const cards = await page.locator('#headline .card').evaluateAll((cs) => cs.map((c) => (c as unknown as { dataset: { metric?: string } }).dataset.metric));
    expect(cards).toEqual(['mean_breach_round', 'p_breach']);
    expect(await page.locator('#headline [data-group="outcome"]').count()).toBe(0);
    // the wall as written (the default stone wall, 30 HP: the workbench runs one case, not the file's sweep) against 3 engines of 2d6: round 2 on average (run: 1.9955 at 2,000 trials)
    const round = Number(await page.locator('.card[data-metric="mean_breach_round"] [data-role="value"]').textContent());
    expect(round).toBeGreaterThan(1.9);
    expect(round).toBeLessThan(2.1);
    await screenshot(page, 'workbench-scenario-headline', page.locator('#headline'));
    // its headline swept over two settings: a mean in rounds has no 50% contour (it said 'cells below 0.5'), and says why
    await page.goto(`${wb.url}?scenario=${SC}&sweep=wall.hp:15,30,60&sweep=attacker.siege_engines:1,3`);
    await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim.ready === true, null, { timeout: 60_000, polling: 100 });
    expect(await page.locator('#sweep-metric').inputValue()).toBe('mean_breach_round');
    // the page checks the link's sweep with the server (linkedSweep, after ready) and then writes #sweep-status: a person clicks once it says so
    await expect.poll(() => page.locator('#sweep-status').textContent(), { interval: 250 }).toBe('the sweep from the link: "run sweep" runs it');
    await page.click('#sweep-form button[type="submit"]');
    await expect.poll(() => page.locator('#sweep-status').textContent(), { timeout: 60_000, interval: 250 }).toMatch(/^6 points × [\d,]+ trials a point \(seed [^)]+\) · /);
    // the answer is written after the done chart is drawn (runSweep: draw(e.chart).then(renderAnswer)): in the status's task only while vega is loaded already
    await expect.poll(() => page.locator('#sweep-answer').textContent(), { interval: 250 }).toMatch(
      /^no contour: mean_breach_round is a mean, and no target is given for it here or in the file's expect: \(type one to draw where it is reached\); every cell (at|with) [^;]+\.$/,
    );
    await page.waitForSelector('#sweep-chart svg');
    expect(await page.locator('#sweep-chart svg .mark-rule.role-mark').count()).toBe(0);
    // each label readable on its cell: white on the dark end of its own scale, black on the light (all were black: 'value > 0.55')
    const labels = await page.locator('#sweep-chart svg .mark-text.role-mark text').evaluateAll((ts) => ts.map((t) => [Number(t.textContent), t.getAttribute('fill')] as [number, string]));
    const ends = labels.map(([x]) => x).sort((a, b) => a - b);
    expect(labels.length).toBe(6);
    expect(labels.find(([x]) => x === ends[0])![1]).toBe('white');
    expect(labels.find(([x]) => x === ends.at(-1))![1]).toBe('black');
    await screenshot(page, 'workbench-sweep-heatmap-mean', page.locator('.tab[data-tab="sweep"]'));
    expect(problems()).toEqual([]);
    await page.close();
  });

  it("says, for a setting the file sweeps, which value \u201cas loaded\u201d runs it at (the file's or the default, maybe none of the swept points)", async () => {
    // the page runs one case: its numbers sat beside a report's sweep with nothing to say they are for the default, not a sweep point
    const SC = 'fantasy/engines-vs-wall.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}`);
    await doneWith(page, SC, {});
    const note = page.locator('#swept-note');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toBe(
      "The file sweeps wall.hp over 15, 30, 50, 80; \u201cas loaded\u201d runs it at 30 (the default), one of those points. Set it above to see another point, or run the file's sweep under Sweep & solve.",
    );
    await screenshot(page, 'workbench-swept-note', page.locator('main'));
    const BL = 'surrender/port-blockade.yaml';
    await page.selectOption('#scenario', BL);
    await doneWith(page, BL, {});
    await expect.poll(() => note.textContent()).toContain('structure.blockade_chance');
    const m = /^The file sweeps structure\.blockade_chance over 0\.25, 0\.5, 0\.75, 1; \u201cas loaded\u201d runs it at (\S+) \((the default|the file's own value)\), (one|none) of those points\./.exec((await note.textContent()) ?? '');
    expect(m, (await note.textContent()) ?? '').not.toBeNull();
    expect(m![3]).toBe([0.25, 0.5, 0.75, 1].includes(Number(m![1])) ? 'one' : 'none');
    // a file without a sweep: nothing to say
    const RF = 'crusader-rex/reference-field-battle.yaml';
    await page.selectOption('#scenario', RF);
    await doneWith(page, RF, {});
    expect(await note.isVisible()).toBe(false);
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('labels a sweep chart\'s ticks with the swept values as written (0.75 was labelled "0.8")', async () => {
    const SC = 'crusader-rex/case-a-new-siege.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}&sweep=policy.storm_ratio:0.5,0.75,1`);
    await doneWith(page, SC, {});
    await page.click('.tabs button[data-tab="sweep"]');
    // the page checks the link's sweep with the server and then writes #sweep-status: a person clicks once it says so
    await expect.poll(() => page.locator('#sweep-status').textContent(), { interval: 250 }).toBe('the sweep from the link: "run sweep" runs it');
    await page.click('#sweep-form button[type="submit"]');
    await expect.poll(() => page.locator('#sweep-status').textContent(), { timeout: 60_000, interval: 250 }).toMatch(/^3 points × [\d,]+ trials a point \(seed [^)]+\) · /);
    // the done chart is drawn after the status says done (in its task only while vega is loaded already), a partial one on screen until then
    await expect.poll(() => page.locator('#sweep-chart svg .role-axis[aria-label^="X-axis"] .role-axis-label text').allTextContents(), { interval: 250 }).toEqual(['0.5', '0.75', '1']);
    await screenshot(page, 'workbench-sweep-fractional-axis', page.locator('#sweep-chart'));
    expect(problems()).toEqual([]);
    await page.close();
  });

  it("a headline: naming ways of ending: its question first, then the whole partition grouped (healing-tables: the days out, then how a wound ends)", async () => {
    const SC = 'cry-havoc/healing-tables.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}`);
    await doneWith(page, SC, {});
    const metricsOf = (group: string) => page.locator(`#headline [data-group="${group}"] .card`).evaluateAll((cs) => cs.map((c) => (c as unknown as { dataset: { metric?: string } }).dataset.metric));
    const groups = await page.locator('#headline .card-group').evaluateAll((gs) => gs.map((g) => (g as unknown as { dataset: { group?: string } }).dataset.group));
    expect(groups).toEqual(['lead', 'outcome']);
    expect(await metricsOf('lead')).toEqual(['mean_days_to_heal']);
    expect(await metricsOf('outcome')).toEqual(['p_healed', 'p_out_for_scenario', 'p_dies']);
    expect(await page.locator('#headline [data-group="outcome"] .card-group-name').textContent()).toBe('how each trial ends (one of these, so they sum to 1)');
    // the cards line up: the lead group's (empty) name takes the same height as the group's
    const tops = await page.locator('#headline .card').evaluateAll((cs) => cs.map((c) => Math.round((c as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
    await screenshot(page, 'workbench-headline-partition', page.locator('#headline'));
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
    await expect.poll(() => error.textContent(), { timeout: 30_000, interval: 250 }).toBe(MSG.tooBig(40, '99'));
    expect(await error.textContent()).toBe('must be at most 40, got 99'); // as `siegesim validate` says it (test/serve.test.ts)
    await page.locator('.ctl[data-path="wall.dc"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'workbench-bad-value');
    await setNumber(page, 'wall.dc', '13');
    await doneWith(page, SC, { 'wall.hp': 40, 'wall.dc': 13 });
    expect(await error.textContent()).toBe('');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('saves a tuned value of a file that sweeps it into the copy\'s sweep, and says so: its run has the case on screen', async () => {
    const SC = 'fantasy/climbers-dc.yaml'; // sweeps wall.dc: [8, 12, 16]
    const { page, problems } = await openPage(`?scenario=${SC}&attacker.infantry=10&wall.dc=14&trials=4096`);
    await doneWith(page, SC, { 'attacker.infantry': 10, 'wall.dc': 14 });
    await page.click('.tabs button[data-tab="reproduce"]');
    expect(await page.textContent('#command-note')).toMatch(/its case wall\.dc = 14, variant "at-least-dc", is what the "tuned" column shows, byte for byte.*sweep gains wall\.dc 14/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
    const saved = await downloadText(download);
    expect(saved).toContain('  wall.dc: [8, 12, 14, 16]');
    expect((parseYaml(saved) as { description: string }).description).toMatch(/Its sweep gains wall\.dc 14 \(the case tuned\)\.\n$/);
    expect(await page.textContent('#save-name')).toContain('its sweep gains wall.dc 14, so that its run has the case tuned');
    expect(await page.locator('#save-stale').isVisible()).toBe(false); // its expect: items still match
    await screenshot(page, 'workbench-save-swept');
    // what matters on the same case, "written in the file": mode (another game) is not ranked, as siegesim sensitivity says
    await page.click('.tabs button[data-tab="matters"]');
    await page.click('#sens-form button[type="submit"]');
    await expect.poll(() => page.locator('#sens-status').textContent(), { timeout: 120_000, interval: 250 }).toMatch(/settings ranked by .* at 4,096 trials per case, on the cards' dice\)/);
    const settings = await page.locator('#sens-table td code').allTextContents();
    expect(settings.length).toBeGreaterThan(0);
    expect(settings).not.toContain('mode');
    expect(await page.locator('#sens-table tr.not-ranked').textContent()).toContain('not ranked: mode, which changes the kind of game');
    // the case it holds for, and the command line that gives its numbers: wall.dc 14 is none of the file's
    // points, so the line runs the saved copy (whose sweep gains it) with --where for the case
    expect(await page.textContent('#sens-case')).toBe(
      'The ranking holds for one case, the one on screen: wall.dc = 14, attacker.infantry = 10 (variant "at-least-dc"); this command gives its numbers. ' +
        "Without --where, siegesim sensitivity ranks the file's first sweep point (wall.dc = 8), another case. " +
        'Run it on the tuned copy (download YAML under Save & reproduce, saved as climbers-dc.tuned.yaml): its sweep gains wall.dc 14, the point whose dice the page rolled.',
    );
    const copyDir = mkdtempSync(path.join(tmpdir(), 'siegesim-sens-line-'));
    writeFileSync(path.join(copyDir, 'climbers-dc.tuned.yaml'), saved);
    const { line } = await expectRankingOfLine(page, copyDir, path.join(copyDir, 'ranking'));
    rmSync(copyDir, { recursive: true, force: true });
    expect(line).toMatch(/^npx siegesim sensitivity climbers-dc\.tuned\.yaml --where wall\.dc=14,attacker\.infantry=10 --metric p_attacker_wins --trials 4096 --seed 23 --params [\w.,]+$/);
    expect(line).not.toMatch(/\bmode\b/);
    await screenshot(page, 'workbench-sensitivity-swept');
    // tuned to an open field: its expect: items name the wall's metrics, so the copy keeps them as comments, and the Save tab says so
    await page.selectOption('[id="in-mode"]', 'open_field');
    await doneWith(page, SC, { 'attacker.infantry': 10, 'wall.dc': 14, mode: 'open_field' });
    await page.click('.tabs button[data-tab="reproduce"]');
    const [copy] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
    const open = await downloadText(copy);
    expect(open).toContain('\n# expect:\n  # no longer matches the tuned case');
    expect(parseYaml(open)).not.toHaveProperty('expect');
    await expect.poll(() => page.locator('#save-stale').textContent()).toBe(
      '4 expect: items no longer match the tuned case (expect[0] p_breach, expect[1] mean_breach_round, expect[2] p_breach, expect[3] diff_p_breach): the copy keeps them as comments under the reason, so siegesim validate takes the copy and test judges what still matches; edit them back in once they match.',
    );
    await screenshot(page, 'workbench-save-stale-expect', page.locator('.tab[data-tab="reproduce"] .repro'));
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('says every bad value of a link, naming it and what it takes, and opens the rest of the link (never a silent 1-trial run)', async () => {
    const SC = 'fantasy/climbers-dc.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}&variant=nope&trials=abc&precision=5&max_trials=-3&wall.dc=14`);
    await doneWith(page, SC, { 'wall.dc': 14 });
    const banner = await page.textContent('#link-banner');
    expect(banner).toContain('trials=abc: a whole number of trials from 1 to 100,000,000');
    expect(banner).toContain('precision=5: one of 0.02, 0.01, 0.005');
    expect(banner).toContain('max_trials=-3: one of 200000');
    expect(banner).toContain('variant=nope: not a variant of fantasy/climbers-dc.yaml (one of: at-least-dc, above-dc)');
    expect(await page.textContent('#title')).toBe('fantasy-climbers-dc');
    expect(await page.inputValue('#precision')).toBe('0.005'); // the default, not a 1-trial fixed run
    const runs = await page.evaluate(() => (globalThis as unknown as { __siegesim: { runs: RunRecord[] } }).__siegesim.runs);
    expect(runs.at(-1)!.trials).toBeGreaterThan(1000);
    expect(await page.isVisible('#link-banner')).toBe(true);
    await screenshot(page, 'workbench-bad-link-values');
    for (const t of ['0', '-5', '2.5']) {
      await page.goto(`${wb.url}?scenario=${SC}&trials=${t}`);
      await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim.ready === true, null, { timeout: 60_000, polling: 100 });
      expect(await page.textContent('#link-banner'), t).toContain(`trials=${t}: a whole number of trials from 1 to 100,000,000`);
    }
    // a bad value and a bad sweep together: the sweep's own problem shows under the link's sweep (the value's was shown there instead)
    await page.goto(`${wb.url}?scenario=${SC}&attacker.infantry=-1&sweep=wall.dc:1..2:0`);
    await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim.ready === true, null, { timeout: 60_000, polling: 100 });
    await expect.poll(() => page.textContent('#sweep-status'), { timeout: 30_000, interval: 250 }).toBe(`The link's sweep: wall.dc: ${MSG.sweepRange()}`); // the axis's range, in the form's words (was 'step: must be a number from 1e-9 ...')
    expect(await page.textContent('#sweep-status')).not.toContain('attacker.infantry');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('keeps every valid part of a link: bad parts named and dropped, the rest runs and shows numbers', async () => {
    const SC = 'fantasy/wall-hp-dc-grid.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}&wall.hp=abc&trials=abc&sweep=wall.hpp:10,20&wall.dcc=5`);
    // the run goes on without the bad parts: numbers on the cards, as loaded (wall.hp=abc and wall.dcc=5 dropped)
    await doneWith(page, SC, {});
    // the link's sweep is checked by the server beside the run (linkedSweep, not awaited before it): its line joins the banner when that answer comes
    await expect.poll(() => page.textContent('#link-banner'), { interval: 250 }).toContain('sweep=wall.hpp:10,20: "wall.hpp" is not a number setting of this scenario (did you mean "wall.hp"?) (the sweep not used)');
    const banner = (await page.textContent('#link-banner'))!;
    expect(banner).toContain('trials=abc: a whole number of trials from 1 to 100,000,000');
    expect(banner).toMatch(/wall\.hp=abc: .+ \(the file's 30 used\)/);
    expect(banner).toMatch(/wall\.dcc=5: "wall\.dcc" is not a setting of this system \(did you mean "wall\.dc"\?\) \(not used\)/);
    expect(banner).toContain('sweep=wall.hpp:10,20: "wall.hpp" is not a number setting of this scenario (did you mean "wall.hp"?) (the sweep not used)');
    const values = await page.locator('.card [data-role="value"]').allTextContents();
    expect(values.length).toBeGreaterThan(2);
    for (const v of values) expect(v).toMatch(/^\d+(\.\d+)?%$|^\d+\.\d+$/);
    expect(await page.inputValue('[id="in-wall.hp"]')).toBe('30');
    expect(await page.locator('.ctl.invalid').count()).toBe(0);
    // the file's own sweep in the form is said to be what it is, not put under the link's sweep's problem
    await expect.poll(() => page.textContent('#sweep-status'), { timeout: 30_000, interval: 250 }).toMatch(/^The link's sweep was not used \(.*\); the form shows the file's own sweep\.$/);
    // the address keeps only what the page uses
    const q = new URL(page.url()).searchParams;
    expect([q.has('wall.hp'), q.has('wall.dcc')]).toEqual([false, false]);
    await screenshot(page, 'workbench-bad-link-kept');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('shows a Crusader Rex block\'s "auto" steps as its full strength (the slider at the roster\'s 4 for Bohemond), marked auto', async () => {
    const SC = 'crusader-rex/attrition-exact.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}`);
    await doneWith(page, SC, {});
    const row = page.locator('.ctl[data-path="blocks.0.steps"]'); // Bohemond, no steps in the file
    expect(await page.locator('.group[data-group="blocks.0"] .gname').textContent()).toBe('blocks 1: Bohemond');
    expect(await row.locator('.loaded').textContent()).toBe('auto: 4');
    expect(await row.locator('input.num').inputValue()).toBe(''); // still auto: nothing sent, the file's meaning kept
    expect(await row.locator('input.num').getAttribute('placeholder')).toBe('4 auto');
    const slider = row.locator('input[type="range"]');
    expect(await slider.inputValue()).toBe('4');
    expect(await row.locator('.slider').getAttribute('class')).toContain('auto');
    // the loaded mark stands where the slider's thumb is
    const markLeft = await row.locator('.mark').evaluate((m) => (globalThis as unknown as { getComputedStyle(e: unknown): { left: string } }).getComputedStyle(m).left);
    const [lo, hi] = [Number(await slider.getAttribute('min')), Number(await slider.getAttribute('max'))];
    const width = await slider.evaluate((e) => e.getBoundingClientRect().width);
    expect(parseFloat(markLeft)).toBeCloseTo(((4 - lo) / (hi - lo)) * width, 0);
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, 'workbench-crusader-rex-auto-steps', page.locator('.group[data-group="blocks.0"]'));
    // moved to 3: a change from auto (4); back to 4 it is the loaded strength again, no change
    await slider.fill('3');
    await doneWith(page, SC, { 'blocks.0.steps': 3 });
    expect(await page.locator('#changes .chip').first().getAttribute('title')).toContain('blocks.0.steps: auto (4) → 3');
    await row.locator('button.reset').click(); // back to auto: the field empty, the slider at 4
    expect(await row.locator('input.num').inputValue()).toBe('');
    expect(await slider.inputValue()).toBe('4');
    await doneWith(page, SC, {});
    await slider.fill('3');
    await slider.fill('4');
    await expect.poll(() => row.getAttribute('class')).not.toContain('changed');
    expect(new URL(page.url()).searchParams.has('blocks.0.steps')).toBe(false);
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('shows every input\'s whole placeholder, on every tab (the sweep target said "e.g. 0.!")', async () => {
    const { page, problems } = await openPage('?scenario=fantasy/stone-wall-siege.yaml');
    await doneWith(page, 'fantasy/stone-wall-siege.yaml', {});
    const cut = () =>
      page.evaluate(() => {
        // (the page's DOM, typed here as far as used: the tests compile without the DOM library)
        type Input = { offsetParent: unknown; value: string; type: string; id: string; className: string; placeholder: string; clientWidth: number };
        type Style = { fontStyle: string; fontWeight: string; fontSize: string; fontFamily: string; paddingLeft: string; paddingRight: string };
        const w = globalThis as unknown as {
          document: { createElement(t: 'canvas'): { getContext(k: '2d'): { font: string; measureText(t: string): { width: number } } | null }; querySelectorAll(s: string): Iterable<Input> };
          getComputedStyle(e: Input): Style;
        };
        const ctx = w.document.createElement('canvas').getContext('2d')!;
        const out: string[] = [];
        for (const input of w.document.querySelectorAll('input[placeholder]')) {
          if (input.offsetParent === null || input.value !== '') continue; // hidden, or the placeholder not shown
          const st = w.getComputedStyle(input);
          ctx.font = `${st.fontStyle} ${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
          const spin = input.type === 'number' ? 15 : 0; // the number field's spin buttons
          const room = input.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - spin;
          const need = ctx.measureText(input.placeholder).width;
          if (need > room) out.push(`${input.id || input.className} "${input.placeholder}": ${need.toFixed(0)} px in ${room.toFixed(0)}`);
        }
        return out;
      });
    const seen: string[] = [];
    await screenshot(page, 'workbench-top');
    for (const tab of ['results', 'sweep', 'matters', 'reproduce']) {
      await page.click(`.tabs button[data-tab="${tab}"]`);
      seen.push(...(await cut()));
    }
    await page.click('.tabs button[data-tab="sweep"]');
    await screenshot(page, 'workbench-sweep-form', page.locator('#sweep-form'));
    expect(seen).toEqual([]);
    // the keyboard: the tab list is one tab stop whose arrow keys move between the tabs (they did nothing), Home/End its ends
    const selected = () => page.locator('.tabs button[aria-selected="true"]').getAttribute('data-tab');
    const focused = () => page.evaluate('document.activeElement && document.activeElement.dataset && document.activeElement.dataset.tab');
    await page.focus('.tabs button[data-tab="sweep"]');
    await page.keyboard.press('ArrowRight');
    expect([await selected(), await focused()]).toEqual(['matters', 'matters']);
    expect(await page.locator('.tab[data-tab="matters"]').isVisible()).toBe(true);
    await page.keyboard.press('End');
    expect(await selected()).toBe('reproduce');
    await page.keyboard.press('ArrowRight'); // round to the first
    expect(await selected()).toBe('results');
    expect(await page.locator('.tabs button[tabindex="0"]').count()).toBe(1);
    // and a way past the controls: the skip link, shown when focused, takes the focus to the results
    expect(await page.evaluate('document.querySelector("a, button, input, select").className')).toBe('skip'); // the first stop of the page
    expect(await page.locator('a.skip').evaluate((a) => (a as unknown as { getBoundingClientRect(): { left: number } }).getBoundingClientRect().left)).toBeLessThan(0); // off screen until focused
    await page.focus('a.skip');
    expect(await page.locator('a.skip').evaluate((a) => (a as unknown as { getBoundingClientRect(): { left: number } }).getBoundingClientRect().left)).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('headline');
    expect(new URL(page.url()).hash).toBe('');
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
    // who is who under the description, and what a card counts on hover (the report's words)
    expect(await page.locator('#sides').isVisible()).toBe(true);
    expect(await page.locator('#sides').textContent()).toMatch(/^Who is who \(as loaded\): attacker = (franks|saracens) \(attacker:, the first to enter the field\): /);
    expect(await page.locator('.card[data-metric="p_attacker_wins"] .card-name').getAttribute('title')).toBe(`p_attacker_wins: ${systemById('crusader-rex')!.metricDocs.p_attacker_wins}`);
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
    await expect.poll(() => page.locator('#sweep-answer').textContent(), { timeout: 60_000, interval: 250 }).toMatch(/^contour:/);
    await page.waitForSelector('#sweep-chart svg');
    await screenshot(page, 'workbench-sweep-heatmap');
    await page.selectOption('.axis[data-axis="1"] .axis-path', '');
    await page.fill('#sweep-target', '0.45');
    await page.click('#sweep-form button[type="submit"]');
    await expect.poll(() => page.locator('#sweep-answer').textContent(), { timeout: 60_000, interval: 250 }).toMatch(/^structure\.surrender_level = \d+ is the smallest value with p_test ≥ 0\.45, at besieger\.heavy_siege_artillery = \d+: /);
    // the answer names the point it holds at (the other swept setting, at its value on screen)
    const held = await page.locator('.ctl[data-path="besieger.heavy_siege_artillery"] input.num').inputValue();
    expect(await page.locator('#sweep-answer [data-role="held"]').textContent()).toBe(`at besieger.heavy_siege_artillery = ${held}`);
    await page.waitForSelector('#sweep-chart svg');
    await screenshot(page, 'workbench-sweep-solve');
    // a target the sweep never reaches (p_test is 4/6 at level 6): the closest end, and which end of the sweep to move
    await page.fill('#sweep-target', '0.99');
    await page.click('#sweep-form button[type="submit"]');
    await expect.poll(() => page.locator('#sweep-answer').textContent(), { timeout: 60_000, interval: 250 }).toMatch(/^p_test does not reach 0\.99 for structure\.surrender_level in \[1, 6\], at besieger\.heavy_siege_artillery = \d+; closest at structure\.surrender_level = 6: /);
    expect(await page.locator('#sweep-answer').textContent()).toContain("Raise the sweep's “to” (e.g. to 11): structure.surrender_level allows up to 1000.");
    // the page's own words for solve's next step, never its JSON text (nor a CLI flag)
    expect(await page.locator('#sweep-answer').textContent()).not.toMatch(/--[a-z]|try a higher/);
    await screenshot(page, 'workbench-sweep-not-reached', page.locator('#sweep-answer'));
    // one value swept: nothing to solve between, said without a "from" and "to" a list does not have
    await page.selectOption('.axis[data-axis="0"] .axis-kind', 'list');
    await page.fill('.axis[data-axis="0"] .axis-values', '3');
    await page.fill('#sweep-target', '0.45');
    await page.click('#sweep-form button[type="submit"]');
    await expect.poll(() => page.locator('#sweep-answer').textContent(), { timeout: 60_000, interval: 250 }).toBe('solve: structure.surrender_level has one value in this sweep (3): sweep two or more to find where p_test reaches 0.45');
    // an emptied step: the range's problem, for its setting, in the form's words ("step: must be a number from 1e-9 ..." before)
    await page.selectOption('.axis[data-axis="0"] .axis-kind', 'range');
    await page.fill('.axis[data-axis="0"] .axis-step', '');
    await page.click('#sweep-form button[type="submit"]');
    await expect.poll(() => page.locator('#sweep-status').textContent(), { timeout: 30_000, interval: 250 }).toBe(`structure.surrender_level: ${MSG.sweepRange()}`);
    // the refusal asked for is the browser's one console line (a 4xx is logged by Chromium), nothing else
    expect(problems()).toEqual(['console error: Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)']);
    await page.close();
  });

  it('keeps an edited sweep in the address: reloaded, the same sweep shows and runs; a bad sweep in a link is said beside it, never a crash', async () => {
    const SC = 'fantasy/stone-wall-siege.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}&wall.dc=14`);
    await doneWith(page, SC, { 'wall.dc': 14 });
    const params = () => new URL(page.url()).searchParams;
    expect([...params().keys()]).toEqual(['scenario', 'wall.dc']); // the sweep as set up is the scenario's: nothing to say
    await page.click('.tabs button[data-tab="sweep"]');
    const [a0, a1] = ['.axis[data-axis="0"]', '.axis[data-axis="1"]'];
    await page.selectOption(`${a0} .axis-path`, 'wall.hp');
    await page.selectOption(`${a0} .axis-kind`, 'list');
    await page.fill(`${a0} .axis-values`, '10, 40, 25');
    await page.selectOption(`${a1} .axis-path`, 'wall.dc');
    await page.selectOption(`${a1} .axis-kind`, 'range');
    await page.fill(`${a1} .axis-from`, '8');
    await page.fill(`${a1} .axis-to`, '16');
    await page.fill(`${a1} .axis-step`, '4');
    await page.selectOption('#sweep-metric', 'p_defender_wins');
    await page.fill('#sweep-target', '0.4');
    const trials = await page.locator('#sweep-trials option').nth(1).getAttribute('value');
    await page.selectOption('#sweep-trials', trials!);
    /** What the sweep form shows: each parameter as a list or a range, the metric, the target, the trials per point. */
    const form = async () => {
      const axis = async (a: string) => {
        const kind = await page.locator(a).getAttribute('data-kind');
        const fields = kind === 'list' ? ['.axis-path', '.axis-values'] : ['.axis-path', '.axis-from', '.axis-to', '.axis-step'];
        return [kind, ...(await Promise.all(fields.map((f) => page.locator(`${a} ${f}`).inputValue())))];
      };
      return [await axis(a0), await axis(a1), ...(await Promise.all(['#sweep-metric', '#sweep-target', '#sweep-trials'].map((f) => page.locator(f).inputValue())))];
    };
    const edited = await form();
    expect(params().getAll('sweep')).toEqual(['wall.hp:10,40,25', 'wall.dc:8..16:4']);
    expect([params().get('sweep_metric'), params().get('sweep_target'), params().get('sweep_trials'), params().get('wall.dc')]).toEqual(['p_defender_wins', '0.4', trials, '14']);
    expect(page.url()).toContain('&sweep=wall.hp:10,40,25&sweep=wall.dc:8..16:4&'); // readable as written
    expect(await page.locator('#link').textContent()).toBe(page.url()); // the link shown to copy is the same

    await page.reload();
    await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim.ready === true, null, { timeout: 60_000, polling: 100 });
    expect(await page.locator('.tab[data-tab="sweep"]').isVisible()).toBe(true); // a link with a sweep opens on it
    expect(await form()).toEqual(edited);
    await expect.poll(() => page.locator('#sweep-status').textContent(), { timeout: 30_000, interval: 250 }).toBe('the sweep from the link: "run sweep" runs it');
    await screenshot(page, 'workbench-sweep-from-link');
    await page.click('#sweep-form button[type="submit"]');
    await expect.poll(() => page.locator('#sweep-status').textContent(), { timeout: 60_000, interval: 250 }).toMatch(new RegExp(`^9 points × ${Number(trials).toLocaleString('en-US')} trials a point \\(seed [^)]+\\) · `));
    // the answer is written after the done chart is drawn (runSweep: draw(e.chart).then(renderAnswer)): in the status's task only while vega is loaded already
    await expect.poll(() => page.locator('#sweep-answer').textContent(), { interval: 250 }).toMatch(/^contour: the red line separates cells below 0\.4/);
    // where every cell holds, the variant it ran on among them (the file has three readings: an answer on another is another answer)
    expect(await page.locator('#sweep-answer [data-role="held"]').textContent()).toMatch(/^(at|with) .+ \(variant "[\w-]+"\)$/);

    // a bad sweep in a link: said in the sweep tab (the page's own check, or the server's), the rest of the link still opens;
    // one the page cannot use at all is dropped, said so, with what the form shows instead
    const notUsed = (said: string) => new RegExp(`^The link's sweep was not used \\(${said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\); the form shows .+\\.$`);
    for (const [q, said] of [
      ['sweep=wall.hp:60..20:10', "The link's sweep: wall.hp: a range needs from <= to and step > 0"],
      ['sweep=wall.hp:1..100000:1', "The link's sweep: the sweep would make 100,000 cases; at most 441 are allowed: list fewer values"],
      // a misspelt path or metric: the server's words for a sweep, with a did-you-mean from the scenario's own settings and metrics
      ['sweep=wall.hpp:1,2', notUsed('sweep=wall.hpp:1,2: "wall.hpp" is not a number setting of this scenario (did you mean "wall.hp"?)')],
      ['sweep=wal.dc:8,12&sweep_metric=p_breech', notUsed('sweep=wal.dc:8,12: "wal.dc" is not a number setting of this scenario (did you mean "wall.dc"?) · sweep_metric=p_breech: unknown metric "p_breech" (did you mean "p_breach"?) (this scenario\'s: p_attacker_wins, p_defender_wins, p_undecided, mean_rounds, p_round_cap, p_breach, mean_breach_round, p_withdrew)')],
      ['sweep=mode:1,2', notUsed('sweep=mode:1,2: "mode" is not a number setting of this scenario')],
      ['sweep=wall.hp:10,abc', notUsed("sweep=wall.hp:10,abc: the values must be numbers separated by commas (e.g. wall.hp:10,20,40) or a range (wall.hp:20..60:10)")],
      ['sweep=wall.hp&sweep_target=half', notUsed("sweep=wall.hp: write <setting>:<from>..<to>:<step> (e.g. wall.hp:20..60:10) or <setting>:<value>,<value>,... (e.g. wall.hp:10,20,40) · sweep_target=half: must be a number (e.g. 0.5)")],
      ['sweep_metric=p_win&sweep_trials=7', /^The link's sweep was not used \(sweep_metric=p_win: unknown metric "p_win" \(this scenario's: p_attacker_wins, .*\) · sweep_trials=7: one of \d+, /],
      // every problem of the link's sweep at once: the page's own and the server's check of the rest
      ['sweep=wall.hp:60..20:10&sweep_trials=7', /^The link's sweep was not used \(sweep_trials=7: one of \d+, [\d, ]+ · wall\.hp: a range needs from <= to and step > 0\); the form shows .+\.$/],
      ['sweep_metric=p_win&sweep_target=2', /^The link's sweep was not used \(sweep_metric=p_win: unknown metric "p_win" \(this scenario's: p_attacker_wins, .*\) · target: 2 is outside \[0, 1\]: "p_attacker_wins" is a probability\); the form shows .+\.$/],
    ] as [string, string | RegExp][]) {
      await page.goto(`${wb.url}?scenario=${SC}&wall.dc=14&${q}`);
      await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim.ready === true, null, { timeout: 60_000, polling: 100 });
      expect(await page.locator('.tab[data-tab="sweep"]').isVisible(), q).toBe(true);
      await expect.poll(() => page.locator('#sweep-status').textContent(), { timeout: 30_000, interval: 250 }).toMatch(typeof said === 'string' ? new RegExp(`^${said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : said);
      expect(await page.locator('[id="in-wall.dc"]').inputValue(), q).toBe('14');
    }
    await screenshot(page, 'workbench-sweep-bad-link');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('offers a file\'s uneven sweep as its own values and draws that grid, the cells siegesim run\'s; the heatmap fits its box', async () => {
    const SC = 'fantasy/wall-hp-dc-grid.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}`);
    await doneWith(page, SC, {});
    await page.click('.tabs button[data-tab="sweep"]');
    // wall.hp: [10, 13, 16, 20, 25, 30] is offered as that list, not as an even range from 10 to 30
    const hp = page.locator('.axis[data-axis="0"]');
    expect(await hp.locator('.axis-path').inputValue()).toBe('wall.hp');
    expect(await hp.locator('.axis-kind').inputValue()).toBe('list');
    expect(await hp.locator('.axis-values').inputValue()).toBe('10, 13, 16, 20, 25, 30');
    expect(await page.locator('.axis[data-axis="1"] .axis-values').inputValue()).toBe('6, 9, 12, 14, 17');
    await screenshot(page, 'workbench-sweep-file-list', page.locator('#sweep-form'));
    const trials = Number(await page.locator('#sweep-trials').inputValue());
    await page.click('#sweep-form button[type="submit"]'); // the file's own wall.hp x wall.dc sweep
    await expect.poll(() => page.locator('#sweep-answer').textContent(), { timeout: 60_000, interval: 250 }).toMatch(/^contour:/);
    await page.waitForSelector('#sweep-chart svg .role-legend-title text');
    await screenshot(page, 'workbench-sweep-heatmap-legend', page.locator('#sweep-chart'));
    // the x axis ticks at the file's values
    const xLabels = await page.locator('#sweep-chart svg .role-axis[aria-label^="X-axis"] .role-axis-label text').allTextContents();
    expect(xLabels).toEqual(['10', '13', '16', '20', '25', '30']);
    // and every cell drawn is the file's run through the CLI at the same trials (the file's seed)
    type Cell = { x: number; y: number; value: number };
    const cells = await page.locator('#sweep-chart').evaluate((e) => (e as unknown as { view: { spec: { data: { values: Cell[] } } } }).view.spec.data.values);
    expect(cells).toHaveLength(30);
    const out = mkdtempSync(path.join(tmpdir(), 'siegesim-grid-'));
    try {
      const r = await runCli(['run', path.join(ROOT, 'scenarios', SC), '--trials', String(trials), '--json', '--out', out, '--threads', '1', '--no-charts']);
      expect(r.code, r.stderr).toBe(0);
      const cli = JSON.parse(r.stdout)[0].cases as { params: Record<string, number>; metrics: Record<string, { value: number }> }[];
      expect(cells.map((c) => [c.x, c.y])).toEqual(cli.map((c) => [c.params['wall.hp'], c.params['wall.dc']]));
      cli.forEach((c, i) => expect(num(cells[i].value), JSON.stringify(c.params)).toBe(c.metrics.p_attacker_wins.value));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    type Rect = { left: number; right: number; top: number; bottom: number };
    const rect = (sel: string) =>
      page.locator(sel).first().evaluate((e) => {
        const b = (e as unknown as { getBoundingClientRect(): Rect }).getBoundingClientRect();
        return { left: b.left, right: b.right, top: b.top, bottom: b.bottom };
      });
    const box = {
      actions: await rect('#sweep-chart .vega-embed summary'),
      legendTitle: await rect('#sweep-chart svg .role-legend-title text'),
      svg: await rect('#sweep-chart svg'),
      chart: await rect('#sweep-chart'),
    };
    const apart = (a: Rect, b: Rect) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
    expect(apart(box.actions, box.legendTitle), JSON.stringify(box)).toBe(true);
    expect(box.svg.right, 'the chart runs out of its box (its legend clipped)').toBeLessThanOrEqual(box.actions.left);
    expect(box.actions.right).toBeLessThanOrEqual(box.chart.right);
    // "even range" instead: the list's ends, in the largest step through every value of it (1: 10, 13, 16, 20, 25, 30 all
    // lie on it); its smallest gap, 3, stopped at 28 and dropped the top of the file's range (and its 25)
    const range = async () => [await hp.locator('.axis-from').inputValue(), await hp.locator('.axis-to').inputValue(), await hp.locator('.axis-step').inputValue()];
    await hp.locator('.axis-kind').selectOption('range');
    expect(await range()).toEqual(['10', '30', '1']);
    expect(await hp.locator('.axis-values').isVisible()).toBe(false);
    expect(await hp.locator('.axis-note').isVisible()).toBe(false); // 30 is on the step: nothing to say
    await hp.locator('.axis-kind').selectOption('list');
    const listed = (await hp.locator('.axis-values').inputValue()).split(', ').map(Number);
    expect(listed).toEqual(Array.from({ length: 21 }, (_, i) => 10 + i));
    expect([10, 13, 16, 20, 25, 30].every((x) => listed.includes(x))).toBe(true);
    // an even list keeps its own gap (wall.dc 6, 9, 12, 15 -> 6..15 in 3s, 15 included)
    const dc = page.locator('.axis[data-axis="1"]');
    await dc.locator('.axis-values').fill('6, 9, 12, 15');
    await dc.locator('.axis-kind').selectOption('range');
    expect([await dc.locator('.axis-from').inputValue(), await dc.locator('.axis-to').inputValue(), await dc.locator('.axis-step').inputValue()]).toEqual(['6', '15', '3']);
    await dc.locator('.axis-kind').selectOption('list');
    expect(await dc.locator('.axis-values').inputValue()).toBe('6, 9, 12, 15');
    // a "to" off the step is said beside the range, with where the sweep ends
    await hp.locator('.axis-kind').selectOption('range');
    await hp.locator('.axis-step').fill('3');
    await expect.poll(() => hp.locator('.axis-note').textContent()).toBe('30 is not on the step (3 from 10): the sweep ends at 28');
    expect(await hp.locator('.axis-note').isVisible()).toBe(true);
    await screenshot(page, 'workbench-sweep-range-off-step', page.locator('#sweep-form'));
    await hp.locator('.axis-step').fill('5');
    await expect.poll(() => hp.locator('.axis-note').isVisible()).toBe(false);
    // a setting the file does not sweep gets a range over its slider whose "to" is its last value (wall.dc's 1..40 in 4s ends at 37)
    await dc.locator('.axis-path').selectOption('hp.infantry');
    const [lo, hi, st] = [await dc.locator('.axis-from').inputValue(), await dc.locator('.axis-to').inputValue(), await dc.locator('.axis-step').inputValue()].map(Number);
    expect((hi - lo) % st, `${lo}..${hi} in ${st}s`).toBe(0);
    expect(await dc.locator('.axis-note').isVisible()).toBe(false);
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('labels the Crusader Rex attrition chart readably: every step of a short siege, each turn of a 12-turn one, no label over another', async () => {
    const SC = 'crusader-rex/storm-or-starve.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}&turns=4&trials=4096`);
    const labels = async (turns: number) => {
      await doneWith(page, SC, { turns });
      const fig = page.locator('#charts figure[data-name="attrition"]');
      // the steps' axes are the ones labelled T<turn> (the others are the steps of each side);
      // the chart is redrawn after the run is done: wait for its last turn
      const last = new RegExp(`^T${turns}( |$)`);
      await expect.poll(async () => (await axisLabels(fig)).axes.some((a) => a[0]?.startsWith('T1') && a.some((l) => last.test(l))), { timeout: 30_000, interval: 250 }).toBe(true);
      await screenshot(page, `workbench-attrition-${turns}-turns`, fig);
      const { axes, overlapping } = await axisLabels(fig);
      return { steps: axes.filter((a) => a[0]?.startsWith('T1')), overlapping };
    };
    // 4 turns: 16 steps, each labelled
    const four = await labels(4);
    expect(four.overlapping).toEqual([]);
    for (const a of four.steps) expect(a).toEqual([1, 2, 3, 4].flatMap((t) => ['R1', 'R2', 'R3', 'end'].map((r) => `T${t} ${r}`)));
    // 12 turns: 48 steps would stand 6 px apart, over each other; each turn is labelled once
    await setNumber(page, 'turns', '12');
    const twelve = await labels(12);
    expect(twelve.overlapping).toEqual([]);
    for (const a of twelve.steps) expect(a).toEqual(Array.from({ length: 12 }, (_, i) => `T${i + 1}`));
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('opens every bundled scenario and answers it with its charts drawn; every kind of control drives a run', async () => {
    const { page, problems } = await openPage('?trials=4096');
    const all = await page.locator('#scenario option:not([disabled])').evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value));
    expect(all.length).toBeGreaterThanOrEqual(20);
    for (const sc of all) {
      if ((await page.locator('#scenario').inputValue()) !== sc) await page.selectOption('#scenario', sc);
      await doneWith(page, sc, {});
      const values = await page.locator('.card [data-role="value"]').allTextContents();
      expect(values.length, sc).toBeGreaterThan(0);
      for (const v of values) expect(v, sc).toMatch(/\d/);
      // every chart of the system drawn (vega-embed puts an svg in each figure)
      const figures = page.locator('#charts figure');
      await expect.poll(async () => (await figures.count()) > 0 && (await figures.count()) === (await page.locator('#charts figure svg.marks').count()), { timeout: 30_000, interval: 250, message: sc }).toBe(true);
      expect(await page.locator('#charts figcaption').allTextContents(), sc).not.toContain(expect.stringContaining('could not be drawn'));
    }
    expect(problems()).toEqual([]);
    // each kind of control: a checkbox, a select, a decimal field and a whole-number slider
    const SC = 'crusader-rex/case-c-old-siege-2.yaml';
    await page.selectOption('#scenario', SC);
    await doneWith(page, SC, {});
    const box = page.locator('[id="in-rules.relief_delay_when_besieged_without_attack"]');
    expect(await box.isChecked()).toBe(true); // the first variant sets it
    await box.uncheck();
    const tuned: Record<string, unknown> = { 'rules.relief_delay_when_besieged_without_attack': false };
    await doneWith(page, SC, tuned);
    const storm = page.locator('[id="in-policy.storm"]');
    const other = (await storm.locator('option').evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value))).find((o) => o !== 'when_stronger')!;
    await storm.selectOption(other);
    tuned['policy.storm'] = other;
    await doneWith(page, SC, tuned);
    await setNumber(page, 'policy.storm_ratio', '1.5');
    tuned['policy.storm_ratio'] = 1.5;
    await doneWith(page, SC, tuned);
    // a slider dragged: input events while it moves, a change when it is let go
    await page.locator('[aria-label="town.rating slider"]').evaluate((s) => {
      const r = s as unknown as { value: string; dispatchEvent(e: unknown): void };
      for (const v of ['2', '1']) {
        r.value = v;
        r.dispatchEvent(new (globalThis as unknown as { Event: new (t: string) => unknown }).Event('input'));
      }
      r.dispatchEvent(new (globalThis as unknown as { Event: new (t: string) => unknown }).Event('change'));
    });
    tuned['town.rating'] = 1;
    await doneWith(page, SC, tuned);
    expect(await page.inputValue('[id="in-town.rating"]')).toBe('1');
    const url = new URL(page.url()).searchParams;
    expect([url.get('rules.relief_delay_when_besieged_without_attack'), url.get('policy.storm'), url.get('policy.storm_ratio'), url.get('town.rating'), url.get('trials')]).toEqual(['false', other, '1.5', '1', '4096']);
    expect(await page.locator('.card [data-role="difference"]').count()).toBeGreaterThan(0);
    await screenshot(page, 'workbench-every-control-kind');
    // saved: the file as written, with the four values rewritten in place
    await page.click('.tabs button[data-tab="reproduce"]');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
    expect(download.suggestedFilename()).toBe('case-c-old-siege-2.tuned.yaml');
    const saved = await downloadText(download);
    const file = readFileSync(path.join(ROOT, 'scenarios', SC), 'utf8');
    // a scenario of its own: its name (its report folder), and a line of what changed after the description
    expect(await page.textContent('#save-name')).toContain('named crusader-rex-6-56-old-siege-2-tuned (its report goes to reports/crusader-rex-6-56-old-siege-2-tuned/');
    expect(await page.textContent('#command-note')).toContain('reports/crusader-rex-6-56-old-siege-2-tuned/');
    const description = (parseYaml(saved) as { description: string }).description;
    expect(description.startsWith((parseYaml(file) as { description: string }).description)).toBe(true);
    expect(description).toMatch(/\nTuned in the workbench from crusader-rex-6-56-old-siege-2 \(case-c-old-siege-2\.yaml\): .*town\.rating 3 -> 1.*\.\n$/);
    const added = saved.split('\n').length - file.split('\n').length;
    expect(added).toBeGreaterThanOrEqual(2); // the blank line and the new one (each value in its line, the rule in the variant that sets it)
    expect(saved.split('\n').filter((l) => !file.includes(l) && !/^ {2}\S/.test(l) && l !== '')).toEqual([
      'name: crusader-rex-6-56-old-siege-2-tuned',
      'town: { rating: 1 }',
      `policy: { storm: ${other}, sally: when_stronger, storm_ratio: 1.5 }`,
    ]);
    expect(saved).toContain('town: { rating: 1 }');
    expect(saved).toContain(`policy: { storm: ${other}, sally: when_stronger, storm_ratio: 1.5 }`);
    expect(saved).toContain('set: { rules.relief_delay_when_besieged_without_attack: false }');
    expect(saved.split('\n').slice(2, 9)).toEqual(file.split('\n').slice(2, 9)); // the description kept as written
    expect(saved.split('\n')[0]).toBe(file.split('\n')[0]); // the schema comment
    await screenshot(page, 'workbench-saved-tuned');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('what matters: under a search, the siegesim tune line that gives its answer, for the case on screen (a swept value off the sweep: the tuned copy)', async () => {
    const SC = 'fantasy/climbers-dc.yaml'; // sweeps wall.dc: [8, 12, 16]; 14 is none of its points
    const { page, problems } = await openPage(`?scenario=${SC}&attacker.infantry=10&wall.dc=14&trials=1024`);
    await doneWith(page, SC, { 'attacker.infantry': 10, 'wall.dc': 14 });
    await page.click('.tabs button[data-tab="reproduce"]');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
    const saved = await downloadText(download);
    await page.click('.tabs button[data-tab="matters"]');
    expect(await page.locator('#tune-repro').isVisible()).toBe(false); // no line before a search
    await page.selectOption('.tparam[data-i="0"] .tp-path', 'wall.dc');
    await page.selectOption('#tune-trials', '1024');
    await page.selectOption('#tune-budget', { index: 0 }); // the smallest budget: 50 x the trials
    await page.click('#tune-form button[type="submit"]');
    await expect.poll(() => page.locator('#tune-answer').textContent(), { timeout: 120_000, interval: 250 }).toMatch(/^(found|no candidate meets the target; closest): wall\.dc = \d+/);
    expect(await page.textContent('#tune-case')).toBe(
      'The search holds for one case, the one on screen: wall.dc = 14, attacker.infantry = 10 (variant "at-least-dc"); this command gives its candidates and numbers. ' +
        "Without --where, siegesim tune searches from the file's first sweep point (wall.dc = 8), another case. " +
        'Run it on the tuned copy (download YAML under Save & reproduce, saved as climbers-dc.tuned.yaml): its sweep gains wall.dc 14, the point whose dice the page rolled.',
    );
    // the range the page left to its default (the file's sweep) is written as searched: tune on the copy would span the copy's
    const copyDir = mkdtempSync(path.join(tmpdir(), 'siegesim-tune-line-'));
    writeFileSync(path.join(copyDir, 'climbers-dc.tuned.yaml'), saved);
    const { line } = await expectSearchOfLine(page, copyDir, path.join(copyDir, 'search'));
    rmSync(copyDir, { recursive: true, force: true });
    expect(line).toBe("npx siegesim tune climbers-dc.tuned.yaml --where wall.dc=14,attacker.infantry=10 --params wall.dc --target 'p_attacker_wins in [0.45, 0.55]' --range wall.dc=8..16 --trials 1024 --budget 51200 --seed 23");
    await page.addStyleTag({ content: '.top { position: static !important; }' }); // the part's picture without the sticky bar over it
    await screenshot(page, 'workbench-what-matters-tune-line', page.locator('#tune'));
    expect(problems()).toEqual([]);
    await page.close();
  }, 240_000);

  it('what matters: ranks the settings of the tuned case as a tornado, tunes two of them to targets, and uses the answer', async () => {
    const SC = 'fantasy/stone-wall-siege.yaml';
    const { page, problems } = await openPage(`?scenario=${SC}&wall.hp=40`);
    await doneWith(page, SC, { 'wall.hp': 40 });
    await page.click('.tabs button[data-tab="matters"]');
    // the ranking: the settings written in the file, turned from the case on screen
    await page.click('#sens-form button[type="submit"]');
    await expect.poll(() => page.locator('#sens-status').textContent(), { timeout: 120_000, interval: 250 }).toMatch(/^\d+ settings ranked by their effect on p_attacker_wins \(\d+\.\d% for wall\.hp = 40 at [\d,]+ trials per case, on the cards' dice(; the cards above: [\d,]+ trials)?\)/);
    await page.waitForSelector('#sens-chart svg');
    expect(await page.locator('#sens-chart svg .mark-rect path').count()).toBeGreaterThan(4); // the tornado's bars
    expect(await strayTornadoLabels(page, '#sens-chart svg'), 'a "→ value" label beside another bar').toEqual([]);
    const ranked = page.locator('#sens-table tr');
    expect(await ranked.count()).toBeGreaterThan(5);
    expect(await ranked.nth(1).locator('td').first().textContent()).toBe('1');
    expect(await ranked.nth(1).locator('.turn').first().textContent()).toMatch(/→ .*: [−+]?\d+\.\d+ pts \[-?\d+\.\d+ to -?\d+\.\d+\]/);
    // the command line that gives these numbers: the file as served (named from where the server runs) with --where for the value tuned
    expect(await page.textContent('#sens-case')).toBe('The ranking holds for one case, the one on screen: wall.hp = 40 (variant "as-written"); this command gives its numbers.');
    const out = mkdtempSync(path.join(tmpdir(), 'siegesim-sens-line-'));
    const { line } = await expectRankingOfLine(page, process.cwd(), out);
    rmSync(out, { recursive: true, force: true });
    expect(line).toMatch(/^npx siegesim sensitivity scenarios\/fantasy\/stone-wall-siege\.yaml --where wall\.hp=40 --metric p_attacker_wins --trials 4096 --seed \S+ --params [\w.,]+$/);
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'workbench-what-matters-tornado');
    // a search: wall HP and DC for one target (the designer picks them; "tune" in the ranking does too)
    await page.locator('#sens-table button[data-tune]').first().click();
    await page.selectOption('.tparam[data-i="0"] .tp-path', 'wall.hp');
    await page.selectOption('.tparam[data-i="1"] .tp-path', 'wall.dc');
    await page.selectOption('.tparam[data-i="2"] .tp-path', '');
    await page.selectOption('#tune-trials', '1024');
    expect(await page.inputValue('#targets .target .tg-metric')).toBe('p_attacker_wins');
    expect(await page.inputValue('#targets .target .tg-lo')).toBe('0.45');
    await page.click('#tune-form button[type="submit"]');
    const answer = page.locator('#tune-answer');
    await expect.poll(() => answer.textContent(), { timeout: 120_000, interval: 250 }).toMatch(/^found: wall\.hp = \d+, wall\.dc = \d+ meets the target \(/);
    // where the search started is worded so it never reads as a second answer (not "searched for wall.hp = 40, wall.dc = 14")
    const started = (await answer.locator('[data-role="started"]').textContent())!;
    expect(started).toMatch(/^ \(the search started from the (scenario as loaded|case on screen, where .+ was .+)\)$/);
    expect(started).not.toMatch(/ = /);
    await page.waitForSelector('#tune-chart svg');
    expect(await answer.locator('table.checks tr.met').count()).toBe(1);
    // met is good (green), not a direction: blue and orange mean up and down everywhere else
    expect(await answer.locator('table.checks tr.met td.status').evaluate((e) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(e).color)).toBe('rgb(29, 122, 70)');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'workbench-what-matters-tune');
    await page.addStyleTag({ content: '.top { position: static !important; }' }); // a part's picture without the sticky bar over it
    await screenshot(page, 'workbench-what-matters-tune-panel', page.locator('#tune'));
    await screenshot(page, 'workbench-what-matters-tornado-panel', page.locator('#sens'));
    // still beside their bars once the page has moved on (vega re-lays the chart out when the page changes around it)
    expect(await strayTornadoLabels(page, '#sens-chart svg'), 'a "→ value" label beside another bar').toEqual([]);
    // a second target no candidate meets with the first: the closest, plainly
    await page.click('#add-target');
    const second = page.locator('#targets .target').nth(1);
    await second.locator('.tg-metric').selectOption('mean_rounds');
    await second.locator('.tg-lo').fill('12');
    await second.locator('.tg-hi').fill('14');
    await page.click('#tune-form button[type="submit"]');
    await expect.poll(() => answer.textContent(), { timeout: 120_000, interval: 250 }).toMatch(/^no candidate meets all 2 targets; closest: wall\.hp = \d+, wall\.dc = \d+/);
    expect(await answer.locator('table.checks tr.missed').count()).toBeGreaterThan(0);
    // the longest sieges are at the most HP searched: the answer at the top of its range says so, and where to look next
    // in the page's words: its "from" and "to" boxes, never tune's --range; its button fills them in
    const edge = answer.locator('.edge').first();
    const said = /^wall\.hp = \d+ is the top of the range searched \((\d+)–(\d+)\): a better value may lie beyond it; set wall\.hp's “from” to (\d+) and “to” to (\d+) under settings to search, and search again set (\d+)–(\d+)$/.exec((await edge.textContent())!);
    expect(said, (await edge.textContent())!).not.toBeNull();
    expect(await answer.textContent()).not.toMatch(/--range|--\w/);
    await edge.locator('button.widen').click();
    const hpRow = page.locator('.tparam[data-i="0"]');
    expect([await hpRow.locator('.tp-lo').inputValue(), await hpRow.locator('.tp-hi').inputValue()]).toEqual([said![3], said![4]]);
    expect(Number(said![4])).toBeGreaterThan(Number(said![2]));
    await screenshot(page, 'workbench-what-matters-edge', answer);
    // a range typed the wrong way round, and a target's ends: refused in the page's words, each said once
    await hpRow.locator('.tp-lo').fill('80');
    await hpRow.locator('.tp-hi').fill('20');
    await page.click('#tune-form button[type="submit"]');
    await expect.poll(() => page.locator('#tune-status').textContent(), { timeout: 30_000, interval: 250 }).toBe('wall.hp from 80 to 20 must be whole numbers with "from" below "to"');
    await hpRow.locator('.tp-lo').fill('');
    await hpRow.locator('.tp-hi').fill('');
    await second.locator('.tg-lo').fill('14');
    await second.locator('.tg-hi').fill('12');
    await page.click('#tune-form button[type="submit"]');
    await expect.poll(() => page.locator('#tune-status').textContent(), { timeout: 30_000, interval: 250 }).toBe('target mean_rounds in [14, 12]: its low must be below its high');
    await screenshot(page, 'workbench-what-matters-refused', page.locator('#tune'));
    await second.locator('.tg-lo').fill('12');
    await second.locator('.tg-hi').fill('14');
    expect(await answer.locator('table.checks tr.missed td.status').first().evaluate((e) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(e).color)).toBe('rgb(179, 38, 30)');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'workbench-what-matters-closest');
    // stopped mid-way: the server's job ends too
    await page.selectOption('#tune-trials', '16384');
    await page.click('#tune-form button[type="submit"]');
    await expect.poll(() => page.locator('#tune-status').textContent(), { timeout: 60_000 }).toMatch(/candidates · /);
    await page.click('#tune-stop');
    expect(await page.locator('#tune-status').textContent()).toBe('stopped');
    // the job ends when the server sees the stopped fetch's connection close: a moment, or seconds with every core busy
    await expect.poll(() => wb.stats().open, { timeout: 30_000 }).toBe(0);
    // the closest answer's values go to the controls; the live results compare them with the file
    const best = /closest: wall\.hp = (\d+), wall\.dc = (\d+)/.exec((await answer.textContent())!)!;
    await page.click('#tune-apply');
    // (a value equal to the file's, wall.hp 30 or wall.dc 12, is not a change)
    const applied = Object.fromEntries([['wall.hp', Number(best[1]), 30], ['wall.dc', Number(best[2]), 12]].filter(([, v, file]) => v !== file).map(([p, v]) => [p, v]));
    await doneWith(page, SC, applied);
    expect(await page.locator('.tabs button[data-tab="results"]').getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).searchParams.get('wall.dc')).toBe(best[2] === '12' ? null : best[2]);
    // the two refusals asked for are the browser's console lines (a 4xx is logged by Chromium), nothing else
    expect(problems()).toEqual(Array(2).fill('console error: Failed to load resource: the server responded with a status of 400 (Bad Request)'));
    await page.close();
  });
});

/**
 * A workbench of its own over a temporary folder holding `files` (name → content), started
 * before the block's tests and stopped after them, with its one-thread pool.
 */
function servedFolder(prefix: string, files: () => Record<string, string | Buffer>): { readonly wb: Workbench } {
  const s = {} as { wb: Workbench; exec?: PoolExecutor; dir?: string };
  beforeAll(async () => {
    s.dir = mkdtempSync(path.join(tmpdir(), prefix));
    for (const [name, content] of Object.entries(files())) writeFileSync(path.join(s.dir, name), content);
    s.exec = new PoolExecutor(1);
    s.wb = await startWorkbench({ roots: rootsOf([s.dir]).roots, port: 0, executor: s.exec, log: () => {} });
  });
  afterAll(async () => {
    await s.wb?.close();
    await s.exec?.close();
    if (s.dir) rmSync(s.dir, { recursive: true, force: true });
  });
  return s;
}

describeBrowser('the workbench page with nothing valid to serve', () => {
  const served = servedFolder('siegesim-broken-', () => ({
    'bad-trials.yaml': 'name: broken\nsystem: surrender\nseed: 1\ntrials: -5\n',
    'utf16.yaml': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('name: x\n', 'utf16le')]),
  }));

  it('says so, with each file\'s problem on the page, and stops saying loading', async () => {
    const page = await newPage({ width: 1280, height: 720 });
    const problems = watchPage(page);
    await page.goto(served.wb.url);
    await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { empty?: boolean } }).__siegesim.empty === true, null, { timeout: 60_000, polling: 100 });
    expect(await page.locator('#status-text').textContent()).toBe('nothing to run');
    expect(await page.locator('#title').textContent()).toBe('No scenario to open');
    expect(await page.locator('.panel').isVisible()).toBe(false);
    const banner = (await page.locator('#banner').innerText()).split('\n');
    expect(banner[0]).toMatch(/^no valid scenario is served/);
    expect(banner).toContain(`bad-trials.yaml: line 4: trials: ${MSG.tooSmall(1, '-5')}`);
    expect(banner).toContain(`utf16.yaml: line 1: (file): ${MSG.utf16()}`);
    await screenshot(page, 'workbench-nothing-valid');
    expect(problems).toEqual([]);
    await page.close();
  });
});

describeBrowser('the workbench page, a link to a scenario since renamed', () => {
  // as the new-user audit served it: a folder whose first (here only) scenario has variants
  const FIRST = 'climbers-dc.yaml'; // variants at-least-dc (its first) and above-dc
  const served = servedFolder('siegesim-renamed-', () => ({ [FIRST]: readFileSync(path.join(ROOT, 'scenarios/fantasy/climbers-dc.yaml')) }));

  async function openLink(query: string) {
    const page = await newPage({ width: 1440, height: 960 });
    const problems = watchPage(page);
    await page.goto(`${served.wb.url}${query}`);
    await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim.ready === true, null, { timeout: 60_000, polling: 100 });
    // the first scenario's run at its file's values, done
    await page.waitForFunction(
      (sc) => (globalThis as unknown as { __siegesim: { runs: RunRecord[] } }).__siegesim.runs.some((r) => r.scenario === sc && JSON.stringify(r.values) === '{}' && r.doneMs !== null),
      FIRST,
      { timeout: 120_000, polling: 100 },
    );
    return { page, problems: () => notCancelled(problems) };
  }

  it('opens the first scenario at its own defaults, names the variant and setting it did not apply, and runs (was: the variant asked of it, a 422, no run)', async () => {
    const { page, problems } = await openLink('?scenario=renamed.yaml&variant=gone&wall.dc=14&trials=5000');
    const lines = (await page.locator('#link-banner').innerText()).split('\n');
    expect(lines).toEqual([
      'This link has values the page cannot use:',
      'scenario=renamed.yaml: not one of the served files (the first is opened)',
      `variant=gone, wall.dc=14: not applied (they are for renamed.yaml); ${FIRST} opens at its own defaults`,
    ]);
    // no error banner (it had `unknown variant "gone"` twice), the status is not "cannot be opened"
    expect(await page.locator('#banner').isHidden()).toBe(true);
    expect(await page.locator('#status-text').textContent()).not.toMatch(/cannot be opened/);
    expect(await page.locator('#title').textContent()).toBe('fantasy-climbers-dc');
    expect(await page.inputValue('#variant')).toBe('at-least-dc');
    expect(await page.inputValue('[id="in-wall.dc"]')).not.toBe('14');
    // the run's own setting of the link applies whichever scenario opens
    expect(await page.inputValue('#precision')).toBe('fixed');
    const runs = await page.evaluate(() => (globalThis as unknown as { __siegesim: { runs: RunRecord[] } }).__siegesim.runs);
    expect(runs.at(-1)!.trials).toBe(5000);
    const values = await page.locator('.card [data-role="value"]').allTextContents();
    expect(values.length).toBeGreaterThan(2);
    for (const v of values) expect(v).toMatch(/^\d+(\.\d+)?%$|^\d+\.\d+$/);
    // the address says what is open, not the other scenario's variant and setting
    const q = new URL(page.url()).searchParams;
    expect([q.get('scenario'), q.has('variant'), q.has('wall.dc'), q.get('trials')]).toEqual([FIRST, false, false, '5000']);
    await screenshot(page, 'workbench-renamed-link');
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('does not apply another scenario\'s variant because the first has one of that name', async () => {
    const { page, problems } = await openLink('?scenario=renamed.yaml&variant=above-dc&trials=5000');
    expect(await page.inputValue('#variant')).toBe('at-least-dc');
    expect(await page.locator('#link-banner').innerText()).toContain(`variant=above-dc: not applied (it is for renamed.yaml); ${FIRST} opens at its own defaults`);
    expect(new URL(page.url()).searchParams.has('variant')).toBe(false);
    expect(problems()).toEqual([]);
    await page.close();
  });

  it('the scenario known, its variant not: named, opened on its first variant, and it runs (as documented)', async () => {
    const { page, problems } = await openLink(`?scenario=${FIRST}&variant=gone&trials=5000`);
    expect((await page.locator('#link-banner').innerText()).split('\n').slice(1)).toEqual([`variant=gone: not a variant of ${FIRST} (one of: at-least-dc, above-dc); opened on at-least-dc`]);
    expect(await page.locator('#banner').isHidden()).toBe(true);
    expect(await page.locator('.card [data-role="value"]').count()).toBeGreaterThan(2);
    expect(problems()).toEqual([]);
    await page.close();
  });
});
