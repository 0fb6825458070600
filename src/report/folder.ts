/**
 * What marks a report folder and the files siegesim wrote in it, apart from the writer
 * (report/write.ts, manifest.ts) so that the folder walkers (cli/files.ts, serve/catalogue.ts)
 * load only this.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export { SCENARIO_COPY } from './copy-name.js';

/** The manifest's file name in every folder siegesim writes (manifest.ts says what it holds). */
export const MANIFEST = '.siegesim-report.json';
export const MANIFEST_FORMAT = 'siegesim-report/1';

export type FolderKind = 'run' | 'sensitivity' | 'tune' | 'history' | 'site' | 'index';
const KINDS: readonly string[] = ['run', 'sensitivity', 'tune', 'history', 'site', 'index'] satisfies FolderKind[];

/**
 * A siegesim report folder (it holds summary.json): its scenario.yaml is the copy of a run, never
 * a scenario to run, validate or serve.
 */
export function isReportFolder(dir: string): boolean {
  return existsSync(path.join(dir, 'summary.json'));
}

/** A path a manifest may list: one or two plain segments (`summary.csv`, `charts/x.svg`), never `..` nor absolute. */
function safeEntry(f: unknown): f is string {
  if (typeof f !== 'string' || f.length === 0 || f.length > 255) return false;
  const parts = f.split('/');
  return parts.length <= 2 && parts.every((p) => p !== '' && p !== '.' && p !== '..' && !/[\\\0]/.test(p));
}

/** The manifest of `dir`, or undefined (none, or not one siegesim could have written). */
export function readManifest(dir: string): { kind: FolderKind; version: string; files: string[] } | undefined {
  try {
    const m = JSON.parse(readFileSync(path.join(dir, MANIFEST), 'utf8')) as Record<string, unknown>;
    if (m?.format !== MANIFEST_FORMAT || !KINDS.includes(m.kind as string) || !Array.isArray(m.files)) return undefined;
    return { kind: m.kind as FolderKind, version: String(m.version ?? ''), files: m.files.filter(safeEntry) };
  } catch {
    return undefined;
  }
}

/**
 * What a folder walker looking for scenarios leaves out of `dir`: `'all'` for a report written
 * before manifests (summary.json and no manifest: its scenario.yaml is a copy, and nothing there
 * is the user's to run), else the files the folder's manifest lists as siegesim's (relative,
 * `/`-separated: a run's scenario.yaml, a static site's scenarios/*.yaml), which may sit beside
 * the user's own scenarios (a report written with --force into a folder of them); empty: none.
 */
export function walkerSkips(dir: string): ReadonlySet<string> | 'all' {
  const m = readManifest(dir);
  if (m) return new Set(m.files);
  return isReportFolder(dir) ? 'all' : new Set();
}

/**
 * Whether a folder walker looking for scenarios passes over the entry `name` of any folder it
 * walks: a hidden file or folder (`.git`, `.github/workflows/*.yml`, `.gitlab-ci.yml`,
 * `.pre-commit-config.yaml`) or `node_modules` (the installed packages' YAML, siegesim's own
 * bundled scenarios and CI template among them). A game's repository holds both beside its
 * scenarios: `siegesim validate .` at its root read them as scenarios. A folder or file named
 * on the command line is read whatever its name.
 */
export function walkerPasses(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/** The entries of `files` (relative, `/`-separated) inside the subfolder `name`, relative to it: what a walker skips there. */
export function skipsInside(files: Iterable<string>, name: string): Set<string> {
  const prefix = `${name}/`;
  return new Set([...files].filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length)));
}
