// The static site's speed as a person meets it (bench/run.mjs's `site` group, run when named):
// the built folder (`siegesim site`) served by a plain static server, opened in headless Chromium
// (the system package through playwright-core; never a downloaded browser).
//
// - kernel: the site's own kernel worker (dist/site/kernel.js, as the page starts it) against
//   a Node worker thread running the same chunks with the engine's batch runner (dist/src),
//   warm, alternating; three rounds, each with fresh workers on both sides, each side's best
//   round's median (kernelRows). Judged on the CPU time of the thread that ran the kernel (Linux
//   /proc/<pid>/task/<tid>/schedstat: the Web Worker's thread in Chromium's renderer, Node's
//   worker thread), because on a shared machine a thread's wall time mostly measures its
//   neighbours; wall clock beside it.
// - first_number_ms: workbench.html, a control changed (the event dispatched in the page), until
//   the first number of the new case is on screen (the page no longer marked stale, the next
//   frame begun): wall clock, median of the changes; first_number_cpu_ms beside it is the CPU
//   the browser's processes spent in that window.
// - first_load_seconds: a fresh browser context (empty cache) from navigation to the first
//   number painted, for workbench.html and for index.html.
// - bundle_gzip_mb: every script of the built site, gzipped (level 9), in MB (10^6 bytes).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** Where the system's Chromium is (SIEGESIM_CHROMIUM to name another). */
export const CHROMIUM = process.env.SIEGESIM_CHROMIUM ?? '/usr/bin/chromium';

/** One scenario of each system for the kernel rows; chunks per timed batch so a batch runs ~50-200 ms. */
const KERNEL_CASES = [
  { system: 'surrender', file: 'scenarios/surrender/town-basic.yaml', chunks: 4 },
  { system: 'crusader-rex', file: 'scenarios/crusader-rex/reference-field-battle.yaml', chunks: 8 },
  { system: 'fantasy', file: 'scenarios/fantasy/stone-wall-siege.yaml', chunks: 4 },
  { system: 'cry-havoc', file: 'scenarios/cry-havoc/melee-unhorse-the-knight.yaml', chunks: 4 },
];

/** The workbench cases a control is changed in: the site's file and the control's id. */
const CHANGE_CASES = [
  { system: 'crusader-rex', file: 'scenarios/crusader-rex-reference-field-battle.yaml', control: 'in-turns' },
  { system: 'surrender', file: 'scenarios/surrender-town-basic.yaml', control: 'in-turns' },
  { system: 'fantasy', file: 'scenarios/fantasy-stone-wall-siege.yaml', control: 'in-wall.hp' },
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** A thread's CPU time so far, ns (0 where /proc cannot tell). */
function threadNs(pid, tid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

/** Every thread of this process's descendants (Chromium's processes), as [pid, tid]. */
function childThreads() {
  const kids = new Map();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const s = readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(p));
    } catch {
      // the process ended while the list was read
    }
  }
  const out = [];
  const todo = [...(kids.get(process.pid) ?? [])];
  while (todo.length > 0) {
    const p = todo.pop();
    todo.push(...(kids.get(p) ?? []));
    try {
      for (const t of readdirSync(`/proc/${p}/task`)) out.push([p, Number(t)]);
    } catch {
      // gone
    }
  }
  return out;
}

/** CPU ns of every descendant thread, by "pid/tid". */
const snapshot = () => new Map(childThreads().map(([p, t]) => [`${p}/${t}`, threadNs(p, t)]));
const deltas = (a, b) => [...b].map(([k, x]) => x - (a.get(k) ?? 0));

/** A static server of `dir` (GET only, no cache headers beyond the defaults: as plain as python3 -m http.server). */
function staticServer(dir) {
  const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.yaml': 'text/yaml' };
  const server = createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.join(dir, rel.endsWith('/') ? `${rel}index.html` : rel);
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

/**
 * The site group's figures. `dist(p)` imports a built module. Without Chromium the group is
 * skipped: `{ skipped: why }`, said on stderr too.
 */
export async function siteBench({ root, dist, reps = 5 }) {
  if (!existsSync(CHROMIUM)) {
    const why = `no Chromium at ${CHROMIUM} (install the system package, or set SIEGESIM_CHROMIUM): the site bench never downloads a browser`;
    process.stderr.write(`bench site: skipped: ${why}\n`);
    return { skipped: why };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'siegesim-bench-site-'));
  const built = spawnSync(process.execPath, [path.join(root, 'dist/src/cli/main.js'), 'site', '--out', dir, '--force'], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`siegesim site failed: ${built.stderr}`);
  const scripts = [];
  const walk = (d) => {
    for (const n of readdirSync(d)) {
      const f = path.join(d, n);
      if (statSync(f).isDirectory()) walk(f);
      else if (n.endsWith('.js')) scripts.push(f);
    }
  };
  walk(dir);
  const gzipBytes = scripts.reduce((a, f) => a + gzipSync(readFileSync(f), { level: 9 }).length, 0);
  const { server, origin } = await staticServer(dir);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const kernel = await kernelRows(browser, origin, root, dist, reps);
    const first_load_seconds = {};
    for (const pageName of ['workbench', 'index']) {
      const runs = [];
      for (let k = 0; k < 3; k++) runs.push(await firstLoad(browser, `${origin}/${pageName}.html`, pageName));
      first_load_seconds[pageName] = +median(runs).toFixed(3);
    }
    const { first_number_ms, first_number_cpu_ms } = await firstNumbers(browser, origin, reps);
    return { chromium: CHROMIUM, kernel, first_number_ms, first_number_cpu_ms, first_load_seconds, bundle_gzip_mb: +(gzipBytes / 1e6).toFixed(3), scripts: scripts.length };
  } finally {
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rounds of the kernel rows, each with a fresh kernel worker on each side (a fresh V8 isolate). */
const KERNEL_ROUNDS = 3;

/**
 * Node's side of a kernel row: a fresh worker thread (its own V8 isolate, as each Web Worker is)
 * that runs `tasks` with the engine's batch runner and answers each batch's CPU time of its own
 * thread (/proc/thread-self/schedstat) and wall time, ms.
 */
async function nodeBatches(root, tasks) {
  const { Worker } = await import('node:worker_threads');
  const { pathToFileURL } = await import('node:url');
  const url = (p) => JSON.stringify(pathToFileURL(path.join(root, 'dist', p)).href);
  const src = `
    import { readFileSync } from 'node:fs';
    import { parentPort, workerData } from 'node:worker_threads';
    const { runBatch } = await import(${url('src/engine/chunk.js')});
    const { KERNELS } = await import(${url('src/systems/kernels.js')});
    const ns = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    const out = [];
    for (const task of workerData) {
      const n0 = ns();
      const t0 = performance.now();
      runBatch(KERNELS[task.system], task);
      out.push({ wall: performance.now() - t0, cpu: (ns() - n0) / 1e6 });
    }
    parentPort.postMessage(out);`;
  const w = new Worker(src, { eval: true, type: 'module', workerData: tasks });
  try {
    return await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
  } finally {
    await w.terminate();
  }
}

/**
 * Each system's kernel in the site's own kernel worker against Node on the same batches. A
 * process's V8 settles on code of its own speed for a kernel (fresh processes running the same
 * Crusader Rex batches differ by up to 1.6x after warm-up), so each round starts a fresh worker
 * on each side, runs two warm-up batches and `reps` timed ones (the sides alternating), and
 * each side's figure is its best round's median: the speed each environment reaches, not one
 * draw of its JIT's state.
 */
async function kernelRows(browser, origin, root, dist, reps) {
  const { validateText, compilePoints, jobsOf } = await dist('src/api/run.js');
  const page = await browser.newPage();
  await page.goto(`${origin}/index.html`);
  const rows = {};
  for (const c of KERNEL_CASES) {
    const v = validateText(c.file, readFileSync(path.join(root, c.file), 'utf8'));
    if (!v.ok) throw new Error(`${c.file}: ${v.issues[0].message}`);
    const job = jobsOf(v.value, compilePoints(v.value))[0];
    const C = v.value.system.chunkTrials;
    const task = (r) => ({ ...job, seed: v.value.seed, first: r * c.chunks, sizes: Array(c.chunks).fill(C) });
    const tasks = Array.from({ length: reps + 2 }, (_, r) => task(r));
    const rounds = [];
    for (let round = 0; round < KERNEL_ROUNDS; round++) {
      // the site's kernel worker, started as the page starts it, answering { id, task }
      await page.evaluate(() => {
        globalThis.__kw?.terminate();
        const w = (globalThis.__kw = new Worker('kernel.js'));
        globalThis.__batch = (task) =>
          new Promise((resolve, reject) => {
            const t0 = performance.now();
            w.onmessage = (e) => (e.data.error ? reject(new Error(e.data.error)) : resolve(performance.now() - t0));
            w.postMessage({ id: 1, task });
          });
      });
      const web = [];
      const webWall = [];
      for (const [r, t] of tasks.entries()) {
        const a = snapshot();
        const wall = await page.evaluate((x) => globalThis.__batch(x), t);
        const cpu = Math.max(0, ...deltas(a, snapshot())) / 1e6; // the busiest thread: the kernel worker's
        if (r < 2) continue; // two warm-up batches
        web.push(cpu);
        webWall.push(wall);
      }
      const node = (await nodeBatches(root, tasks)).slice(2);
      rounds.push({
        web: median(web),
        webWall: median(webWall),
        node: median(node.map((x) => x.cpu)),
        nodeWall: median(node.map((x) => x.wall)),
      });
    }
    const best = (k) => Math.min(...rounds.map((r) => r[k]));
    rows[c.system] = {
      scenario: c.file,
      trials_per_batch: c.chunks * C,
      node_cpu_ms: +best('node').toFixed(1),
      browser_cpu_ms: +best('web').toFixed(1),
      browser_over_node: +(best('node') / best('web')).toFixed(3),
      browser_over_node_wall: +(best('nodeWall') / best('webWall')).toFixed(3),
      rounds: rounds.map((r) => ({ node_cpu_ms: +r.node.toFixed(1), browser_cpu_ms: +r.web.toFixed(1) })),
    };
  }
  await page.close();
  return rows;
}

/** Navigation to the first number painted, in a fresh context (nothing cached), seconds. */
async function firstLoad(browser, url, pageName) {
  const ctx = await browser.newContext();
  try {
    const page = await ctx.newPage();
    await page.goto(url, { waitUntil: 'commit' });
    const shown =
      pageName === 'workbench'
        ? () => /\d/.test(document.querySelector('.card [data-role="value"]')?.textContent ?? '') && !document.body.classList.contains('stale')
        : () => /\d/.test(document.querySelector('#answer .value')?.textContent ?? '');
    await page.waitForFunction(shown, null, { timeout: 120_000, polling: 'raf' });
    return await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(performance.now() / 1000))));
  } finally {
    await ctx.close();
  }
}

async function firstNumbers(browser, origin, reps) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
  await page.goto(`${origin}/workbench.html`);
  await page.waitForFunction(() => globalThis.__siegesim?.ready === true, null, { timeout: 120_000 });
  const first_number_ms = {};
  const first_number_cpu_ms = {};
  for (const c of CHANGE_CASES) {
    await page.selectOption('#scenario', c.file);
    await page.waitForFunction((f) => globalThis.__siegesim.runs.some((r) => r.scenario === f && r.doneMs !== null), c.file, { timeout: 240_000 });
    const base = Number(await page.inputValue(`[id="${c.control}"]`));
    const wall = [];
    const cpu = [];
    for (let i = 0; i <= reps; i++) {
      const done = await page.evaluate(() => globalThis.__siegesim.runs.length);
      const a = snapshot();
      const ms = await page.evaluate(
        ({ id, value }) =>
          new Promise((resolve) => {
            const input = document.getElementById(id);
            const t0 = performance.now();
            input.value = String(value);
            input.dispatchEvent(new Event('input', { bubbles: true }));
            input.dispatchEvent(new Event('change', { bubbles: true }));
            let stale = false;
            const frame = () => {
              if (document.body.classList.contains('stale')) stale = true;
              else if (stale) return requestAnimationFrame(() => resolve(performance.now() - t0));
              requestAnimationFrame(frame);
            };
            frame();
          }),
        { id: c.control, value: base + 1 + i }, // a new value each time: nothing is a case seen before
      );
      const used = deltas(a, snapshot()).reduce((x, y) => x + y, 0) / 1e6;
      // the run finishes and its charts are drawn before the next change, as a person reads the
      // answer before changing again
      await page.waitForFunction((n) => globalThis.__siegesim.runs.length > n, done, { timeout: 240_000 });
      await page.waitForTimeout(1000);
      wall.push(ms);
      cpu.push(used);
    }
    first_number_ms[c.system] = Math.round(median(wall));
    first_number_cpu_ms[c.system] = Math.round(median(cpu));
  }
  await page.close();
  return { first_number_ms, first_number_cpu_ms };
}
