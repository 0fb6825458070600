/**
 * siegesim workbench: the page. It asks the workbench (through the Transport it is started with)
 * for the scenarios and their controls, streams runs as protocol messages, and draws the systems'
 * own Vega-Lite charts with vega-embed. Nothing from the network. `startPage` is called by an
 * entry: main.ts (the server's page) with the HTTP transport, src/site/page/main.ts (the static
 * site's) with the workbench worker's, which also takes scenarios of your own (yours.ts).
 */
import { addLinkProblems, applyFilter, banner, buildControls, clearIssues, dropBadLinkValues, loadList, renderChanges } from './controls.js';
import { $, $$, el } from './dom.js';
import { seedOf } from '../../text/seed.js';
import { fmtDiff, fmtDiffInterval, fmtInterval, num } from './format.js';
import { MAX_TRIALS, openingOf, queryText, TRIALS_TAKE, trialsOk, valuesFromQuery } from './links.js';
import { copyText, runLive, save, setStatus } from './live.js';
import { addTarget, fillBudget, runSensitivity, runTune, setupMatters, stopJob } from './matters.js';
import { marks, state } from './state.js';
import { linkedSweep, runSweep, setupSweep, sweepFromUrl, sweepQuery, type SweepProblem } from './sweep.js';
import { setTransport, transport, TransportError, type Transport } from './transport.js';
import { OWN_PREFIX, ownFromLink, ownHash, setupOwn } from './yours.js';

// the browser tests read the page's own formatting (an interval's text and its colour agree)
marks.format = { fmtDiff, fmtDiffInterval, fmtInterval, num };

const input = (sel: string) => $<HTMLInputElement>(sel);
const select = (sel: string) => $<HTMLSelectElement>(sel);

// ---------- URL ----------
/** The last fixed trials count the link could carry (one a run takes). */
let lastGoodTrials: string | undefined;

export function syncUrl(): void {
  const q = new URLSearchParams();
  q.set('scenario', state.info.path);
  if (state.info.variant !== state.info.variants[0]) q.set('variant', state.info.variant);
  for (const [p, v] of Object.entries(state.values)) q.set(p, String(v));
  const prec = select('#precision').value;
  if (prec === 'fixed') {
    // a count no run takes (0, 2.5, empty: refused beside the box) never goes into the link to share:
    // the link keeps the last count that ran
    const typed = input('#fixed-trials').value.trim();
    if (trialsOk(typed)) lastGoodTrials = typed;
    if (lastGoodTrials !== undefined) q.set('trials', lastGoodTrials);
  }
  else if (prec !== '0.005') q.set('precision', prec);
  if (prec !== 'fixed' && select('#cap').value !== '2000000') q.set('max_trials', select('#cap').value);
  if (state.seed !== undefined) q.set('seed', String(state.seed));
  // the sweep once edited on the page (as it was set up, it is the scenario's own: no need to say)
  const sweep = sweepQuery();
  if (state.sweepDefault !== undefined && JSON.stringify(sweep) !== state.sweepDefault) for (const [k, v] of sweep) q.append(k, v);
  history.replaceState(null, '', `${location.pathname}?${queryText(q)}${ownHash(state.info.path)}`);
  $('#link').textContent = location.href;
}

// ---------- opening a scenario ----------
async function openScenario(path: string, variant?: string, fromUrl?: URLSearchParams): Promise<boolean> {
  state.sweep?.abort();
  state.live?.abort();
  state.sens?.abort();
  state.tune?.abort();
  let info;
  try {
    info = await transport().scenario(path, variant);
  } catch (e) {
    // the error's own message is often its first issue's: each said once
    const lines = [(e as Error).message, ...((e instanceof TransportError ? e.body.issues : undefined) ?? []).map((i) => i.message)];
    banner([...new Set(lines)]);
    setStatus('error', 'this scenario cannot be opened');
    return false;
  }
  state.info = info;
  state.values = {};
  state.last = null;
  select('#scenario').value = info.path;
  $('#title').textContent = info.name;
  $('#description').textContent = info.description;
  // who the metrics' attacker and defender are, as loaded (the report's "Who is who")
  const sides = info.sides ?? [];
  $('#sides').textContent = sides.length > 0 ? `Who is who (as loaded): ${sides.join(' ')}` : '';
  $('#sides').hidden = sides.length === 0;
  document.title = `${info.name} — siegesim workbench`;
  const vsel = select('#variant');
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
  let sweepProblems: SweepProblem[] | null = null;
  if (fromUrl) {
    sweepProblems = sweepFromUrl(fromUrl);
    const vals = valuesFromQuery(fromUrl, (p) => state.controls.get(p)?.c.kind);
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
  void runLive();
  if (sweepProblems) void linkedSweep(sweepProblems);
  return true;
}

/** trials=, precision= and max_trials= of a link set the top bar; what is wrong with them, said (each left at its default). */
function runSettingsFromUrl(q: URLSearchParams): string[] {
  const problems: string[] = [];
  const options = (sel: string) => [...select(sel).options].map((o) => o.value);
  const t = q.get('trials');
  if (t !== null) {
    if (trialsOk(t) && Number(t) <= MAX_TRIALS) {
      select('#precision').value = 'fixed';
      input('#fixed-trials').value = String(Number(t));
    } else problems.push(`trials=${t}: ${TRIALS_TAKE} (the run refines to the precision instead)`);
  }
  const p = q.get('precision');
  if (p !== null && select('#precision').value !== 'fixed') {
    const ok = options('#precision').filter((o) => o !== 'fixed');
    if (ok.includes(p)) select('#precision').value = p;
    else problems.push(`precision=${p}: one of ${ok.join(', ')} (the headline's 95% half-width; ${select('#precision').value} used)`);
  }
  // seed= rolls the live run's and the sweep's dice from it, as run --seed does (a number's digits are the number)
  const seed = q.get('seed');
  state.seed = undefined;
  if (seed !== null) {
    if (seed.length >= 1 && seed.length <= 200) state.seed = seedOf(seed);
    else problems.push(`seed=${seed}: a text of 1 to 200 characters or a whole number (the file's seed used)`);
  }
  const m = q.get('max_trials');
  if (m !== null) {
    if (options('#cap').includes(m)) select('#cap').value = m;
    else problems.push(`max_trials=${m}: one of ${options('#cap').join(', ')} (${select('#cap').value} used)`);
  }
  return problems;
}

// ---------- tabs and wiring ----------
export function showTab(name: string): void {
  for (const b of $$('.tabs button')) {
    b.setAttribute('aria-selected', String(b.dataset.tab === name));
    // one tab stop for the tab list (WAI-ARIA tabs): the arrow keys move between its tabs
    b.tabIndex = b.dataset.tab === name ? 0 : -1;
  }
  for (const t of $$('.tab')) t.hidden = t.dataset.tab !== name;
}

/** The tab list's keys (WAI-ARIA tabs): ←/→ the previous/next tab (round), Home/End the first/last; each shown as it gets the focus. */
function tabKeys(e: KeyboardEvent): void {
  const tabs = $$<HTMLButtonElement>('.tabs button');
  const at = tabs.indexOf(e.target as HTMLButtonElement);
  if (at < 0) return;
  const to = e.key === 'ArrowRight' ? (at + 1) % tabs.length : e.key === 'ArrowLeft' ? (at - 1 + tabs.length) % tabs.length : e.key === 'Home' ? 0 : e.key === 'End' ? tabs.length - 1 : -1;
  if (to < 0) return;
  e.preventDefault();
  showTab(tabs[to].dataset.tab ?? '');
  tabs[to].focus();
}

/** The top bar's precision: the fixed trials box or the trial cap, whichever applies. */
function showPrecision(): void {
  $('#fixed-wrap').hidden = select('#precision').value !== 'fixed';
  $('#cap-wrap').hidden = select('#precision').value === 'fixed';
}

function wire(): void {
  for (const b of $$('.tabs button')) b.addEventListener('click', () => showTab(b.dataset.tab ?? ''));
  $('.tabs').addEventListener('keydown', tabKeys);
  // focused here, not followed: under a site's <base href>, #headline would be another page's
  $('.skip').addEventListener('click', (e) => {
    e.preventDefault();
    $('#headline').focus();
  });
  showTab($$('.tabs button').find((b) => b.getAttribute('aria-selected') === 'true')?.dataset.tab ?? 'results');
  const pick = (path: string) => {
    history.replaceState(null, '', `?scenario=${path}`);
    return openScenario(path);
  };
  select('#scenario').addEventListener('change', (e) => void pick((e.target as HTMLSelectElement).value));
  setupOwn(pick);
  select('#variant').addEventListener('change', (e) => {
    const q = new URLSearchParams(location.search);
    const variant = (e.target as HTMLSelectElement).value;
    q.set('variant', variant);
    void openScenario(state.info.path, variant, q);
  });
  const settingsChanged = () => {
    showPrecision();
    syncUrl();
    state.changeAt = performance.now();
    void runLive();
  };
  select('#precision').addEventListener('change', settingsChanged);
  select('#cap').addEventListener('change', settingsChanged);
  input('#fixed-trials').addEventListener('change', settingsChanged);
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
    void runLive();
  });
  input('#filter').addEventListener('input', applyFilter);
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
  select('#tune-trials').addEventListener('change', fillBudget);
  $('#save').addEventListener('click', save);
  $('#copy').addEventListener('click', (e) => copyText($('#command').textContent ?? '', e.target as HTMLElement));
  $('#sens-copy').addEventListener('click', (e) => copyText($('#sens-command').textContent ?? '', e.target as HTMLElement));
  $('#tune-copy').addEventListener('click', (e) => copyText($('#tune-command').textContent ?? '', e.target as HTMLElement));
  $('#copy-link').addEventListener('click', (e) => copyText(location.href, e.target as HTMLElement));
}

/** The sticky settings column starts below the top bar, whatever its height (it wraps on narrow screens). */
function trackTopBar(): void {
  const top = $('.top');
  const set = () => document.documentElement.style.setProperty('--top-h', `${top.offsetHeight}px`);
  new ResizeObserver(set).observe(top);
  set();
}

/** No scenario can be opened: the page says so and stops saying loading; the panels that need one are hidden. */
function nothingToOpen(): void {
  $('#title').textContent = 'No scenario to open';
  const sel = select('#scenario');
  sel.prepend(el('option', { value: '' }, 'no valid scenario'));
  sel.value = '';
  setStatus('error', 'nothing to run');
  for (const part of ['.panel', '.controls-head']) $(part).hidden = true;
  marks.empty = true;
}

/** Start the page on a transport (once, after vega's deferred scripts: an entry module runs after them). */
export async function startPage(t: Transport): Promise<void> {
  setTransport(t);
  trackTopBar();
  wire();
  try {
    await loadList();
  } catch (e) {
    banner([`cannot list the scenarios: ${(e as Error).message}`]);
    nothingToOpen();
    return;
  }
  const q = new URLSearchParams(location.search);
  // every bad value of the link is said, naming it and what it takes; the rest of the link opens with it at its default
  const problems = runSettingsFromUrl(q);
  showPrecision();
  // a scenario the link carries itself (#yaml=): added to the list and opened; one that cannot be read is said, and not sought by its name
  const own = await ownFromLink(q.get('scenario'));
  problems.push(...own.problems);
  const named = q.get('scenario');
  const wanted = own.path ?? (own.problems.length > 0 && named?.startsWith(OWN_PREFIX) ? null : named);
  // the scenario named, or the first at its own defaults (the link's variant and settings were another's)
  const opening = openingOf(q, state.list, wanted, named);
  const { path, variant, applies } = opening;
  if (opening.unknown) problems.unshift(opening.unknown);
  problems.push(...opening.problems);
  // a banner of its own: the run's problems come and go in #banner, these stay until the page is left
  addLinkProblems(problems);
  if (!path) {
    // what each file lacks, not only in the picker's tooltips
    const broken = state.list.flatMap((s) => ('error' in s ? [`${s.path}: ${s.error}`] : []));
    banner(state.list.length === 0 ? ['no scenario files (*.yaml, *.yml) are served'] : ['no valid scenario is served: fix these files and reload the page', ...broken]);
    nothingToOpen();
    return;
  }
  await openScenario(path, variant, applies ? q : undefined);
  marks.ready = true;
}
