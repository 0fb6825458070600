/** The scenario picker and the controls built from the scenario's schema: rows, changes, issues. */
import type { Issue, WireControl } from '../../api/protocol.js';
import { $, $$, el } from './dom.js';
import { runLive } from './live.js';
import { syncUrl } from './workbench.js';
import { state, type ControlView } from './state.js';
import { transport } from './transport.js';

export async function loadList(): Promise<void> {
  const { scenarios } = await transport().scenarios();
  state.list = scenarios;
  const sel = $<HTMLSelectElement>('#scenario');
  sel.replaceChildren();
  const groups = new Map<string, typeof scenarios>();
  for (const s of scenarios) {
    const folder = s.path.includes('/') ? s.path.slice(0, s.path.lastIndexOf('/')) : '';
    if (!groups.has(folder)) groups.set(folder, []);
    groups.get(folder)!.push(s);
  }
  for (const [folder, items] of groups) {
    const parent = folder ? el('optgroup', { label: folder }) : sel;
    for (const s of items) {
      const base = s.path.slice(s.path.lastIndexOf('/') + 1).replace(/\.ya?ml$/i, '');
      const error = 'error' in s ? s.error : undefined;
      parent.append(el('option', { value: s.path, title: ('description' in s ? s.description : '') || error || '', disabled: error ? true : undefined }, error ? `${base} (invalid)` : base));
    }
    if (folder) sel.append(parent);
  }
}

/** What a control is as loaded: the file's value or the default, or what the system makes of an "auto" one (`auto`). */
export function loadedOf(c: WireControl): unknown {
  return c.value === undefined ? c.auto : c.value;
}

export function buildControls(): void {
  const root = $('#controls');
  root.replaceChildren();
  state.controls.clear();
  const info = state.info;
  const byGroup = new Map<string, WireControl[]>(info.groups.map((g) => [g.path, []]));
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

function controlRow(c: WireControl): HTMLElement {
  const name = c.path.slice(c.group ? c.group.length + 1 : 0);
  const row = el('div', { class: `ctl${c.inFile ? ' infile' : ''}`, 'data-path': c.path, title: c.description || '' });
  const head = el('div', { class: 'ctl-head' }, el('label', { class: 'ctl-name', for: `in-${c.path}`, text: name }));
  const loaded = el('span', { class: 'loaded muted', title: 'the value in the file (or the default)' });
  const reset = el('button', { type: 'button', class: 'reset', title: 'back to the loaded value', 'aria-label': `reset ${c.path}`, text: '↺' });
  head.append(loaded, reset);
  const body = el('div', { class: 'ctl-body' });
  const error = el('div', { class: 'ctl-error', role: 'alert' });
  let get: () => unknown;
  let set: (v: unknown) => void;
  if (c.kind === 'boolean') {
    const box = el('input', { type: 'checkbox', id: `in-${c.path}` });
    box.addEventListener('change', () => changed(c.path, 'change'));
    body.append(box, el('span', { class: 'muted', text: c.description ? ` ${c.description}` : '' }));
    get = () => box.checked;
    set = (v) => (box.checked = v === true);
    loaded.textContent = c.value === undefined ? '' : `${c.inFile ? 'file' : 'default'}: ${c.value ? 'yes' : 'no'}`;
  } else if (c.kind === 'enum') {
    const mark = c.inFile ? ' (file)' : ' (default)';
    const sel = el(
      'select',
      { id: `in-${c.path}` },
      c.value === undefined ? el('option', { value: '', text: '(auto)' }) : null,
      (c.options ?? []).map((o) => el('option', { value: o, text: o === c.value ? `${o}${mark}` : o })),
    );
    sel.addEventListener('change', () => changed(c.path, 'change'));
    body.append(sel);
    get = () => (sel.value === '' ? undefined : sel.value);
    set = (v) => (sel.value = v === undefined ? '' : String(v));
    loaded.textContent = c.value === undefined ? 'auto' : '';
  } else {
    // the slider's ends and step: the server's (api/tunables.ts sliderOf), so that a decimal steps by solve's resolution
    const r = c.slider ?? { lo: c.min ?? 0, hi: c.max ?? 1, step: c.kind === 'int' ? 1 : 0.01 };
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
    loaded.textContent = c.value === undefined ? (auto === undefined ? 'auto' : `auto: ${auto}`) : `${c.inFile ? 'file' : 'default'}: ${String(c.value)}`;
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
export function applyFilter(): void {
  const q = $<HTMLInputElement>('#filter').value.trim().toLowerCase();
  for (const d of $$<HTMLDetailsElement>('#controls details')) {
    let any = false;
    for (const row of $$('.ctl', d)) {
      const hit = !q || (row.dataset.path ?? '').toLowerCase().includes(q);
      row.hidden = !hit;
      any ||= hit;
    }
    d.hidden = !any;
    if (q && any) d.open = true;
  }
}

/** A control moved: recompute the tuned values, follow in the URL, rerun (throttled while dragging; not at all when 'quiet'). */
let pending: ReturnType<typeof setTimeout> | undefined;
let lastStart = 0;

/** The live run started now (a drag reruns at most every 60 ms after it). */
export function started(): void {
  lastStart = performance.now();
}

export function changed(path: string, how: 'input' | 'change' | 'quiet'): void {
  const ctl = state.controls.get(path)!;
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

/** What a control was as loaded, in words. */
const fromWords = (ctl: ControlView | undefined): string =>
  ctl ? (ctl.c.value !== undefined ? String(ctl.c.value) : ctl.c.auto !== undefined ? `auto (${ctl.c.auto})` : 'auto') : '?';

/** A file's sweep of one setting in words: its list, or its range. */
function sweepWords(spec: unknown): string {
  if (Array.isArray(spec)) return spec.map(String).join(', ');
  if (spec && typeof spec === 'object') {
    const r = spec as { from?: unknown; to?: unknown; step?: unknown };
    return `${String(r.from)} to ${String(r.to)} in steps of ${String(r.step)}`;
  }
  return String(spec);
}

/** Whether a value is among a file's swept values (a list's, or a range's). */
function amongSwept(spec: unknown, v: unknown): boolean {
  if (Array.isArray(spec)) return spec.some((x) => x === v);
  const r = spec as { from?: number; to?: number; step?: number } | null;
  if (!r || typeof v !== 'number' || typeof r.from !== 'number' || typeof r.to !== 'number' || !(Number(r.step) > 0)) return false;
  const k = Math.round((v - r.from) / r.step!);
  return v >= r.from && v <= r.to && Math.abs(r.from + k * r.step! - v) < 1e-9 * Math.max(1, Math.abs(v));
}

/**
 * What "as loaded" is for a setting the file sweeps: the page runs one case, at the setting's own
 * value in the file (outside the sweep) or its default, which may be none of the swept points; a
 * number read beside a report's sweep must say which value it is for. Empty when nothing is swept.
 */
export function sweptNote(): string {
  const parts = state.info.sweep.map((s) => {
    const ctl = state.controls.get(s.path);
    const at = ctl ? loadedOf(ctl.c) : undefined;
    if (at === undefined) return `The file sweeps ${s.path} over ${sweepWords(s.spec)}.`;
    const whence = ctl!.c.inFile ? "the file's own value" : 'the default';
    const point = amongSwept(s.spec, at) ? 'one of those points' : 'none of those points';
    return `The file sweeps ${s.path} over ${sweepWords(s.spec)}; “as loaded” runs it at ${String(at)} (${whence}), ${point}.`;
  });
  return parts.length === 0 ? '' : `${parts.join(' ')} Set it above to see another point, or run the file's sweep under Sweep & solve.`;
}

export function renderChanges(): void {
  const box = $('#changes');
  box.replaceChildren();
  const entries = Object.entries(state.values);
  const swept = sweptNote();
  const note = $('#swept-note');
  note.textContent = swept;
  note.hidden = swept === '';
  if (entries.length === 0) {
    box.append(el('span', { class: 'muted', text: 'as loaded: change a value to compare' }));
    return;
  }
  for (const [p, v] of entries) {
    const ctl = state.controls.get(p);
    const from = fromWords(ctl);
    const undo = () => {
      if (ctl) {
        ctl.set(ctl.c.value);
        changed(p, 'change');
      } else {
        delete state.values[p];
        syncUrl();
        renderChanges();
        runLive();
      }
    };
    box.append(
      el(
        'button',
        { type: 'button', class: `chip${ctl?.row.classList.contains('invalid') ? ' bad' : ''}`, 'data-path': p, title: `${p}: ${from} → ${String(v)} (click to reset)`, onclick: undo },
        el('b', { text: p }),
        ` ${from} → ${String(v)} `,
        el('span', { class: 'x', text: '×' }),
      ),
    );
  }
}

/** Mark each issue at its control; returns those that name none, as lines. */
export function markIssues(issues: Issue[] | undefined): string[] {
  const general: string[] = [];
  for (const i of issues ?? []) {
    const ctl = i.path ? state.controls.get(i.path) : undefined;
    if (ctl) {
      ctl.error.textContent = i.message;
      ctl.row.classList.add('invalid');
      const group = ctl.row.closest('details');
      if (group) group.open = true;
      document.querySelector(`.chip[data-path="${CSS.escape(i.path)}"]`)?.classList.add('bad');
    } else general.push(i.path ? `${i.path}: ${i.message}` : i.message);
  }
  return general;
}

export function clearIssues(): void {
  for (const ctl of state.controls.values()) {
    ctl.error.textContent = '';
    ctl.row.classList.remove('invalid');
  }
  banner();
}

export function banner(lines?: string[], kind = 'error', where = '#banner'): void {
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
const linkProblems: string[] = [];
export function addLinkProblems(lines: string[]): void {
  linkProblems.push(...lines.filter((l) => !linkProblems.includes(l)));
  if (linkProblems.length > 0) banner(['This link has values the page cannot use:', ...linkProblems], 'error', '#link-banner');
}

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * A link's values the scenario cannot take (a setting it does not have, a value out of range):
 * each is named in the link's banner and dropped, its control back at the file's value, so that
 * the rest of the link runs and shows numbers.
 */
export async function dropBadLinkValues(raw: Record<string, string>): Promise<void> {
  const { path: scenario, variant } = state.info;
  for (let pass = 0; pass < 3 && Object.keys(state.values).length > 0; pass++) {
    let r;
    try {
      r = await transport().check({ scenario, variant, values: state.values });
    } catch {
      return; // the run says what is wrong
    }
    if (state.info?.path !== scenario) return;
    const bad = (r.issues ?? []).filter((i) => i.path && has(state.values, i.path));
    if (r.ok || bad.length === 0) return;
    const lines: string[] = [];
    for (const i of bad) {
      if (!has(state.values, i.path)) continue;
      delete state.values[i.path];
      const ctl = state.controls.get(i.path);
      if (ctl) {
        ctl.set(ctl.c.value);
        ctl.row.classList.remove('changed');
      }
      // what runs instead, in words: the file's value, or what the rules make of one it leaves to them (never "the file's auto")
      const kept = !ctl ? 'not used' : ctl.c.value !== undefined ? `the file's ${String(ctl.c.value)} used` : `left to the rules: ${fromWords(ctl)}`;
      lines.push(`${i.path}=${raw[i.path] ?? ''}: ${i.message} (${kept})`);
    }
    addLinkProblems(lines);
  }
}
