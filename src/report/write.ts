/**
 * The write phase: every report file goes to a temporary folder beside the target, which is
 * put into place only when complete (renamed in whole, or file by file beside the user's files).
 * An interrupted or failed run never leaves a half-written report and never replaces a good one
 * with a partial one; and siegesim replaces or deletes only files it wrote, as each folder's
 * manifest lists them (manifest.ts; docs/architecture.md, "What siegesim may replace").
 *
 * Outputs are also checked before any trial runs (`checkReportDir`, `checkOutputFile`,
 * `checkFolder`): a path that cannot be written, a folder holding the user's files, an output
 * over a file the command reads, is a problem with what the user gave (exit 2), found in
 * milliseconds rather than after the run. Temporary names carry the host and the pid of their
 * process, so a later run can remove what a killed one left (`removeLeftovers`).
 */
import { closeSync, existsSync, lstatSync, openSync, readSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { SCENARIO_COPY } from './folder.js';
import { CURVE_NAMES, indexOwnership, jsonObject, isIndexPage, KIND_NAME, MANIFEST, MANIFEST_FORMAT, manifestText, ownershipOf, readManifest, someNames, type FolderKind, type Ownership } from './manifest.js';
import { realPathOr } from '../paths.js';
import { MSG } from '../scenario/messages.js';
import { hostname } from 'node:os';
import path from 'node:path';
import type { ChartSpec, ScenarioResult } from '../systems/types.js';
import { systemById } from '../systems/registry.js';
import { curveCsv, scenarioProvenance, summaryCsv, summaryJson } from './tables.js';
import { drawsHere, renderSvgs } from './renderer.js';
import { answerOrder } from '../api/answer.js';
import { answerColumns, escapeHtml, indexAnswerHtml, settingsMoved, indexPage, scenarioPage, type AnalysisEntry, type IndexCase, type IndexEntry } from './html.js';
import { trialsRange } from './brief-text.js';

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

/** This host's name as temporaries and locks carry it (a process is alive or not only on its own host). */
export const HOST = hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
/** `.tmp-<base>-<pid>-<ms>@<host>`: a file or folder being written. */
const TMP = /^\.tmp-(.*)-(\d+)-(\d+)@([A-Za-z0-9._-]+)$/;
/** `<base>.old-<pid>-<ms>@<host>`: a report moved aside while its replacement is renamed in. */
const OLD = /^(.*)\.old-(\d+)-(\d+)@([A-Za-z0-9._-]+)$/;

const tmpName = (base: string) => `.tmp-${base}-${process.pid}-${Date.now()}@${HOST}`;
const oldName = (base: string) => `${base}.old-${process.pid}-${Date.now()}@${HOST}`;

/** Whether process `pid` of this host is alive (this one included). */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/**
 * Remove what killed siegesim processes of this host left in `dir` for the output `base` about to
 * be written there (a report folder's name, a file's name), and only what is provably siegesim's:
 * a temporary folder holds a manifest (writeFolder writes one into it first); a temporary file
 * is one `tmpOurs` recognises by its content (the kind of file written, as checkOutputFile's
 * OwnFile); a report moved aside (`.old-`) holds only siegesim's files (its manifest, or the
 * legacy rule) and goes back to its name when the new one never arrived, else it is deleted; the
 * backup folder of a report swapped file by file holds its journal naming a temporary of `base`,
 * and its old files go back into the report, the new files that had come in going out. Entries
 * of live processes, of other hosts and of other names are left; one named as a temporary of
 * `base` that is not provably siegesim's is left too, with a warning on stderr (the user's: a
 * name is no proof). Returns the names acted on.
 */
export function removeLeftovers(dir: string, base: string, tmpOurs: (file: string) => boolean = () => false): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const done: string[] = [];
  const mine = (m: RegExpExecArray | null) => m !== null && m[1] === base && m[4] === HOST && !pidAlive(Number(m[2]));
  // backups before temporaries: undoing a file-by-file swap reads what its temporary still holds
  const olds = names.filter((n) => mine(OLD.exec(n)));
  const tmps = names.filter((n) => mine(TMP.exec(n)));
  for (const name of [...olds, ...tmps]) {
    const p = path.join(dir, name);
    const original = path.join(dir, base);
    try {
      const st = lstatSync(p);
      const isOld = olds.includes(name);
      if (isOld && st.isDirectory() && journalOf(p, base)) undoSwap(p, original);
      else if (isOld && st.isDirectory() && onlyOurs(p)) {
        if (!existsSync(original)) renameSync(p, original);
        else rmSync(p, { recursive: true, force: true });
      } else if (!isOld && st.isDirectory() && readManifest(p) !== undefined) rmSync(p, { recursive: true, force: true });
      else if (!isOld && st.isFile() && tmpOurs(p)) rmSync(p, { force: true });
      else {
        process.stderr.write(`siegesim: warning: left ${p} alone: it is named as a temporary of siegesim's, but does not hold what siegesim writes there\n`);
        continue;
      }
      done.push(name);
    } catch {
      // left for the next run: cleaning up must never stop this one
    }
  }
  return done;
}

/** A file-by-file swap's backup folder: its journal, naming a temporary of `base` (swapFiles writes it first), or undefined. */
function journalOf(backup: string, base: string): { tmp: string; files: string[] } | undefined {
  try {
    const j = JSON.parse(readFileSync(path.join(backup, UNDO), 'utf8')) as { tmp?: unknown; files?: unknown };
    const t = typeof j?.tmp === 'string' ? TMP.exec(j.tmp) : null;
    const o = OLD.exec(path.basename(backup));
    // the temporary of the same report, by the same process
    if (!t || !o || t[1] !== base || t[2] !== o[2] || t[4] !== o[4] || !Array.isArray(j.files)) return undefined;
    return { tmp: j.tmp as string, files: j.files.filter((f): f is string => typeof f === 'string') };
  } catch {
    return undefined;
  }
}

/** A report moved aside whole holds siegesim's files and nothing else (swapInto moves only such a folder). */
function onlyOurs(dir: string): boolean {
  try {
    const own = ownershipOf(dir);
    return own.kind !== undefined && own.ours.size > 0 && own.foreign.length === 0;
  } catch {
    return false;
  }
}

/** Undo a file-by-file swap that was killed midway (swapFiles), from its backup folder's journal. */
function undoSwap(backup: string, target: string): void {
  const j = journalOf(backup, path.basename(target))!;
  const tmp = path.join(path.dirname(backup), path.basename(j.tmp));
  // a new file is in the report when its temporary no longer holds it
  for (const f of j.files) {
    if (typeof f === 'string' && !f.split('/').includes('..') && !existsSync(path.join(tmp, f))) rmSync(path.join(target, f), { force: true });
  }
  for (const rel of readdirSync(backup, { recursive: true, encoding: 'utf8' })) {
    const from = path.join(backup, rel);
    if (rel === UNDO || lstatSync(from).isDirectory()) continue;
    makeFolders(path.dirname(path.join(target, rel)));
    renameSync(from, path.join(target, rel));
  }
  rmSync(backup, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
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
 * Check, before anything is written, that the folder `dir` can be made or written in: its nearest
 * existing ancestor (itself included) must be a folder a new entry can be made in (/proc and
 * read-only mounts refuse). An OutputError (exit 2) names `shown` and the reason.
 */
export function checkWritableFolder(dir: string, shown: string = dir): void {
  probe(nearestFolder(dir, shown), shown);
}

/** The files a command reads (scenario files, shard files): an output never replaces one. */
export type Inputs = readonly string[];

/** The input `p` is (the same file: through links, and hard links by device and inode), or undefined. */
function inputAt(p: string, inputs: Inputs): string | undefined {
  let st: Stats;
  try {
    st = statSync(p);
  } catch {
    return undefined;
  }
  let ids = INPUT_IDS.get(inputs);
  if (!ids) {
    ids = new Map();
    for (const i of inputs) {
      try {
        const s = statSync(i);
        if (!ids.has(`${s.dev}:${s.ino}`)) ids.set(`${s.dev}:${s.ino}`, i);
      } catch {
        // an input that cannot be read is said where it is read
      }
    }
    INPUT_IDS.set(inputs, ids);
  }
  return ids.get(`${st.dev}:${st.ino}`);
}

/** Each list of inputs' files by device and inode, found once (`run scenarios` checks every report's files against every scenario). */
const INPUT_IDS = new WeakMap<Inputs, Map<string, string>>();

/** Why `p` (an existing file an output would replace) must not be replaced, or undefined. */
function inputReason(p: string, inputs: Inputs, scenarioFiles: boolean): string | undefined {
  const i = inputAt(p, inputs);
  if (i !== undefined) return `${path.resolve(p) === path.resolve(i) ? 'it is a file' : `it is the same file as ${i}, which`} this command reads, and an output never replaces an input`;
  if (scenarioFiles && /\.ya?ml$/i.test(realPathOr(p))) return 'it is a scenario file (.yaml), and an output never replaces one';
  return undefined;
}

/** Names each kind of report always writes, besides its curves and charts: a file of the user's under one of them is never replaced. */
const FIXED_NAMES: Record<Exclude<FolderKind, 'index'>, string[]> = {
  run: ['summary.csv', 'summary.json', SCENARIO_COPY, 'index.html', MANIFEST],
  sensitivity: ['sensitivity.csv', 'sensitivity.json', 'index.html', MANIFEST],
  tune: ['tune.csv', 'tune.json', 'index.html', MANIFEST],
  history: ['history.json', 'index.html', MANIFEST],
  site: ['index.html', 'workbench.html', 'run.js', 'kernel.js', 'workbench.js', 'site.js', 'site.css', 'app.css', 'icon.svg', MANIFEST],
};

/**
 * The check checkReportDir made of each report folder, by its path: made again by writeFolder
 * just before the new report takes its place. Another process may have written there while the
 * trials ran (two runs of different scenarios started into one --out: the later replaced the
 * other's report, both exiting 0, the check before the trials having passed for both).
 */
const checkedReports = new Map<string, () => void>();

/**
 * Check, before any trial runs, that a report folder of `kind` can be written at `dir` (and clean
 * up leftovers beside it). An existing `dir` must be a folder that is empty or a siegesim report
 * of the same kind holding only what siegesim wrote (its manifest, manifest.ts; or a report from
 * before manifests, by the legacy rule). A folder holding anything else is refused, naming what,
 * unless `force`: then the report is written beside those files, which are kept (a file of the
 * user's where the report writes one of its own is refused even so). A report file that is one
 * of `inputs` is refused always. `planned`: every file the folder will hold, where the writer knows
 * them before it starts (a site's): under `force`, each of them that is a file of the user's is
 * named at once, before any work (else only the fixed names are known). Returns the real path to
 * write to (a symbolic link is followed).
 */
export function checkReportDir(dir: string, kind: Exclude<FolderKind, 'index'> = 'run', opts: { force?: boolean; inputs?: Inputs; scenario?: ReportScenario; planned?: readonly string[] } = {}, again = false): string {
  checkedReports.set(path.resolve(dir), () => checkReportDir(dir, kind, opts, true));
  let target = path.resolve(dir);
  // first what a killed run left of this report (a report moved aside goes back), so that the
  // checks below see the folder as it is (once: not again before the swap, whose warnings were said)
  const parentOf = (t: string) => {
    if (!again && path.dirname(t) !== t && lstatOrUndefined(path.dirname(t))?.isDirectory()) removeLeftovers(path.dirname(t), path.basename(t));
  };
  try {
    parentOf(target);
  } catch {
    // a path the checks below name
  }
  let st = lstatOrUndefinedOrFail(target, dir);
  if (st?.isSymbolicLink()) {
    try {
      target = realpathSync(target);
    } catch (e) {
      throw cannotWrite(dir, `it is a symbolic link to nowhere (${reasonOf(e)})`);
    }
    try {
      parentOf(target);
    } catch {
      // as above
    }
    st = lstatOrUndefinedOrFail(target, dir);
  }
  if (st && !st.isDirectory()) {
    const why = inputReason(target, opts.inputs ?? [], false);
    throw cannotWrite(dir, why ?? 'it is a file, not a folder');
  }
  if (st) {
    let own: Ownership;
    try {
      own = ownershipOf(target);
    } catch (e) {
      throw cannotWrite(dir, reasonOf(e));
    }
    refuseForeign(dir, kind, own, opts.force === true, opts.planned && clashesIn(target, opts.planned, own));
    for (const f of own.ours) {
      const why = inputReason(path.join(target, f), opts.inputs ?? [], false);
      if (why) throw cannotWrite(dir, `the ${outputNoun(kind)} would replace its ${f}: ${why}`);
    }
    const json = ANALYSIS_JSON[kind];
    if (opts.scenario && json !== undefined && own.kind === kind && own.ours.has(json) && opts.force !== true) refuseOtherScenario(dir, target, kind, opts.scenario);
  }
  const parent = path.dirname(target);
  if (parent === target) throw cannotWrite(dir, 'a report cannot replace the root folder');
  const folder = nearestFolder(parent, dir);
  probe(folder, dir);
  return target;
}

/** Refuse a report folder that holds the user's files (unless `force`), or a report of another kind. */
function refuseForeign(dir: string, kind: Exclude<FolderKind, 'index'>, own: Ownership, force: boolean, plannedClash?: readonly string[]): void {
  const again = `choose another --out, or add --force to write the ${kind === 'site' ? 'site' : KIND_NAME[kind].replace(/ \(.*\)$/, '')} beside them (they are kept)`;
  if (own.foreign.length > 0 && !force) {
    // a folder of reports (a run of several scenarios, --out runs/before): its reports are
    // siegesim's, each in its own folder, though not this folder's report's files
    const reports = own.foreign.filter((f) => f.endsWith('/') && readManifest(path.join(dir, f)) !== undefined);
    const what =
      reports.length === own.foreign.length && own.ours.size > 0 && own.kind === kind
        ? `another command wrote siegesim reports into this ${outputNoun(kind)}'s folder, beside its files`
        : reports.length === own.foreign.length
        ? `it holds other siegesim reports, each in its own folder, not a ${KIND_NAME[kind]}`
        : own.ours.size === 0
          ? `it is a folder with other files, not a siegesim ${KIND_NAME[kind]}`
          : `it holds files siegesim did not write there`;
    throw cannotWrite(dir, `${what} (${someNames(own.foreign)}); ${again}`);
  }
  if (own.kind !== undefined && own.kind !== kind && own.ours.size > 0 && !force) {
    throw cannotWrite(dir, `it holds a siegesim ${KIND_NAME[own.kind]}, not a ${KIND_NAME[kind]}; choose another --out, or add --force to replace it`);
  }
  // --force: the user's files are kept, so one where the report writes a file of its own is refused
  // (every one, where the files are known before the work: a site's; else those of fixed names)
  const fixed = new Set(FIXED_NAMES[kind]);
  const clash = plannedClash ?? own.foreign.filter((f) => fixed.has(f) || f === 'charts' || (kind === 'run' && CURVE_NAMES.has(f)));
  if (clash.length > 0) {
    throw cannotWrite(dir, `the ${outputNoun(kind)} would replace ${someNames(clash)}, which siegesim did not write (--force keeps such files); move ${clash.length === 1 ? 'it' : 'them'}, or choose another --out`);
  }
}

/** The scenario a report (a run's, a sensitivity's, a tune's) is about to be written from (checkReportDir): its name:, its file, and whether --out named the folder. */
export interface ReportScenario {
  name: string;
  /** As given (relative to the working folder) or absolute. */
  file: string;
  /** The folder was named by --out (else it is reports/<name>/ or <--out>/<name>/). */
  named: boolean;
}

/** The JSON that names the scenario a report of each kind was made from (summary.json's also names its file). */
const ANALYSIS_JSON: Partial<Record<FolderKind, string>> = { run: 'summary.json', sensitivity: 'sensitivity.json', tune: 'tune.json' };

/**
 * Refuse a report folder (a run's, a sensitivity's or a tune's) that holds the report of another scenario (unless --force, which the
 * caller has checked): one of another name:, or one made from another file that is still there.
 * The same file again is its own report, replaced as ever (its name: may have changed); a report
 * whose file is no longer where it says (moved, renamed, or the report copied elsewhere) or that
 * names none (written before reports named it) is taken for this one's when the names agree.
 */
function refuseOtherScenario(dir: string, target: string, kind: FolderKind, now: ReportScenario): void {
  const was = reportOrigin(target, ANALYSIS_JSON[kind]);
  if (was.name === undefined) return; // not a summary.json siegesim reads: the legacy rule or the manifest said it is a report, and it is replaced as one
  if (was.source !== undefined && sameFile(was.source, now.file)) return;
  const gone = was.source !== undefined && !existsSync(was.source);
  if (was.name === now.name && (was.source === undefined || gone)) return;
  const file = was.source === undefined ? undefined : path.relative(process.cwd(), was.source) || was.source;
  throw cannotWrite(dir, MSG.otherScenarioReport({ name: was.name, file, gone }, now, now.named, KIND_NAME[kind]));
}

/**
 * What a command writes to a file of its own (a shard, a JUnit file, the schema): how to tell,
 * from its first bytes, a file siegesim wrote of that kind (`own`), and what to call that kind in
 * the refusal (`what`).
 */
export interface OwnFile {
  what: string;
  own: (head: string) => boolean;
}

/** The first bytes of a file (enough for the marker an OwnFile looks for); undefined when it cannot be read. */
function headOf(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Check, before any trial runs, that `file` can be written: an existing one must be a regular
 * file, neither one of `inputs` nor a scenario file, and, when the command says what it writes
 * (`own`), a file of that kind siegesim wrote: a file of the user's is never replaced.
 */
export function checkOutputFile(file: string, inputs: Inputs = [], own?: OwnFile): string {
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
  if (st) {
    const why = inputReason(target, inputs, true);
    if (why) throw cannotWrite(file, why);
    const head = own ? headOf(target) : '';
    // an empty file holds nothing to lose (`touch out.xml` before a run)
    if (own && head !== '' && (head === undefined || !own.own(head))) throw cannotWrite(file, `it is a file siegesim did not write (not ${own.what}), and siegesim replaces only files it wrote: remove it, or choose another name`);
  }
  const parent = path.dirname(target);
  const folder = nearestFolder(parent, file);
  probe(folder, file);
  if (folder === parent) {
    // a temporary of this file is siegesim's when it holds that kind of file (an empty one holds nothing to lose)
    removeLeftovers(parent, path.basename(target), own ? (p) => ((h) => h === '' || (h !== undefined && own.own(h)))(headOf(p)) : undefined);
  }
  return target;
}

/**
 * Check that a folder of reports can be written into: its index.html, when there is one, must be
 * siegesim's (manifest.ts indexOwnership) — a user's own index.html is never replaced, --force or
 * not — and not one of `inputs`.
 */
export function checkFolder(dir: string, inputs: Inputs = []): void {
  const folder = nearestFolder(dir, dir);
  probe(folder, dir);
  indexRoots.set(path.resolve(dir), dir);
  if (folder === path.resolve(dir)) {
    // the index's temporaries: the page siegesim writes, and its manifest
    removeLeftovers(folder, 'index.html', isIndexPage);
    removeLeftovers(folder, MANIFEST, (p) => jsonObject(p)?.format === MANIFEST_FORMAT);
    const own = indexOwnership(folder);
    if (!own.ok) throw cannotWrite(dir, `${own.why}; move it, or choose another --out`);
    const why = inputReason(path.join(folder, 'index.html'), inputs, false);
    if (why) throw cannotWrite(path.join(dir, 'index.html'), why);
  }
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
// Every file system call from here on is synchronous: a signal's handler (cleanupPending) runs
// between two of them, never while one is in flight on libuv's thread pool. (An mkdir of the
// temporary folder in flight when the handler removes the temporaries would make the folder
// after it, and leave it behind.) Awaits remain only where the charts are
// drawn on their thread, and at the test-only fault points.

/** A report folder given as a symbolic link is written where the link points (the link stays). */
function followLink(p: string): string {
  try {
    return lstatSync(p).isSymbolicLink() ? realpathSync(p) : p;
  } catch {
    return p;
  }
}

/** Create `dir` and its missing parents one level at a time (Node's recursive mkdir loops forever under /proc); returns those it made, outermost first. */
export function makeFolders(dir: string): string[] {
  const missing: string[] = [];
  for (let cur = path.resolve(dir); !existsSync(cur); cur = path.dirname(cur)) {
    missing.push(cur);
    if (path.dirname(cur) === cur) break;
  }
  const made: string[] = [];
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
      made.push(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return made;
}

/** A write in progress: what a failure or a signal must undo. */
interface Job {
  /** The temporary folder (or file) being filled. */
  tmp: string;
  target: string;
  /** Whole-folder swap: the old report, moved aside while the new one is renamed in. */
  old?: string;
  /** File-by-file swap (a folder that holds the user's files): the old report's files moved aside, what went out and what came in. */
  backup?: string;
  movedOut: string[];
  movedIn: string[];
  madeDirs: string[];
  /** A folder's kind (writeFolder's), for its messages. */
  kind?: Exclude<FolderKind, 'index'>;
}

const pending = new Map<string, Job>();
/** Set once the process is ending (a signal, an error): no write starts or goes on after it. */
let stopped = false;

/** Journal of a file-by-file swap, in its backup folder: what a killed run's successor needs to undo it (removeLeftovers). */
const UNDO = '.siegesim-undo.json';

/**
 * Undo every write in progress, synchronously (from a signal handler): remove temporaries, put
 * back a report that was moved aside or the files of one. No write starts or goes on after it.
 */
export function cleanupPending(): void {
  stopped = true;
  for (const w of pending.values()) undo(w);
  pending.clear();
}

function undo(w: Job): void {
  try {
    if (w.backup) rollBack(w);
    rmSync(w.tmp, { recursive: true, force: true });
    if (w.old && existsSync(w.old) && !existsSync(w.target)) renameSync(w.old, w.target);
  } catch {
    // best effort: a later run removes or restores what is left (removeLeftovers)
  }
}

/** Put back the files a file-by-file swap moved: the new ones out, the old ones in. */
function rollBack(w: Job): void {
  for (const f of w.movedIn.splice(0).reverse()) rmSync(path.join(w.target, f), { force: true });
  for (const d of w.madeDirs.splice(0).reverse()) rmSafe(path.join(w.target, d));
  for (const f of w.movedOut.splice(0).reverse()) {
    makeFolders(path.dirname(path.join(w.target, f)));
    renameSync(path.join(w.backup!, f), path.join(w.target, f));
  }
  rmSync(w.backup!, { recursive: true, force: true });
  w.backup = undefined;
}

/** Remove a folder if it is empty. */
function rmSafe(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty (the user's files), or gone
  }
}

/** Resolves after a whole turn of the event loop, its poll phase (I/O, signals) included. */
function throughEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** Throws once the process is ending, so that nothing is written after its cleanup. */
function goOn(): void {
  if (stopped) throw new Error('the write phase was stopped (the process is ending)');
}

/** Test-only failure points (`SIEGESIM_FAULT`), so tests can kill or fail the write phase at a known step. */
async function faultPoint(step: 'tmp' | 'swap' | 'file', where: string): Promise<void> {
  const fault = process.env.SIEGESIM_FAULT;
  if (!fault) return;
  if (fault === `write-pause:${step}`) {
    process.stderr.write(`siegesim-fault: write paused at ${step} (${where})\n`);
    await new Promise((r) => setTimeout(r, 2 ** 31 - 1));
  }
  // write-wait:<step>:<file>: paused there until <file> exists (another process's write meanwhile)
  const w = /^write-wait:(tmp|swap|file):(.+)$/.exec(fault);
  if (w && w[1] === step) {
    process.stderr.write(`siegesim-fault: write waiting at ${step} (${where})\n`);
    while (!existsSync(w[2])) await new Promise((r) => setTimeout(r, 20));
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
 * Write a report folder of `kind` atomically: `fill` puts every file into a temporary folder
 * beside `outDir` (with a `charts/` subfolder ready), and the manifest listing them is added
 * (manifest.ts). Then the new report takes the old one's place: renamed in whole when the folder
 * holds nothing but siegesim's files (the old report is moved aside, then deleted), else file by
 * file, the user's files left where they are (swapFiles). An interrupted or failed write never
 * leaves half a report, nor replaces a good one, nor touches a file siegesim did not write.
 * Returns the files written (relative, in the order put; the manifest not among them).
 */
export async function writeFolder(outDir: string, fill: (put: PutFile, files: readonly string[]) => Promise<void>, kind: Exclude<FolderKind, 'index'> = 'run'): Promise<string[]> {
  goOn();
  const target = followLink(path.resolve(outDir));
  const parent = path.dirname(target);
  const existed = existsSync(target);
  const tmp = path.join(parent, tmpName(path.basename(target)));
  const job: Job = { tmp, target, movedOut: [], movedIn: [], madeDirs: [], kind };
  pending.set(tmp, job);
  try {
    makeFolders(parent);
    mkdirSync(tmp);
    // the mark that it is siegesim's, from the start: what a later run, after a SIGKILL, needs to
    // remove it (removeLeftovers); the full list replaces it once the files are in
    writeFileSync(path.join(tmp, MANIFEST), manifestText(kind, []));
    mkdirSync(path.join(tmp, 'charts'));
    const files: string[] = [];
    await fill(async (rel, content) => {
      goOn();
      // one level of folders, as manifests list (charts/ is made already)
      if (rel.includes('/')) mkdirSync(path.join(tmp, path.dirname(rel)), { recursive: true });
      writeFileSync(path.join(tmp, rel), content);
      files.push(rel);
      await faultPoint('file', rel);
    }, files);
    goOn();
    // a report without charts (a sensitivity run where nothing moved) has no empty charts/
    if (readdirSync(path.join(tmp, 'charts')).length === 0) rmdirSync(path.join(tmp, 'charts'));
    writeFileSync(path.join(tmp, MANIFEST), manifestText(kind, files));
    await faultPoint('tmp', tmp);
    // A signal that came while this thread was busy (drawing the charts in this thread, a slow
    // disk) is handled before the new report takes the old one's place: Node runs a signal's
    // listeners from the event loop's poll phase, which a write made of synchronous steps and
    // promises alone never reaches (report/renderer.ts: a short run draws in this thread).
    await throughEventLoop();
    goOn();
    const again = checkedReports.get(path.resolve(outDir));
    if (again !== undefined) {
      try {
        again();
      } catch (e) {
        if (e instanceof OutputError) throw new OutputError(`${e.message} (found as the new ${outputNoun(kind)} was about to take its place: written there while this run ran)`, 2);
        throw e;
      }
    }
    const own = existsSync(target) ? ownershipOf(target) : undefined;
    if (own && own.foreign.length > 0) await swapFiles(job, [...files, MANIFEST], own);
    else await swapInto(job);
    placed.push(outDir);
    return files;
  } catch (e) {
    if (!(e instanceof OutputError) && (e as NodeJS.ErrnoException)?.code) throw writeFailed(outDir, existed, e);
    throw e;
  } finally {
    if (pending.has(tmp)) {
      undo(job);
      pending.delete(tmp);
    }
  }
}

/**
 * Put each chart's Vega-Lite spec and its SVG (`charts/<name>.vl.json`, `.svg`). `svgs`: their
 * drawing, when the caller started it earlier (startCharts) to write other files meanwhile; null
 * for the specs alone (`--no-charts`).
 */
export async function putCharts(put: PutFile, charts: readonly ChartSpec[], svgs: Promise<string[]> | null = startCharts(charts)): Promise<void> {
  for (const c of charts) await put(`charts/${c.name}.vl.json`, JSON.stringify(c.spec, null, 2) + '\n');
  if (svgs === null) return; // not drawn (--no-charts): the specs alone
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
  const sha256 = createHash('sha256').update(source.text, 'utf8').digest('hex');
  return scenarioProvenance(sha256, path.relative(reportTarget(outDir), path.resolve(source.file)).split(path.sep).join('/'), source.overrides);
}

/**
 * What an existing report says it was made from (its `json`: summary.json, sensitivity.json,
 * tune.json): its scenario's name, the scenario file read (an absolute path; undefined for a
 * report that names none: sensitivity and tune do not) and that text's SHA-256. All undefined
 * when that JSON cannot be read as siegesim's.
 */
export function reportOrigin(outDir: string, json = 'summary.json'): { name?: string; source?: string; sha256?: string } {
  try {
    const dir = reportTarget(outDir);
    const s = JSON.parse(readFileSync(path.join(dir, json), 'utf8')) as { name?: unknown; provenance?: { scenario?: { source?: unknown; sha256?: unknown } } };
    if (typeof s?.name !== 'string') return {};
    const src = s.provenance?.scenario?.source;
    const sha = s.provenance?.scenario?.sha256;
    return { name: s.name, source: typeof src === 'string' && src !== '' ? path.resolve(dir, src) : undefined, ...(typeof sha === 'string' ? { sha256: sha } : {}) };
  } catch {
    return {};
  }
}

/**
 * Whether `outDir` holds the report of another version of the scenario file `file` (summary.json's
 * source is that file, its SHA-256 not that of `text`): a run replaces it, as a report siegesim
 * wrote, and says so first (the report of the version before an edit was replaced silently, its
 * scenario.yaml the only copy of that version).
 */
export function holdsEarlierVersion(outDir: string, file: string, text: string): boolean {
  const { source, sha256 } = reportOrigin(outDir);
  if (source === undefined || sha256 === undefined || !sameFile(source, file)) return false;
  return createHash('sha256').update(text, 'utf8').digest('hex') !== sha256;
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
 * `draw`: false to write their Vega-Lite specs without drawing them (`run --no-charts`).
 */
export async function writeReport(
  r: ScenarioResult,
  outDir: string,
  opts: { index?: boolean; source?: ReportSource; charts?: ChartSpec[]; draw?: boolean } = {},
): Promise<{ files: string[]; summary: Record<string, unknown> }> {
  const extra = opts.source ? sourceProvenance(opts.source, outDir) : undefined;
  const scenario = extra?.scenario as { sha256: string } | undefined;
  const summary = summaryJson(r, extra);
  const files = await writeFolder(outDir, async (put, files) => {
    // the charts first: drawn on the renderer thread (where one was started) while the tables are written
    const sys = systemById(r.system);
    const charts: ChartSpec[] = opts.charts ?? (sys ? sys.charts(r) : []);
    // --no-charts (draw false): the specs, no SVG, nothing asked of the renderer
    const drawn = opts.draw !== false;
    // Drawn on a renderer thread: started first, drawn while this thread writes the tables. Drawn
    // in this thread: started once the tables are written, so that they are made with the
    // optimizer on (the charts pause it: renderer.ts; a 6,000-case sweep's CSVs made while it was
    // paused took its run 1.5x as long), one at a time (made all before the charts, they held
    // ~190 MB more at once)
    const here = drawn && drawsHere();
    let svgs = drawn && !here ? startCharts(charts) : null;
    await put('summary.csv', summaryCsv(r));
    await put('summary.json', JSON.stringify(summary, null, 2) + '\n');
    if (opts.source) await put(SCENARIO_COPY, opts.source.text);
    for (const def of r.curveDefs) {
      // a system's curve that this run has no points for (a siege-only curve in the open field)
      if (r.cases.some((c) => (c.curves[def.file]?.length ?? 0) > 0)) await put(`${def.file}.csv`, curveCsv(r, def.file));
    }
    if (here) svgs = startCharts(charts);
    await putCharts(put, charts, svgs);
    const from = opts.source && scenario ? { name: path.basename(opts.source.file), sha256: scenario.sha256 } : undefined;
    await put('index.html', scenarioPage(r, charts, files.slice(), { headline: sys?.headline, outcomes: sys?.outcomes, indexHref: indexHref(opts.index), scenario: from, drawn }));
  });
  return { files, summary };
}

/** Put a finished folder at `target`, replacing any old one only once the new one is whole. */
async function swapInto(job: Job): Promise<void> {
  const { tmp, target } = job;
  if (!existsSync(target)) {
    renameSync(tmp, target);
    return;
  }
  const old = path.join(path.dirname(target), oldName(path.basename(target)));
  job.old = old;
  renameSync(target, old);
  await faultPoint('swap', old);
  goOn();
  try {
    renameSync(tmp, target);
  } catch (e) {
    renameSync(old, target);
    job.old = undefined;
    throw e;
  }
  job.old = undefined;
  rmSync(old, { recursive: true, force: true });
}

/** What a folder of `kind` is called in a message: a site is not a report. */
function outputNoun(kind: Exclude<FolderKind, 'index'>): string {
  return kind === 'site' ? 'site' : 'report';
}

/**
 * Of `files` (one level of folders, as manifests list them), those a write into `target` would
 * put where the user has something: a file siegesim did not write (`own`), or a file of the
 * user's where a folder of the output goes.
 */
function clashesIn(target: string, files: readonly string[], own: Ownership): string[] {
  const taken = (f: string) => lstatOrUndefined(path.join(target, f)) !== undefined;
  const dirs = [...new Set(files.filter((f) => f.includes('/')).map((f) => f.split('/')[0]))];
  return [
    ...files.filter((f) => !own.ours.has(f) && !f.includes('/') && taken(f)),
    ...dirs.filter((d) => taken(d) && !lstatSync(path.join(target, d)).isDirectory()),
    ...files.filter((f) => f.includes('/') && !own.ours.has(f) && lstatSync(path.join(target, f.split('/')[0]), { throwIfNoEntry: false })?.isDirectory() && taken(f)),
  ];
}

/**
 * Put a finished folder's `files` into `target`, which holds files of the user's as well (`own`):
 * siegesim's old files are moved aside into a backup folder (with a journal, so that a run after
 * a killed one can undo it), the new ones moved in, the manifest last; only then is the backup
 * deleted. The user's files are never moved. A failure or a signal before the end puts the old
 * files back (rollBack). A file of the user's where the report writes one stops it, unchanged.
 */
async function swapFiles(job: Job, files: readonly string[], own: Ownership): Promise<void> {
  const { tmp, target } = job;
  const clash = clashesIn(target, files, own);
  if (clash.length > 0) {
    throw new OutputError(`cannot write to ${target}: the ${outputNoun(job.kind ?? 'run')} would replace ${someNames(clash)}, which siegesim did not write (put there while this run ran); the previous one there is unchanged`, 1);
  }
  const backup = path.join(path.dirname(target), oldName(path.basename(target)));
  mkdirSync(backup);
  job.backup = backup;
  writeFileSync(path.join(backup, UNDO), JSON.stringify({ tmp: path.basename(tmp), files }) + '\n');
  // the old manifest goes out first and the new one comes in last: a folder never lists files it does not hold
  const out = [...own.ours].sort((a, b) => (a === MANIFEST ? -1 : b === MANIFEST ? 1 : a.localeCompare(b)));
  for (const f of out) {
    makeFolders(path.dirname(path.join(backup, f)));
    renameSync(path.join(target, f), path.join(backup, f));
    job.movedOut.push(f);
  }
  await faultPoint('swap', backup);
  goOn();
  const into = [...files.filter((f) => f !== MANIFEST), MANIFEST];
  for (const f of into) {
    const d = path.dirname(f);
    if (d !== '.' && !existsSync(path.join(target, d))) {
      mkdirSync(path.join(target, d));
      job.madeDirs.push(d);
    }
    renameSync(path.join(tmp, f), path.join(target, f));
    job.movedIn.push(f);
  }
  // whole: the journal's removal is the point of no return (a killed run's successor then only
  // deletes the backup); the old files go, and a folder of siegesim's they leave empty
  job.backup = undefined;
  rmSync(path.join(backup, UNDO));
  rmSync(backup, { recursive: true, force: true });
  for (const d of new Set(out.filter((f) => f.includes('/')).map((f) => f.split('/')[0]))) rmSafe(path.join(target, d));
}

/** Write one file atomically (a temporary beside it, then a rename); failures as OutputError (exit 1). */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  goOn();
  const target = path.resolve(file);
  const existed = existsSync(target);
  const tmp = path.join(path.dirname(target), tmpName(path.basename(target)));
  const job: Job = { tmp, target, movedOut: [], movedIn: [], madeDirs: [] };
  pending.set(tmp, job);
  try {
    makeFolders(path.dirname(target));
    writeFileSync(tmp, content);
    await faultPoint('file', path.basename(target));
    goOn();
    renameSync(tmp, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code) throw writeFailed(file, existed, e);
    throw e;
  } finally {
    if (pending.has(tmp)) {
      rmSync(tmp, { force: true });
      pending.delete(tmp);
    }
  }
}

/** The one-line summary of an analysis folder (`sensitivity.json` or `tune.json`) for the index; undefined when it is neither. */
function analysisEntry(dir: string, name: string): AnalysisEntry | undefined {
  for (const kind of ['sensitivity', 'tune'] as const) {
    const f = path.join(dir, `${kind}.json`);
    if (!existsSync(f)) continue;
    try {
      const s = JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;
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

/** The reports index of `root`: its page, from every `<root>/<name>/summary.json` found, and the sensitivity and tune reports beside them (read synchronously: also from a signal's handler, finishInterrupted). */
function indexOf(root: string): string {
  let all;
  try {
    all = readdirSync(root, { withFileTypes: true });
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
      const a = existsSync(path.join(root, d.name, 'index.html')) ? analysisEntry(path.join(root, d.name), d.name) : undefined;
      if (a) analyses.push(a);
      continue;
    }
    try {
      const s = JSON.parse(readFileSync(f, 'utf8')) as {
        name: string;
        system: string;
        description?: string;
        params?: string[];
        variants?: string[];
        headline?: string[];
        seed?: string | number;
        conditional_on?: Record<string, string>;
        cases: (IndexCase & { trials?: number })[];
      };
      const sys = systemById(s.system);
      // the page's Answer columns (a value null in the JSON was not finite in the run)
      const cols = answerColumns({ metricOrder: sys?.metricOrder ?? [], headline: s.headline, cases: s.cases }, sys?.headline ?? [], sys?.outcomes ?? []);
      const headline = indexAnswerHtml(s.cases, s.params ?? [], s.variants ?? [], answerOrder(cols), s.conditional_on ?? {});
      const trials = s.cases.map((c) => c.trials).filter((t): t is number => typeof t === 'number');
      entries.push({ dir: d.name, name: s.name, system: s.system, description: s.description, cases: s.cases.length, ...(trials.length > 0 ? { trials: trialsRange(trials) } : {}), ...(s.seed !== undefined ? { seed: s.seed } : {}), headline });
    } catch {
      // A folder that is not a siegesim report is left alone.
    }
  }
  // the index replaces only an index siegesim wrote (checked before the run too: checkFolder)
  const own = indexOwnership(root);
  if (!own.ok) throw new OutputError(`cannot write to ${root}: ${own.why}; the reports are written, the index is not`, 1);
  return indexPage(entries, analyses);
}

/**
 * The files of `root`'s index, in the order they are written: the manifest first (an index.html
 * it lists and that is not there yet is still siegesim's to write), then the page.
 */
function indexFiles(root: string): [string, string][] {
  const page = indexOf(root);
  return [
    [path.join(root, MANIFEST), manifestText('index', ['index.html'])],
    [path.join(root, 'index.html'), page],
  ];
}

/** Rebuild `<root>/index.html` from every `<root>/<name>/summary.json` found, and the sensitivity and tune reports beside them. */
export async function writeIndex(root: string): Promise<void> {
  for (const [file, text] of indexFiles(root)) await writeFileAtomic(file, text);
}

// --- an interrupted run -----------------------------------------------------------------------

/** The report folders this process has put in place (as given), in order: what an interrupted run has changed. */
const placed: string[] = [];
/** The folders of reports whose index this process is to rebuild (checkFolder), resolved. */
const indexRoots = new Map<string, string>();

/** What an interrupted command had changed: the reports it had put in place, and each index brought up to date for them (or why not). */
export interface Interrupted {
  reports: string[];
  indexes: { file: string; error?: string }[];
}

/**
 * After a signal (once cleanupPending has undone the write in progress): the reports already put
 * in place stay, as whole reports of this run, and the index of each folder of reports that holds
 * one of them is rebuilt now, synchronously, so that it describes the folders it links to
 * (`run a.yaml b.yaml` stopped during b.yaml has replaced a.yaml's report). Returns what was
 * changed, for the message.
 */
export function finishInterrupted(): Interrupted {
  const reports = [...new Set(placed)];
  const indexes: Interrupted['indexes'] = [];
  for (const [root, shown] of indexRoots) {
    if (!reports.some((r) => path.dirname(path.resolve(r)) === root)) continue;
    const file = path.join(shown, 'index.html');
    try {
      for (const [f, text] of indexFiles(root)) writeFileNow(f, text);
      indexes.push({ file });
    } catch (e) {
      indexes.push({ file, error: e instanceof OutputError ? e.message : reasonOf(e) });
    }
  }
  return { reports, indexes };
}

/** Write one file atomically, synchronously (a signal's handler: no event loop turns, nothing else runs). */
function writeFileNow(file: string, content: string): void {
  const tmp = path.join(path.dirname(file), tmpName(path.basename(file)));
  try {
    writeFileSync(tmp, content);
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}
