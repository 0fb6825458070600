#!/usr/bin/env node
// The workbench's latency as a designer feels it: from a control change to the first
// updated number on the page, and to the precision (±0.5 points on the headline by default),
// measured in headless Chromium by the page's own marks (window.__siegesim.runs: the input
// event to the first rendered number; to the final one). The built server (dist/) serves
// scenarios/ on 127.0.0.1 with its worker pool, as `siegesim serve` does.
//
//   npm run build && node bench/workbench.mjs [--changes N] [--check]
//
// Prints JSON (also bench/results/workbench.json): per scenario, the median and the worst of
// each latency over N changes (default 6), and the trials the precision took. `--check` exits 1
// when a median misses its target: first number <= 150 ms for the Crusader Rex reference battle
// and the surrender scenarios, <= 500 ms for the fantasy siege.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(path.join(ROOT, 'dist', p));
const { startWorkbench } = await dist('src/serve/server.js');
const { rootsOf } = await dist('src/serve/catalogue.js');
const { PoolExecutor } = await dist('src/engine/pool.js');
const { judgeTargets, missLines } = await import('./harness.mjs');

const args = process.argv.slice(2);
const changes = Number(args[args.indexOf('--changes') + 1]) || 6;
const check = args.includes('--check');
const CHROMIUM = process.env.SIEGESIM_CHROMIUM ?? '/usr/bin/chromium';

/** Each scenario and the values one control takes, change after change (never its loaded value: that is no change). */
const CASES = [
  { name: 'crusader_rex_reference', scenario: 'crusader-rex/reference-field-battle.yaml', path: 'blocks.0.steps', values: [3, 2, 1, 2, 3, 1] },
  { name: 'surrender_town_basic', scenario: 'surrender/town-basic.yaml', path: 'structure.surrender_level', values: [2, 4, 5, 2, 4, 5] },
  { name: 'surrender_fortress_readings', scenario: 'surrender/fortress-readings.yaml', path: 'structure.surrender_level', values: [3, 4, 5, 3, 4, 5] },
  { name: 'surrender_port_blockade', scenario: 'surrender/port-blockade.yaml', path: 'besieger.combat_units', values: [4, 6, 7, 4, 6, 7] },
  { name: 'fantasy_stone_wall_siege', scenario: 'fantasy/stone-wall-siege.yaml', path: 'wall.hp', values: [31, 32, 33, 34, 35, 36] },
  { name: 'fantasy_wall_hp_dc_grid', scenario: 'fantasy/wall-hp-dc-grid.yaml', path: 'wall.hp', values: [31, 32, 33, 34, 35, 36] },
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
};
const round = (x) => (x === null ? null : Math.round(x));

const exec = new PoolExecutor(availableParallelism());
exec.warm();
const wb = await startWorkbench({ roots: rootsOf([path.join(ROOT, 'scenarios')]).roots, port: 0, executor: exec, log: (l) => process.stderr.write(l + '\n') });
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const results = {};
try {
  for (const c of CASES) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${wb.url}?scenario=${c.scenario}`);
    await page.waitForFunction(() => globalThis.__siegesim.runs.length > 0, null, { timeout: 300_000 });
    const first = [];
    const done = [];
    const trials = [];
    for (let i = 0; i < Math.min(changes, c.values.length); i++) {
      const input = page.locator(`[id="in-${c.path}"]`);
      if ((await input.inputValue()) === String(c.values[i])) throw new Error(`${c.scenario}: ${c.path} is ${c.values[i]} as loaded: setting it is no change, and no run would come`);
      await input.fill(String(c.values[i]));
      await input.dispatchEvent('change');
      const want = JSON.stringify({ [c.path]: c.values[i] });
      await page.waitForFunction((w) => globalThis.__siegesim.runs.some((r) => JSON.stringify(r.values) === w && r.doneMs !== null), want, { timeout: 300_000 });
      const r = await page.evaluate((w) => globalThis.__siegesim.runs.filter((x) => JSON.stringify(x.values) === w).at(-1), want);
      first.push(r.firstMs);
      done.push(r.doneMs);
      trials.push(r.trials);
      // the next change starts from the same (loaded) state
      await page.click(`.ctl[data-path="${c.path}"] .reset`);
      await page.waitForFunction(() => globalThis.__siegesim.runs.at(-1).doneMs !== null && Object.keys(globalThis.__siegesim.runs.at(-1).values).length === 0, null, { timeout: 300_000 });
    }
    results[c.name] = {
      scenario: c.scenario,
      change: c.path,
      first_number_ms: { median: round(median(first)), max: round(Math.max(...first)) },
      precise_ms: { median: round(median(done)), max: round(Math.max(...done)) },
      trials_at_done: { median: median(trials), max: Math.max(...trials) },
    };
    process.stderr.write(`workbench ${c.name}: first number ${results[c.name].first_number_ms.median} ms (median), precise ${results[c.name].precise_ms.median} ms\n`);
    await page.close();
  }
} finally {
  await browser.close();
  await wb.close();
  await exec.close();
}

const targets = {
  'crusader_rex_reference.first_number_ms.median': { max: 150 },
  'surrender_town_basic.first_number_ms.median': { max: 150 },
  'surrender_fortress_readings.first_number_ms.median': { max: 150 },
  'surrender_port_blockade.first_number_ms.median': { max: 150 },
  'fantasy_stone_wall_siege.first_number_ms.median': { max: 500 },
  'fantasy_wall_hp_dc_grid.first_number_ms.median': { max: 500 },
};
const judged = judgeTargets(results, targets);
const doc = {
  name: 'workbench',
  node: process.version,
  cpu: cpus()[0]?.model,
  threads: availableParallelism(),
  load_average: loadavg().map((x) => +x.toFixed(2)),
  changes,
  results,
  targets: judged,
};
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/workbench.json'), JSON.stringify(doc, null, 2) + '\n');
process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
for (const line of missLines(judged)) process.stderr.write(line + '\n');
if (check && judged.some((t) => !t.pass)) process.exit(1);
