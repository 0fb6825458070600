/** What matters: the ranking of settings by their effect (sensitivity) and the search for values meeting targets (tune). */
import type { Reproduce, SensitivityDone, SensitivityRequest, StreamRoutes, TuneDone, TuneRequest } from '../../api/protocol.js';
import { embedInto } from './charts.js';
import { changed } from './controls.js';
import { $, $$, el } from './dom.js';
import { fmtDiff, fmtDiffInterval, fmtValue, int, num, overText } from './format.js';
import { runLive } from './live.js';
import { showTab } from './workbench.js';
import { preferProduced } from './sweep.js';
import { marks, state } from './state.js';
import { transport, TransportError } from './transport.js';
import { unsureText } from '../../report/tune-verdict.js';

const MAX_TARGETS = 4;
const input = (sel: string, root: ParentNode = document) => $<HTMLInputElement>(sel, root);
const select = (sel: string, root: ParentNode = document) => $<HTMLSelectElement>(sel, root);

function intControls() {
  return state.info.controls.filter((c) => c.kind === 'int');
}

/**
 * Where a search started, worded so it never reads as a second answer beside “found: …”:
 * `(the search started from the case on screen, where wall.hp was 40 and wall.dc was 14)`.
 */
function startedWords(values: Record<string, unknown>): string {
  const e = Object.entries(values).map(([p, v]) => `${p} was ${String(v)}`);
  const was = e.length === 0 ? '' : `, where ${e.length === 1 ? e[0] : `${e.slice(0, -1).join(', ')} and ${e[e.length - 1]}`}`;
  return `(the search started from the ${e.length === 0 ? 'scenario as loaded' : 'case on screen'}${was})`;
}

/** The tuned values in words, for the case a ranking or a search was run on. */
function caseWords(values: Record<string, unknown>): string {
  const e = Object.entries(values);
  return e.length === 0 ? 'the scenario as loaded' : e.map(([p, v]) => `${p} = ${String(v)}`).join(', ');
}

export function setupMatters(): void {
  const info = state.info;
  const C = info.chunkTrials;
  const metricOptions = () => info.metrics.map((m) => el('option', { value: m, text: m }));
  select('#sens-metric').replaceChildren(...metricOptions());
  select('#sens-metric').value = info.headline[0];
  select('#sens-trials').replaceChildren(...[1, 2, 4, 8].map((k) => el('option', { value: C * k, text: int(C * k) })));
  select('#tune-trials').replaceChildren(...[0.25, 0.5, 1, 2, 4].map((k) => el('option', { value: C * k, text: int(C * k), selected: k === 1 ? true : undefined })));
  fillBudget();
  // the first whole-number setting written in the file, then nothing: the designer picks
  const ints = intControls();
  const first = ints.find((c) => c.inFile)?.path ?? ints[0]?.path ?? '';
  $$('#tune-form .tparam').forEach((row, i) => {
    const sel = select('.tp-path', row);
    sel.replaceChildren(...(i > 0 ? [el('option', { value: '', text: '(none)' })] : []), ...ints.map((c) => el('option', { value: c.path, text: c.path })));
    sel.value = i === 0 ? first : '';
    input('.tp-lo', row).value = '';
    input('.tp-hi', row).value = '';
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
  $('#sens-repro').hidden = true;
  $('#tune-answer').hidden = true;
  $('#tune-repro').hidden = true;
}

/** Budgets offered: multiples of the trials per candidate. */
export function fillBudget(): void {
  const n = Number(select('#tune-trials').value);
  const sel = select('#tune-budget');
  const old = sel.selectedIndex;
  sel.replaceChildren(...[50, 100, 200, 400].map((k) => el('option', { value: n * k, text: `${int(n * k)} trials` })));
  sel.selectedIndex = old >= 0 ? old : 2;
}

export function addTarget(metric?: string, lo?: number, hi?: number): void {
  const box = $('#targets');
  if (box.children.length >= MAX_TARGETS) return;
  const metrics = state.info.metrics;
  const sel = el('select', { class: 'tg-metric', 'aria-label': 'target metric' }, metrics.map((m) => el('option', { value: m, text: m })));
  sel.value = metric ?? metrics.find((m) => !$$<HTMLSelectElement>('.tg-metric', box).some((s) => s.value === m)) ?? metrics[0];
  const row: HTMLElement = el(
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

type JobKey = 'sens' | 'tune';
const sectionOf = (k: JobKey) => $(k === 'sens' ? '#sens' : '#tune');

export function stopJob(k: JobKey): void {
  state[k]?.abort();
  sectionOf(k).classList.remove('stale');
  state[k] = null;
  $(`#${k}-status`).textContent = 'stopped';
  $(`#${k}-stop`).hidden = true;
  $(`#${k}-progress`).hidden = true;
}

/**
 * Stream one of the panel's jobs: a newer one of the same kind cancels the older (here and on the
 * server), the stop button and a closed tab too. `on(e)` sees each message of the current job.
 */
async function runJob<R extends 'sensitivity' | 'tune'>(k: JobKey, route: R, payload: StreamRoutes[R]['request'], on: (e: StreamRoutes[R]['message']) => Promise<void> | void): Promise<void> {
  state[k]?.abort();
  const ac = new AbortController();
  state[k] = ac;
  const status = $(`#${k}-status`);
  const bar = $<HTMLProgressElement>(`#${k}-progress`);
  const section = sectionOf(k);
  section.classList.add('stale'); // the last answer stays, dimmed, until this one replaces it
  $(`#${k}-stop`).hidden = false;
  bar.hidden = false;
  bar.removeAttribute('value'); // indeterminate until the first progress
  status.textContent = 'starting…';
  try {
    for await (const e of transport().stream(route, payload, ac.signal)) {
      if (state[k] !== ac) continue;
      if (e.type === 'progress' && e.planned > 0) bar.value = Math.min(1, e.done / e.planned);
      if (e.type === 'error') status.textContent = e.message;
      if (e.type === 'done') marks.answers = { ...marks.answers, [route]: e };
      void on(e);
    }
  } catch (e) {
    if ((e as Error).name === 'AbortError' || state[k] !== ac) return;
    const message = (e as Error).message;
    const issues = e instanceof TransportError ? (e.body.issues ?? []) : [];
    const lines = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
    status.textContent = [message, ...lines.filter((line, j) => line !== message && issues[j].message !== message)].join(' · '); // each said once
  } finally {
    if (state[k] === ac) {
      section.classList.remove('stale');
      $(`#${k}-stop`).hidden = true;
      bar.hidden = true;
      state[k] = null;
    }
  }
}

export async function runSensitivity(ev?: Event): Promise<void> {
  ev?.preventDefault();
  const values = { ...state.values };
  const payload: SensitivityRequest = {
    scenario: state.info.path,
    variant: state.info.variant,
    values,
    metric: select('#sens-metric').value,
    trials: Number(select('#sens-trials').value),
    scope: select('#sens-scope').value, // the server chooses the settings as siegesim sensitivity does: none that changes the kind of game
  };
  const status = $('#sens-status');
  await runJob('sens', 'sensitivity', payload, async (e) => {
    if (e.type === 'start') status.textContent = `${e.cases} turned cases × ${int(e.trials)} trials, each on the same dice as ${caseWords(values)}…`;
    else if (e.type === 'progress') status.textContent = `${int(e.done)} of ${int(e.planned)} trials · ${(e.ms / 1000).toFixed(1)} s`;
    else if (e.type === 'done') {
      // the cards above may have run more trials of the same case: say so, so that two numbers of one case never just disagree
      const cards = state.last && state.last.trials !== e.trials ? `; the cards above: ${int(state.last.trials)} trials` : '';
      status.textContent = `${e.settings} settings ranked by their effect on ${e.metric} (${fmtValue({ value: e.baseline.value, ci_low: null, ci_high: null, kind: e.metricKind })} for ${caseWords(values)} at ${int(e.trials)} trials per case, on the cards' dice${cards}) · ${(e.ms / 1000).toFixed(1)} s`;
      renderRanking(e);
      renderReproduce('sens', e.reproduce);
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
        status.textContent += ` · the tornado could not be drawn: ${(err as Error).message}`;
      }
    }
  });
}

/** The ranking as a table: each setting's turned values with the paired change, and a way to tune it. */
function renderRanking(e: SensitivityDone): void {
  const prob = e.metricKind !== 'mean';
  const table = $('#sens-table');
  const byParam = new Map<string, SensitivityDone['rows']>();
  for (const r of e.rows) (byParam.get(r.param) ?? byParam.set(r.param, []).get(r.param)!).push(r);
  const ints = new Set(intControls().map((c) => c.path));
  // a mean over the trials of an event is Welch's (the two cases average different trials), as siegesim sensitivity's head says
  const shownRows = e.rows.filter((r) => e.ranking.slice(0, 12).some((x) => x.param === r.param));
  const kind = shownRows.every((r) => r.paired) ? '95% paired interval' : shownRows.some((r) => r.paired) ? '95% interval: paired, or Welch where marked' : "95% interval, Welch's: the cases average different trials";
  const rows = [el('tr', {}, el('th', { text: 'rank' }), el('th', { class: 'l', text: 'setting' }), el('th', { class: 'l', text: `change in ${e.metric} [${kind}]` }), el('th', {}))];
  for (const x of e.ranking.slice(0, 12)) {
    const changes = (byParam.get(x.param) ?? []).map((r) => {
      const d = { value: r.effect, ci_low: r.ci_low, ci_high: r.ci_high, over_different_trials: r.over_different_trials };
      const sig = d.ci_low > 0 || d.ci_high < 0;
      const over = overText(d) ? el('span', { class: 'over', 'data-role': 'over', text: ` (${overText(d)})` }) : null;
      return el('span', { class: `turn ${sig ? (d.value > 0 ? 'up' : 'down') : 'flat'}` }, `${String(r.from)} → ${String(r.to)}: `, el('b', { text: fmtDiff(d, prob) }), el('span', { class: 'ci', text: ` [${fmtDiffInterval(d, prob)}]${r.paired ? '' : ' (Welch)'}` }), over);
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

/** What each tab's line gives, in its words: `siegesim sensitivity` ranks a case, `siegesim tune` searches from one. */
const LINES = {
  sens: { answer: 'ranking', gives: 'gives its numbers', verb: 'siegesim sensitivity', starts: 'ranks' },
  tune: { answer: 'search', gives: 'gives its candidates and numbers', verb: 'siegesim tune', starts: 'searches from' },
} as const;

/**
 * The case a ranking or a search holds for, in one line, and the command line that gives its
 * numbers (`#sens-repro`, `#tune-repro`): without `--where` the command starts from the file's
 * first sweep point, which may be another case than the one on screen, so the line names the case
 * and says so.
 */
function renderReproduce(k: JobKey, r: Reproduce): void {
  const w = LINES[k];
  const words = (o: Record<string, unknown>) =>
    Object.entries(o)
      .map(([p, x]) => `${p} = ${String(x)}`)
      .join(', ');
  const variant = state.info.variants.length > 1 ? ` (variant "${state.info.variant}")` : '';
  const line = $(`#${k}-case`);
  const command = $(`#${k}-command`);
  $(`#${k}-repro`).hidden = false;
  if (r.command === null) {
    line.textContent = `No command line gives this ${w.answer}: ${r.reason}.`;
    command.parentElement!.hidden = true;
    return;
  }
  command.parentElement!.hidden = false;
  command.textContent = r.command;
  const at = Object.keys(r.where).length > 0 ? words(r.where) : 'the scenario as loaded';
  const swept = r.first ? Object.keys(r.first) : [];
  const other = r.first !== undefined && swept.some((p) => String(r.where[p]) !== String(r.first![p]));
  const code = (text: string) => el('code', { class: 'flag', text });
  line.replaceChildren(
    `The ${w.answer} holds for one case, the one on screen: ${at}${variant}; this command ${w.gives}.`,
    ...(other ? [' Without ', code('--where'), ', ', code(w.verb), ` ${w.starts} the file's first sweep point (${words(r.first!)}), another case.`] : []),
    ...(r.tuned ? [` Run it on the tuned copy (download YAML under Save & reproduce, saved as ${r.file}): its sweep gains ${Object.entries(r.gains).map(([p, x]) => `${p} ${x}`).join(', ')}, the point whose dice the page rolled.`] : []),
  );
}

/** Put a setting into the search: the first empty slot (or the last one). */
function tuneThis(path: string): void {
  const rows = $$('#tune-form .tparam');
  if (rows.some((r) => select('.tp-path', r).value === path)) return $('#tune').scrollIntoView({ behavior: 'smooth' });
  const slot = rows.find((r, i) => i > 0 && select('.tp-path', r).value === '') ?? rows[rows.length - 1];
  select('.tp-path', slot).value = path;
  input('.tp-lo', slot).value = '';
  input('.tp-hi', slot).value = '';
  $('#tune').scrollIntoView({ behavior: 'smooth' });
}

export async function runTune(ev?: Event): Promise<void> {
  ev?.preventDefault();
  const values = { ...state.values };
  const params: string[] = [];
  const ranges: Record<string, [number, number]> = {};
  for (const row of $$('#tune-form .tparam')) {
    const p = select('.tp-path', row).value;
    if (!p || params.includes(p)) continue;
    params.push(p);
    const lo = input('.tp-lo', row).value.trim();
    const hi = input('.tp-hi', row).value.trim();
    if ((lo === '') !== (hi === '')) {
      $('#tune-status').textContent = `${p}: give both ends of its range, or neither (its default)`;
      return;
    }
    if (lo !== '') ranges[p] = [Number(lo), Number(hi)];
  }
  // a target's empty end is sent as null: the server says it needs two numbers
  const end = (row: HTMLElement, sel: string) => (input(sel, row).value.trim() === '' ? null : Number(input(sel, row).value));
  const targets = $$('#targets .target').map((row) => ({ metric: select('.tg-metric', row).value, lo: end(row, '.tg-lo'), hi: end(row, '.tg-hi') }));
  const payload: TuneRequest = {
    scenario: state.info.path,
    variant: state.info.variant,
    values,
    params,
    ...(Object.keys(ranges).length > 0 ? { ranges } : {}),
    targets,
    trials: Number(select('#tune-trials').value),
    budget: Number(select('#tune-budget').value),
  };
  const status = $('#tune-status');
  await runJob('tune', 'tune', payload, async (e) => {
    if (e.type === 'start') {
      status.textContent = `searching ${e.params.map((p) => `${p.path} ${p.lo}–${p.hi}`).join(' × ')} for ${caseWords(values)}…`;
      // the ranges searched, shown where they were left to their defaults
      for (const row of $$('#tune-form .tparam')) {
        const p = e.params.find((x) => x.path === select('.tp-path', row).value);
        if (p) {
          input('.tp-lo', row).placeholder = String(p.lo);
          input('.tp-hi', row).placeholder = String(p.hi);
        }
      }
    } else if (e.type === 'progress') status.textContent = `${e.evaluated} candidates · ${int(e.done)} of ${int(e.planned)} trials · ${(e.ms / 1000).toFixed(1)} s`;
    else if (e.type === 'done') {
      status.textContent = `${e.evaluated} candidates evaluated · ${int(e.trialsUsed)} of ${int(e.budget)} trials${e.exhausted ? ' (the budget ended the search)' : ''} · ${(e.ms / 1000).toFixed(1)} s`;
      renderTuneAnswer(e, values);
      renderReproduce('tune', e.reproduce);
      try {
        await embedInto($('#tune-chart'), e.chart.spec);
      } catch (err) {
        status.textContent += ` · the chart could not be drawn: ${(err as Error).message}`;
      }
    }
  });
}

/** The verdict, each target's estimate and interval at the answer, and a button to use it. */
function renderTuneAnswer(e: TuneDone, values: Record<string, unknown>): void {
  const b = e.best;
  const settings = e.params.map((p) => `${p.path} = ${b.values[p.path]}`).join(', ');
  const n = e.targets.length;
  const head = e.found
    ? el('div', {}, el('b', { class: 'found', text: `found: ${settings}` }), ` meets ${n === 1 ? 'the target' : `all ${n} targets`} (${int(b.trials)} trials)${unsureText(b.checks)}`)
    : el(
        'div',
        {},
        el('b', { class: 'unresolved', text: `no candidate meets ${n === 1 ? 'the target' : `all ${n} targets`}; closest: ${settings}` }),
        ` (${b.met} of ${n} met, ${b.distance === null ? '–' : num(b.distance)} target widths away; ${int(b.trials)} trials)`,
      );
  const rows = [el('tr', {}, el('th', { class: 'l', text: 'target' }), el('th', { text: 'at the answer' }), el('th', { text: '95% interval' }), el('th', { class: 'l', text: '' }))];
  for (const c of b.checks ?? []) {
    const how = c.met
      ? c.sure
        ? 'met'
        : 'met (its interval reaches an edge)'
      : `missed by ${num(c.distance)} target widths${c.gap === null || c.gap === undefined ? '' : ` (${num(c.gap)} ${c.value < c.lo ? `below ${num(c.lo)}` : `above ${num(c.hi)}`})`}`;
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
      void runLive();
      showTab('results');
    },
  });
  // an answer at an end of the range searched: the best may lie beyond it. Said with the page's own
  // controls (the setting's "from" and "to" under "settings to search"), never tune's --range, and a
  // button that sets them (the search runs when asked)
  const edges = (e.edges ?? []).map((x) => {
    const p = e.params.find((q) => q.path === x.param)!;
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
        const row = $$('#tune-form .tparam').find((r) => select('.tp-path', r).value === x.param);
        if (!row) return;
        input('.tp-lo', row).value = String(lo);
        input('.tp-hi', row).value = String(hi);
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
