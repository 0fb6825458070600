/**
 * The trend page of `siegesim history show`: one chart per metric across the commits, the
 * 99.9% interval band, the assertion's bound, the first commit at which it moved marked.
 * Pure: the CLI writes it (index.html and history.json, the analysis as data).
 *
 * The charts are SVG drawn here, not through vega as the run reports' are: a store of 1 000
 * commits × 100 metrics must load and draw in ≤ 2 s, and vega's headless renderer takes tens of
 * milliseconds for a chart of a few points, seconds for a hundred charts of a thousand. Each
 * chart is three paths (band, line, bound) and a few labels, so the page stays a few MB and
 * opens offline. Tooltips (the commit's sha, date and subject, and the estimate) come from a small
 * inline script that reads the page's own data; with up to 300 commits every point also
 * carries an SVG <title>, which needs no script.
 */
import { fmtTest } from '../api/test.js';
import type { CommitInfo, HistoryAnalysis, HistoryPoint, HistorySeries } from '../api/history.js';
import { escapeHtml, pageShell } from './html.js';
import { conditionalText } from './format.js';

const W = 760;
const H = 190;
const M = { l: 64, r: 12, t: 22, b: 34 };
/** Up to this many commits, every point carries an SVG <title> (a tooltip without the script). */
const TITLES_UP_TO = 300;

const SOURCE_TITLE: Record<string, string> = {
  test: 'Assertions (<code>siegesim test</code>): each metric an <code>expect:</code> item bounds',
  bench: 'Bench rates (<code>siegesim bench</code>): each rate relative to the calibration loop run beside it',
  run: 'Run metrics (<code>summary.json</code> of <code>siegesim run</code>)',
};

const short = (sha: string) => sha.slice(0, 7);

/** A few round values across [lo, hi] for the y axis. */
function ticks(lo: number, hi: number, count = 4): number[] {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** The point's tooltip text: `abc1234 2026-11-20 Climb DC 13 — 0.9371 [0.9305, 0.9431]`. */
function tipText(c: CommitInfo, p: HistoryPoint): string {
  const est = p.v === null ? 'no estimate' : p.lo !== undefined && p.hi !== undefined ? `${fmtTest(p.v)} [${fmtTest(p.lo)}, ${fmtTest(p.hi)}]` : fmtTest(p.v);
  return `${short(c.sha)} ${c.date.slice(0, 10)} ${c.subject}\n${est}`;
}

/** One series as an SVG chart over every commit of the analysis (x: the commit's place). */
export function historyChart(s: HistorySeries, commits: readonly CommitInfo[], index: number): string {
  const n = commits.length;
  const pw = W - M.l - M.r;
  const ph = H - M.t - M.b;
  const x = (i: number) => M.l + ((i + 0.5) * pw) / Math.max(1, n);
  let lo = Infinity;
  let hi = -Infinity;
  const see = (v: number | null | undefined) => {
    if (v !== null && v !== undefined && Number.isFinite(v)) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  };
  for (const p of s.points) {
    if (!p) continue;
    see(p.v);
    see(p.lo);
    see(p.hi);
    see(p.x);
  }
  if (s.bound) {
    see(s.bound[0]);
    see(s.bound[1]);
  }
  if (!Number.isFinite(lo)) {
    lo = 0;
    hi = 1;
  }
  if (hi === lo) {
    const d = Math.abs(lo) * 0.05 || 0.5;
    lo -= d;
    hi += d;
  }
  const pad = (hi - lo) * 0.06;
  lo -= pad;
  hi += pad;
  const y = (v: number) => M.t + ph - ((v - lo) / (hi - lo)) * ph;
  const f = (v: number) => String(Math.round(v * 10) / 10);
  // the paths' coordinates in tenths of a pixel, as integers (drawn in a group scaled by 0.1):
  // a fraction's number-to-string took most of the time of a page of 1 000 commits
  const g = (v: number) => (v * 10 + 0.5) | 0;

  // the band: one polygon per run of consecutive commits that have an interval
  let band = '';
  let line = '';
  let exact = '';
  let runStart = -1;
  // up to TITLES_UP_TO commits each commit's interval is its own bar (a band joined across commits
  // would draw a slope no interval has); past that a bar is under a pixel, and the joined band reads better
  const perCommit = n <= TITLES_UP_TO;
  const bw = Math.max(2, Math.min(14, (pw / Math.max(1, n)) * 0.5));
  const closeBand = (end: number) => {
    if (runStart < 0) return;
    let d = '';
    if (perCommit) {
      for (let i = runStart; i < end; i++) {
        const p = s.points[i]!;
        d += `M${g(x(i) - bw / 2)},${g(y(p.hi!))}h${g(bw)}V${g(y(p.lo!))}h${-g(bw)}Z`;
      }
      band += d;
      runStart = -1;
      return;
    }
    for (let i = runStart; i < end; i++) d += `${i === runStart ? 'M' : 'L'}${g(x(i))},${g(y(s.points[i]!.hi!))}`;
    for (let i = end - 1; i >= runStart; i--) d += `L${g(x(i))},${g(y(s.points[i]!.lo!))}`;
    band += d + 'Z';
    runStart = -1;
  };
  let pen = false;
  let xPen = false;
  for (let i = 0; i < n; i++) {
    const p = s.points[i];
    const hasBand = p !== null && p.lo !== undefined && p.hi !== undefined && Number.isFinite(p.lo) && Number.isFinite(p.hi);
    if (hasBand && runStart < 0) runStart = i;
    if (!hasBand) closeBand(i);
    // the line joins the points a series has, across commits that did not record it
    if (p && p.v !== null) {
      line += `${pen ? 'L' : 'M'}${g(x(i))},${g(y(p.v))}`;
      pen = true;
    }
    if (p && p.x !== undefined) {
      exact += `${xPen ? 'L' : 'M'}${g(x(i))},${g(y(p.x))}`;
      xPen = true;
    }
  }
  closeBand(n);

  const parts: string[] = [];
  parts.push(`<rect x="${M.l}" y="${M.t}" width="${pw}" height="${ph}" fill="#fff" stroke="#ccc"/>`);
  for (const t of ticks(lo, hi)) {
    const ty = f(y(t));
    parts.push(`<line x1="${M.l}" x2="${M.l + pw}" y1="${ty}" y2="${ty}" stroke="#eee"/><text x="${M.l - 6}" y="${ty}" dy="0.32em" text-anchor="end">${escapeHtml(fmtTest(t))}</text>`);
  }
  // x labels: short shas, as many as fit (~70 px each), the first and last always
  const every = Math.max(1, Math.ceil((n * 70) / pw));
  for (let i = 0; i < n; i++) {
    if (i % every !== 0 && i !== n - 1) continue;
    if (i === n - 1 && i % every !== 0 && (n - 1) % every < every * 0.8 && n > every) continue;
    parts.push(`<text x="${f(x(i))}" y="${M.t + ph + 14}" text-anchor="middle" class="sha">${short(commits[i].sha)}</text>`);
  }
  if (band) parts.push(`<path d="${band}" class="band" transform="scale(.1)"/>`);
  if (s.bound) {
    for (const [k, b] of [
      ['low', s.bound[0]],
      ['high', s.bound[1]],
    ] as const) {
      if (b === null) continue;
      const by = f(y(b));
      parts.push(`<line x1="${M.l}" x2="${M.l + pw}" y1="${by}" y2="${by}" class="bound"/><text x="${M.l + pw - 4}" y="${by}" dy="${k === 'low' ? '1.1em' : '-0.4em'}" text-anchor="end" class="boundtext">${k === 'low' ? 'at least' : 'at most'} ${b}</text>`);
    }
  }
  if (exact) parts.push(`<path d="${exact}" class="exact" transform="scale(.1)"/>`);
  if (line) parts.push(`<path d="${line}" class="line" transform="scale(.1)"/>`);
  if (n <= TITLES_UP_TO) {
    for (let i = 0; i < n; i++) {
      const p = s.points[i];
      if (!p || p.v === null) continue;
      const moved = s.moved.includes(i);
      parts.push(`<circle cx="${f(x(i))}" cy="${f(y(p.v))}" r="${moved ? 4 : 2.5}" class="${moved ? 'dot moved' : 'dot'}"><title>${escapeHtml(tipText(commits[i], p))}</title></circle>`);
    }
  }
  for (const i of s.moved) {
    if (i === s.firstMoved) continue;
    parts.push(`<path d="M${f(x(i))},${M.t - 1}l-4,-6h8z" class="later"/>`);
  }
  if (s.firstMoved !== null) {
    const mx = f(x(s.firstMoved));
    const right = x(s.firstMoved) > M.l + pw * 0.7;
    parts.push(
      `<line x1="${mx}" x2="${mx}" y1="${M.t}" y2="${M.t + ph}" class="first"/>` +
        `<text x="${mx}" y="${M.t - 5}" dx="${right ? -4 : 4}" text-anchor="${right ? 'end' : 'start'}" class="firsttext">moved at ${short(commits[s.firstMoved].sha)}</text>`,
    );
  }
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" data-series="${index}" aria-label="${escapeHtml(s.name)}">${parts.join('')}<line class="cursor" x1="0" x2="0" y1="${M.t}" y2="${M.t + ph}" visibility="hidden"/></svg>`;
}

const CSS = `.chart{margin:1.2rem 0}.chart h3{font-size:1rem;margin:.2rem 0;font-weight:600}.chart .sub{color:#666;font-size:.85em}
svg{max-width:100%;height:auto;font:10px system-ui,sans-serif;fill:#444}svg .band{fill:#1f5fa8;fill-opacity:.18;stroke:none}
svg .line{fill:none;stroke:#1f5fa8;stroke-width:1.5;vector-effect:non-scaling-stroke}svg .exact{fill:none;stroke:#555;stroke-dasharray:2 3;vector-effect:non-scaling-stroke}svg .dot{fill:#1f5fa8}svg .dot.moved{fill:#d1495b}
svg .bound{stroke:#b3261e;stroke-dasharray:6 4;stroke-width:1.2}svg .boundtext{fill:#b3261e}svg .first{stroke:#d1495b;stroke-width:2}
svg .firsttext{fill:#d1495b;font-weight:600}svg .later{fill:#d1495b}svg .cursor{stroke:#999}svg .sha{fill:#666;font-family:ui-monospace,monospace}
#tip{position:fixed;pointer-events:none;background:#222;color:#fff;padding:.3rem .5rem;border-radius:4px;font-size:12px;white-space:pre;display:none;z-index:9;max-width:40rem}
table.moves td{text-align:left}`;

/**
 * The tooltip script: the commit nearest the pointer on any chart, its sha, date, subject and
 * the estimate there. Reads the JSON of the page (one copy of the commits, each series' values).
 */
const SCRIPT = `(()=>{const D=JSON.parse(document.getElementById('history-data').textContent);const tip=document.getElementById('tip');
const W=${W},L=${M.l},R=${M.r};const fmt=(v)=>v==null?'–':Math.abs(v)>=1e4?String(Math.round(v)):String(+v.toPrecision(5));
document.querySelectorAll('svg[data-series]').forEach((svg)=>{const s=D.series[+svg.dataset.series];const cur=svg.querySelector('.cursor');
svg.addEventListener('mousemove',(e)=>{const b=svg.getBoundingClientRect();const vx=(e.clientX-b.left)*W/b.width;const n=D.commits.length;
let i=Math.floor((vx-L)*n/(W-L-R));if(i<0||i>=n){tip.style.display='none';return;}const c=D.commits[i];const p=s[i];
const x=L+(i+.5)*(W-L-R)/n;cur.setAttribute('x1',x);cur.setAttribute('x2',x);cur.setAttribute('visibility','visible');
tip.textContent=c[0]+' '+c[1]+' '+c[2]+'\\n'+(p?fmt(p[0])+(p[1]!=null?' ['+fmt(p[1])+', '+fmt(p[2])+']':''):'not recorded at this commit');
tip.style.display='block';tip.style.left=Math.min(e.clientX+14,innerWidth-320)+'px';tip.style.top=(e.clientY+14)+'px';});
svg.addEventListener('mouseleave',()=>{tip.style.display='none';cur.setAttribute('visibility','hidden');});});})();`;

/** The page's data for the tooltips: commits once, then each series' [v, lo, hi] per commit (null where not recorded). */
function pageData(a: HistoryAnalysis): string {
  const commits = JSON.stringify(a.commits.map((c) => [short(c.sha), c.date.slice(0, 10), c.subject]));
  // written out directly, not through arrays for JSON.stringify: 100 000 small arrays were a
  // quarter of the time of a 1 000-commit page, most of it the garbage collector's
  const num = (x: number | null | undefined) => (typeof x === 'number' && Number.isFinite(x) ? String(x) : 'null');
  const series: string[] = [];
  for (const s of a.series) {
    let out = '[';
    for (let i = 0; i < s.points.length; i++) {
      const p = s.points[i];
      if (i > 0) out += ',';
      out += p === null ? 'null' : p.lo !== undefined ? `[${num(p.v)},${num(p.lo)},${num(p.hi)}]` : `[${num(p.v)}]`;
    }
    series.push(out + ']');
  }
  // inside <script type="application/json">: only "</" could end it early
  return `{"commits":${commits},"series":[${series.join(',')}]}`.replace(/<\//g, '<\\/');
}

/** The whole trend page. */
export function historyPage(a: HistoryAnalysis, opts: { store?: string } = {}): string {
  const n = a.commits.length;
  const body: string[] = [];
  body.push(`<h1>Balance over time</h1>`);
  const first = a.commits[0];
  const last = a.commits[n - 1];
  body.push(
    `<p>${n} commit${n === 1 ? '' : 's'}${n > 0 ? ` (${escapeHtml(short(first.sha))} ${escapeHtml(first.date.slice(0, 10))} to ${escapeHtml(short(last.sha))} ${escapeHtml(last.date.slice(0, 10))})` : ''}, ${a.series.length} metric${a.series.length === 1 ? '' : 's'}${opts.store ? `, from <code>${escapeHtml(opts.store)}</code>` : ''}. ` +
      `The blue line is the estimate and the shaded bar or band each commit's 99.9% interval; a dashed red line is an <code>expect:</code> bound, a dotted grey line the exact answer of an <code>exact: true</code> item; a red line marks the first commit at which the metric moved ` +
      `(<code>siegesim diff</code>'s test against the commit before, Holm-corrected over the metrics of that commit, family-wise false-alarm rate ${a.alpha}; a bench rate when it changed by more than ${Math.round(a.tolerance * 100)}%).</p>`,
  );
  const moved = a.series.filter((s) => s.firstMoved !== null);
  if (moved.length > 0) {
    body.push(`<h2>Moved (${moved.length})</h2><table class="moves"><tr><th class="l">metric</th><th class="l">first moved at</th><th class="l">from → to</th><th class="l">moved again at</th></tr>`);
    for (const s of moved) {
      const m = a.moves.find((x) => x.key === s.key && x.at === s.firstMoved)!;
      const c = a.commits[m.at];
      const again = s.moved.filter((i) => i !== s.firstMoved).map((i) => short(a.commits[i].sha));
      body.push(
        `<tr><td><a href="#s${a.series.indexOf(s)}">${escapeHtml(s.key)}</a>${s.conditionalOn ? ` (${escapeHtml(conditionalText(s.conditionalOn))})` : ''}</td><td><code>${short(c.sha)}</code> ${escapeHtml(c.subject)}</td>` +
          `<td>${fmtTest(m.before)} → ${fmtTest(m.after)}${m.z !== undefined ? ` (z = ${m.z.toFixed(1)})` : m.ratio !== undefined ? ` (×${m.ratio.toFixed(2)})` : ''}</td><td>${again.map((x) => `<code>${x}</code>`).join(' ') || '–'}</td></tr>`,
      );
    }
    body.push('</table>');
  } else body.push('<p>No metric moved between any two commits.</p>');
  const sources = [...new Set(a.series.map((s) => s.source))].sort((x, y) => ['test', 'bench', 'run'].indexOf(x) - ['test', 'bench', 'run'].indexOf(y));
  for (const src of sources) {
    body.push(`<h2>${SOURCE_TITLE[src] ?? escapeHtml(src)}</h2>`);
    a.series.forEach((s, i) => {
      if (s.source !== src) return;
      const latest = [...s.points].reverse().find((p) => p && p.v !== null);
      const sub =
        (latest ? `latest ${fmtTest(latest.v!)}${latest.lo !== undefined ? ` [${fmtTest(latest.lo)}, ${fmtTest(latest.hi!)}]` : ''}` : '') +
        // a mean over the trials of an event says which, as run's answer does
        (s.conditionalOn ? `${latest ? '; ' : ''}${escapeHtml(conditionalText(s.conditionalOn))}` : '');
      const movedAt = s.firstMoved !== null ? `; first moved at <code>${short(a.commits[s.firstMoved].sha)}</code> ${escapeHtml(a.commits[s.firstMoved].subject)}` : '';
      body.push(`<figure class="chart" id="s${i}"><h3>${escapeHtml(s.name)}</h3><div class="sub">${sub}${movedAt}</div>${historyChart(s, a.commits, i)}</figure>`);
    });
  }
  body.push('<div id="tip"></div>');
  body.push(`<script type="application/json" id="history-data">${pageData(a)}</script>`);
  body.push(`<script>${SCRIPT}</script>`);
  return pageShell({ title: 'siegesim history', body: `<style>${CSS}</style>\n${body.join('\n')}` });
}
