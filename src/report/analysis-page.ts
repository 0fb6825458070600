/**
 * What the analysis reports (sensitivity, tune) share: the page (report/html.ts's shell and
 * figures, so it looks like a run's report: a header, the charts, the sections, the files), its
 * provenance line, and writing the folder atomically.
 */
import type { ChartSpec } from '../systems/types.js';
import type { Estimate } from '../stats/intervals.js';
import { escapeHtml, figure, pageShell } from './html.js';
import { showHtml, threadsText } from './format.js';
import { putCharts, writeFolder } from './write.js';

/** What these pages add to the shared stylesheet: diverging bars, the verdict, the best row. */
const EXTRA = `<style>.bar{display:inline-block;height:.7em;background:#6b8fb5;vertical-align:middle}
.bar.up{background:#1f5fa8}.bar.down{background:#c86a12}.bar.flat{background:#9a9a9a}.diverging{white-space:nowrap}.half{display:inline-block;width:80px}.half.l{text-align:right;border-right:1px solid #999}
td.num{font-variant-numeric:tabular-nums;white-space:nowrap}.verdict{font-size:1.05rem;padding:.5rem .8rem;border-left:4px solid #4c78a8;background:#f5f8fc}
.verdict.miss{border-color:#e45756;background:#fdf3f3}tr.best td{background:#eef7ee}details{margin:.5rem 0}</style>`;

/** `value [lo, hi]` as HTML (the interval in the report's `ci` style); – when undefined. */
export function showCi(e: Estimate, delta = false): string {
  if (!Number.isFinite(e.value)) return '–';
  return `${delta && e.value > 0 ? '+' : ''}${showHtml(e.value)} <span class="ci">[${showHtml(e.ci_low)}, ${showHtml(e.ci_high)}]</span>`;
}

/** A table: header cells and rows of cell HTML (already escaped); `left` lists left-aligned columns. */
export function table(head: string[], rows: string[][], left: number[] = [0], rowClass?: (i: number) => string | undefined): string {
  const th = head.map((h, i) => `<th${left.includes(i) ? ' class="l"' : ''}>${escapeHtml(h)}</th>`).join('');
  const trs = rows.map((r, ri) => {
    const cls = rowClass?.(ri);
    return `<tr${cls ? ` class="${cls}"` : ''}>${r.map((c, i) => `<td class="${left.includes(i) ? 'l' : 'num'}">${c}</td>`).join('')}</tr>`;
  });
  return `<div class="scroll"><table><tr>${th}</tr>\n${trs.join('\n')}</table></div>`;
}

/** The whole page: title, the answer in a line, provenance, the charts, the sections and the files. */
export function analysisPage(o: {
  title: string;
  lead: string;
  meta: string;
  sections: string[];
  charts: readonly ChartSpec[];
  files: readonly string[];
  /** The link back to the reports index (report/html.ts's pageShell draws it, as on a run's page). */
  indexHref?: string;
}): string {
  const body = `${EXTRA}
<h1>${escapeHtml(o.title)}</h1>
<p>${o.lead}</p>
<p class="muted">${o.meta}</p>
${o.charts.map((c) => figure({ ...c, caption: c.caption ?? c.title })).join('\n')}
${o.sections.join('\n')}
<h2>Files</h2>
<ul>${o.files.map((f) => `<li><a href="${encodeURI(f)}">${escapeHtml(f)}</a></li>`).join('')}</ul>`;
  return pageShell({ title: `${o.title} — siegesim`, body, indexHref: o.indexHref });
}

/** The head of an analysis's JSON: the scenario, its system, file, seed and trials. */
export function jsonHead(r: { name: string; system: string; file: string; seed: string | number; trials: number }): Record<string, unknown> {
  return { name: r.name, system: r.system, file: r.file, seed: r.seed, trials: r.trials };
}

/** The provenance line: system, file and seed, what the verb adds, version, threads, time. */
export function provenanceLine(
  r: { system: string; file: string; seed: string | number; provenance: { version: string; threads: number; seconds: number } },
  middle: string,
): string {
  const p = r.provenance;
  return `system <code>${escapeHtml(r.system)}</code> · <code>${escapeHtml(r.file)}</code> · seed <code>${escapeHtml(String(r.seed))}</code> · ${middle} · siegesim ${escapeHtml(p.version)} · ${threadsText(p.threads)} · ${p.seconds} s`;
}

/**
 * Write an analysis report folder atomically: `<name>.csv`, `<name>.json`, its charts (spec and
 * SVG) and index.html.
 */
export async function writeAnalysis(
  outDir: string,
  o: { name: 'sensitivity' | 'tune'; csv: string; json: Record<string, unknown>; charts: readonly ChartSpec[] },
  page: (files: readonly string[]) => string,
): Promise<string[]> {
  const { name, csv, json, charts } = o;
  return writeFolder(outDir, async (put, files) => {
    await put(`${name}.csv`, csv);
    await put(`${name}.json`, JSON.stringify(json, null, 2) + '\n');
    await putCharts(put, charts);
    await put('index.html', page([...files]));
  }, name);
}

/**
 * Where a sensitivity ranking or a tune search worked from (after the metric's name, or after
 * "Working" on the tune page): "at the loaded settings", or the case when it is not simply the
 * file as loaded (`--where`, a sweep point, a variant): "on the baseline variant (as-written)",
 * "at wall.hp=20" (the note without its "working").
 */
export function startingPoint(r: { note?: string }): string {
  return r.note ? r.note.replace(/^working /, '') : 'at the loaded settings';
}
