/**
 * What siegesim wrote in a folder, so that it replaces or deletes only that (as git refuses to
 * overwrite untracked files, and cargo never writes into src/). Every folder siegesim writes
 * carries a manifest, `.siegesim-report.json`:
 *
 *   { "format": "siegesim-report/1", "version": "0.1.0", "kind": "run", "files": ["charts/a.svg", ...] }
 *
 * `kind` is `run` (summary.json), `sensitivity`, `tune`, `history`, `site` (the static workbench:
 * its page, scripts and `scenarios/`), or `index` (a folder of reports: only
 * its index.html is siegesim's); `files` lists every file siegesim wrote there, relative, with
 * `/` between folder and name, sorted (the manifest itself is not listed). A later write replaces
 * and deletes only the files listed; any other file is the user's.
 *
 * Reports written before manifests existed (reports/examples/ is committed so) are recognised by
 * what they hold, the **legacy rule**: a folder without a manifest is a siegesim report of a kind
 * when its JSON is siegesim's (summary.json with `name`, `system`, `cases` and
 * `provenance.version`; sensitivity.json with `name`, `system`, `metric`, `ranking`; tune.json with
 * `name`, `system`, `params`, `targets`), and then its files are siegesim's when they are among
 * the names that kind of report has: summary.csv, summary.json, scenario.yaml, index.html, a CSV
 * named by a curve of some system (attrition.csv, surrender_by_turn.csv, ...), and
 * charts/<name>.vl.json and charts/<name>.svg (sensitivity and tune: their .json, .csv,
 * index.html and charts/). A folder of reports without a manifest: its index.html is siegesim's
 * when it is the reports index siegesim writes (its title and heading "siegesim reports").
 * Anything else in the folder is the user's.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SYSTEMS } from '../systems/registry.js';
import { VERSION } from '../version.js';
import { MANIFEST, MANIFEST_FORMAT, readManifest, type FolderKind } from './folder.js';

export { MANIFEST, MANIFEST_FORMAT, readManifest, type FolderKind };

/** How each kind of folder is said in messages. */
export const KIND_NAME: Record<FolderKind, string> = {
  run: 'report',
  sensitivity: 'sensitivity report',
  tune: 'tune report',
  history: 'trend page (siegesim history show)',
  site: 'static workbench (siegesim site)',
  index: 'folder of reports (its index.html)',
};

/** The manifest's text for `files` (relative paths, `/`-separated). */
export function manifestText(kind: FolderKind, files: readonly string[]): string {
  const listed = [...new Set(files)].filter((f) => f !== MANIFEST).sort();
  return JSON.stringify({ format: MANIFEST_FORMAT, version: VERSION, kind, files: listed }, null, 2) + '\n';
}

/**
 * What `dir` holds, two levels deep at most (siegesim writes `name` and `folder/name`, never
 * deeper): files and links by relative path, and the folders within `deep` (the ones siegesim
 * may have written into) listed one level; any other folder is one entry, `name/`, never walked
 * (so `--out ~` lists the home folder's names, not every file under it). Links are never followed.
 */
function entriesOf(dir: string, deep: ReadonlySet<string>): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  for (const n of readdirSync(dir).sort()) {
    if (!lstatSync(path.join(dir, n)).isDirectory()) files.push(n);
    else if (!deep.has(n)) dirs.push(`${n}/`);
    else {
      for (const m of readdirSync(path.join(dir, n)).sort()) {
        if (lstatSync(path.join(dir, n, m)).isDirectory()) dirs.push(`${n}/${m}/`);
        else files.push(`${n}/${m}`);
      }
    }
  }
  return { files, dirs };
}

export const CURVE_NAMES = new Set(SYSTEMS.flatMap((s) => s.curveDefs.map((c) => `${c.file}.csv`)));
const CHART = /^charts\/[^/]+\.(vl\.json|svg)$/;

/** A JSON file's object, or undefined (missing, unreadable, not JSON, not an object). */
export function jsonObject(file: string): Record<string, unknown> | undefined {
  try {
    const o = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const isString = (x: unknown) => typeof x === 'string';

/** The kind of a report written before manifests, from its JSON (the legacy rule), or undefined. */
function legacyKind(dir: string): FolderKind | undefined {
  const s = jsonObject(path.join(dir, 'summary.json'));
  if (s && isString(s.name) && isString(s.system) && Array.isArray(s.cases) && isString((s.provenance as { version?: unknown } | undefined)?.version)) return 'run';
  const a = jsonObject(path.join(dir, 'sensitivity.json'));
  if (a && isString(a.name) && isString(a.system) && isString(a.metric) && Array.isArray(a.ranking)) return 'sensitivity';
  const t = jsonObject(path.join(dir, 'tune.json'));
  if (t && isString(t.name) && isString(t.system) && Array.isArray(t.params) && Array.isArray(t.targets)) return 'tune';
  return undefined;
}

/** Whether a file is the reports index siegesim writes (html.ts indexPage): for folders of reports written before manifests, and the index's temporaries. */
export function isIndexPage(file: string): boolean {
  try {
    const head = readFileSync(file, 'utf8').slice(0, 65_536);
    return head.startsWith('<!doctype html>') && head.includes('<title>siegesim reports</title>') && head.includes('<h1>siegesim reports</h1>');
  } catch {
    return false;
  }
}

/** Which names a legacy report of `kind` has (the legacy rule). */
function legacyName(kind: FolderKind, f: string): boolean {
  if (kind === 'index') return f === 'index.html';
  if (f === 'index.html' || CHART.test(f)) return true;
  if (kind === 'run') return f === 'summary.csv' || f === 'summary.json' || f === 'scenario.yaml' || CURVE_NAMES.has(f);
  return f === `${kind}.json` || f === `${kind}.csv`;
}

/** What a folder holds, by who wrote it. */
export interface Ownership {
  /** The kind of siegesim folder it is (from its manifest, else the legacy rule), or undefined: none. */
  kind?: FolderKind;
  /** Recognised by the legacy rule (no manifest). */
  legacy: boolean;
  /** Files siegesim wrote (relative; the manifest included when there is one). */
  ours: Set<string>;
  /** What the user put there: files, and folders holding nothing of siegesim's as `name/`. */
  foreign: string[];
}

/** Who wrote what in `dir`, an existing report folder. */
export function ownershipOf(dir: string): Ownership {
  const m = readManifest(dir);
  const kind = m?.kind ?? legacyKind(dir);
  const deep = new Set(m ? m.files.filter((f) => f.includes('/')).map((f) => f.split('/')[0]) : ['charts']);
  const { files, dirs } = entriesOf(dir, deep);
  const ours = new Set<string>();
  const isFile = (f: string) => {
    try {
      return lstatSync(path.join(dir, f)).isFile();
    } catch {
      return false;
    }
  };
  if (m) {
    ours.add(MANIFEST);
    const listed = new Set(m.files);
    for (const f of files) if (listed.has(f) && isFile(f)) ours.add(f);
  } else if (kind) {
    for (const f of files) if (legacyName(kind, f) && isFile(f)) ours.add(f);
  }
  // the user's: every other file, and folders (a folder siegesim writes into, left empty, is not the user's)
  const foreign = [...files.filter((f) => !ours.has(f)), ...dirs.filter((d) => !(deep.has(d.slice(0, -1)) && readdirSync(path.join(dir, d)).length === 0))];
  return { kind, legacy: kind !== undefined && !m, ours, foreign: foreign.sort() };
}

/**
 * Whether `root/index.html`, a folder of reports' index, is siegesim's to replace: absent, listed
 * in the folder's manifest of kind `index`, or (no manifest) the index siegesim writes. Else the
 * reason it is not, for the message.
 */
export function indexOwnership(root: string): { ok: true } | { ok: false; why: string } {
  const m = readManifest(root);
  if (m && m.kind !== 'index') return { ok: false, why: `it holds a siegesim ${KIND_NAME[m.kind]}, not reports in folders` };
  const file = path.join(root, 'index.html');
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return { ok: true };
  }
  if (m ? m.files.includes('index.html') && st.isFile() : st.isFile() && isIndexPage(file)) return { ok: true };
  return { ok: false, why: 'its index.html was not written by siegesim, and the reports index would replace it' };
}

/** `a, b, c` — at most `max` names, then `and N more`. */
export function someNames(names: readonly string[], max = 10): string {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}
