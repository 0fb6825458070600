/** The live run: the tuned case against the file, streamed to a precision; its cards, table, charts and command. */
import type { LiveCase, RunDone, RunPartial, RunRequest } from '../../api/protocol.js';
import { chartsOfNewRun, renderChartsAfterPaint } from './charts.js';
import { banner, clearIssues, markIssues, started } from './controls.js';
import { $, el } from './dom.js';
import { fmtDiff, fmtDiffInterval, fmtInterval, fmtValue, halfWidth, int, isProb, label, overText, significant } from './format.js';
import { MAX_TRIALS, TRIALS_TAKE, trialsOk } from './links.js';
import { preferProduced } from './sweep.js';
import { marks, state, type RunRecord } from './state.js';
import { transport, TransportError } from './transport.js';

/** The top bar's run settings, or the problem with the trials typed. */
function runSettings(): { trials: number } | { precision: number; maxTrials: number } | { error: string } {
  const prec = $<HTMLSelectElement>('#precision').value;
  if (prec === 'fixed') {
    const t = $<HTMLInputElement>('#fixed-trials').value.trim();
    if (!trialsOk(t) || Number(t) > MAX_TRIALS) return { error: `trials: ${TRIALS_TAKE}, got "${t}"` };
    return { trials: Number(t) };
  }
  return { precision: Number(prec), maxTrials: Number($<HTMLSelectElement>('#cap').value) };
}

export async function runLive(): Promise<void> {
  started();
  state.live?.abort();
  const ac = new AbortController();
  state.live = ac;
  const seq = ++state.seq;
  const changeAt = state.changeAt || performance.now();
  const record: RunRecord = { seq, scenario: state.info.path, values: { ...state.values }, firstMs: null, doneMs: null, trials: 0, reached: null };
  let first = true;
  setStatus('running', 'starting…');
  document.body.classList.add('stale');
  const settings = runSettings();
  if ('error' in settings) {
    // never a silent 1-trial run: nothing runs until the trials are a number it can run
    setStatus('error', settings.error);
    document.body.classList.remove('stale');
    return;
  }
  const payload: RunRequest = { scenario: state.info.path, variant: state.info.variant, values: state.values, ...settings, ...(state.seed !== undefined ? { seed: state.seed } : {}) };
  try {
    if (Object.keys(state.values).length > 0 && !transport().streamChecksValues) {
      // the values first (a 200 either way): a value being typed is not a failed request
      const chk = await transport().check({ scenario: payload.scenario, variant: payload.variant, values: payload.values });
      if (state.live !== ac) return;
      if (!chk.ok) throw new TransportError({ error: 'invalid values', issues: chk.issues }, 422);
    }
    for await (const ev of transport().stream('run', payload, ac.signal)) {
      if (state.live !== ac) continue;
      if (ev.type === 'start') {
        state.start = ev;
        chartsOfNewRun();
        clearIssues();
      } else if (ev.type === 'partial' || ev.type === 'done') {
        state.last = ev;
        renderResults(ev);
        preferProduced(ev.cases[0].metrics);
        if (ev.charts) renderChartsAfterPaint(ev.charts, ev.type === 'done');
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
          marks.runs.push(record);
        }
        renderStatus(ev);
        renderCommand(ev.trials);
      } else if (ev.type === 'error') {
        setStatus('error', ev.message);
      }
    }
  } catch (e) {
    if ((e as Error).name === 'AbortError' || state.live !== ac) return;
    document.body.classList.remove('stale');
    if (e instanceof TransportError) {
      const issues = e.body.issues;
      const general = markIssues(issues);
      banner(general.length > 0 ? general : issues?.length ? [] : [e.message]);
      setStatus('error', issues?.length ? 'a value is not valid: see the marked setting' : e.message);
      document.body.classList.add('stale');
    } else setStatus('error', `the server did not answer (${(e as Error).message}); is siegesim serve still running?`);
  }
}

export function setStatus(kind: string, text: string): void {
  $('#status').dataset.state = kind;
  $('#status-text').textContent = text;
}

function renderStatus(ev: RunPartial | RunDone): void {
  const headline = state.start?.headline ?? [];
  let widest = 0;
  for (const c of ev.cases) for (const h of headline) if (c.metrics[h]) widest = Math.max(widest, halfWidth(c.metrics[h]) || 0);
  const prec = state.start?.precision;
  const target = prec ? ` (target ±${(prec * 100).toFixed(prec < 0.005 ? 2 : 1)})` : '';
  const secs = `${(ev.ms / 1000).toFixed(2)} s`;
  const seed = state.start ? ` (seed ${String(state.start.seed)})` : '';
  const text = `${int(ev.trials)} trials${seed} · widest interval ±${(widest * 100).toFixed(2)} pts${target} · ${secs}`;
  if (ev.type === 'partial') setStatus('running', `refining… ${text}`);
  else if (ev.precision && !ev.precision.reached) setStatus('capped', `trial cap reached: ${text}`);
  else setStatus('done', `${prec ? 'precise' : 'done'}: ${text}`);
}

/** A metric's tooltip: its name and what it counts (the server's metricDocs, the report's definitions). */
function metricTitle(m: string): string {
  const d = state.info?.metricDocs?.[m];
  return d ? `${m}: ${d}` : m;
}

const direction = (d: { value: number | null }): string => ((d.value ?? 0) > 0 ? 'up' : 'down');

function renderResults(ev: RunPartial | RunDone): void {
  const loaded: LiveCase = ev.cases.find((c) => c.variant === 'as loaded') ?? ev.cases[0];
  const tuned = ev.cases.find((c) => c.variant === 'tuned');
  // the columns of the report's Answer, sent by the server with each case (src/report/html.ts answerMetrics)
  const { lead = [], outcome, also } = loaded.answer;
  const headline = [...lead, ...outcome, ...also];
  const card = (h: string) => {
    const shown = (tuned ?? loaded).metrics[h];
    const base = loaded.metrics[h];
    const d = tuned?.differences[h];
    const prob = isProb(shown);
    const sig = significant(d);
    return el(
      'div',
      { class: 'card', 'data-metric': h },
      el('div', { class: 'card-name', text: label(h), title: metricTitle(h) }),
      el('div', { class: 'card-value', 'data-role': 'value', text: fmtValue(shown) }),
      el('div', { class: 'card-ci muted', 'data-role': 'interval', text: shown ? `95%: ${fmtInterval(shown)}` : '' }),
      tuned
        ? el(
            'div',
            { class: `card-diff ${sig ? direction(d!) : 'flat'}`, 'data-role': 'difference' },
            el('span', { class: 'delta', text: fmtDiff(d, prob) }),
            el('span', { class: 'muted', text: ` [${fmtDiffInterval(d, prob)}]${(d as { paired?: boolean } | undefined)?.paired === false ? ' (Welch)' : ''}` }),
            el('div', { class: 'muted small', text: `vs ${fmtValue(base)} as loaded${sig ? '' : ' · not significant'}` }),
            overText(d) ? el('div', { class: 'over small', 'data-role': 'over', text: overText(d) }) : null,
          )
        : el('div', { class: 'card-diff flat muted small', text: 'as loaded' }),
    );
  };
  // a group of cards, named when the answer has an outcome partition (as the report's Answer is)
  const group = (kind: string, name: string, metrics: string[]) =>
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
  const rows = [el('tr', {}, el('th', { class: 'l', text: 'metric' }), el('th', { text: 'as loaded' }), tuned ? el('th', { text: 'tuned' }) : null, tuned ? el('th', { text: 'difference (paired; Welch where marked)' }) : null)];
  for (const m of names) {
    const a = loaded.metrics[m];
    const b = tuned?.metrics[m];
    const d = tuned?.differences[m];
    const prob = isProb(a);
    const sig = significant(d);
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
              { class: sig ? direction(d!) : 'flat' },
              el('span', { text: fmtDiff(d, prob) }),
              el('span', { class: 'ci', text: d ? ` [${fmtDiffInterval(d, prob)}]${(d as { paired?: boolean }).paired === false ? ' (Welch)' : ''}` : '' }),
              overText(d) ? el('div', { class: 'over', 'data-role': 'over', text: overText(d) }) : null,
            )
          : null,
      ),
    );
  }
  table.replaceChildren(...rows);
}

// ---------- save and reproduce ----------
function renderCommand(trials: number): void {
  const start = state.start;
  if (!start) return;
  $('#command').textContent = `${start.command} --trials ${trials}`;
  const tuned = Object.keys(start.changed ?? {}).length > 0;
  const sweep = state.info.sweep.length > 0;
  const variant = state.info.variant;
  let note = tuned
    ? `After saving the tuned YAML (download it above), this run writes what the "tuned" column shows as case 1, variant "${variant}" of its own report (the saved file is named ${state.info.tunedName}: reports/${state.info.tunedName}/), byte for byte.`
    : `This run writes what the page shows as case 1, variant "${variant}" of its report, byte for byte.`;
  const sw = start.sweep;
  if (sweep && sw) {
    const words = (o: Record<string, unknown>) => Object.entries(o).map(([p, x]) => `${p} = ${String(x)}`).join(', ');
    const gains = Object.entries(sw.gains ?? {});
    note = sw.at
      ? `The file sweeps ${state.info.sweep.map((s) => s.path).join(', ')}: the command runs its whole grid, and its case ${words(sw.at)}, variant "${variant}", is what the ${tuned ? '"tuned" column' : 'page'} shows, byte for byte (each sweep point rolls its own dice: the page rolls that point's).` +
        (gains.length > 0 ? ` The saved file's sweep gains ${gains.map(([p, x]) => `${p} ${String(x)}`).join(', ')} for it (and says so in its description).` : '') +
        (tuned ? ` Save the tuned YAML first (named ${state.info.tunedName}: reports/${state.info.tunedName}/).` : '')
      : `The file sweeps ${state.info.sweep.map((s) => s.path).join(', ')} and the case shown is at none of its points: the command runs the grid, not this case.`;
  }
  $('#command-note').textContent = note;
}

export async function save(): Promise<void> {
  try {
    const r = await transport().save({ scenario: state.info.path, variant: state.info.variant, values: state.values });
    const blob = new Blob([r.yaml], { type: 'application/yaml' });
    const a = el('a', { href: URL.createObjectURL(blob), download: r.filename });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
    $('#save-name').textContent = r.changed
      ? ` saved as ${r.filename}: a scenario of its own, named ${r.name} (its report goes to reports/${r.name}/, the original's stays as it is)` +
        (Object.keys(r.gains ?? {}).length > 0
          ? `; its sweep gains ${Object.entries(r.gains).map(([p, x]) => `${p} ${String(x)}`).join(', ')}, so that its run has the case tuned`
          : '')
      : ` saved as ${r.filename} (nothing tuned: the file as it is)`;
    // expect: items the tuned case no longer matches: said plainly, and how the copy holds them (each reason in full on hover, and in the file)
    const stale = r.stale ?? [];
    const kept = stale.filter((x) => x.commented);
    const left = stale.filter((x) => !x.commented);
    const items = (xs: typeof stale) => xs.map((x) => `expect[${x.index}] ${x.metric}`).join(', ');
    const n = (xs: typeof stale, one: string, many: string) => (xs.length === 1 ? one : many);
    const box = $('#save-stale');
    box.textContent = [
      kept.length > 0
        ? `${n(kept, 'One expect: item no longer matches', `${kept.length} expect: items no longer match`)} the tuned case (${items(kept)}): the copy keeps ${n(kept, 'it as a comment', 'them as comments')} under the reason, so siegesim validate takes the copy and test judges what still matches; edit ${n(kept, 'it', 'them')} back in once ${n(kept, 'it matches', 'they match')}.`
        : '',
      left.length > 0
        ? `${n(left, 'One expect: item no longer matches', `${left.length} expect: items no longer match`)} the tuned case (${items(left)}) and could not be kept as comments: siegesim run goes on without ${n(left, 'it', 'them')}, siegesim validate and test refuse the copy until ${n(left, 'it is', 'they are')} edited.`
        : '',
    ]
      .filter(Boolean)
      .join(' ');
    box.title = stale.map((x) => `expect[${x.index}]: ${x.message}`).join('\n');
    box.hidden = stale.length === 0;
    const pre = $('#yaml-preview');
    pre.textContent = r.yaml;
    pre.hidden = false;
  } catch (e) {
    markIssues(e instanceof TransportError ? e.body.issues : undefined);
    $('#save-name').textContent = ` not saved: ${(e as Error).message}`;
    $('#save-stale').hidden = true;
  }
}

export async function copyText(text: string, button: HTMLElement): Promise<void> {
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
