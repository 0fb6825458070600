/** The sweep tab: one or two settings over a range or a list (a line or a heatmap), and solve for a target. */
import { newerOnly } from './order.js';
import type { AxisRequest, SolveAnswer, SolveMetric, SweepDone, SweepRequest, WireMetric } from '../../api/protocol.js';
import { contentWidth, EMBED_ACTIONS_WIDTH, embedInto } from './charts.js';
import { addLinkProblems, loadedOf } from './controls.js';
import { $, $$, el } from './dom.js';
import { int, isProb, num, pct, percentText } from './format.js';
import { linkNumber, listWords, parseSweepSpec, rangeNoteOf, rangeOfList, rangeValues, SWEEP_KEYS, sweepSpecText } from './links.js';
import { showTab } from './workbench.js';
import { marks, state } from './state.js';
import { transport, TransportError } from './transport.js';

type Axis = HTMLElement;
const input = (sel: string, root: ParentNode = document) => $<HTMLInputElement>(sel, root);
const select = (sel: string, root: ParentNode = document) => $<HTMLSelectElement>(sel, root);
const rangeInputs = (axis: Axis) => [input('.axis-from', axis), input('.axis-to', axis), input('.axis-step', axis)];

export function numericControls() {
  return state.info.controls.filter((c) => c.kind === 'int' || c.kind === 'number');
}

export function setupSweep(): void {
  const form = $('#sweep-form');
  const nums = numericControls();
  for (const axis of $$('.axis', form)) {
    const sel = select('.axis-path', axis);
    const keep = axis.dataset.axis === '1' ? [el('option', { value: '', text: '(no second parameter)' })] : [];
    sel.replaceChildren(...keep, ...nums.map((c) => el('option', { value: c.path, text: c.path })));
    sel.onchange = () => fillAxis(axis);
    select('.axis-kind', axis).onchange = (e) => switchAxisKind(axis, (e.target as HTMLSelectElement).value as 'list' | 'range');
    for (const i of $$<HTMLInputElement>('.axis-range input', axis)) i.oninput = () => noteAxis(axis);
  }
  const metric = select('#sweep-metric');
  metric.replaceChildren(...state.info.metrics.map((m) => el('option', { value: m, text: m })));
  metric.value = state.info.headline[0];
  const trials = select('#sweep-trials');
  const C = state.info.chunkTrials;
  trials.replaceChildren(...[1, 2, 4, 8, 16].map((k) => el('option', { value: C * k, text: int(C * k) })));
  // the file's own sweep, or the first numeric value written in the file
  const axes = $$('.axis', form);
  const fileSweep = state.info.sweep.filter((s) => nums.some((c) => c.path === s.path));
  const first = fileSweep[0]?.path ?? nums.find((c) => c.inFile)?.path ?? nums[0]?.path ?? '';
  select('.axis-path', axes[0]).value = first;
  fillAxis(axes[0], fileSweep[0]?.spec);
  select('.axis-path', axes[1]).value = fileSweep[1]?.path ?? '';
  fillAxis(axes[1], fileSweep[1]?.spec);
  input('#sweep-target').value = '';
  $('#sweep-status').textContent = '';
  $('#sweep-answer').hidden = true;
  $('#sweep-chart').replaceChildren();
  state.sweepDefault = JSON.stringify(sweepQuery());
}

/** The sweep form as URL pairs (see SWEEP_KEYS): each parameter's values, the metric, the target, the trials per point. */
export function sweepQuery(): [string, string][] {
  const out: [string, string][] = [];
  for (const axis of $$('#sweep-form .axis')) {
    const path = select('.axis-path', axis).value;
    if (!path) continue;
    const [from, to, step] = rangeInputs(axis).map((i) => i.value.trim());
    out.push(['sweep', sweepSpecText(path, axis.dataset.kind === 'list' ? { kind: 'list', words: listWords(input('.axis-values', axis).value) } : { kind: 'range', from, to, step })]);
  }
  out.push(['sweep_metric', select('#sweep-metric').value]);
  const t = input('#sweep-target').value.trim();
  if (t !== '') out.push(['sweep_target', t]);
  out.push(['sweep_trials', select('#sweep-trials').value]);
  return out;
}

/** A problem with a link's sweep: said as is, or asked of the server (a path or a metric the page does not offer: its did-you-mean). */
export type SweepProblem = string | { key: string; ask: { axes: { path: string }[]; metric?: string } };

/**
 * Set the sweep form from a link's SWEEP_KEYS. Returns null when the link has no sweep, else the
 * problems with it (a key that cannot be used is said and left as set up; an empty list when all
 * is well).
 */
export function sweepFromUrl(q: URLSearchParams): SweepProblem[] | null {
  if (!SWEEP_KEYS.some((k) => q.has(k))) return null;
  const problems: SweepProblem[] = [];
  const specs = q.getAll('sweep');
  if (specs.length > 2) problems.push(`sweep: at most two parameters (the link has ${specs.length})`);
  const nums = numericControls();
  const axes: AxisRequest[] = [];
  for (const raw of specs.slice(0, 2)) {
    const a = parseSweepSpec(raw, (p) => nums.some((c) => c.path === p));
    if ('error' in a) problems.push(a.error);
    // a path the page does not offer: the server says why, with a did-you-mean from the scenario's own settings (linkedSweep)
    else if ('unknownPath' in a) problems.push({ key: `sweep=${raw}`, ask: { axes: [{ path: a.unknownPath }] } });
    else if (axes.some((x) => x.path === a.path)) problems.push(`sweep=${raw}: ${a.path} is swept twice`);
    else axes.push(a);
  }
  // the parameters only when every one of them can be used (half a grid is not what was shared)
  if (axes.length > 0 && axes.length === Math.min(2, specs.length)) {
    $$('#sweep-form .axis').forEach((axis, i) => {
      const a = axes[i];
      select('.axis-path', axis).value = a?.path ?? '';
      fillAxis(axis, a ? ('values' in a ? a.values : { from: a.from, to: a.to, step: a.step }) : undefined);
    });
  }
  if (q.has('sweep_metric')) {
    const m = q.get('sweep_metric')!;
    if (state.info.metrics.includes(m)) select('#sweep-metric').value = m;
    // the server lists the metrics this scenario has, with a did-you-mean (linkedSweep)
    else problems.push({ key: `sweep_metric=${m}`, ask: { axes: [{ path: nums[0]?.path ?? '' }], metric: m } });
  }
  if (q.has('sweep_target')) {
    const t = q.get('sweep_target')!.trim();
    if (Number.isFinite(linkNumber(t))) input('#sweep-target').value = t;
    else problems.push(`sweep_target=${t}: must be a number (e.g. 0.5)`);
  }
  if (q.has('sweep_trials')) {
    const n = q.get('sweep_trials')!;
    const options = [...select('#sweep-trials').options].map((o) => o.value);
    if (options.includes(n)) select('#sweep-trials').value = n;
    else problems.push(`sweep_trials=${n}: one of ${options.join(', ')}`);
  }
  return problems;
}

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * A link came with a sweep: show it, with what is wrong with it, or else the server's check of it
 * (the checks of POST /api/sweep, nothing run); it runs when asked.
 */
export async function linkedSweep(problems: SweepProblem[]): Promise<void> {
  if (!marks.ready) showTab('sweep'); // opening the link (not a change of variant later)
  const status = $('#sweep-status');
  // a sweep run while the checks below wait for the server owns the status line: nothing is said over it
  const sweep = state.sweep;
  const moved = (scenario: string) => state.info?.path !== scenario || state.sweep !== sweep;
  const said = (lines: string[]) => void (status.textContent = `The link's sweep: ${lines.join(' · ')}`);
  if (problems.length > 0) {
    // a path or a metric the page does not offer is said as the server says it to a sweep (one rule, its did-you-mean)
    const scenario = state.info.path;
    const lines: string[] = [];
    for (const p of problems) {
      if (typeof p === 'string') lines.push(p);
      else {
        let why: string;
        try {
          const r = await transport().check({ scenario, variant: state.info.variant, ...p.ask });
          why = r.issues?.[0]?.message ?? 'cannot be swept here';
        } catch (e) {
          why = (e as Error).message;
        }
        if (moved(scenario)) return;
        lines.push(`${p.key}: ${why}`);
      }
    }
    // the rest of the link's sweep, as the form now holds it, is checked too: every problem is named at once
    const rest = await sweepCheck();
    if (rest === undefined || moved(scenario)) return;
    lines.push(...rest);
    // the link's sweep is dropped, named with the link's other bad parts; the form holds what it shows instead
    addLinkProblems(lines.map((l) => `${l} (the sweep not used)`));
    const shown = $$<HTMLSelectElement>('#sweep-form .axis .axis-path').map((s) => s.value).filter(Boolean);
    const instead = shown.length === 0 ? 'no sweep' : shown.every((p) => fileSweepOf(p) !== undefined) ? "the file's own sweep" : 'the sweep last set';
    status.textContent = `The link's sweep was not used (${lines.join(' · ')}); the form shows ${instead}.`;
    return;
  }
  const scenario = state.info.path;
  const rest = await sweepCheck();
  if (rest === undefined || moved(scenario)) return;
  if (rest.length === 0) status.textContent = 'the sweep from the link: "run sweep" runs it';
  else said(rest);
}

/**
 * The server's check of the sweep the form holds (the checks of POST /api/sweep, nothing run):
 * its problems, said as `path: message`; empty when it would run; undefined when the page has
 * moved to another scenario meanwhile.
 */
async function sweepCheck(): Promise<string[] | undefined> {
  const p = sweepPayload();
  if ('error' in p) return [p.error];
  const { scenario, variant, values = {}, axes, metric, trials, target } = p.payload;
  try {
    const r = await transport().check({ scenario, variant, values, axes, metric, trials, ...(target !== undefined ? { target } : {}) });
    if (state.info?.path !== scenario) return undefined;
    let answer = r;
    const own = r.ok ? [] : r.issues.filter((i) => i.path && has(values, i.path) && !axes.some((a) => a.path === i.path));
    if (own.length > 0) {
      // a bad value of the link is said beside its control: check the sweep without it, so that its own problem shows
      const rest = Object.fromEntries(Object.entries(values).filter(([k]) => !own.some((i) => i.path === k)));
      answer = await transport().check({ scenario, variant, values: rest, axes, metric, trials, ...(target !== undefined ? { target } : {}) });
      if (state.info?.path !== scenario) return undefined;
    }
    return answer.ok ? [] : answer.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  } catch (e) {
    return [(e as Error).message];
  }
}

/** The file's own sweep of a path (a list or { from, to, step }), if it has one. */
function fileSweepOf(path: string): unknown {
  return state.info.sweep.find((s) => s.path === path)?.spec;
}

/** The list typed in an axis's values box: numbers separated by commas or spaces, in order. */
function listValues(axis: Axis): number[] {
  return listWords(input('.axis-values', axis).value).map(Number);
}

/** An axis as "values" (an explicit list, kept in order) or "even range" (from, to, step). */
function setAxisKind(axis: Axis, kind: 'list' | 'range'): void {
  axis.dataset.kind = kind;
  select('.axis-kind', axis).value = kind;
}

/**
 * Fill an axis for its chosen path: a file's list is offered as its exact values (in the file's
 * order; "even range" is then its ends in the largest step through every value: rangeOfList), a
 * file's range as that range, and any other path as a range over its slider.
 */
function fillAxis(axis: Axis, spec: unknown = fileSweepOf(select('.axis-path', axis).value)): void {
  const path = select('.axis-path', axis).value;
  const c = state.info.controls.find((x) => x.path === path);
  const inputs = rangeInputs(axis);
  axis.classList.toggle('off', !c);
  if (!c) {
    inputs.forEach((i) => (i.value = ''));
    input('.axis-values', axis).value = '';
    setAxisKind(axis, 'range');
    return;
  }
  let from: number;
  let to: number;
  let step: number;
  if (Array.isArray(spec) && spec.length > 0 && spec.every((x) => typeof x === 'number')) {
    input('.axis-values', axis).value = spec.join(', ');
    setAxisKind(axis, 'list');
    ({ from, to, step } = rangeOfList(spec as number[]));
  } else {
    if (spec && typeof spec === 'object' && !Array.isArray(spec)) ({ from, to, step } = spec as { from: number; to: number; step: number });
    else {
      const at = loadedOf(c);
      const v = typeof at === 'number' ? at : (c.min ?? 0);
      const r = c.slider ?? { lo: c.min ?? 0, hi: c.max ?? 1 };
      from = r.lo;
      to = r.hi;
      step = c.kind === 'int' ? Math.max(1, Math.round((to - from) / 10)) : Number(((to - from) / 10).toPrecision(2));
      if (v > to) to = v;
      // "to" where the values end (wall.dc's slider 1..40 in steps of 4 ends at 37), so the box says the top swept
      const xs = rangeValues(from, to, step);
      to = xs.length > 0 ? xs[xs.length - 1] : to;
    }
    input('.axis-values', axis).value = rangeValues(from, to, step).join(', ');
    setAxisKind(axis, 'range');
  }
  inputs[0].value = String(from);
  inputs[1].value = String(to);
  inputs[2].value = String(step);
  noteAxis(axis);
}

/** Show (or clear) an axis's note on its range. */
function noteAxis(axis: Axis): void {
  const note = axis.querySelector<HTMLElement>('.axis-note');
  if (!note) return;
  const [from, to, step] = rangeInputs(axis).map((i) => Number(i.value));
  note.textContent = axis.dataset.kind === 'range' && select('.axis-path', axis).value ? rangeNoteOf(from, to, step) : '';
  note.hidden = note.textContent === '';
}

/** Switching an axis between its list and an even range carries the values across. */
function switchAxisKind(axis: Axis, kind: 'list' | 'range'): void {
  const inputs = rangeInputs(axis);
  if (kind === 'range') {
    const xs = listValues(axis);
    if (xs.length > 0 && xs.every(Number.isFinite)) {
      const r = rangeOfList(xs);
      [inputs[0].value, inputs[1].value, inputs[2].value] = [String(r.from), String(r.to), String(r.step)];
    }
  } else {
    const [from, to, step] = inputs.map((i) => Number(i.value));
    const xs = rangeValues(from, to, step);
    if (xs.length > 0) input('.axis-values', axis).value = xs.join(', ');
  }
  setAxisKind(axis, kind);
  noteAxis(axis);
}

/** The sweep form as a POST /api/sweep body ({ payload }), or what keeps it from being one ({ error }). */
function sweepPayload(): { payload: SweepRequest } | { error: string } {
  const axes: AxisRequest[] = [];
  for (const axis of $$('#sweep-form .axis')) {
    const path = select('.axis-path', axis).value;
    if (!path) continue;
    if (axis.dataset.kind === 'list') {
      const values = listValues(axis);
      if (values.length === 0 || !values.every(Number.isFinite)) return { error: `${path}: the values must be numbers separated by commas, e.g. 10, 20, 40` };
      axes.push({ path, values });
    } else {
      const [from, to, step] = rangeInputs(axis).map((i) => Number(i.value));
      axes.push({ path, from, to, step });
    }
  }
  const t = input('#sweep-target').value.trim();
  return {
    payload: {
      scenario: state.info.path,
      variant: state.info.variant,
      values: state.values,
      axes,
      metric: select('#sweep-metric').value,
      trials: Number(select('#sweep-trials').value),
      ...(state.seed !== undefined ? { seed: state.seed } : {}),
      // none typed: the server chooses a two-parameter sweep's contour (the file's expect: for the metric, 0.5 for a probability, none for a mean)
      ...(t !== '' ? { target: Number(t) } : {}),
    },
  };
}

export async function runSweep(ev?: Event): Promise<void> {
  ev?.preventDefault();
  state.sweep?.abort();
  const ac = new AbortController();
  state.sweep = ac;
  const p = sweepPayload();
  if ('error' in p) {
    $('#sweep-status').textContent = p.error;
    return;
  }
  const { payload } = p;
  const status = $('#sweep-status');
  const answer = $('#sweep-answer');
  answer.hidden = true;
  $('#sweep-stop').hidden = false;
  status.textContent = 'starting…';
  // partial charts and the final one are drawn as they come: one that finishes late never replaces a newer one
  const order = newerOnly();
  const draw = async (spec: object) => {
    const s = spec as { width?: unknown };
    if (s.width === 'container') s.width = Math.max(320, contentWidth($('#sweep-chart')) - EMBED_ACTIONS_WIDTH);
    const mayPaint = order.next();
    try {
      await embedInto($('#sweep-chart'), spec, () => state.sweep === ac && mayPaint());
    } catch (e) {
      status.textContent = `the chart could not be drawn: ${(e as Error).message}`;
    }
  };
  try {
    for await (const e of transport().stream('sweep', payload, ac.signal)) {
      if (state.sweep !== ac) continue;
      if (e.type === 'start') status.textContent = `${e.points} points × ${int(e.trials)} trials…`;
      else if (e.type === 'partial') {
        status.textContent = `${e.done} of ${e.points} points · ${(e.ms / 1000).toFixed(1)} s`;
        void draw(e.chart);
      } else if (e.type === 'solving') status.textContent = 'solving for the target…';
      else if (e.type === 'done') {
        status.textContent = `${sweepRunText(e)} · ${(e.ms / 1000).toFixed(1)} s`;
        void draw(e.chart).then(() => renderAnswer(e, payload));
      } else if (e.type === 'error') status.textContent = e.message;
    }
  } catch (e) {
    if ((e as Error).name === 'AbortError') return;
    const issues = e instanceof TransportError ? e.body.issues : undefined;
    const general = markSweepIssues(issues).filter((line) => line !== (e as Error).message); // said once
    status.textContent = [(e as Error).message, ...general].join(' · ');
  } finally {
    if (state.sweep === ac) $('#sweep-stop').hidden = true;
  }
}

function markSweepIssues(issues: { path: string; message: string }[] | undefined): string[] {
  return (issues ?? []).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
}

/** A solve answer's next step in the sweep's words: which end of the sweep to move, and how far the setting allows. */
function sweepNext(s: SolveAnswer): string {
  const n = s.next!;
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
function heldAt(axes: readonly AxisRequest[]): string {
  const swept = new Set(axes.map((a) => a.path));
  const paths = [...new Set([...state.info.sweep.map((s) => s.path), ...Object.keys(state.values)])].filter((p) => !swept.has(p));
  const valueOf = (p: string) => state.values[p] ?? state.controls.get(p)?.get() ?? state.controls.get(p)?.c.auto ?? 'auto';
  const parts = paths.map((p) => `${p} = ${String(valueOf(p))}`);
  // the variant the sweep ran on, where the file has several (an answer on another reading is another answer)
  const variant = state.info.variants.length > 1 ? ` (variant "${state.info.variant}")` : '';
  return parts.length > 0 ? `at ${parts.join(', ')}${variant}` : `with every other setting as loaded${variant}`;
}

/** A sweep's trials and seed, as run's answer names them: `9 points × 4,096 trials a point (seed 656007)`. */
function sweepRunText(e: Pick<SweepDone, 'points' | 'trials' | 'seed'>): string {
  return `${e.points} points × ${int(e.trials)} trials a point${e.seed !== undefined ? ` (seed ${String(e.seed)})` : ''}`;
}

/** ` (16,384 trials)`: the trials an estimate of solve's was run with, where the answer says. */
const trialsNote = (n: number | undefined) => (n === undefined ? '' : ` (${int(n)} trials)`);

function renderAnswer(e: SweepDone, payload: SweepRequest): void {
  const box = $('#sweep-answer');
  const where = heldAt(payload.axes);
  const fmt = (m: SolveMetric) =>
    isProb(m) || m.kind === undefined ? `${pct(m.value, 2)} [${percentText(m.ci_low, 2)}, ${percentText(m.ci_high, 2)}]` : `${num(m.value)} [${num(m.ci_low)}, ${num(m.ci_high)}]`;
  if (e.solveError) {
    box.replaceChildren(el('b', { text: 'solve: ' }), e.solveError);
  } else if (e.solve) {
    const s = e.solve;
    const open = s.resolved === false ? el('b', { class: 'unresolved', text: 'UNRESOLVED: ' }) : null;
    const why = s.resolved === false ? el('span', { class: 'muted', text: ` (the intervals do not separate the target even at ${int(s.max_trials)} trials: a best estimate, not an answer; raise the trials per point)` }) : null;
    if (!s.reachable || s.value === undefined || s.value === null) {
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
        `: ${fmt(s.at!)}${trialsNote(s.at_trials)}`,
        s.neighbour ? `; at ${s.neighbour.value}: ${fmt(s.neighbour.metric)}${trialsNote(s.neighbour_trials)}` : '',
        s.next ? ` (${s.value} is where the sweep starts: a lower “from” may find a smaller value${s.next.suggest !== undefined ? `, e.g. ${s.next.suggest}` : ''})` : '',
        why ?? el('span', { class: 'muted', text: ' (solve: the same dice for every value; the answer and its neighbour re-run until their intervals separate the target)' }),
      );
    }
  } else if (payload.axes.length === 2 && e.target !== undefined) {
    const from = e.targetFrom && e.targetFrom !== 'given' ? ` (${e.targetFrom})` : '';
    box.replaceChildren(el('b', { text: 'contour: ' }), `the red line separates cells below ${e.target} from cells at or above it${from}; every cell `, el('span', { 'data-role': 'held', text: where }), '.');
  } else if (payload.axes.length === 2) {
    box.replaceChildren(el('b', { text: 'no contour: ' }), `${payload.metric} is a mean, and no target is given for it here or in the file's expect: (type one to draw where it is reached); every cell `, el('span', { 'data-role': 'held', text: where }), '.');
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
export function preferProduced(metrics: Record<string, WireMetric>): void {
  const first = state.info.headline.find((m) => metrics[m]) ?? state.info.metrics.find((m) => metrics[m]);
  if (!first) return;
  for (const sel of [select('#sweep-metric'), select('#sens-metric'), ...$$<HTMLSelectElement>('#targets .tg-metric')]) {
    for (const o of sel.options) o.disabled = !metrics[o.value];
    if (metrics[sel.value]) continue;
    sel.value = first;
    const row = sel.closest('.target');
    if (row && !first.startsWith('p_')) for (const i of row.querySelectorAll('input')) i.value = '';
  }
}
