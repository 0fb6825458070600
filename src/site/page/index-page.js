// The static site's page (siegesim site): picks a bundled scenario, or takes one pasted, dropped
// or carried by the link (#yaml=, deflate-raw + base64url), and runs it in the run worker
// (run.js: validation, compile, the engine's chunks on one kernel worker per core, summarize).
// The answer refines as chunks merge; summary.json is the command line's for the same seed and
// trials. Nothing here talks to a server: every file it reads sits beside index.html.
// Bundled by `npm run build` (esbuild, a classic script) to dist/site/site.js, which `siegesim
// site` copies: its numbers are written by the workbench's own formatter.
import { fmtDiff, fmtDiffInterval, fmtInterval, fmtValue } from '../../serve/page/format.js';
import { answerMetrics, answerOrder } from '../../api/answer.js';

const $ = (id) => document.getElementById(id);
const state = {
  scenarios: [],
  /** The scenario shown: { kind: 'file', path } or { kind: 'yaml', text }. */
  current: undefined,
  id: 0,
  summary: undefined,
  headline: [],
  /** What the link asked that the page cannot show (a scenario it does not have, one cut short): said above every run's own messages until another scenario is picked. */
  linkProblems: [],
};
// what the browser tests read: readiness, every run's timings, the last summary.json's text
const probe = (globalThis.__siegesim = { ready: false, runs: [], summaryText: undefined, messages: [] });

// A page opened as a file (file://) starts no worker: the page's notice (api/site.ts FILE_NOTICE)
// says how to serve it, and nothing is run. Any other refusal to start one is said here.
const fromFile = location.protocol === 'file:';
let worker;
let workerRefused;
try {
  worker = new Worker(new URL('run.js', document.baseURI).href);
  worker.onerror = (e) => showMessages([`the run worker failed: ${e.message || 'unknown error'}`]);
  worker.onmessage = (e) => onEvent(e.data);
} catch (e) {
  workerRefused = `the browser would not start the run worker (${e.message}): nothing can run on this page`;
}

function showMessages(own) {
  const box = $('messages');
  const lines = [...state.linkProblems, ...own];
  probe.messages.push(...own);
  box.textContent = lines.join('\n');
  box.hidden = lines.length === 0;
}

function issueLine(i) {
  const where = i.line > 0 ? `${i.file}:${i.line}:${i.col}` : i.file;
  return `${where}  ${i.path}  ${i.message}`;
}

function escapeHtml(x) {
  return String(x).replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);
}

// ---------- numbers ----------
// The workbench's rule (serve/page/format.ts): a probability as a percentage with the decimals
// that keep it off 100% and 0% when it is not exactly so (0.99985 is 99.98%, not 100.0%); a
// difference with the decimals that keep it and its interval's ends off 0 (+0.01 pts, not
// +0.0), unsigned when it is exactly 0.
/** A difference's direction as every table of differences colours it: up or down when its 95% interval excludes 0, else flat (grey). */
function directionClass(d) {
  return d.ci_low > 0 ? 'up' : d.ci_high < 0 ? 'down' : 'flat';
}
function diffText(d, kind) {
  if (!d || !Number.isFinite(d.value)) return '';
  const prob = kind === 'probability';
  const interval = fmtDiffInterval(d, prob);
  return `Δ ${fmtDiff(d, prob)}${interval ? ` [${interval}]` : ''}`;
}

/**
 * The answer table: a row per case, a column per metric of the Answer, chosen by the rule of every
 * front end (api/answer.ts): the outcome partition whole (every way a trial ends: they sum to 1),
 * then the other headline metrics.
 */
function drawAnswer(cases, trials, planned) {
  const a = state.answer;
  const produced = (m) => cases.some((c) => c.metrics[m]);
  const names = a ? answerOrder(answerMetrics(a.headline, a.outcomes, produced, a.metrics, a.chosen)) : state.headline.filter(produced);
  const params = Object.keys(cases[0]?.params ?? {});
  const t = document.createElement('table');
  t.className = 'answer';
  const head = t.createTHead().insertRow();
  for (const h of ['case', 'variant', ...params, ...names]) {
    const th = document.createElement('th');
    th.textContent = h;
    head.appendChild(th);
  }
  const body = t.createTBody();
  for (const c of cases) {
    const row = body.insertRow();
    row.insertCell().textContent = String(c.case);
    row.insertCell().textContent = c.variant;
    for (const p of params) row.insertCell().textContent = String(c.params[p]);
    for (const m of names) {
      const cell = row.insertCell();
      cell.className = 'num';
      const metric = c.metrics[m];
      cell.dataset.metric = m;
      cell.innerHTML = '';
      const v = document.createElement('div');
      v.className = 'value';
      v.textContent = fmtValue(metric);
      const i = document.createElement('div');
      i.className = 'ci';
      i.textContent = fmtInterval(metric);
      cell.append(v, i);
      const d = c.differences?.[m];
      if (d) {
        const dd = document.createElement('div');
        dd.className = Number.isFinite(d.value) ? `diff ${directionClass(d)}` : 'diff';
        dd.textContent = diffText(d, metric?.kind);
        cell.append(dd);
      }
    }
  }
  const anyDiff = cases.some((c) => names.some((m) => c.differences?.[m]));
  const key = document.createElement('p');
  key.className = 'muted small key';
  key.innerHTML = `Δ: the difference from the baseline (${escapeHtml(cases[0]?.variant ?? '')}) on the same dice. <span class="key-up">Blue: up</span>, <span class="key-down">orange: down</span>, when its 95% interval excludes 0; grey when it holds 0. The colour shows the direction only, not whether it is good.`;
  $('answer').replaceChildren(t, ...(anyDiff ? [key] : []));
  $('status').textContent = `${trials.toLocaleString('en')} of ${planned.toLocaleString('en')} trials a case (seed ${runSeed})`;
}

// ---------- the worker's events ----------
const partials = new Map(); // point -> cases, for the run shown
let planned = 0;
let runSeed = ''; // the seed of the run shown (the file's, or the one typed)

function onEvent(ev) {
  if (ev.type === 'ready') {
    $('threads').textContent = `${ev.threads} kernel worker${ev.threads === 1 ? '' : 's'} (one per core)`;
    return;
  }
  if (ev.id !== state.id) return; // a run the page has moved on from
  const rec = probe.runs.find((r) => r.id === ev.id);
  if (ev.type === 'start') {
    partials.clear();
    planned = ev.trials;
    runSeed = String(ev.seed);
    state.headline = ev.headline;
    state.answer = ev.answer;
    $('title').textContent = ev.name;
    $('description').textContent = ev.description ?? '';
    $('status').textContent = `${ev.cases} case(s) x ${ev.trials.toLocaleString('en')} trials, on ${ev.threads} kernel worker(s)…`;
  } else if (ev.type === 'partial') {
    partials.set(ev.point, ev.cases);
    const cases = [...partials.keys()].sort((a, b) => a - b).flatMap((k) => partials.get(k));
    drawAnswer(cases, Math.min(...cases.map((c) => c.trials)), planned);
    if (rec && rec.firstMs === null) rec.firstMs = performance.now() - rec.t0;
  } else if (ev.type === 'done') {
    state.summary = ev.summary;
    const text = JSON.stringify(ev.summary, null, 2) + '\n';
    probe.summaryText = text;
    drawAnswer(ev.summary.cases.map((c) => ({ ...c, metrics: c.metrics, differences: c.differences ?? {} })), ev.summary.trials, planned);
    $('status').textContent += ` — done in ${(ev.ms / 1000).toFixed(2)} s`;
    $('download').disabled = false;
    if (rec) {
      rec.doneMs = performance.now() - rec.t0;
      if (rec.firstMs === null) rec.firstMs = rec.doneMs;
    }
  } else if (ev.type === 'invalid') {
    showMessages(ev.issues.map(issueLine));
    $('answer').replaceChildren();
    $('status').textContent = 'not run: the scenario has errors (above)';
    if (rec) rec.error = 'invalid';
  } else if (ev.type === 'error') {
    showMessages([ev.message]);
    $('status').textContent = 'not run';
    if (rec) rec.error = ev.message;
  }
}

// ---------- running ----------
async function textOf(cur) {
  if (cur.kind === 'yaml') return { file: cur.name ?? 'pasted.yaml', text: cur.text, source: cur.name ?? 'pasted' };
  const r = await fetch(new URL(cur.path, document.baseURI));
  if (!r.ok) throw new Error(`${cur.path}: ${r.status} ${r.statusText}`);
  return { file: cur.path, text: await r.text(), source: cur.path };
}

function readSettings() {
  const t = $('trials').value.trim();
  const s = $('seed').value.trim();
  const out = {};
  if (t !== '') {
    const n = Number(t);
    if (!Number.isInteger(n) || n < 1) throw new Error(`trials must be a whole number of at least 1 (got ${t})`);
    out.trials = n;
  }
  if (s !== '') out.seed = /^-?\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : s;
  return out;
}

async function runCurrent() {
  if (!worker || !state.current) return;
  const id = ++state.id;
  const t0 = performance.now();
  state.summary = undefined;
  $('download').disabled = true;
  showMessages([]);
  // the title says at once what is being run (a scenario with errors is named above its messages)
  const listed = state.current.kind === 'file' ? state.scenarios.find((s) => s.path === state.current.path) : undefined;
  const title = listed ? listed.name : state.current.kind === 'yaml' ? state.current.name ?? 'pasted.yaml' : state.current.path;
  if ($('title').textContent !== title || state.current.kind === 'yaml') {
    $('title').textContent = title;
    $('description').textContent = listed?.description ?? '';
    $('answer').replaceChildren(); // another scenario's numbers are not this one's
  }
  const rec = { id, t0, scenario: state.current.kind === 'file' ? state.current.path : 'yaml', firstMs: null, doneMs: null };
  probe.runs.push(rec);
  let src;
  let settings;
  try {
    settings = readSettings();
    src = await textOf(state.current);
  } catch (e) {
    rec.error = e.message;
    $('status').textContent = 'not run (see above)';
    return showMessages([e.message]);
  }
  if (id !== state.id) return;
  worker.postMessage({ type: 'run', id, ...src, ...settings });
  writeHash();
}

// ---------- the link ----------
function b64url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
function unb64url(s) {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('it is not base64url');
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}
const packYaml = async (text) => b64url(await pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw')));
const unpackYaml = async (s) => new TextDecoder('utf-8', { fatal: true }).decode(await pipe(unb64url(s), new DecompressionStream('deflate-raw')));

let hashWritten = '';
async function writeHash() {
  const p = new URLSearchParams();
  const cur = state.current;
  // the workbench link opens what is shown: the scenario (a pasted one in its own #yaml=), its trials and seed
  const w = new URLSearchParams();
  let packed = '';
  if (cur.kind === 'file') {
    p.set('scenario', cur.path);
    w.set('scenario', cur.path);
  } else {
    packed = await packYaml(cur.text);
    p.set('yaml', packed);
    w.set('scenario', `yours/${cur.name ?? 'pasted.yaml'}`);
  }
  const s = readSettingsSafe();
  if (s.trials !== undefined) p.set('trials', String(s.trials));
  if (s.seed !== undefined) p.set('seed', String(s.seed));
  if (s.trials !== undefined) w.set('trials', String(s.trials));
  if (s.seed !== undefined) w.set('seed', String(s.seed));
  $('to-workbench').href = `workbench.html?${w}${packed ? `#yaml=${packed}` : ''}`;
  hashWritten = `#${p}`;
  if (location.hash !== hashWritten) history.replaceState(null, '', hashWritten);
}
function readSettingsSafe() {
  try {
    return readSettings();
  } catch {
    return {};
  }
}

/** What the address asks for; a malformed link is said, and the first scenario shown instead. */
async function fromHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const problems = [];
  $('trials').value = p.get('trials') ?? '';
  $('seed').value = p.get('seed') ?? '';
  if (p.has('yaml')) {
    try {
      const text = await unpackYaml(p.get('yaml'));
      $('yaml').value = text; // to edit it and run it again
      return { cur: { kind: 'yaml', text, name: 'linked.yaml' }, problems };
    } catch (e) {
      const why = e instanceof TypeError || e.name === 'TypeError' ? 'it is not a compressed scenario' : e.message;
      problems.push(`the link's scenario cannot be read (${why}): it may have been cut short when it was copied`);
    }
  } else if (p.has('scenario')) {
    const want = p.get('scenario');
    if (state.scenarios.some((s) => s.path === want)) return { cur: { kind: 'file', path: want }, problems };
    problems.push(`the link names a scenario this site does not have: ${want.slice(0, 200)}`);
  }
  const first = state.scenarios[0];
  if (problems.length > 0 && first) problems.push(`showing ${first.name} instead`);
  return { cur: first ? { kind: 'file', path: first.path } : undefined, problems };
}

// ---------- wiring ----------
function fillPicker() {
  const sel = $('scenario');
  sel.replaceChildren();
  const bySystem = new Map();
  for (const s of state.scenarios) {
    if (!bySystem.has(s.system)) bySystem.set(s.system, []);
    bySystem.get(s.system).push(s);
  }
  for (const [sys, list] of bySystem) {
    const g = document.createElement('optgroup');
    g.label = sys;
    for (const s of list) g.append(new Option(s.name, `file:${s.path}`));
    sel.append(g);
  }
  if (state.current?.kind === 'yaml') sel.append(new Option(`${state.current.name ?? 'pasted.yaml'} (yours)`, 'yaml'));
  sel.value = state.current?.kind === 'file' ? `file:${state.current.path}` : 'yaml';
}

async function useYaml(text, name) {
  state.current = { kind: 'yaml', text, name };
  state.linkProblems = [];
  fillPicker();
  await runCurrent();
}

async function start() {
  if (!worker) {
    const p = document.createElement('p');
    p.className = 'muted';
    p.textContent = fromFile ? 'not running: this page was opened as a file (see above)' : 'not running';
    $('answer').replaceChildren(p);
    if (!fromFile) showMessages([workerRefused]);
    probe.ready = true;
    return;
  }
  try {
    const r = await fetch(new URL('scenarios/index.json', document.baseURI));
    if (!r.ok) throw new Error(`scenarios/index.json: ${r.status} ${r.statusText}`);
    state.scenarios = (await r.json()).scenarios;
  } catch (e) {
    showMessages([`the site's list of scenarios cannot be read: ${e.message}`]);
  }
  const { cur, problems } = await fromHash();
  state.current = cur;
  probe.messages.push(...problems);
  // the link's problems stay above the run's own (a trials= it cannot take is said too, not replaced by them)
  state.linkProblems = problems;
  fillPicker();
  showMessages([]);
  if (state.current) await runCurrent();
  probe.ready = true;
}

$('scenario').addEventListener('change', (e) => {
  const v = e.target.value;
  state.linkProblems = []; // another scenario picked: what the link asked is no longer on screen
  if (v.startsWith('file:')) state.current = { kind: 'file', path: v.slice(5) };
  runCurrent();
});
for (const id of ['trials', 'seed']) $(id).addEventListener('change', () => runCurrent());
$('use-yaml').addEventListener('click', () => useYaml($('yaml').value, 'pasted.yaml'));
$('download').addEventListener('click', () => {
  if (!state.summary) return;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([JSON.stringify(state.summary, null, 2) + '\n'], { type: 'application/json' }));
  a.download = 'summary.json';
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
});
$('share').addEventListener('click', async () => {
  await writeHash();
  try {
    await navigator.clipboard.writeText(location.href);
    $('share').textContent = 'link copied';
  } catch {
    $('share').textContent = 'link in the address bar';
  }
  setTimeout(() => ($('share').textContent = 'copy link'), 1500);
});
addEventListener('hashchange', async () => {
  if (location.hash === hashWritten) return;
  const { cur, problems } = await fromHash();
  if (cur) state.current = cur;
  probe.messages.push(...problems);
  state.linkProblems = problems;
  fillPicker();
  showMessages([]);
  await runCurrent();
});
addEventListener('dragover', (e) => {
  e.preventDefault();
  document.body.classList.add('dragging');
});
addEventListener('dragleave', () => document.body.classList.remove('dragging'));
addEventListener('drop', async (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  const f = e.dataTransfer?.files?.[0];
  if (!f) return;
  if (!/\.ya?ml$/i.test(f.name)) return showMessages([`${f.name} is not a .yaml file: drop a scenario's .yaml (or paste its text)`]);
  if (f.size > 1_000_000) return showMessages([`${f.name} is ${f.size.toLocaleString('en')} bytes: a scenario is a few kilobytes`]);
  const text = await f.text();
  $('yaml').value = text;
  await useYaml(text, f.name);
});
start();
