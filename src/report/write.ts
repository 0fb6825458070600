/**
 * The write phase: every report file goes to a temporary folder beside the target, which is
 * renamed into place only when complete. An interrupted or failed run never leaves a
 * half-written report and never replaces a good one with a partial one.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ChartSpec, ScenarioResult } from '../systems/types.js';
import { systemById } from '../systems/registry.js';
import { curveCsv, summaryCsv, summaryJson } from './tables.js';
import { renderSvgs } from './renderer.js';
import { headlineHtml, indexPage, scenarioPage, type IndexEntry } from './html.js';

/** Temporary folders made by this process, removed on interruption (see cli). */
export const PENDING_DIRS = new Set<string>();

/**
 * Write a run's report into `outDir` atomically. Returns the files written (relative).
 * `index`: a reports index will be written in the parent folder (the page links back to it).
 */
export async function writeReport(r: ScenarioResult, outDir: string, opts: { index?: boolean } = {}): Promise<string[]> {
  const target = path.resolve(outDir);
  const parent = path.dirname(target);
  await mkdir(parent, { recursive: true });
  const tmp = path.join(parent, `.tmp-${path.basename(target)}-${process.pid}-${Date.now()}`);
  PENDING_DIRS.add(tmp);
  try {
    await mkdir(path.join(tmp, 'charts'), { recursive: true });
    const files: string[] = [];
    const put = async (rel: string, content: string) => {
      await writeFile(path.join(tmp, rel), content);
      files.push(rel);
    };
    await put('summary.csv', summaryCsv(r));
    await put('summary.json', JSON.stringify(summaryJson(r), null, 2) + '\n');
    for (const def of r.curveDefs) {
      // a system's curve that this run has no points for (a siege-only curve in the open field)
      if (r.cases.some((c) => (c.curves[def.file]?.length ?? 0) > 0)) await put(`${def.file}.csv`, curveCsv(r, def.file));
    }
    const sys = systemById(r.system);
    const charts: ChartSpec[] = sys ? sys.charts(r) : [];
    const svgs = renderSvgs(charts.map((c) => c.spec)); // on the renderer thread, while the rest is written
    svgs.catch(() => undefined); // awaited below; a failure there fails the report
    for (const c of charts) await put(`charts/${c.name}.vl.json`, JSON.stringify(c.spec, null, 2) + '\n');
    const rendered = await svgs;
    for (let i = 0; i < charts.length; i++) await put(`charts/${charts[i].name}.svg`, rendered[i]);
    await put('index.html', scenarioPage(r, charts, files.slice(), { headline: sys?.headline, indexHref: opts.index ? '../index.html' : undefined }));
    await swapInto(tmp, target);
    return files;
  } finally {
    PENDING_DIRS.delete(tmp);
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Put a finished folder at `target`, replacing any old one only once the new one is whole. */
async function swapInto(tmp: string, target: string): Promise<void> {
  if (!existsSync(target)) {
    await rename(tmp, target);
    return;
  }
  const old = `${target}.old-${process.pid}-${Date.now()}`;
  await rename(target, old);
  try {
    await rename(tmp, target);
  } catch (e) {
    await rename(old, target);
    throw e;
  }
  await rm(old, { recursive: true, force: true });
}

/** Rebuild `<root>/index.html` from every `<root>/<name>/summary.json` found. */
export async function writeIndex(root: string): Promise<void> {
  const dirs = (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory() && !d.name.startsWith('.'));
  const entries: IndexEntry[] = [];
  for (const d of dirs.sort((a, b) => a.name.localeCompare(b.name))) {
    const f = path.join(root, d.name, 'summary.json');
    if (!existsSync(f)) continue;
    try {
      const s = JSON.parse(await readFile(f, 'utf8')) as {
        name: string;
        system: string;
        description?: string;
        cases: { metrics: Record<string, { value: number | null; ci_low: number | null; ci_high: number | null }> }[];
      };
      const first = s.cases[0];
      const names = systemById(s.system)?.headline.filter((k) => first?.metrics[k]?.value != null) ?? [];
      const headline = first ? headlineHtml((names.length > 0 ? names : Object.keys(first.metrics).slice(0, 3)).map((k) => ({ name: k, ...first.metrics[k] }))) : '';
      entries.push({ dir: d.name, name: s.name, system: s.system, description: s.description, cases: s.cases.length, headline });
    } catch {
      // A folder that is not a siegesim report is left alone.
    }
  }
  const tmp = path.join(root, `.index.html.${process.pid}.tmp`);
  await writeFile(tmp, indexPage(entries));
  await rename(tmp, path.join(root, 'index.html'));
}
