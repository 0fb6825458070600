// siegesim workbench: the page. Plain ES module, no build step, nothing from the network.
// It asks the server (src/serve/server.ts) for the scenarios and their controls, streams runs as
// NDJSON, and draws the systems' own Vega-Lite charts with vega-embed.

const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null) e.append(c instanceof Node ? c : String(c));
  return e;
};

/**
 * This tab's id: the server keeps one live run and one sweep per tab. An identifier, not dice:
 * from the browser's crypto (getRandomValues also where randomUUID is missing, on a plain-http
 * page served beyond this machine), never from a non-cryptographic generator.
 */
const CLIENT = crypto.randomUUID
  ? crypto.randomUUID()
  : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
/**
 * URL keys of the sweep tab: `sweep` once per parameter (`wall.hp:20..60:10`, an even range from
 * 20 to 60 in steps of 10, or `wall.hp:10,20,40`, those values in that order), its metric, its
 * target and its trials per point.
 */
const SWEEP_KEYS = ['sweep', 'sweep_metric', 'sweep_target', 'sweep_trials'];
/** URL keys that are not scenario values (scenario keys no system can tune, and the sweep's own). */
const RESERVED = new Set(['scenario', 'variant', 'seed', 'trials', 'precision', 'max_trials', ...SWEEP_KEYS]);

const state = {
  list: [],
  info: null, // /api/scenario answer
  controls: new Map(), // path -> { c, row, get(), set(v), errorEl }
  values: {}, // tuned values (dotted path -> value), only those that differ from the file
  live: null, // AbortController of the live run
  sweep: null, // ... of the sweep, the ranking and the tuning search (one of each per tab)
  sens: null,
  tune: null,
  seq: 0,
  last: null, // last done/partial event of the live run
  changeAt: 0,
  metricsSeen: [],
};

/** Latency marks the browser tests read: time from a change to the first number, and to the precision. */
window.__siegesim = { runs: [], ready: false };

// ---------- formatting ----------
const isProb = (m) => m && m.kind !== 'mean';
/** x.toFixed(d), with more decimals where fewer would write a non-zero x as 0 (which side of 0 it lies on must show), never "-0" (report/format.ts fixedSide). */
const fixedSide = (x, d) => {
  if (x === 0) return (0).toFixed(d);
  for (let k = d; k <= 10; k++) {
    const s = x.toFixed(k);
    if (Number(s) !== 0) return s;
  }
  return x.toExponential(1);
};
const pct = (x, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : `${fixedSide(x * 100, digits)}%`);
const num = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : fixedSide(x, Math.abs(x) >= 100 ? 1 : Math.abs(x) >= 10 ? 2 : 3));
const fmtValue = (m) => (!m ? '–' : isProb(m) ? pct(m.value) : num(m.value));
const fmtInterval = (m) => (!m || m.ci_low === null ? '' : isProb(m) ? `${fixedSide(m.ci_low * 100, 1)}–${fixedSide(m.ci_high * 100, 1)}%` : `${num(m.ci_low)}–${num(m.ci_high)}`);
const signed = (x, f) => (x > 0 ? '+' : x < 0 ? '−' : '±') + f(Math.abs(x));
const fmtDiff = (d, prob) => (!d || d.value === null ? '–' : prob ? `${signed(d.value, (v) => fixedSide(v * 100, 1))} pts` : signed(d.value, num));
// the ends keep their side of 0: an interval coloured as clear of 0 never reads "0.0 to 0.3", nor one end "-0.0"
const fmtDiffInterval = (d, prob) => (!d || d.ci_low === null ? '' : prob ? `${fixedSide(d.ci_low * 100, 1)} to ${fixedSide(d.ci_high * 100, 1)}` : `${num(d.ci_low)} to ${num(d.ci_high)}`);
/** A conditional mean's difference whose event moved: the two values average different trials (systems/conditional.ts). */
const overText = (d) => (d && d.over_different_trials ? `over different trials: ${d.over_different_trials.event} ${pct(d.over_different_trials.from)} → ${pct(d.over_different_trials.to)}` : '');
const halfWidth = (m) => (m && m.ci_low !== null ? (m.ci_high - m.ci_low) / 2 : NaN);
const int = (n) => Number(n).toLocaleString('en-US');
// the browser tests read the page's own formatting (issue 31: an interval's text and its colour agree)
Object.assign(window.__siegesim, { format: { fmtDiff, fmtDiffInterval, fmtInterval, num } });
const label = (metric) => metric.replace(/^p_/, 'P ').replace(/^mean_/, 'mean ').replace(/_/g, ' ');

// ---------- server ----------
async function getJson(url) {
  const r = await fetch(url, { headers: { Accept: 'application/json' } });
  const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw Object.assign(new Error(body.error || `HTTP ${r.status}`), { body, status: r.status });
  return body;
}

async function postJson(url, payload) {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Siegesim-Client': CLIENT }, body: JSON.stringify(payload) });
  const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw Object.assign(new Error(body.error || `HTTP ${r.status}`), { body, status: r.status });
  return body;
}

/** POST and read NDJSON events; resolves when the stream ends. A 4xx rejects with the server's issues. */
async function stream(url, payload, signal, onEvent) {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Siegesim-Client': CLIENT }, body: JSON.stringify(payload), signal });
  if (!r.ok) {
    const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
    throw Object.assign(new Error(body.error || `HTTP ${r.status}`), { body, status: r.status });
  }
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) onEvent(JSON.parse(line));
    }
  }
}

// ---------- scenario picker ----------
async function loadList() {
  const { scenarios } = await getJson('/api/scenarios');
  state.list = scenarios;
  const sel = $('#scenario');
  sel.replaceChildren();
  const groups = new Map();
  for (const s of scenarios) {
    const folder = s.path.includes('/') ? s.path.slice(0, s.path.lastIndexOf('/')) : '';
    if (!groups.has(folder)) groups.set(folder, []);
    groups.get(folder).push(s);
  }
  for (const [folder, items] of groups) {
    const parent = folder ? el('optgroup', { label: folder }) : sel;
    for (const s of items) {
      const base = s.path.slice(s.path.lastIndexOf('/') + 1).replace(/\.ya?ml$/i, '');
      parent.append(el('option', { value: s.path, title: s.description || s.error || '', disabled: s.error ? true : undefined }, s.error ? `${base} (invalid)` : base));
    }
    if (folder) sel.append(parent);
  }
}

// ---------- controls ----------
/** What a control is as loaded: the file's value or the default, or what the system makes of an "auto" one (`auto`). */
function loadedOf(c) {
  return c.value === undefined ? c.auto : c.value;
}

function buildControls() {
  const root = $('#controls');
  root.replaceChildren();
  state.controls.clear();
  const info = state.info;
  const byGroup = new Map(info.groups.map((g) => [g.path, []]));
  for (const c of info.controls) byGroup.get(c.group)?.push(c);
  for (const g of info.groups) {
    const list = byGroup.get(g.path) ?? [];
    const details = el('details', { class: `group${g.inFile ? ' infile' : ''}`, open: g.inFile || g.path === '' ? true : undefined, 'data-group': g.path });
    const count = list.filter((c) => c.inFile).length;
    const note = count > 0 ? `${count} in file` : g.inFile ? '' : 'defaults';
    details.append(el('summary', {}, el('span', { class: 'gname', text: g.label || 'scenario' }), el('span', { class: 'gcount muted', text: note })));
    for (const c of list) details.append(controlRow(c));
    root.append(details);
  }
  applyFilter();
}

function controlRow(c) {
  const name = c.path.slice(c.group ? c.group.length + 1 : 0);
  const row = el('div', { class: `ctl${c.inFile ? ' infile' : ''}`, 'data-path': c.path, title: c.description || '' });
  const head = el('div', { class: 'ctl-head' }, el('label', { class: 'ctl-name', for: `in-${c.path}`, text: name }));
  const loaded = el('span', { class: 'loaded muted', title: 'the value in the file (or the default)' });
  const reset = el('button', { type: 'button', class: 'reset', title: 'back to the loaded value', 'aria-label': `reset ${c.path}`, text: '↺' });
  head.append(loaded, reset);
  const body = el('div', { class: 'ctl-body' });
  const error = el('div', { class: 'ctl-error', role: 'alert' });
  let get;
  let set;
  if (c.kind === 'boolean') {
    const box = el('input', { type: 'checkbox', id: `in-${c.path}` });
    box.addEventListener('change', () => changed(c.path, 'change'));
    body.append(box, el('span', { class: 'muted', text: c.description ? ` ${c.description}` : '' }));
    get = () => box.checked;
    set = (v) => (box.checked = v === true);
    loaded.textContent = c.value === undefined ? '' : `${c.inFile ? 'file' : 'default'}: ${c.value ? 'yes' : 'no'}`;
  } else if (c.kind === 'enum') {
    const mark = c.inFile ? ' (file)' : ' (default)';
    const sel = el('select', { id: `in-${c.path}` }, c.value === undefined ? el('option', { value: '', text: '(auto)' }) : null, c.options.map((o) => el('option', { value: o, text: o === c.value ? `${o}${mark}` : o })));
    sel.addEventListener('change', () => changed(c.path, 'change'));
    body.append(sel);
    get = () => (sel.value === '' ? undefined : sel.value);
    set = (v) => (sel.value = v === undefined ? '' : String(v));
    loaded.textContent = c.value === undefined ? 'auto' : '';
  } else {
    // the slider's ends and step: the server's (api/tunables.ts sliderOf), so that a decimal steps by solve's resolution
    const r = c.slider;
    const auto = c.value === undefined && typeof c.auto === 'number' ? c.auto : undefined; // e.g. a block's steps: its full strength
    const input = el('input', { type: 'number', id: `in-${c.path}`, class: 'num', step: c.kind === 'int' ? 1 : 'any', min: c.min, max: c.max, placeholder: auto === undefined ? 'auto' : `${auto} auto` });
    const slider = el('input', { type: 'range', min: r.lo, max: r.hi, step: r.step, 'aria-label': `${c.path} slider`, tabindex: -1 });
    const mark = el('span', { class: 'mark', title: `loaded: ${c.value ?? (auto === undefined ? 'auto' : `auto (${auto})`)}` });
    const sliderWrap = el('div', { class: 'slider' }, slider, mark);
    const at = loadedOf(c);
    if (typeof at === 'number') mark.style.left = `calc(${((at - r.lo) / (r.hi - r.lo || 1)) * 100}% )`;
    else mark.hidden = true;
    input.addEventListener('input', () => {
      if (input.value !== '' && Number.isFinite(Number(input.value))) slider.value = input.value;
      sliderWrap.classList.toggle('auto', input.value === '');
      changed(c.path, 'input');
    });
    input.addEventListener('change', () => changed(c.path, 'change'));
    slider.addEventListener('input', () => {
      input.value = slider.value;
      sliderWrap.classList.remove('auto');
      changed(c.path, 'input');
    });
    slider.addEventListener('change', () => changed(c.path, 'change'));
    body.append(input, sliderWrap);
    get = () => {
      if (input.value.trim() === '') return undefined;
      const n = Number(input.value);
      return Number.isFinite(n) ? n : input.value; // not a number: the server says why
    };
    set = (v) => {
      input.value = v === undefined ? '' : String(v);
      if (typeof v === 'number') slider.value = String(v);
      else if (v === undefined) slider.value = String(auto ?? r.lo);
      sliderWrap.classList.toggle('auto', v === undefined);
    };
    loaded.textContent = c.value === undefined ? (auto === undefined ? 'auto' : `auto: ${auto}`) : `${c.inFile ? 'file' : 'default'}: ${c.value}`;
    const bounds = [c.min !== undefined ? `min ${c.min}` : '', c.max !== undefined ? `max ${c.max}` : ''].filter(Boolean).join(', ');
    if (bounds) row.title = `${c.description ? c.description + '\n' : ''}${bounds}`;
  }
  reset.addEventListener('click', () => {
    set(c.value);
    changed(c.path, 'change');
  });
  row.append(head, body, error);
  set(c.value);
  state.controls.set(c.path, { c, row, get, set, error });
  return row;
}

/** Show only the settings whose path contains the filter's text. */
function applyFilter() {
  const q = $('#filter').value.trim().toLowerCase();
  for (const d of document.querySelectorAll('#controls details')) {
    let any = false;
    for (const row of d.querySelectorAll('.ctl')) {
      const hit = !q || row.dataset.path.toLowerCase().includes(q);
      row.hidden = !hit;
      any ||= hit;
    }
    d.hidden = !any;
    if (q && any) d.open = true;
  }
}

/** A control moved: recompute the tuned values, follow in the URL, rerun (throttled while dragging; not at all when 'quiet'). */
let pending = null;
let lastStart = 0;
function changed(path, how) {
  const ctl = state.controls.get(path);
  const v = ctl.get();
  // an "auto" value set to what the system makes of it is no change (a block's steps at its full strength)
  const same = JSON.stringify(v) === JSON.stringify(ctl.c.value) || (v === undefined && ctl.c.value === undefined) || (v !== undefined && v === ctl.c.auto);
  if (same) delete state.values[path];
  else if (v === undefined) delete state.values[path];
  else state.values[path] = v;
  ctl.row.classList.toggle('changed', !same);
  ctl.error.textContent = '';
  ctl.row.classList.remove('invalid');
  syncUrl();
  renderChanges();
  if (how === 'quiet') return; // several values at once: the caller runs once after the last
  state.changeAt = performance.now();
  performance.mark('siegesim:change');
  const now = performance.now();
  clearTimeout(pending);
  if (how === 'change' || now - lastStart > 60) runLive();
  else pending = setTimeout(runLive, 60 - (now - lastStart));
}

function renderChanges() {
  const box = $('#changes');
  box.replaceChildren();
  const entries = Object.entries(state.values);
  if (entries.length === 0) {
    box.append(el('span', { class: 'muted', text: 'as loaded: change a value to compare' }));
    return;
  }
  for (const [p, v] of entries) {
    const ctl = state.controls.get(p);
    const from = ctl ? (ctl.c.value !== undefined ? String(ctl.c.value) : ctl.c.auto !== undefined ? `auto (${ctl.c.auto})` : 'auto') : '?';
    box.append(
      el(
        'button',
        { type: 'button', class: `chip${ctl?.row.classList.contains('invalid') ? ' bad' : ''}`, 'data-path': p, title: `${p}: ${from} → ${v} (click to reset)`, onclick: () => (ctl ? (ctl.set(ctl.c.value), changed(p, 'change')) : (delete state.values[p], syncUrl(), renderChanges(), runLive())) },
        el('b', { text: p }),
        ` ${from} → ${v} `,
        el('span', { class: 'x', text: '×' }),
      ),
    );
  }
}

function markIssues(issues) {
  const general = [];
  for (const i of issues ?? []) {
    const ctl = i.path ? state.controls.get(i.path) : undefined;
    if (ctl) {
      ctl.error.textContent = i.message;
      ctl.row.classList.add('invalid');
      ctl.row.closest('details').open = true;
      document.querySelector(`.chip[data-path="${CSS.escape(i.path)}"]`)?.classList.add('bad');
    } else general.push(i.path ? `${i.path}: ${i.message}` : i.message);
  }
  return general;
}

function clearIssues() {
  for (const ctl of state.controls.values()) {
    ctl.error.textContent = '';
    ctl.row.classList.remove('invalid');
  }
  banner();
}

function banner(lines, kind = 'error', where = '#banner') {
  const b = $(where);
  if (!lines || lines.length === 0) {
    b.hidden = true;
    return;
  }
  b.className = `banner ${kind}`;
  b.replaceChildren(...lines.map((l) => el('div', { text: l })));
  b.hidden = false;
}

/** The link's problems (#link-banner): every part of the link the page could not use, said once, kept until the page is left. */
const linkProblems = [];
function addLinkProblems(lines) {
  linkProblems.push(...lines.filter((l) => !linkProblems.includes(l)));
  if (linkProblems.length > 0) banner(['This link has values the page cannot use:', ...linkProblems], 'error', '#link-banner');
}

/**
 * A link's values the scenario cannot take (a setting it does not have, a value out of range):
 * each is named in the link's banner and dropped, its control back at the file's value, so that
 * the rest of the link runs and shows numbers (issue 31: one bad value left every card empty).
 */
async function dropBadLinkValues(raw) {
  const { path: scenario, variant } = state.info;
  for (let pass = 0; pass < 3 && Object.keys(state.values).length > 0; pass++) {
    let r;
    try {
      r = await postJson('/api/check', { scenario, variant, values: state.values });
    } catch {
      return; // the run says what is wrong
    }
    if (state.info?.path !== scenario) return;
    const bad = (r.issues ?? []).filter((i) => i.path && Object.prototype.hasOwnProperty.call(state.values, i.path));
    if (r.ok || bad.length === 0) return;
    const lines = [];
    for (const i of bad) {
      if (!Object.prototype.hasOwnProperty.call(state.values, i.path)) continue;
      delete state.values[i.path];
      const ctl = state.controls.get(i.path);
      if (ctl) {
        ctl.set(ctl.c.value);
        ctl.row.classList.remove('changed');
      }
      const kept = ctl ? `the file's ${ctl.c.value ?? 'auto'} used` : 'not used';
      lines.push(`${i.path}=${raw[i.path] ?? ''}: ${i.message} (${kept})`);
    }
    addLinkProblems(lines);
  }
}

// ---------- URL ----------
function syncUrl() {
  const q = new URLSearchParams();
  q.set('scenario', state.info.path);
  if (state.info.variant !== state.info.variants[0]) q.set('variant', state.info.variant);
  for (const [p, v] of Object.entries(state.values)) q.set(p, String(v));
  const prec = $('#precision').value;
  if (prec === 'fixed') q.set('trials', $('#fixed-trials').value);
  else if (prec !== '0.005') q.set('precision', prec);
  if (prec !== 'fixed' && $('#cap').value !== '2000000') q.set('max_trials', $('#cap').value);
  // the sweep once edited on the page (as it was set up, it is the scenario's own: no need to say)
  const sweep = sweepQuery();
  if (state.sweepDefault !== undefined && JSON.stringify(sweep) !== state.sweepDefault) for (const [k, v] of sweep) q.append(k, v);
  const url = `${location.pathname}?${q.toString().replace(/%2F/g, '/').replace(/%3A/g, ':').replace(/%2C/g, ',')}`;
  history.replaceState(null, '', url);
  $('#link').textContent = location.href;
}

/** Values from the address bar, typed as their controls need. */
function valuesFromUrl(q) {
  const out = {};
  for (const [k, raw] of q) {
    if (RESERVED.has(k)) continue;
    const ctl = state.controls.get(k);
    const kind = ctl?.c.kind;
    let v = raw;
    if (kind === 'boolean') v = raw === 'true' ? true : raw === 'false' ? false : raw;
    else if ((kind === 'int' || kind === 'number' || !ctl) && raw.trim() !== '' && Number.isFinite(Number(raw))) v = Number(raw);
    out[k] = v;
  }
  return out;
}

// ---------- opening a scenario ----------
async function openScenario(path, variant, fromUrl) {
  state.sweep?.abort();
  state.live?.abort();
  state.sens?.abort();
  state.tune?.abort();
  let info;
  try {
    info = await getJson(`/api/scenario?path=${encodeURIComponent(path)}${variant ? `&variant=${encodeURIComponent(variant)}` : ''}`);
  } catch (e) {
    banner([e.message, ...(e.body?.issues ?? []).map((i) => i.message)]);
    setStatus('error', 'this scenario cannot be opened');
    return false;
  }
  state.info = info;
  state.values = {};
  state.last = null;
  $('#scenario').value = info.path;
  $('#title').textContent = info.name;
  $('#description').textContent = info.description;
  // who the metrics' attacker and defender are, as loaded (the report's "Who is who")
  $('#sides').textContent = (info.sides ?? []).length > 0 ? `Who is who (as loaded): ${info.sides.join(' ')}` : '';
  $('#sides').hidden = (info.sides ?? []).length === 0;
  document.title = `${info.name} — siegesim workbench`;
  const vsel = $('#variant');
  vsel.replaceChildren(...info.variants.map((v) => el('option', { value: v, text: v })));
  vsel.value = info.variant;
  $('#variant-wrap').hidden = info.variants.length < 2;
  buildControls();
  clearIssues();
  setupSweep();
  setupMatters();
  $('#headline').replaceChildren();
  $('#metrics').replaceChildren();
  $('#charts').replaceChildren();
  let sweepProblems = null;
  if (fromUrl) {
    sweepProblems = sweepFromUrl(fromUrl);
    const vals = valuesFromUrl(fromUrl);
    for (const [p, v] of Object.entries(vals)) {
      const ctl = state.controls.get(p);
      if (ctl) {
        ctl.set(v);
        const same = JSON.stringify(v) === JSON.stringify(ctl.c.value);
        ctl.row.classList.toggle('changed', !same);
        if (!same) state.values[p] = v;
      } else state.values[p] = v; // not a control: the server says what is wrong with it (dropBadLinkValues)
    }
    await dropBadLinkValues(Object.fromEntries(fromUrl));
    if (state.info?.path !== path) return false;
  }
  syncUrl();
  renderChanges();
  state.changeAt = performance.now();
  runLive();
  if (sweepProblems) linkedSweep(sweepProblems);
  return true;
}

/** The most trials a live run may have (the server's LIMITS.maxTrials). */
const MAX_TRIALS = 100_000_000;
const TRIALS_TAKE = `a whole number of trials from 1 to ${int(MAX_TRIALS)}`;

/** trials=, precision= and max_trials= of a link set the top bar; what is wrong with them, said (each left at its default). */
function runSettingsFromUrl(q) {
  const problems = [];
  const options = (sel) => [...$(sel).options].map((o) => o.value);
  if (q.has('trials')) {
    const t = q.get('trials');
    if (/^\d+$/.test(t.trim()) && Number(t) >= 1 && Number(t) <= MAX_TRIALS) {
      $('#precision').value = 'fixed';
      $('#fixed-trials').value = String(Number(t));
    } else problems.push(`trials=${t}: ${TRIALS_TAKE} (the run refines to the precision instead)`);
  }
  if (q.has('precision') && $('#precision').value !== 'fixed') {
    const p = q.get('precision');
    const ok = options('#precision').filter((o) => o !== 'fixed');
    if (ok.includes(p)) $('#precision').value = p;
    else problems.push(`precision=${p}: one of ${ok.join(', ')} (the headline's 95% half-width; ${$('#precision').value} used)`);
  }
  if (q.has('max_trials')) {
    const m = q.get('max_trials');
    if (options('#cap').includes(m)) $('#cap').value = m;
    else problems.push(`max_trials=${m}: one of ${options('#cap').join(', ')} (${$('#cap').value} used)`);
  }
  return problems;
}

// ---------- the live run ----------
/** The top bar's run settings, or the problem with the trials typed. */
function runSettings() {
  const prec = $('#precision').value;
  if (prec === 'fixed') {
    const t = $('#fixed-trials').value.trim();
    if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > MAX_TRIALS) return { error: `trials: ${TRIALS_TAKE}, got "${t}"` };
    return { trials: Number(t) };
  }
  return { precision: Number(prec), maxTrials: Number($('#cap').value) };
}

async function runLive() {
  lastStart = performance.now();
  state.live?.abort();
  const ac = new AbortController();
  state.live = ac;
  const seq = ++state.seq;
  const changeAt = state.changeAt || performance.now();
  const record = { seq, scenario: state.info.path, values: { ...state.values }, firstMs: null, doneMs: null, trials: 0, reached: null };
  let first = true;
  setStatus('running', 'starting…');
  document.body.classList.add('stale');
  const settings = runSettings();
  if (settings.error) {
    // never a silent 1-trial run: nothing runs until the trials are a number it can run
    setStatus('error', settings.error);
    document.body.classList.remove('stale');
    return;
  }
  const payload = { scenario: state.info.path, variant: state.info.variant, values: state.values, ...settings };
  try {
    if (Object.keys(state.values).length > 0) {
      // the values first (a 200 either way): a value being typed is not a failed request
      const chk = await postJson('/api/check', { scenario: payload.scenario, variant: payload.variant, values: payload.values });
      if (state.live !== ac) return;
      if (!chk.ok) throw Object.assign(new Error('invalid values'), { body: { error: 'invalid values', issues: chk.issues } });
    }
    await stream('/api/run', payload, ac.signal, (ev) => {
      if (state.live !== ac) return;
      if (ev.type === 'start') {
        state.start = ev;
        clearIssues();
        return;
      }
      if (ev.type === 'partial' || ev.type === 'done') {
        state.last = ev;
        renderResults(ev);
        preferProduced(ev.cases[0].metrics);
        if (ev.charts) renderCharts(ev.charts);
        if (first) {
          first = false;
          record.firstMs = performance.now() - changeAt;
          performance.measure('siegesim:first-number', { start: changeAt, end: performance.now() });
          document.body.classList.remove('stale');
        }
        record.trials = ev.trials;
        if (ev.type === 'done') {
          record.doneMs = performance.now() - changeAt;
          record.reached = ev.precision ? ev.precision.reached : null;
          performance.measure('siegesim:done', { start: changeAt, end: performance.now() });
          window.__siegesim.runs.push(record);
        }
        renderStatus(ev);
        renderCommand(ev.trials);
      } else if (ev.type === 'error') {
        setStatus('error', ev.message);
      }
    });
  } catch (e) {
    if (e.name === 'AbortError' || state.live !== ac) return;
    document.body.classList.remove('stale');
    if (e.body) {
      const general = markIssues(e.body.issues);
      banner(general.length > 0 ? general : e.body.issues?.length ? [] : [e.message]);
      setStatus('error', e.body.issues?.length ? 'a value is not valid: see the marked setting' : e.message);
      document.body.classList.add('stale');
    } else setStatus('error', `the server did not answer (${e.message}); is siegesim serve still running?`);
  }
}

function setStatus(kind, text) {
  const s = $('#status');
  s.dataset.state = kind;
  $('#status-text').textContent = text;
}

function renderStatus(ev) {
  const headline = state.start?.headline ?? [];
  let widest = 0;
  for (const c of ev.cases) for (const h of headline) if (c.metrics[h]) widest = Math.max(widest, halfWidth(c.metrics[h]) || 0);
  const prec = state.start?.precision;
  const target = prec ? ` (target ±${(prec * 100).toFixed(prec < 0.005 ? 2 : 1)})` : '';
  const secs = `${(ev.ms / 1000).toFixed(2)} s`;
  const text = `${int(ev.trials)} trials · widest interval ±${(widest * 100).toFixed(2)} pts${target} · ${secs}`;
  if (ev.type === 'partial') setStatus('running', `refining… ${text}`);
  else if (ev.precision && !ev.precision.reached) setStatus('capped', `trial cap reached: ${text}`);
  else setStatus('done', `${prec ? 'precise' : 'done'}: ${text}`);
}

/** A metric's tooltip: its name and what it counts (the server's metricDocs, the report's definitions). */
function metricTitle(m) {
  const d = state.info?.metricDocs?.[m];
  return d ? `${m}: ${d}` : m;
}

function renderResults(ev) {
  const loaded = ev.cases.find((c) => c.variant === 'as loaded') ?? ev.cases[0];
  const tuned = ev.cases.find((c) => c.variant === 'tuned');
  // the columns of the report's Answer, sent by the server with each case (src/report/html.ts answerMetrics)
  const { lead = [], outcome, also } = loaded.answer;
  const headline = [...lead, ...outcome, ...also];
  const card = (h) => {
    const shown = (tuned ?? loaded).metrics[h];
    const base = loaded.metrics[h];
    const d = tuned?.differences[h];
    const prob = isProb(shown);
    const sig = d && d.ci_low !== null && (d.ci_low > 0 || d.ci_high < 0);
    return el(
      'div',
      { class: 'card', 'data-metric': h },
      el('div', { class: 'card-name', text: label(h), title: metricTitle(h) }),
      el('div', { class: 'card-value', 'data-role': 'value', text: fmtValue(shown) }),
      el('div', { class: 'card-ci muted', 'data-role': 'interval', text: shown ? `95%: ${fmtInterval(shown)}` : '' }),
      tuned
        ? el(
            'div',
            { class: `card-diff ${sig ? (d.value > 0 ? 'up' : 'down') : 'flat'}`, 'data-role': 'difference' },
            el('span', { class: 'delta', text: fmtDiff(d, prob) }),
            el('span', { class: 'muted', text: ` [${fmtDiffInterval(d, prob)}]` }),
            el('div', { class: 'muted small', text: `vs ${fmtValue(base)} as loaded${sig ? '' : ' · not significant'}` }),
            overText(d) ? el('div', { class: 'over small', 'data-role': 'over', text: overText(d) }) : null,
          )
        : el('div', { class: 'card-diff flat muted small', text: 'as loaded' }),
    );
  };
  // a group of cards, named when the answer has an outcome partition (as the report's Answer is)
  const group = (kind, name, metrics) =>
    el(
      'div',
      { class: `card-group ${kind}`, 'data-group': kind, style: `flex: ${metrics.length} 1 ${metrics.length * 194}px` },
      name ? el('div', { class: 'card-group-name', text: name }) : null,
      el('div', { class: 'cards' }, ...metrics.map(card)),
    );
  const named = outcome.length > 0;
  // a scenario's headline: the metrics it names before the partition (its question) come first
  $('#headline').replaceChildren(
    ...(lead.length > 0 ? [group('lead', named ? '\u00a0' : '', lead)] : []),
    ...(named ? [group('outcome', 'how each trial ends (one of these, so they sum to 1)', outcome)] : []),
    ...(also.length > 0 ? [group('also', named ? 'also' : '', also)] : []),
  );
  // every metric: as loaded, tuned, paired difference
  const table = $('#metrics');
  const names = state.info.metrics.filter((m) => loaded.metrics[m]);
  const rows = [el('tr', {}, el('th', { class: 'l', text: 'metric' }), el('th', { text: 'as loaded' }), tuned ? el('th', { text: 'tuned' }) : null, tuned ? el('th', { text: 'difference (paired)' }) : null)];
  for (const m of names) {
    const a = loaded.metrics[m];
    const b = tuned?.metrics[m];
    const d = tuned?.differences[m];
    const prob = isProb(a);
    const sig = d && d.ci_low !== null && (d.ci_low > 0 || d.ci_high < 0);
    rows.push(
      el(
        'tr',
        { class: headline.includes(m) ? 'head' : '' },
        el('td', { class: 'l', title: metricTitle(m), text: m }),
        el('td', {}, el('span', { text: fmtValue(a) }), el('span', { class: 'ci', text: ` ${fmtInterval(a)}` })),
        tuned ? el('td', {}, el('span', { text: fmtValue(b) }), el('span', { class: 'ci', text: ` ${fmtInterval(b)}` })) : null,
        tuned
          ? el(
              'td',
              { class: sig ? (d.value > 0 ? 'up' : 'down') : 'flat' },
              el('span', { text: fmtDiff(d, prob) }),
              el('span', { class: 'ci', text: d ? ` [${fmtDiffInterval(d, prob)}]` : '' }),
              overText(d) ? el('div', { class: 'over', 'data-role': 'over', text: overText(d) }) : null,
            )
          : null,
      ),
    );
  }
  table.replaceChildren(...rows);
}

const views = new Map(); // chart name -> vega view (finalized on redraw)
const EMBED = { actions: { export: true, source: false, compiled: false, editor: false }, ast: true, renderer: 'svg' };

/** vega-embed's right padding beside a chart with actions: where its "⋯" button sits. */
const EMBED_ACTIONS_WIDTH = 38;

/** An element's content width (inside its padding). */
function contentWidth(box) {
  const cs = getComputedStyle(box);
  return box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
}

/** Draw a Vega-Lite spec in a box, replacing what it showed, unless `current()` turned false meanwhile. */
async function embedInto(box, spec, current = () => true) {
  const target = el('div', { class: 'vis' });
  const r = await window.vegaEmbed(target, spec, EMBED);
  if (!current()) return r.finalize();
  box.view?.finalize();
  box.view = r;
  box.replaceChildren(target);
  box.hidden = false;
}

async function renderCharts(charts) {
  if (!window.vegaEmbed) return;
  const box = $('#charts');
  const names = new Set(charts.map((c) => c.name));
  for (const fig of [...box.children]) if (!names.has(fig.dataset.name)) (views.get(fig.dataset.name)?.finalize(), fig.remove());
  for (const ch of charts) {
    let fig = box.querySelector(`figure[data-name="${CSS.escape(ch.name)}"]`);
    if (!fig) {
      fig = el('figure', { class: 'chart', 'data-name': ch.name }, el('div', { class: 'vis' }), el('figcaption', { class: 'muted', text: ch.title }));
      box.append(fig);
    }
    const target = el('div', { class: 'vis' });
    try {
      const r = await window.vegaEmbed(target, ch.spec, EMBED);
      views.get(ch.name)?.finalize();
      views.set(ch.name, r);
      fig.querySelector('.vis').replaceWith(target);
      fig.querySelector('figcaption').textContent = ch.title;
    } catch (e) {
      fig.querySelector('figcaption').textContent = `${ch.title} (could not be drawn: ${e.message})`;
    }
  }
}

// ---------- save and reproduce ----------
function renderCommand(trials) {
  if (!state.start) return;
  const cmd = `${state.start.command} --trials ${trials}`;
  $('#command').textContent = cmd;
  const tuned = Object.keys(state.start.changed ?? {}).length > 0;
  const sweep = state.info.sweep.length > 0;
  const variant = state.info.variant;
  let note = tuned
    ? `After saving the tuned YAML (download it above), this run writes what the "tuned" column shows as case 1, variant "${variant}" of its own report (the saved file is named ${state.info.tunedName}: reports/${state.info.tunedName}/), byte for byte.`
    : `This run writes what the page shows as case 1, variant "${variant}" of its report, byte for byte.`;
  const sw = state.start.sweep;
  if (sweep && sw) {
    const words = (o) => Object.entries(o).map(([p, x]) => `${p} = ${x}`).join(', ');
    const gains = Object.entries(sw.gains ?? {});
    note = sw.at
      ? `The file sweeps ${state.info.sweep.map((s) => s.path).join(', ')}: the command runs its whole grid, and its case ${words(sw.at)}, variant "${variant}", is what the ${tuned ? '"tuned" column' : 'page'} shows, byte for byte (each sweep point rolls its own dice: the page rolls that point's).` +
        (gains.length > 0 ? ` The saved file's sweep gains ${gains.map(([p, x]) => `${p} ${x}`).join(', ')} for it (and says so in its description).` : '') +
        (tuned ? ` Save the tuned YAML first (named ${state.info.tunedName}: reports/${state.info.tunedName}/).` : '')
      : `The file sweeps ${state.info.sweep.map((s) => s.path).join(', ')} and the case shown is at none of its points: the command runs the grid, not this case.`;
  }
  $('#command-note').textContent = note;
}

async function save() {
  try {
    const r = await postJson('/api/save', { scenario: state.info.path, variant: state.info.variant, values: state.values });
    const blob = new Blob([r.yaml], { type: 'application/yaml' });
    const a = el('a', { href: URL.createObjectURL(blob), download: r.filename });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
    $('#save-name').textContent = r.changed
      ? ` saved as ${r.filename}: a scenario of its own, named ${r.name} (its report goes to reports/${r.name}/, the original's stays as it is)` +
        (Object.keys(r.gains ?? {}).length > 0
          ? `; its sweep gains ${Object.entries(r.gains).map(([p, x]) => `${p} ${x}`).join(', ')}, so that its run has the case tuned`
          : '')
      : ` saved as ${r.filename} (nothing tuned: the file as it is)`;
    // expect: items the tuned case no longer matches: said plainly, and how the copy holds them (each reason in full on hover, and in the file)
    const stale = r.stale ?? [];
    const kept = stale.filter((x) => x.commented);
    const left = stale.filter((x) => !x.commented);
    const items = (xs) => xs.map((x) => `expect[${x.index}] ${x.metric}`).join(', ');
    const n = (xs, one, many) => (xs.length === 1 ? one : many);
    const box = $('#save-stale');
    box.textContent = [
      kept.length > 0
        ? `${n(kept, 'One expect: item no longer matches', `${kept.length} expect: items no longer match`)} the tuned case (${items(kept)}): the copy keeps ${n(kept, 'it as a comment', 'them as comments')} under the reason, so siegesim validate takes the copy and test judges what still matches; edit ${n(kept, 'it', 'them')} back in once ${n(kept, 'it matches', 'they match')}.`
        : '',
      left.length > 0
        ? `${n(left, 'One expect: item no longer matches', `${left.length} expect: items no longer match`)} the tuned case (${items(left)}) and could not be kept as comments: siegesim run goes on without ${n(left, 'it', 'them')}, siegesim validate and test refuse the copy until ${n(left, 'it is', 'they are')} edited.`
        : '',
    ].filter(Boolean).join(' ');
    box.title = stale.map((x) => `expect[${x.index}]: ${x.message}`).join('\n');
    $('#save-stale').hidden = stale.length === 0;
    const pre = $('#yaml-preview');
    pre.textContent = r.yaml;
    pre.hidden = false;
  } catch (e) {
    markIssues(e.body?.issues);
    $('#save-name').textContent = ` not saved: ${e.message}`;
    $('#save-stale').hidden = true;
  }
}

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const t = el('textarea', { style: 'position:fixed;opacity:0' });
    t.value = text;
    document.body.append(t);
    t.select();
    document.execCommand('copy');
    t.remove();
  }
  const old = button.textContent;
  button.textContent = 'copied';
  setTimeout(() => (button.textContent = old), 1200);
}

// ---------- sweep and solve ----------
function numericControls() {
  return state.info.controls.filter((c) => c.kind === 'int' || c.kind === 'number');
}

function setupSweep() {
  const form = $('#sweep-form');
  const nums = numericControls();
  for (const axis of form.querySelectorAll('.axis')) {
    const sel = $('.axis-path', axis);
    const keep = axis.dataset.axis === '1' ? [el('option', { value: '', text: '(no second parameter)' })] : [];
    sel.replaceChildren(...keep, ...nums.map((c) => el('option', { value: c.path, text: c.path })));
    sel.onchange = () => fillAxis(axis);
    $('.axis-kind', axis).onchange = (e) => switchAxisKind(axis, e.target.value);
    for (const i of axis.querySelectorAll('.axis-range input')) i.oninput = () => noteAxis(axis);
  }
  const metric = $('#sweep-metric');
  metric.replaceChildren(...state.info.metrics.map((m) => el('option', { value: m, text: m })));
  metric.value = state.info.headline[0];
  const trials = $('#sweep-trials');
  const C = state.info.chunkTrials;
  trials.replaceChildren(...[1, 2, 4, 8, 16].map((k) => el('option', { value: C * k, text: int(C * k) })));
  // the file's own sweep, or the first numeric value written in the file
  const axes = form.querySelectorAll('.axis');
  const fileSweep = state.info.sweep.filter((s) => nums.some((c) => c.path === s.path));
  const first = fileSweep[0]?.path ?? nums.find((c) => c.inFile)?.path ?? nums[0]?.path ?? '';
  $('.axis-path', axes[0]).value = first;
  fillAxis(axes[0], fileSweep[0]?.spec);
  $('.axis-path', axes[1]).value = fileSweep[1]?.path ?? '';
  fillAxis(axes[1], fileSweep[1]?.spec);
  $('#sweep-target').value = '';
  $('#sweep-status').textContent = '';
  $('#sweep-answer').hidden = true;
  $('#sweep-chart').replaceChildren();
  state.sweepDefault = JSON.stringify(sweepQuery());
}

/** The sweep form as URL pairs (see SWEEP_KEYS): each parameter's values, the metric, the target, the trials per point. */
function sweepQuery() {
  const out = [];
  for (const axis of document.querySelectorAll('#sweep-form .axis')) {
    const path = $('.axis-path', axis).value;
    if (!path) continue;
    const words = $('.axis-values', axis).value.split(/[\s,;]+/).filter((w) => w !== '');
    const [from, to, step] = [$('.axis-from', axis), $('.axis-to', axis), $('.axis-step', axis)].map((i) => i.value.trim());
    out.push(['sweep', `${path}:${axis.dataset.kind === 'list' ? words.join(',') : `${from}..${to}:${step}`}`]);
  }
  out.push(['sweep_metric', $('#sweep-metric').value]);
  const t = $('#sweep-target').value.trim();
  if (t !== '') out.push(['sweep_target', t]);
  out.push(['sweep_trials', $('#sweep-trials').value]);
  return out;
}

/**
 * Set the sweep form from a link's SWEEP_KEYS. Returns null when the link has no sweep, else the
 * problems with it (a key that cannot be used is said and left as set up; an empty list when all
 * is well).
 */
function sweepFromUrl(q) {
  if (!SWEEP_KEYS.some((k) => q.has(k))) return null;
  const problems = [];
  const specs = q.getAll('sweep');
  if (specs.length > 2) problems.push(`sweep: at most two parameters (the link has ${specs.length})`);
  const nums = numericControls();
  const number = (w) => (/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(w) ? Number(w) : NaN);
  const axes = [];
  for (const raw of specs.slice(0, 2)) {
    const at = raw.indexOf(':');
    const path = at > 0 ? raw.slice(0, at) : '';
    const spec = raw.slice(at + 1);
    const range = /^([^.]*(?:\.\d+)?)\.\.(.*):(.*)$/.exec(spec);
    const words = spec.split(',');
    if (!path) problems.push(`sweep=${raw}: write <setting>:<from>..<to>:<step> (e.g. wall.hp:20..60:10) or <setting>:<value>,<value>,... (e.g. wall.hp:10,20,40)`);
    // a path the page does not offer: the server says why, with a did-you-mean from the scenario's own settings (linkedSweep)
    else if (!nums.some((c) => c.path === path)) problems.push({ key: `sweep=${raw}`, ask: { axes: [{ path }] } });
    else if (axes.some((a) => a.path === path)) problems.push(`sweep=${raw}: ${path} is swept twice`);
    else if (range) {
      const [from, to, step] = range.slice(1).map(number);
      if (![from, to, step].every(Number.isFinite)) problems.push(`sweep=${raw}: from, to and step must be numbers (e.g. ${path}:20..60:10)`);
      else axes.push({ path, from, to, step });
    } else if (words.length > 0 && words.every((w) => Number.isFinite(number(w)))) axes.push({ path, values: words.map(number) });
    else problems.push(`sweep=${raw}: the values must be numbers separated by commas (e.g. ${path}:10,20,40) or a range (${path}:20..60:10)`);
  }
  // the parameters only when every one of them can be used (half a grid is not what was shared)
  if (axes.length > 0 && axes.length === Math.min(2, specs.length)) {
    const boxes = document.querySelectorAll('#sweep-form .axis');
    boxes.forEach((axis, i) => {
      const a = axes[i];
      $('.axis-path', axis).value = a?.path ?? '';
      fillAxis(axis, a ? ('values' in a ? a.values : { from: a.from, to: a.to, step: a.step }) : undefined);
    });
  }
  if (q.has('sweep_metric')) {
    const m = q.get('sweep_metric');
    if (state.info.metrics.includes(m)) $('#sweep-metric').value = m;
    // the server lists the metrics this scenario has, with a did-you-mean (linkedSweep)
    else problems.push({ key: `sweep_metric=${m}`, ask: { axes: [{ path: nums[0]?.path ?? '' }], metric: m } });
  }
  if (q.has('sweep_target')) {
    const t = q.get('sweep_target').trim();
    if (Number.isFinite(number(t))) $('#sweep-target').value = t;
    else problems.push(`sweep_target=${t}: must be a number (e.g. 0.5)`);
  }
  if (q.has('sweep_trials')) {
    const n = q.get('sweep_trials');
    const options = [...$('#sweep-trials').options].map((o) => o.value);
    if (options.includes(n)) $('#sweep-trials').value = n;
    else problems.push(`sweep_trials=${n}: one of ${options.join(', ')}`);
  }
  return problems;
}

/**
 * A link came with a sweep: show it, with what is wrong with it, or else the server's check of it
 * (the checks of POST /api/sweep, nothing run); it runs when asked.
 */
async function linkedSweep(problems) {
  if (!window.__siegesim.ready) showTab('sweep'); // opening the link (not a change of variant later)
  const status = $('#sweep-status');
  const said = (lines) => (status.textContent = `The link's sweep: ${lines.join(' · ')}`);
  if (problems.length > 0) {
    // a path or a metric the page does not offer is said as the server says it to a sweep (one rule, its did-you-mean)
    const scenario = state.info.path;
    const lines = [];
    for (const p of problems) {
      if (typeof p === 'string') lines.push(p);
      else {
        let why;
        try {
          const r = await postJson('/api/check', { scenario, variant: state.info.variant, ...p.ask });
          why = r.issues?.[0]?.message ?? 'cannot be swept here';
        } catch (e) {
          why = e.message;
        }
        if (state.info?.path !== scenario) return;
        lines.push(`${p.key}: ${why}`);
      }
    }
    // the link's sweep is dropped, named with the link's other bad parts; the form holds what it shows instead
    addLinkProblems(lines.map((l) => `${l} (the sweep not used)`));
    const shown = [...document.querySelectorAll('#sweep-form .axis .axis-path')].map((s) => s.value).filter(Boolean);
    const instead = shown.length === 0 ? 'no sweep' : shown.every((p) => fileSweepOf(p) !== undefined) ? "the file's own sweep" : 'the sweep last set';
    status.textContent = `The link's sweep was not used (${lines.join(' · ')}); the form shows ${instead}.`;
    return;
  }
  const p = sweepPayload();
  if (p.error) return said([p.error]);
  const { scenario, variant, values, axes, metric, trials, target } = p.payload;
  try {
    const r = await postJson('/api/check', { scenario, variant, values, axes, metric, trials, ...(target !== undefined ? { target } : {}) });
    if (state.info?.path !== scenario) return;
    let answer = r;
    const own = r.ok ? [] : r.issues.filter((i) => i.path && Object.prototype.hasOwnProperty.call(values, i.path) && !axes.some((a) => a.path === i.path));
    if (own.length > 0) {
      // a bad value of the link is said beside its control: check the sweep without it, so that its own problem shows
      const rest = Object.fromEntries(Object.entries(values).filter(([k]) => !own.some((i) => i.path === k)));
      answer = await postJson('/api/check', { scenario, variant, values: rest, axes, metric, trials, ...(target !== undefined ? { target } : {}) });
      if (state.info?.path !== scenario) return;
    }
    if (answer.ok) status.textContent = 'the sweep from the link: "run sweep" runs it';
    else said(answer.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)));
  } catch (e) {
    said([e.message]);
  }
}

/** The file's own sweep of a path (a list or { from, to, step }), if it has one. */
function fileSweepOf(path) {
  return state.info.sweep.find((s) => s.path === path)?.spec;
}

/** The values an even range gives (as the scenario's `sweep:` expands it). */
function rangeValues(from, to, step) {
  if (![from, to, step].every(Number.isFinite) || !(step > 0) || from > to) return [];
  const n = Math.floor((to - from) / step + 1e-9);
  return n > 1000 ? [] : Array.from({ length: n + 1 }, (_, i) => Number((from + i * step).toPrecision(12)));
}

/** The list typed in an axis's values box: numbers separated by commas or spaces, in order. */
function listValues(axis) {
  const words = $('.axis-values', axis).value.split(/[\s,;]+/).filter((w) => w !== '');
  return words.map(Number);
}

/** An axis as "values" (an explicit list, kept in order) or "even range" (from, to, step). */
function setAxisKind(axis, kind) {
  axis.dataset.kind = kind;
  $('.axis-kind', axis).value = kind;
}

/**
 * Fill an axis for its chosen path: a file's list is offered as its exact values (in the file's
 * order; "even range" is then its ends in the largest step through every value: rangeOfList), a file's range as that range, and
 * any other path as a range over its slider.
 */
function fillAxis(axis, spec = fileSweepOf($('.axis-path', axis).value)) {
  const path = $('.axis-path', axis).value;
  const c = state.info.controls.find((x) => x.path === path);
  const inputs = [$('.axis-from', axis), $('.axis-to', axis), $('.axis-step', axis)];
  axis.classList.toggle('off', !c);
  if (!c) {
    inputs.forEach((i) => (i.value = ''));
    $('.axis-values', axis).value = '';
    setAxisKind(axis, 'range');
    return;
  }
  let from;
  let to;
  let step;
  if (Array.isArray(spec) && spec.length > 0 && spec.every((x) => typeof x === 'number')) {
    $('.axis-values', axis).value = spec.join(', ');
    setAxisKind(axis, 'list');
    ({ from, to, step } = rangeOfList(spec));
  } else {
    if (spec && !Array.isArray(spec)) ({ from, to, step } = spec);
    else {
      const v = typeof loadedOf(c) === 'number' ? loadedOf(c) : c.min ?? 0;
      const r = c.slider;
      from = r.lo;
      to = r.hi;
      step = c.kind === 'int' ? Math.max(1, Math.round((to - from) / 10)) : Number(((to - from) / 10).toPrecision(2));
      if (v > to) to = v;
      // "to" where the values end (wall.dc's slider 1..40 in steps of 4 ends at 37), so the box says the top swept
      to = rangeValues(from, to, step).at(-1) ?? to;
    }
    $('.axis-values', axis).value = rangeValues(from, to, step).join(', ');
    setAxisKind(axis, 'range');
  }
  inputs[0].value = from;
  inputs[1].value = to;
  inputs[2].value = step;
  noteAxis(axis);
}

/**
 * An even range over a list: its ends, in the largest step that passes through every value of it
 * (the greatest common divisor of its gaps, counted in its last decimal place): an evenly spaced
 * list's own gap, and for `wall.hp: [10, 13, 16, 20, 25, 30]` 1, so the range still ends at 30 and
 * holds the file's six cases. The smallest gap (3 there) stopped at 28, dropping the top.
 */
function rangeOfList(values) {
  const xs = [...new Set(values)].sort((a, b) => a - b);
  if (xs.length < 2) return { from: xs[0], to: xs[0], step: 1 };
  const places = (x) => (/e/i.test(String(x)) ? Infinity : (String(x).split('.')[1] ?? '').length);
  const dp = Math.max(...xs.map(places));
  const gaps = xs.slice(1).map((x, i) => x - xs[i]);
  let step = Math.min(...gaps); // a value too fine to count in decimal places: the smallest gap
  if (dp <= 9) {
    const scale = 10 ** dp;
    const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));
    step = xs.slice(1).reduce((g, x, i) => gcd(g, Math.round(x * scale) - Math.round(xs[i] * scale)), 0) / scale;
  }
  return { from: xs[0], to: xs.at(-1), step: Number(step.toPrecision(12)) };
}

/**
 * What an even range gives when its "to" is not on its step (from 10 to 30 in steps of 3 ends at
 * 28): said beside it, so a top value is never dropped unseen. Empty when "to" is on the step.
 */
function rangeNoteOf(from, to, step) {
  const xs = rangeValues(from, to, step);
  if (xs.length === 0 || xs.at(-1) === to) return '';
  return `${to} is not on the step (${step} from ${from}): the sweep ends at ${xs.at(-1)}`;
}

/** Show (or clear) an axis's note on its range. */
function noteAxis(axis) {
  const note = $('.axis-note', axis);
  if (!note) return;
  const [from, to, step] = [$('.axis-from', axis), $('.axis-to', axis), $('.axis-step', axis)].map((i) => Number(i.value));
  note.textContent = axis.dataset.kind === 'range' && $('.axis-path', axis).value ? rangeNoteOf(from, to, step) : '';
  note.hidden = note.textContent === '';
}

/** Switching an axis between its list and an even range carries the values across. */
function switchAxisKind(axis, kind) {
  const inputs = [$('.axis-from', axis), $('.axis-to', axis), $('.axis-step', axis)];
  if (kind === 'range') {
    const xs = listValues(axis);
    if (xs.length > 0 && xs.every(Number.isFinite)) {
      const r = rangeOfList(xs);
      [inputs[0].value, inputs[1].value, inputs[2].value] = [r.from, r.to, r.step];
    }
  } else {
    const xs = rangeValues(...inputs.map((i) => Number(i.value)));
    if (xs.length > 0) $('.axis-values', axis).value = xs.join(', ');
  }
  setAxisKind(axis, kind);
  noteAxis(axis);
}

/** The sweep form as a POST /api/sweep body ({ payload }), or what keeps it from being one ({ error }). */
function sweepPayload() {
  const axes = [];
  for (const axis of document.querySelectorAll('#sweep-form .axis')) {
    const path = $('.axis-path', axis).value;
    if (!path) continue;
    if (axis.dataset.kind === 'list') {
      const values = listValues(axis);
      if (values.length === 0 || !values.every(Number.isFinite)) return { error: `${path}: the values must be numbers separated by commas, e.g. 10, 20, 40` };
      axes.push({ path, values });
    } else axes.push({ path, from: Number($('.axis-from', axis).value), to: Number($('.axis-to', axis).value), step: Number($('.axis-step', axis).value) });
  }
  const t = $('#sweep-target').value.trim();
  return {
    payload: {
      scenario: state.info.path,
      variant: state.info.variant,
      values: state.values,
      axes,
      metric: $('#sweep-metric').value,
      trials: Number($('#sweep-trials').value),
      // none typed: the server chooses a two-parameter sweep's contour (the file's expect: for the metric, 0.5 for a probability, none for a mean)
      ...(t !== '' ? { target: Number(t) } : {}),
    },
  };
}

async function runSweep(ev) {
  ev?.preventDefault();
  state.sweep?.abort();
  const ac = new AbortController();
  state.sweep = ac;
  const { payload, error } = sweepPayload();
  if (error) {
    $('#sweep-status').textContent = error;
    return;
  }
  const status = $('#sweep-status');
  const answer = $('#sweep-answer');
  answer.hidden = true;
  $('#sweep-stop').hidden = false;
  status.textContent = 'starting…';
  const draw = async (spec) => {
    if (spec.width === 'container') spec.width = Math.max(320, contentWidth($('#sweep-chart')) - EMBED_ACTIONS_WIDTH);
    try {
      await embedInto($('#sweep-chart'), spec, () => state.sweep === ac);
    } catch (e) {
      status.textContent = `the chart could not be drawn: ${e.message}`;
    }
  };
  try {
    await stream('/api/sweep', payload, ac.signal, async (e) => {
      if (state.sweep !== ac) return;
      if (e.type === 'start') status.textContent = `${e.points} points × ${int(e.trials)} trials…`;
      else if (e.type === 'partial') {
        status.textContent = `${e.done} of ${e.points} points · ${(e.ms / 1000).toFixed(1)} s`;
        await draw(e.chart);
      } else if (e.type === 'solving') status.textContent = 'solving for the target…';
      else if (e.type === 'done') {
        status.textContent = `${e.points} points × ${int(e.trials)} trials · ${(e.ms / 1000).toFixed(1)} s`;
        await draw(e.chart);
        renderAnswer(e, payload);
      } else if (e.type === 'error') status.textContent = e.message;
    });
  } catch (e) {
    if (e.name === 'AbortError') return;
    const general = markSweepIssues(e.body?.issues).filter((line) => line !== e.message); // said once
    status.textContent = [e.message, ...general].join(' · ');
  } finally {
    if (state.sweep === ac) $('#sweep-stop').hidden = true;
  }
}

function markSweepIssues(issues) {
  return (issues ?? []).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
}

/** A solve answer's next step in the sweep's words: which end of the sweep to move, and how far the setting allows. */
function sweepNext(s) {
  const n = s.next;
  const eg = n.suggest !== undefined ? ` (e.g. to ${n.suggest})` : '';
  if (n.widen === 'to') return `Raise the sweep's “to”${eg}: ${s.param} allows up to ${s.allowed.max}.`;
  if (n.widen === 'from') return `Lower the sweep's “from”${eg}: ${s.param} allows down to ${s.allowed.min}.`;
  if (n.widen === 'both') return `${s.metric} hardly moves over the sweep: widen it either way, or sweep another setting.`;
  return `No value of ${s.param} reaches it (the sweep already ends where its values end): another setting must move ${s.metric}.`;
}

/**
 * Where a 1-D sweep's answer holds: the other settings the file sweeps and those tuned on the
 * page, at their values on screen (`at wall.dc = 12`); the scenario as loaded when there are none.
 */
function heldAt(axes) {
  const swept = new Set(axes.map((a) => a.path));
  const paths = [...new Set([...state.info.sweep.map((s) => s.path), ...Object.keys(state.values)])].filter((p) => !swept.has(p));
  const valueOf = (p) => state.values[p] ?? state.controls.get(p)?.get() ?? state.controls.get(p)?.c.auto ?? 'auto';
  const parts = paths.map((p) => `${p} = ${valueOf(p)}`);
  return parts.length > 0 ? `at ${parts.join(', ')}` : 'with every other setting as loaded';
}

function renderAnswer(e, payload) {
  const box = $('#sweep-answer');
  const where = heldAt(payload.axes);
  const fmt = (m) => (isProb(m) || m.kind === undefined ? `${pct(m.value, 2)} [${fixedSide(m.ci_low * 100, 2)}, ${fixedSide(m.ci_high * 100, 2)}]` : `${num(m.value)} [${num(m.ci_low)}, ${num(m.ci_high)}]`);
  if (e.solveError) {
    box.replaceChildren(el('b', { text: 'solve: ' }), e.solveError);
  } else if (e.solve) {
    const s = e.solve;
    const open = s.resolved === false ? el('b', { class: 'unresolved', text: 'UNRESOLVED: ' }) : null;
    const why = s.resolved === false ? el('span', { class: 'muted', text: ` (the intervals do not separate the target even at ${int(s.max_trials)} trials: a best estimate, not an answer; raise the trials per point)` }) : null;
    if (!s.reachable || s.value === undefined) {
      // the end that came closest, then what to change (solve's next step, in the sweep's words)
      const c = s.closest ?? { end: 'to', value: s.to, metric: s.ends.to };
      const other = c.end === 'to' ? { value: s.from, metric: s.ends.from } : { value: s.to, metric: s.ends.to };
      box.replaceChildren(
        open ?? '',
        el('b', { text: `${s.metric} does not reach ${payload.target} ` }),
        `for ${s.param} in [${s.from}, ${s.to}], ${where}; closest at ${s.param} = ${c.value}: ${fmt(c.metric)} (${fmt(other.metric)} at ${other.value}).`,
        s.next ? ` ${sweepNext(s)}` : '',
        why ?? '',
      );
    } else {
      box.replaceChildren(
        open ?? '',
        // a decimal's answer is stated to its resolution, as solve prints it
        el('b', { text: `${s.param} = ${s.value}${s.kind === 'int' && s.step === 1 ? '' : ` (to ${s.step})`}` }),
        ` is the smallest value with ${s.metric} ${s.increasing ? '≥' : '≤'} ${payload.target}, `,
        el('span', { 'data-role': 'held', text: where }),
        `: ${fmt(s.at)}`,
        s.neighbour ? `; at ${s.neighbour.value}: ${fmt(s.neighbour.metric)}` : '',
        s.next ? ` (${s.value} is where the sweep starts: a lower “from” may find a smaller value${s.next.suggest !== undefined ? `, e.g. ${s.next.suggest}` : ''})` : '',
        why ?? el('span', { class: 'muted', text: ' (solve: the same dice for every value; the answer and its neighbour re-run until their intervals separate the target)' }),
      );
    }
  } else if (payload.axes.length === 2 && e.target !== undefined) {
    const from = e.targetFrom && e.targetFrom !== 'given' ? ` (${e.targetFrom})` : '';
    box.replaceChildren(el('b', { text: 'contour: ' }), `the red line separates cells below ${e.target} from cells at or above it${from}.`);
  } else if (payload.axes.length === 2) {
    box.replaceChildren(el('b', { text: 'no contour: ' }), `${payload.metric} is a mean, and no target is given for it here or in the file's expect: (type one to draw where it is reached).`);
  } else {
    box.hidden = true;
    return;
  }
  box.hidden = false;
}

/**
 * The metric choices (sweep, ranking, targets) offer what the case on screen produces: the others
 * are disabled, and a choice of one of them moves to the first headline metric produced.
 */
function preferProduced(metrics) {
  const first = state.info.headline.find((m) => metrics[m]) ?? state.info.metrics.find((m) => metrics[m]);
  if (!first) return;
  for (const sel of [$('#sweep-metric'), $('#sens-metric'), ...document.querySelectorAll('#targets .tg-metric')]) {
    for (const o of sel.options) o.disabled = !metrics[o.value];
    if (metrics[sel.value]) continue;
    sel.value = first;
    const row = sel.closest('.target');
    if (row && !first.startsWith('p_')) for (const i of row.querySelectorAll('input')) i.value = '';
  }
}

// ---------- what matters: the ranking (sensitivity) and the search (tune) ----------
const MAX_TARGETS = 4;

function intControls() {
  return state.info.controls.filter((c) => c.kind === 'int');
}

/**
 * Where a search started, worded so it never reads as a second answer beside “found: …”:
 * `(the search started from the case on screen, where wall.hp was 40 and wall.dc was 14)`.
 */
function startedWords(values) {
  const e = Object.entries(values).map(([p, v]) => `${p} was ${v}`);
  const was = e.length === 0 ? '' : `, where ${e.length === 1 ? e[0] : `${e.slice(0, -1).join(', ')} and ${e.at(-1)}`}`;
  return `(the search started from the ${e.length === 0 ? 'scenario as loaded' : 'case on screen'}${was})`;
}

/** The tuned values in words, for the case a ranking or a search was run on. */
function caseWords(values) {
  const e = Object.entries(values);
  return e.length === 0 ? 'the scenario as loaded' : e.map(([p, v]) => `${p} = ${v}`).join(', ');
}

function setupMatters() {
  const info = state.info;
  const C = info.chunkTrials;
  const metricOptions = () => info.metrics.map((m) => el('option', { value: m, text: m }));
  $('#sens-metric').replaceChildren(...metricOptions());
  $('#sens-metric').value = info.headline[0];
  $('#sens-trials').replaceChildren(...[1, 2, 4, 8].map((k) => el('option', { value: C * k, text: int(C * k) })));
  $('#tune-trials').replaceChildren(...[0.25, 0.5, 1, 2, 4].map((k) => el('option', { value: C * k, text: int(C * k), selected: k === 1 ? true : undefined })));
  fillBudget();
  // the first whole-number setting written in the file, then nothing: the designer picks
  const ints = intControls();
  const first = ints.find((c) => c.inFile)?.path ?? ints[0]?.path ?? '';
  document.querySelectorAll('#tune-form .tparam').forEach((row, i) => {
    const sel = $('.tp-path', row);
    sel.replaceChildren(i > 0 ? el('option', { value: '', text: '(none)' }) : null, ...ints.map((c) => el('option', { value: c.path, text: c.path })));
    sel.value = i === 0 ? first : '';
    $('.tp-lo', row).value = '';
    $('.tp-hi', row).value = '';
  });
  $('#targets').replaceChildren();
  const h = info.headline[0];
  addTarget(h, h.startsWith('p_') ? 0.45 : undefined, h.startsWith('p_') ? 0.55 : undefined);
  for (const k of ['sens', 'tune']) {
    $(`#${k}-status`).textContent = '';
    $(`#${k}-progress`).hidden = true;
    $(`#${k}-stop`).hidden = true;
    const chart = $(`#${k}-chart`);
    chart.view?.finalize();
    chart.view = null;
    chart.hidden = true;
    chart.replaceChildren();
  }
  $('#sens-table').hidden = true;
  $('#tune-answer').hidden = true;
}

/** Budgets offered: multiples of the trials per candidate. */
function fillBudget() {
  const n = Number($('#tune-trials').value);
  const sel = $('#tune-budget');
  const old = sel.selectedIndex;
  sel.replaceChildren(...[50, 100, 200, 400].map((k) => el('option', { value: n * k, text: `${int(n * k)} trials` })));
  sel.selectedIndex = old >= 0 ? old : 2;
}

function addTarget(metric, lo, hi) {
  const box = $('#targets');
  if (box.children.length >= MAX_TARGETS) return;
  const sel = el('select', { class: 'tg-metric', 'aria-label': 'target metric' }, state.info.metrics.map((m) => el('option', { value: m, text: m })));
  sel.value = metric ?? state.info.metrics.find((m) => ![...box.querySelectorAll('.tg-metric')].some((s) => s.value === m)) ?? state.info.metrics[0];
  const row = el(
    'div',
    { class: 'target' },
    sel,
    ' in [',
    el('input', { class: 'tg-lo', type: 'number', step: 'any', 'aria-label': 'target low', value: lo, placeholder: 'low' }),
    ',',
    el('input', { class: 'tg-hi', type: 'number', step: 'any', 'aria-label': 'target high', value: hi, placeholder: 'high' }),
    ']',
    el('button', { type: 'button', class: 'ghost x', title: 'remove this target', 'aria-label': 'remove target', text: '×', onclick: () => (box.children.length > 1 ? row.remove() : null) }),
  );
  box.append(row);
  $('#add-target').hidden = box.children.length >= MAX_TARGETS;
  if (state.last) preferProduced(state.last.cases[0].metrics);
}

function stopJob(k) {
  state[k]?.abort();
  $(k === 'sens' ? '#sens' : '#tune').classList.remove('stale');
  state[k] = null;
  $(`#${k}-status`).textContent = 'stopped';
  $(`#${k}-stop`).hidden = true;
  $(`#${k}-progress`).hidden = true;
}

/**
 * Stream one of the panel's jobs: a newer one of the same kind cancels the older (here and on the
 * server), the stop button and a closed tab too. `on(e)` sees each event of the current job.
 */
async function runJob(k, route, payload, on) {
  state[k]?.abort();
  const ac = new AbortController();
  state[k] = ac;
  const status = $(`#${k}-status`);
  const bar = $(`#${k}-progress`);
  const section = $(k === 'sens' ? '#sens' : '#tune');
  section.classList.add('stale'); // the last answer stays, dimmed, until this one replaces it
  $(`#${k}-stop`).hidden = false;
  bar.hidden = false;
  bar.removeAttribute('value'); // indeterminate until the first progress
  status.textContent = 'starting…';
  try {
    await stream(route, payload, ac.signal, async (e) => {
      if (state[k] !== ac) return;
      if (e.type === 'progress' && e.planned > 0) bar.value = Math.min(1, e.done / e.planned);
      if (e.type === 'error') status.textContent = e.message;
      await on(e);
    });
  } catch (e) {
    if (e.name === 'AbortError' || state[k] !== ac) return;
    const lines = (e.body?.issues ?? []).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
    status.textContent = [e.message, ...lines.filter((line, j) => line !== e.message && e.body.issues[j].message !== e.message)].join(' · '); // each said once
  } finally {
    if (state[k] === ac) {
      section.classList.remove('stale');
      $(`#${k}-stop`).hidden = true;
      bar.hidden = true;
      state[k] = null;
    }
  }
}

async function runSensitivity(ev) {
  ev?.preventDefault();
  const values = { ...state.values };
  const scope = $('#sens-scope').value;
  const payload = {
    scenario: state.info.path,
    variant: state.info.variant,
    values,
    metric: $('#sens-metric').value,
    trials: Number($('#sens-trials').value),
    scope, // the server chooses the settings as siegesim sensitivity does: none that changes the kind of game

  };
  const status = $('#sens-status');
  await runJob('sens', '/api/sensitivity', payload, async (e) => {
    if (e.type === 'start') status.textContent = `${e.cases} turned cases × ${int(e.trials)} trials, each on the same dice as ${caseWords(values)}…`;
    else if (e.type === 'progress') status.textContent = `${int(e.done)} of ${int(e.planned)} trials · ${(e.ms / 1000).toFixed(1)} s`;
    else if (e.type === 'done') {
      // the cards above may have run more trials of the same case: say so, so that two numbers of one case never just disagree
      const cards = state.last && state.last.trials !== e.trials ? `; the cards above: ${int(state.last.trials)} trials` : '';
      status.textContent = `${e.settings} settings ranked by their effect on ${e.metric} (${fmtValue({ value: e.baseline.value, kind: e.metricKind })} for ${caseWords(values)} at ${int(e.trials)} trials per case, on the cards' dice${cards}) · ${(e.ms / 1000).toFixed(1)} s`;
      renderRanking(e);
      const box = $('#sens-chart');
      if (!e.chart) {
        // nothing moved: no tornado (it would be its 0 axis alone), a note where it would be
        box.view?.finalize();
        box.view = undefined;
        box.replaceChildren(el('p', { class: 'muted', text: `No tornado: every turned case gave the same ${e.metric} as ${caseWords(values)} on the same dice.` }));
        box.hidden = false;
        return;
      }
      try {
        await embedInto(box, e.chart.spec);
      } catch (err) {
        status.textContent += ` · the tornado could not be drawn: ${err.message}`;
      }
    }
  });
}

/** The ranking as a table: each setting's turned values with the paired change, and a way to tune it. */
function renderRanking(e) {
  const prob = e.metricKind !== 'mean';
  const table = $('#sens-table');
  const byParam = new Map();
  for (const r of e.rows) (byParam.get(r.param) ?? byParam.set(r.param, []).get(r.param)).push(r);
  const ints = new Set(intControls().map((c) => c.path));
  const rows = [el('tr', {}, el('th', { text: 'rank' }), el('th', { class: 'l', text: 'setting' }), el('th', { class: 'l', text: `change in ${e.metric} [95% paired interval]` }), el('th', {}))];
  for (const x of e.ranking.slice(0, 12)) {
    const changes = (byParam.get(x.param) ?? []).map((r) => {
      const d = { value: r.effect, ci_low: r.ci_low, ci_high: r.ci_high, over_different_trials: r.over_different_trials };
      const sig = d.ci_low > 0 || d.ci_high < 0;
      const over = overText(d) ? el('span', { class: 'over', 'data-role': 'over', text: ` (${overText(d)})` }) : null;
      return el('span', { class: `turn ${sig ? (d.value > 0 ? 'up' : 'down') : 'flat'}` }, `${r.from} → ${r.to}: `, el('b', { text: fmtDiff(d, prob) }), el('span', { class: 'ci', text: ` [${fmtDiffInterval(d, prob)}]` }), over);
    });
    const tune = ints.has(x.param) ? el('button', { type: 'button', class: 'ghost', 'data-tune': x.param, title: `search values of ${x.param} below`, text: 'tune', onclick: () => tuneThis(x.param) }) : '';
    rows.push(el('tr', {}, el('td', { text: String(x.rank) }), el('td', { class: 'l' }, el('code', { text: x.param })), el('td', { class: 'l turns' }, changes), el('td', {}, tune)));
  }
  const more = e.settings - Math.min(12, e.ranking.length);
  if (more > 0) rows.push(el('tr', {}, el('td', {}), el('td', { class: 'l muted', colspan: 3, text: `${more} more settings with smaller effects (siegesim sensitivity writes them all)` })));
  // as siegesim sensitivity says it: a setting that would play another game is not ranked
  const games = [...new Set((e.skipped ?? []).filter((x) => /kind of game/.test(x.reason)).map((x) => x.param))];
  if (games.length > 0) {
    rows.push(el('tr', { class: 'not-ranked' }, el('td', {}), el('td', { class: 'l muted', colspan: 3, text: `not ranked: ${games.join(', ')}, which change${games.length === 1 ? 's' : ''} the kind of game` })));
  }
  table.replaceChildren(...rows);
  table.hidden = false;
}

/** Put a setting into the search: the first empty slot (or the last one). */
function tuneThis(path) {
  const rows = [...document.querySelectorAll('#tune-form .tparam')];
  if (rows.some((r) => $('.tp-path', r).value === path)) return $('#tune').scrollIntoView({ behavior: 'smooth' });
  const slot = rows.find((r, i) => i > 0 && $('.tp-path', r).value === '') ?? rows[rows.length - 1];
  $('.tp-path', slot).value = path;
  $('.tp-lo', slot).value = '';
  $('.tp-hi', slot).value = '';
  $('#tune').scrollIntoView({ behavior: 'smooth' });
}

async function runTune(ev) {
  ev?.preventDefault();
  const values = { ...state.values };
  const params = [];
  const ranges = {};
  for (const row of document.querySelectorAll('#tune-form .tparam')) {
    const p = $('.tp-path', row).value;
    if (!p || params.includes(p)) continue;
    params.push(p);
    const lo = $('.tp-lo', row).value.trim();
    const hi = $('.tp-hi', row).value.trim();
    if ((lo === '') !== (hi === '')) {
      $('#tune-status').textContent = `${p}: give both ends of its range, or neither (its default)`;
      return;
    }
    if (lo !== '') ranges[p] = [Number(lo), Number(hi)];
  }
  const targets = [...document.querySelectorAll('#targets .target')].map((row) => ({
    metric: $('.tg-metric', row).value,
    lo: $('.tg-lo', row).value.trim() === '' ? null : Number($('.tg-lo', row).value),
    hi: $('.tg-hi', row).value.trim() === '' ? null : Number($('.tg-hi', row).value),
  }));
  const payload = {
    scenario: state.info.path,
    variant: state.info.variant,
    values,
    params,
    ...(Object.keys(ranges).length > 0 ? { ranges } : {}),
    targets,
    trials: Number($('#tune-trials').value),
    budget: Number($('#tune-budget').value),
  };
  const status = $('#tune-status');
  await runJob('tune', '/api/tune', payload, async (e) => {
    if (e.type === 'start') {
      status.textContent = `searching ${e.params.map((p) => `${p.path} ${p.lo}–${p.hi}`).join(' × ')} for ${caseWords(values)}…`;
      // the ranges searched, shown where they were left to their defaults
      for (const row of document.querySelectorAll('#tune-form .tparam')) {
        const p = e.params.find((x) => x.path === $('.tp-path', row).value);
        if (p) ($('.tp-lo', row).placeholder = String(p.lo)), ($('.tp-hi', row).placeholder = String(p.hi));
      }
    } else if (e.type === 'progress') status.textContent = `${e.evaluated} candidates · ${int(e.done)} of ${int(e.planned)} trials · ${(e.ms / 1000).toFixed(1)} s`;
    else if (e.type === 'done') {
      status.textContent = `${e.evaluated} candidates evaluated · ${int(e.trialsUsed)} of ${int(e.budget)} trials${e.exhausted ? ' (the budget ended the search)' : ''} · ${(e.ms / 1000).toFixed(1)} s`;
      renderTuneAnswer(e, values);
      try {
        await embedInto($('#tune-chart'), e.chart.spec);
      } catch (err) {
        status.textContent += ` · the chart could not be drawn: ${err.message}`;
      }
    }
  });
}

/** The verdict, each target's estimate and interval at the answer, and a button to use it. */
function renderTuneAnswer(e, values) {
  const b = e.best;
  const settings = e.params.map((p) => `${p.path} = ${b.values[p.path]}`).join(', ');
  const n = e.targets.length;
  const head = e.found
    ? el('div', {}, el('b', { class: 'found', text: `found: ${settings}` }), ` meets ${n === 1 ? 'the target' : `all ${n} targets`} (${int(b.trials)} trials)`)
    : el(
        'div',
        {},
        el('b', { class: 'unresolved', text: `no candidate meets ${n === 1 ? 'the target' : `all ${n} targets`}; closest: ${settings}` }),
        ` (${b.met} of ${n} met, ${b.distance === null ? '–' : num(b.distance)} target widths away; ${int(b.trials)} trials)`,
      );
  const rows = [el('tr', {}, el('th', { class: 'l', text: 'target' }), el('th', { text: 'at the answer' }), el('th', { text: '95% interval' }), el('th', { class: 'l', text: '' }))];
  for (const c of b.checks ?? []) {
    const how = c.met ? (c.sure ? 'met' : 'met (its interval reaches an edge)') : `missed by ${num(c.distance)} target widths${c.gap === null || c.gap === undefined ? '' : ` (${num(c.gap)} ${c.value < c.lo ? `below ${num(c.lo)}` : `above ${num(c.hi)}`})`}`;
    rows.push(
      el(
        'tr',
        { class: c.met ? 'met' : 'missed' },
        el('td', { class: 'l' }, el('code', { text: c.metric }), ` in [${c.lo}, ${c.hi}]`),
        el('td', { text: num(c.value) }),
        el('td', { class: 'ci', text: `[${num(c.ci_low)}, ${num(c.ci_high)}]` }),
        el('td', { class: 'l status', text: how }), // met / missed: its row's colour, not a direction's
      ),
    );
  }
  const apply = el('button', {
    type: 'button',
    class: 'primary',
    id: 'tune-apply',
    text: 'use these values',
    title: 'set the controls to the answer (the live results then compare it with the file)',
    onclick: () => {
      for (const [p, v] of Object.entries(b.values)) {
        const ctl = state.controls.get(p);
        if (!ctl) continue;
        ctl.set(v);
        changed(p, 'quiet');
      }
      state.changeAt = performance.now();
      runLive();
      showTab('results');
    },
  });
  // an answer at an end of the range searched: the best may lie beyond it. Said with the page's own
  // controls (the setting's "from" and "to" under "settings to search"), never tune's --range, and a
  // button that sets them (the search runs when asked)
  const edges = (e.edges ?? []).map((x) => {
    const p = e.params.find((q) => q.path === x.param);
    const where = `${x.param} = ${x.value} is the ${x.end === 'hi' ? 'top' : 'bottom'} of the range searched (${p.lo}–${p.hi})`;
    if (x.bound || !x.range) return el('div', { class: 'muted edge', text: `${where} and the ${x.end === 'hi' ? 'highest' : 'lowest'} value it allows: nothing beyond it to try` });
    const [lo, hi] = x.range;
    const widen = el('button', {
      type: 'button',
      class: 'ghost widen',
      'data-widen': x.param,
      text: `set ${lo}–${hi}`,
      title: `put ${lo} and ${hi} in the "from" and "to" of ${x.param} under settings to search`,
      onclick: () => {
        const row = [...document.querySelectorAll('#tune-form .tparam')].find((r) => $('.tp-path', r).value === x.param);
        if (!row) return;
        $('.tp-lo', row).value = String(lo);
        $('.tp-hi', row).value = String(hi);
        $('#tune-form').scrollIntoView({ behavior: 'smooth' });
      },
    });
    return el('div', { class: 'muted edge' }, `${where}: a better value may lie beyond it; set ${x.param}'s “from” to ${lo} and “to” to ${hi} under settings to search, and search again `, widen);
  });
  const box = $('#tune-answer');
  box.replaceChildren(head, ...edges, el('table', { class: 'metrics checks' }, rows), el('div', { class: 'apply' }, apply, el('span', { class: 'muted', 'data-role': 'started', text: ` ${startedWords(values)}` })));
  box.classList.toggle('miss', !e.found);
  box.hidden = false;
}

// ---------- tabs and wiring ----------
function showTab(name) {
  for (const b of document.querySelectorAll('.tabs button')) b.setAttribute('aria-selected', String(b.dataset.tab === name));
  for (const t of document.querySelectorAll('.tab')) t.hidden = t.dataset.tab !== name;
}

function wire() {
  for (const b of document.querySelectorAll('.tabs button')) b.addEventListener('click', () => showTab(b.dataset.tab));
  $('#scenario').addEventListener('change', (e) => {
    history.replaceState(null, '', `?scenario=${e.target.value}`);
    openScenario(e.target.value);
  });
  $('#variant').addEventListener('change', (e) => {
    const q = new URLSearchParams(location.search);
    q.set('variant', e.target.value);
    openScenario(state.info.path, e.target.value, q);
  });
  const settingsChanged = () => {
    $('#fixed-wrap').hidden = $('#precision').value !== 'fixed';
    $('#cap-wrap').hidden = $('#precision').value === 'fixed';
    syncUrl();
    state.changeAt = performance.now();
    runLive();
  };
  $('#precision').addEventListener('change', settingsChanged);
  $('#cap').addEventListener('change', settingsChanged);
  $('#fixed-trials').addEventListener('change', settingsChanged);
  $('#reset-all').addEventListener('click', () => {
    for (const ctl of state.controls.values()) {
      ctl.set(ctl.c.value);
      ctl.row.classList.remove('changed', 'invalid');
      ctl.error.textContent = '';
    }
    state.values = {};
    syncUrl();
    renderChanges();
    state.changeAt = performance.now();
    runLive();
  });
  $('#filter').addEventListener('input', applyFilter);
  $('#sweep-form').addEventListener('submit', runSweep);
  // an edited sweep follows in the address (a reload or a shared link keeps it)
  $('#sweep-form').addEventListener('input', syncUrl);
  $('#sweep-form').addEventListener('change', syncUrl);
  $('#sweep-stop').addEventListener('click', () => {
    state.sweep?.abort();
    $('#sweep-status').textContent = 'stopped';
    $('#sweep-stop').hidden = true;
  });
  $('#sens-form').addEventListener('submit', runSensitivity);
  $('#sens-stop').addEventListener('click', () => stopJob('sens'));
  $('#tune-form').addEventListener('submit', runTune);
  $('#tune-stop').addEventListener('click', () => stopJob('tune'));
  $('#add-target').addEventListener('click', () => addTarget());
  $('#tune-trials').addEventListener('change', fillBudget);
  $('#save').addEventListener('click', save);
  $('#copy').addEventListener('click', (e) => copyText($('#command').textContent, e.target));
  $('#copy-link').addEventListener('click', (e) => copyText(location.href, e.target));
}

/** The sticky settings column starts below the top bar, whatever its height (it wraps on narrow screens). */
function trackTopBar() {
  const top = $('.top');
  const set = () => document.documentElement.style.setProperty('--top-h', `${top.offsetHeight}px`);
  new ResizeObserver(set).observe(top);
  set();
}

/** No scenario can be opened: the page says so and stops saying loading; the panels that need one are hidden. */
function nothingToOpen() {
  $('#title').textContent = 'No scenario to open';
  const sel = $('#scenario');
  sel.prepend(el('option', { value: '' }, 'no valid scenario'));
  sel.value = '';
  setStatus('error', 'nothing to run');
  for (const part of ['.panel', '.controls-head']) $(part).hidden = true;
  window.__siegesim.empty = true;
}

async function main() {
  trackTopBar();
  wire();
  try {
    await loadList();
  } catch (e) {
    banner([`cannot list the scenarios: ${e.message}`]);
    nothingToOpen();
    return;
  }
  const q = new URLSearchParams(location.search);
  // every bad value of the link is said, naming it and what it takes; the rest of the link opens with it at its default
  const problems = runSettingsFromUrl(q);
  $('#fixed-wrap').hidden = $('#precision').value !== 'fixed';
  $('#cap-wrap').hidden = $('#precision').value === 'fixed';
  const wanted = q.get('scenario');
  const first = state.list.find((s) => !s.error)?.path;
  if (wanted && !state.list.some((s) => s.path === wanted)) problems.unshift(`scenario=${wanted}: not one of the served files (the first is opened)`);
  const path = wanted && state.list.some((s) => s.path === wanted) ? wanted : first;
  let variant = q.get('variant') ?? undefined;
  const entry = state.list.find((s) => s.path === path);
  if (variant !== undefined && wanted === path && entry?.variants && !entry.variants.includes(variant)) {
    problems.push(`variant=${variant}: not a variant of ${path} (one of: ${entry.variants.join(', ')}); opened on ${entry.variants[0]}`);
    variant = undefined;
  }
  // a banner of its own: the run's problems come and go in #banner, these stay until the page is left
  addLinkProblems(problems);
  if (!path) {
    // what each file lacks, not only in the picker's tooltips
    const broken = state.list.filter((s) => s.error).map((s) => `${s.path}: ${s.error}`);
    banner(state.list.length === 0 ? ['no scenario files (*.yaml, *.yml) are served'] : ['no valid scenario is served: fix these files and reload the page', ...broken]);
    nothingToOpen();
    return;
  }
  await openScenario(path, variant, wanted === path ? q : undefined);
  window.__siegesim.ready = true;
}

// vega's scripts are deferred; a module runs after them
main();
