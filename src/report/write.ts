/**
 * The write phase: every report file goes to a temporary folder beside the target, which is
 * renamed into place only when complete. An interrupted or failed run never leaves a
 * half-written report and never replaces a good one with a partial one.
 *
 * Outputs are also checked before any trial runs (`checkReportDir`, `checkOutputFile`): a
 * path that cannot be written is a problem with what the user gave (exit 2), found in
 * milliseconds rather than after the run. Temporary names carry the host and the pid of their
 * process, so a later run can remove what a killed one left (`removeLeftovers`).
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmdirSync, rmSync, statSync, type Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { SCENARIO_COPY } from './folder.js';
import { realPathOr } from '../paths.js';
import { hostname } from 'node:os';
import path from 'node:path';
import type { ChartSpec, ScenarioResult } from '../systems/types.js';
import { systemById } from '../systems/registry.js';
import { curveCsv, summaryCsv, summaryJson } from './tables.js';
import { renderSvgs } from './renderer.js';
import { answerColumns, answerOrder, escapeHtml, indexAnswerHtml, settingsMoved, indexPage, scenarioPage, type AnalysisEntry, type IndexCase, type IndexEntry } from './html.js';

/** An output that cannot be written: one line for the user, no stack trace. */
export class OutputError extends Error {
  /** 2 when found before the run (bad input); 1 when the write itself failed (disk full). */
  constructor(message: string, readonly exitCode: 1 | 2) {
    super(message);
  }
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'this file system does not allow new files there',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large (for the file system or the file size limit)',
  EIO: 'input/output error',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
  EXDEV: 'the temporary copy and the target are on different file systems',
};

/** `ENOSPC` -> `no space left on the device (ENOSPC)`; other errors by their first line. */
export function reasonOf(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code && REASONS[code]) return `${REASONS[code]} (${code})`;
  if (code) return code;
  return String((e as Error)?.message ?? e).split('\n')[0];
}

const cannotWrite = (p: string, reason: string) => new OutputError(`cannot write to ${p}: ${reason}`, 2);

// --- temporary names and leftovers ----------------------------------------------------------

const HOST = hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
/** `.tmp-<base>-<pid>-<ms>@<host>`: a file or folder being written. */
const TMP = /^\.tmp-(.*)-(\d+)-(\d+)@([A-Za-z0-9._-]+)$/;
/** `<base>.old-<pid>-<ms>@<host>`: a report moved aside while its replacement is renamed in. */
const OLD = /^(.*)\.old-(\d+)-(\d+)@([A-Za-z0-9._-]+)$/;

const tmpName = (base: string) => `.tmp-${base}-${process.pid}-${Date.now()}@${HOST}`;
const oldName = (base: string) => `${base}.old-${process.pid}-${Date.now()}@${HOST}`;

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/**
 * Remove what killed siegesim processes of this host left in `dir`: temporary files and
 * folders are deleted; a report moved aside (`.old-`) goes back to its name when the new one
 * never arrived, else it is deleted. Entries of live processes (and other hosts') are left.
 * Returns the names acted on.
 */
export function removeLeftovers(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const done: string[] = [];
  for (const name of names) {
    const t = TMP.exec(name);
    const o = t ? null : OLD.exec(name);
    const m = t ?? o;
    if (!m || m[4] !== HOST || pidAlive(Number(m[2]))) continue;
    const p = path.join(dir, name);
    try {
      if (o && !existsSync(path.join(dir, o[1]))) renameSync(p, path.join(dir, o[1]));
      else rmSync(p, { recursive: true, force: true });
      done.push(name);
    } catch {
      // left for the next run: cleaning up must never stop this one
    }
  }
  return done;
}

// --- checks before the run ------------------------------------------------------------------

function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The nearest existing ancestor of `p` (itself included), which must be a folder. */
function nearestFolder(p: string, shown: string): string {
  let cur = path.resolve(p);
  for (;;) {
    let st: Stats | undefined;
    try {
      st = statSync(cur);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') {
        // a file somewhere above: find it, to name it
        const parent = path.dirname(cur);
        if (parent === cur) throw cannotWrite(shown, reasonOf(e));
        cur = parent;
        continue;
      }
      if (code !== 'ENOENT') throw cannotWrite(shown, reasonOf(e));
    }
    if (st) {
      if (!st.isDirectory()) throw cannotWrite(shown, `${cur} is a file, not a folder`);
      return cur;
    }
    const parent = path.dirname(cur);
    if (parent === cur) throw cannotWrite(shown, 'no folder on the path exists');
    cur = parent;
  }
}

/** Create and remove a folder in `dir`: the one test of writability that root, /proc and read-only mounts all answer truly. */
function probe(dir: string, shown: string): void {
  const p = path.join(dir, tmpName('probe'));
  try {
    mkdirSync(p);
  } catch (e) {
    throw cannotWrite(shown, reasonOf(e));
  }
  rmdirSync(p);
}

/**
 * Check, before any trial runs, that a report folder can be written at `dir` (and clean up
 * leftovers beside it). An existing `dir` must be a folder that is empty or holds a siegesim
 * report of the same kind (its `marker` file: `summary.json` for a run, `sensitivity.json`,
 * `tune.json`): anything else would be replaced, so it is refused.
 * Returns the real path to write to (a symbolic link is followed).
 */
export function checkReportDir(dir: string, marker = 'summary.json'): string {
  let target = path.resolve(dir);
  let st = lstatOrUndefinedOrFail(target, dir);
  if (st?.isSymbolicLink()) {
    try {
      target = realpathSync(target);
    } catch (e) {
      throw cannotWrite(dir, `it is a symbolic link to nowhere (${reasonOf(e)})`);
    }
    st = lstatOrUndefinedOrFail(target, dir);
  }
  if (st && !st.isDirectory()) throw cannotWrite(dir, 'it is a file, not a folder');
  if (st) {
    let names: string[];
    try {
      names = readdirSync(target);
    } catch (e) {
      throw cannotWrite(dir, reasonOf(e));
    }
    if (names.length > 0 && !names.includes(marker)) {
      throw cannotWrite(dir, 'it is a folder with other files, not a siegesim report, and the report would replace it; choose another --out');
    }
  }
  const parent = path.dirname(target);
  if (parent === target) throw cannotWrite(dir, 'a report cannot replace the root folder');
  const folder = nearestFolder(parent, dir);
  probe(folder, dir);
  if (folder === parent) removeLeftovers(parent);
  return target;
}

/** Check, before any trial runs, that `file` can be written: an existing one must be a regular file. */
export function checkOutputFile(file: string): string {
  const target = path.resolve(file);
  let st: Stats | undefined;
  try {
    st = statSync(target);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw cannotWrite(file, reasonOf(e));
  }
  if (st?.isDirectory()) throw cannotWrite(file, 'it is a folder, not a file');
  if (st && !st.isFile()) throw cannotWrite(file, 'it is not a regular file (a device or a pipe?)');
  const parent = path.dirname(target);
  const folder = nearestFolder(parent, file);
  probe(folder, file);
  if (folder === parent) removeLeftovers(parent);
  return target;
}

/** Check that a folder (the root that holds reports and their index) can be written into. */
export function checkFolder(dir: string): void {
  const folder = nearestFolder(dir, dir);
  probe(folder, dir);
  if (folder === path.resolve(dir)) removeLeftovers(folder);
}

function lstatOrUndefinedOrFail(p: string, shown: string): Stats | undefined {
  try {
    return lstatOrUndefined(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return undefined; // nearestFolder names the file in the way
    throw cannotWrite(shown, reasonOf(e));
  }
}

// --- the write phase --------------------------------------------------------------------------

/** A report folder given as a symbolic link is written where the link points (the link stays). */
function followLink(p: string): string {
  try {
    return lstatSync(p).isSymbolicLink() ? realpathSync(p) : p;
  } catch {
    return p;
  }
}

/** Create `dir` and its missing parents one level at a time (Node's recursive mkdir loops forever under /proc). */
async function makeFolders(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let cur = path.resolve(dir); !existsSync(cur); cur = path.dirname(cur)) {
    missing.push(cur);
    if (path.dirname(cur) === cur) break;
  }
  for (const d of missing.reverse()) {
    try {
      await mkdir(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/** What a killed or interrupted write phase must undo: temporaries, and reports moved aside. */
const pending = new Map<string, { tmp: string; old?: string; target: string }>();

/**
 * Undo every write in progress, synchronously (from a signal handler): remove temporaries and
 * put back a report that was moved aside.
 */
export function cleanupPending(): void {
  for (const w of pending.values()) {
    try {
      rmSync(w.tmp, { recursive: true, force: true });
      if (w.old && existsSync(w.old) && !existsSync(w.target)) renameSync(w.old, w.target);
    } catch {
      // best effort: a later run removes or restores what is left (removeLeftovers)
    }
  }
  pending.clear();
}

/** Test-only failure points (`SIEGESIM_FAULT`), so tests can kill or fail the write phase at a known step. */
async function faultPoint(step: 'tmp' | 'swap' | 'file', where: string): Promise<void> {
  const fault = process.env.SIEGESIM_FAULT;
  if (!fault) return;
  if (fault === `write-pause:${step}`) {
    process.stderr.write(`siegesim-fault: write paused at ${step} (${where})\n`);
    await new Promise((r) => setTimeout(r, 2 ** 31 - 1));
  }
  const m = /^write-fail:(E[A-Z]+)$/.exec(fault);
  if (m && step === 'file') {
    throw Object.assign(new Error(`${m[1]}: injected by SIEGESIM_FAULT`), { code: m[1] });
  }
}

/** The one-line failure of the write phase: what failed, and that the previous output is kept. */
function writeFailed(target: string, existed: boolean, e: unknown): OutputError {
  const kept = existed ? 'the previous one there is unchanged' : 'nothing was written';
  return new OutputError(`cannot write to ${target}: ${reasonOf(e)}; ${kept}`, 1);
}

/** Adds one file to a folder being written (path relative to the folder). */
export type PutFile = (rel: string, content: string) => Promise<void>;

/**
 * Write a folder atomically: `fill` puts every file into a temporary folder beside `outDir`
 * (with a `charts/` subfolder ready), which then replaces `outDir` whole, so an interrupted or
 * failed write never leaves half a report nor replaces a good one. Returns the files written
 * (relative, in the order put).
 */
export async function writeFolder(outDir: string, fill: (put: PutFile, files: readonly string[]) => Promise<void>): Promise<string[]> {
  const target = followLink(path.resolve(outDir));
  const parent = path.dirname(target);
  const existed = existsSync(target);
  const tmp = path.join(parent, tmpName(path.basename(target)));
  const job: { tmp: string; old?: string; target: string } = { tmp, target };
  pending.set(tmp, job);
  try {
    await makeFolders(parent);
    await mkdir(tmp);
    await mkdir(path.join(tmp, 'charts'));
    const files: string[] = [];
    await fill(async (rel, content) => {
      await writeFile(path.join(tmp, rel), content);
      files.push(rel);
      await faultPoint('file', rel);
    }, files);
    // a report without charts (a sensitivity run where nothing moved) has no empty charts/
    if ((await readdir(path.join(tmp, 'charts'))).length === 0) await rm(path.join(tmp, 'charts'), { recursive: true });
    await faultPoint('tmp', tmp);
    await swapInto(job);
    return files;
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code) throw writeFailed(outDir, existed, e);
    throw e;
  } finally {
    await rm(tmp, { recursive: true, force: true });
    pending.delete(tmp);
  }
}

/**
 * Put each chart's Vega-Lite spec and its SVG (`charts/<name>.vl.json`, `.svg`). `svgs`: their
 * drawing, when the caller started it earlier (startCharts) to write other files meanwhile.
 */
export async function putCharts(put: PutFile, charts: readonly ChartSpec[], svgs = startCharts(charts)): Promise<void> {
  for (const c of charts) await put(`charts/${c.name}.vl.json`, JSON.stringify(c.spec, null, 2) + '\n');
  const rendered = await svgs;
  for (let i = 0; i < charts.length; i++) await put(`charts/${charts[i].name}.svg`, rendered[i]);
}

/** Start drawing charts on the renderer thread; await the result (a failure there fails the report where it is awaited). */
export function startCharts(charts: readonly ChartSpec[]): Promise<string[]> {
  const svgs = renderSvgs(charts.map((c) => c.spec));
  svgs.catch(() => undefined);
  return svgs;
}

/** Where a report's page links back to the reports index, when `index` (one is written in the parent folder). */
export function indexHref(index: boolean | undefined): string | undefined {
  return index ? '../index.html' : undefined;
}

// --- what produced a report -------------------------------------------------------------------

/** What produced a report: the scenario file read, its text as run, and the settings the command line gave over the file's. */
export interface ReportSource {
  /** The scenario file's path, as given (relative to the working folder) or absolute. */
  file: string;
  text: string;
  /** `--trials`, `--seed`, `--precision`, `--max-trials` as given (by their summary.json names). */
  overrides?: Record<string, unknown>;
}

/** Where a report folder is really written (a symbolic link is followed, as writeFolder does). */
export function reportTarget(outDir: string): string {
  return followLink(path.resolve(outDir));
}

/**
 * summary.json's provenance keys for a report written to `outDir` from `source`: the copy's file
 * name and SHA-256 (`sha256sum scenario.yaml` prints the same), the file it was read from as a
 * path from the report folder (so a checkout or a folder moved whole keeps it true), and the
 * command line's overrides. Timing aside, these are the only keys that depend on where and how
 * the run was made; CSVs never hold them.
 */
function sourceProvenance(source: ReportSource, outDir: string): Record<string, unknown> {
  return {
    scenario: {
      file: SCENARIO_COPY,
      sha256: createHash('sha256').update(source.text, 'utf8').digest('hex'),
      source: path.relative(reportTarget(outDir), path.resolve(source.file)).split(path.sep).join('/'),
    },
    overrides: source.overrides ?? {},
  };
}

/** The scenario file an existing report says it was made from (an absolute path), or undefined (none, or an older report). */
export function reportSource(outDir: string): string | undefined {
  try {
    const dir = reportTarget(outDir);
    const s = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as { provenance?: { scenario?: { source?: unknown } } };
    const src = s?.provenance?.scenario?.source;
    return typeof src === 'string' && src !== '' ? path.resolve(dir, src) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether two paths name the same file (through symbolic links when both exist). */
export function sameFile(a: string, b: string): boolean {
  return realPathOr(a) === realPathOr(b);
}

/**
 * Write a run's report into `outDir` atomically. Returns the files written (relative) and the
 * summary.json it wrote, as an object (what `--json` prints: the scenario hashed once).
 * `index`: a reports index will be written in the parent folder (the page links back to it).
 * `source`: the scenario as run, copied to scenario.yaml and named in summary.json's provenance.
 * `charts`: the system's charts of `r`, when the caller has made them already (else made here).
 */
export async function writeReport(
  r: ScenarioResult,
  outDir: string,
  opts: { index?: boolean; source?: ReportSource; charts?: ChartSpec[] } = {},
): Promise<{ files: string[]; summary: Record<string, unknown> }> {
  const extra = opts.source ? sourceProvenance(opts.source, outDir) : undefined;
  const scenario = extra?.scenario as { sha256: string } | undefined;
  const summary = summaryJson(r, extra);
  const files = await writeFolder(outDir, async (put, files) => {
    // the charts first: they are drawn on the renderer thread while the tables are written
    const sys = systemById(r.system);
    const charts: ChartSpec[] = opts.charts ?? (sys ? sys.charts(r) : []);
    const svgs = startCharts(charts);
    await put('summary.csv', summaryCsv(r));
    await put('summary.json', JSON.stringify(summary, null, 2) + '\n');
    if (opts.source) await put(SCENARIO_COPY, opts.source.text);
    for (const def of r.curveDefs) {
      // a system's curve that this run has no points for (a siege-only curve in the open field)
      if (r.cases.some((c) => (c.curves[def.file]?.length ?? 0) > 0)) await put(`${def.file}.csv`, curveCsv(r, def.file));
    }
    await putCharts(put, charts, svgs);
    const from = opts.source && scenario ? { name: path.basename(opts.source.file), sha256: scenario.sha256 } : undefined;
    await put('index.html', scenarioPage(r, charts, files.slice(), { headline: sys?.headline, outcomes: sys?.outcomes, indexHref: indexHref(opts.index), scenario: from }));
  });
  return { files, summary };
}

/** Put a finished folder at `target`, replacing any old one only once the new one is whole. */
async function swapInto(job: { tmp: string; old?: string; target: string }): Promise<void> {
  const { tmp, target } = job;
  if (!existsSync(target)) {
    await rename(tmp, target);
    return;
  }
  const old = path.join(path.dirname(target), oldName(path.basename(target)));
  job.old = old;
  await rename(target, old);
  try {
    await faultPoint('swap', old);
    await rename(tmp, target);
  } catch (e) {
    await rename(old, target);
    throw e;
  }
  job.old = undefined;
  await rm(old, { recursive: true, force: true });
}

/** Write one file atomically (a temporary beside it, then a rename); failures as OutputError (exit 1). */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const target = path.resolve(file);
  const existed = existsSync(target);
  const tmp = path.join(path.dirname(target), tmpName(path.basename(target)));
  pending.set(tmp, { tmp, target });
  try {
    await makeFolders(path.dirname(target));
    await writeFile(tmp, content);
    await faultPoint('file', path.basename(target));
    await rename(tmp, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code) throw writeFailed(file, existed, e);
    throw e;
  } finally {
    await rm(tmp, { force: true });
    pending.delete(tmp);
  }
}

/** The one-line summary of an analysis folder (`sensitivity.json` or `tune.json`) for the index; undefined when it is neither. */
async function analysisEntry(dir: string, name: string): Promise<AnalysisEntry | undefined> {
  for (const kind of ['sensitivity', 'tune'] as const) {
    const f = path.join(dir, `${kind}.json`);
    if (!existsSync(f)) continue;
    try {
      const s = JSON.parse(await readFile(f, 'utf8')) as Record<string, unknown>;
      const system = String(s.system ?? '');
      const scenario = String(s.name ?? name);
      if (kind === 'sensitivity') {
        const ranking = (s.ranking ?? []) as { rank: number; param: string; effect: number }[];
        const top = ranking.slice(0, 3).map((x) => `<code>${escapeHtml(x.param)}</code>`);
        const what = `which settings move <code>${escapeHtml(String(s.metric))}</code>: every setting turned one step each way, ranked by the paired effect`;
        const answer =
          ranking.length === 0
            ? 'no setting turned'
            : !settingsMoved(ranking)
              ? 'no setting turned here moved it' // as its page's lead says
              : `largest: ${top.join(', ')}${ranking.length > 3 ? ` (of ${ranking.length})` : ''}`;
        return { dir: name, kind, scenario, system, what, answer };
      }
      const params = (s.params ?? []) as { path: string }[];
      const targets = (s.targets ?? []) as { metric: string; lo: number; hi: number }[];
      const best = s.best as { values?: Record<string, number>; met?: number } | undefined;
      const what = `a search of ${params.map((p) => `<code>${escapeHtml(p.path)}</code>`).join(', ')} for ${targets.map((t) => `<code>${escapeHtml(t.metric)}</code> in [${t.lo}, ${t.hi}]`).join(' and ')}`;
      const values = Object.entries(best?.values ?? {}).map(([k, v]) => `${escapeHtml(k)} = ${v}`).join(', ');
      const answer = s.found ? `found: ${values}` : `none meets every target; closest: ${values} (${best?.met ?? 0} of ${targets.length} met)`;
      return { dir: name, kind, scenario, system, what, answer };
    } catch {
      return undefined; // not a siegesim analysis: left alone
    }
  }
  return undefined;
}

/** Rebuild `<root>/index.html` from every `<root>/<name>/summary.json` found, and the sensitivity and tune reports beside them. */
export async function writeIndex(root: string): Promise<void> {
  let all;
  try {
    all = await readdir(root, { withFileTypes: true });
  } catch (e) {
    throw writeFailed(path.join(root, 'index.html'), existsSync(path.join(root, 'index.html')), e);
  }
  // not temporaries, nor a report another run has moved aside for a moment
  const dirs = all.filter((d) => d.isDirectory() && !d.name.startsWith('.') && !OLD.test(d.name));
  const entries: IndexEntry[] = [];
  const analyses: AnalysisEntry[] = [];
  for (const d of dirs.sort((a, b) => a.name.localeCompare(b.name))) {
    const f = path.join(root, d.name, 'summary.json');
    if (!existsSync(f)) {
      const a = existsSync(path.join(root, d.name, 'index.html')) ? await analysisEntry(path.join(root, d.name), d.name) : undefined;
      if (a) analyses.push(a);
      continue;
    }
    try {
      const s = JSON.parse(await readFile(f, 'utf8')) as {
        name: string;
        system: string;
        description?: string;
        params?: string[];
        variants?: string[];
        headline?: string[];
        cases: IndexCase[];
      };
      const sys = systemById(s.system);
      // the page's Answer columns (a value null in the JSON was not finite in the run)
      const cols = answerColumns({ metricOrder: sys?.metricOrder ?? [], headline: s.headline, cases: s.cases }, sys?.headline ?? [], sys?.outcomes ?? []);
      const headline = indexAnswerHtml(s.cases, s.params ?? [], s.variants ?? [], answerOrder(cols));
      entries.push({ dir: d.name, name: s.name, system: s.system, description: s.description, cases: s.cases.length, headline });
    } catch {
      // A folder that is not a siegesim report is left alone.
    }
  }
  await writeFileAtomic(path.join(root, 'index.html'), indexPage(entries, analyses));
}
