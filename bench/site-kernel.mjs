#!/usr/bin/env node
// The kernels' speed in the browser (the static site's Web Workers) against Node's, on the same
// machine: the same chunks of one scenario of each system run by the engine's batch runner, in
// Node's main thread and in a dedicated Web Worker of headless Chromium (the system package,
// /usr/bin/chromium, through playwright-core). Each side runs `--reps` batches after a warm-up
// one; the figure is the ratio of their median trials/s. The site aims at >= 0.7 (its kernels
// within 70% of Node's): `--check` exits 1 when a system's ratio is below it.
//
//   node bench/site-kernel.mjs [--reps 7] [--check]
import { build } from 'esbuild';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const reps = Number(args[args.indexOf('--reps') + 1]) > 0 && args.includes('--reps') ? Number(args[args.indexOf('--reps') + 1]) : 7;
const check = args.includes('--check');
const TARGET = 0.7;
const CHROMIUM = process.env.SIEGESIM_CHROMIUM ?? '/usr/bin/chromium';

// one scenario of each system; chunks per batch so a batch takes tens of milliseconds or more
const CASES = [
  { file: 'scenarios/surrender/town-basic.yaml', chunks: 2 },
  { file: 'scenarios/crusader-rex/reference-field-battle.yaml', chunks: 4 },
  { file: 'scenarios/fantasy/stone-wall-siege.yaml', chunks: 4 },
  { file: 'scenarios/cry-havoc/melee-unhorse-the-knight.yaml', chunks: 4 },
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const bundle = await build({
  entryPoints: [path.join(ROOT, 'bench/site-kernel-entry.mjs')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  logLevel: 'warning',
});
const js = bundle.outputFiles[0].text;
const server = createServer((req, res) => {
  if (req.url === '/bench.js') {
    res.writeHead(200, { 'Content-Type': 'text/javascript' });
    return res.end(js);
  }
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end('<!doctype html><title>kernel bench</title>');
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;

// Node: the same entry, bundled for Node (so both sides run the same code)
const tmp = mkdtempSync(path.join(tmpdir(), 'siegesim-site-kernel-'));
const nodeFile = path.join(tmp, 'bench.cjs');
await build({ entryPoints: [path.join(ROOT, 'bench/site-kernel-entry.mjs')], bundle: true, format: 'cjs', platform: 'node', target: 'node20', outfile: nodeFile, logLevel: 'warning' });
const { timeKernel } = createRequire(import.meta.url)(nodeFile);
rmSync(tmp, { recursive: true, force: true });

const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
const rows = [];
try {
  const page = await browser.newPage();
  await page.goto(`${origin}/`);
  for (const c of CASES) {
    const text = readFileSync(path.join(ROOT, c.file), 'utf8');
    // warm-up batch, then `reps` timed ones, alternating sides so load changes hit both alike
    timeKernel(text, 1, 1);
    const inBrowser = (n) =>
      page.evaluate(
        ({ text, chunks, reps }) =>
          new Promise((resolve, reject) => {
            const w = new Worker('/bench.js');
            w.onmessage = (e) => (w.terminate(), e.data.error ? reject(new Error(e.data.error)) : resolve(e.data));
            w.onerror = (e) => reject(new Error(e.message));
            w.postMessage({ text, chunks, reps });
          }),
        { text, chunks: c.chunks, reps: n },
      );
    const node = [];
    const web = [];
    let trials = 0;
    for (let i = 0; i < reps; i++) {
      const b = await inBrowser(2); // a fresh worker each time: its first batch warms it up, its second is timed
      web.push(b.ms[1]);
      const n = timeKernel(text, c.chunks, 2);
      node.push(n.ms[1]);
      trials = n.trials;
    }
    const nodeRate = trials / (median(node) / 1000);
    const webRate = trials / (median(web) / 1000);
    rows.push({ scenario: c.file, trials_per_batch: trials, node_trials_per_second: Math.round(nodeRate), browser_trials_per_second: Math.round(webRate), ratio: Number((webRate / nodeRate).toFixed(3)) });
  }
} finally {
  await browser.close();
  server.close();
}
const doc = { benchmark: 'site-kernel', reps, target_ratio: TARGET, chromium: CHROMIUM, node: process.version, rows };
process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
const missed = rows.filter((r) => r.ratio < TARGET);
if (check && missed.length > 0) {
  process.stderr.write(missed.map((r) => `site-kernel: ${r.scenario} runs at ${r.ratio} of Node's speed in the browser (target >= ${TARGET})\n`).join(''));
  process.exit(1);
}
