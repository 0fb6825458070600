/** index.html: one static page per scenario (tables and charts), and the reports index. Offline. */
import type { ScenarioResult } from '../systems/types.js';
import { fmt } from './format.js';
import { orderedMetrics } from './tables.js';

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#222}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}table{border-collapse:collapse;margin:.5rem 0}
td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:right}th{background:#f3f3f3}td.l,th.l{text-align:left}
.muted{color:#666}figure{margin:1rem 0}img{max-width:100%}code{background:#f3f3f3;padding:0 .2rem}`;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

function ci(v: number, lo: number, hi: number): string {
  if (!Number.isFinite(v)) return '<td>–</td>';
  return `<td>${fmt4(v)} <span class="muted">[${fmt4(lo)}, ${fmt4(hi)}]</span></td>`;
}

function fmt4(x: number): string {
  if (!Number.isFinite(x)) return '–';
  return Math.abs(x) >= 100 ? x.toFixed(1) : x.toFixed(4);
}

/** The page of one scenario's report. */
export function scenarioPage(r: ScenarioResult, charts: { name: string; title: string }[], files: string[]): string {
  const metricNames = orderedMetrics(r, r.cases[0]?.metrics ?? {});
  const head = ['case', 'variant', ...r.params, 'trials', ...metricNames];
  const rows = r.cases
    .map(
      (c) =>
        `<tr><td>${c.case}</td><td class="l">${escapeHtml(c.variant)}</td>${r.params
          .map((p) => `<td>${escapeHtml(String(c.params[p]))}</td>`)
          .join('')}<td>${c.trials}</td>${metricNames
          .map((m) => (c.metrics[m] ? ci(c.metrics[m].value, c.metrics[m].ci_low, c.metrics[m].ci_high) : '<td></td>'))
          .join('')}</tr>`,
    )
    .join('\n');
  let diffs = '';
  if (r.variants.length > 1) {
    const dnames = orderedMetrics(r, r.cases.find((c) => Object.keys(c.differences).length > 0)?.differences ?? {});
    const drows = r.cases
      .filter((c) => Object.keys(c.differences).length > 0)
      .map(
        (c) =>
          `<tr><td>${c.case}</td><td class="l">${escapeHtml(c.variant)}</td>${r.params
            .map((p) => `<td>${escapeHtml(String(c.params[p]))}</td>`)
            .join('')}${dnames.map((m) => ci(c.differences[m].value, c.differences[m].ci_low, c.differences[m].ci_high)).join('')}</tr>`,
      )
      .join('\n');
    diffs = `<h2>Difference from the baseline (${escapeHtml(r.variants[0])})</h2>
<p class="muted">Variants share dice (common random numbers); paired intervals where a metric is per trial, Welch otherwise.</p>
<table><tr>${['case', 'variant', ...r.params, ...dnames].map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>
${drows}</table>`;
  }
  const figs = charts
    .map((c) => `<figure><img src="charts/${encodeURIComponent(c.name)}.svg" alt="${escapeHtml(c.title)}"><figcaption class="muted">${escapeHtml(c.title)} — <a href="charts/${encodeURIComponent(c.name)}.vl.json">Vega-Lite spec</a></figcaption></figure>`)
    .join('\n');
  const p = r.provenance;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(r.name)} — siegesim</title><style>${STYLE}</style></head>
<body>
<p><a href="../index.html">all reports</a></p>
<h1>${escapeHtml(r.name)}</h1>
${r.description ? `<p>${escapeHtml(r.description)}</p>` : ''}
<p class="muted">system <code>${escapeHtml(r.system)}</code> · seed <code>${escapeHtml(String(r.seed))}</code> · ${r.cases[0]?.trials ?? 0} trials per case · ${r.cases.length} cases · siegesim ${escapeHtml(p.version)} · ${p.threads} threads · ${p.seconds} s · ${p.trials_per_second.toLocaleString('en-US')} trials/s</p>
<h2>Results (95% intervals)</h2>
<table><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>
${rows}</table>
${diffs}
<h2>Charts</h2>
${figs}
<h2>Files</h2>
<ul>${files.map((f) => `<li><a href="${encodeURI(f)}">${escapeHtml(f)}</a></li>`).join('')}</ul>
</body></html>
`;
}

export interface IndexEntry {
  dir: string;
  name: string;
  system: string;
  description?: string;
  cases: number;
  headline: string;
}

/** reports/index.html: a link to every scenario's page. */
export function indexPage(entries: IndexEntry[]): string {
  const rows = entries
    .map(
      (e) =>
        `<tr><td class="l"><a href="${encodeURI(e.dir)}/index.html">${escapeHtml(e.name)}</a></td><td class="l">${escapeHtml(e.system)}</td><td>${e.cases}</td><td class="l">${escapeHtml(e.headline)}</td><td class="l">${escapeHtml(e.description ?? '')}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>siegesim reports</title><style>${STYLE}</style></head>
<body><h1>siegesim reports</h1>
<table><tr><th class="l">scenario</th><th class="l">system</th><th>cases</th><th class="l">baseline, first case</th><th class="l">description</th></tr>
${rows}</table></body></html>
`;
}

export { fmt };
