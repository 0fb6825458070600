/**
 * The scenario files a workbench serves: every *.yaml / *.yml under the folders (and the single
 * files) it was started with, each named by its path under its folder (`fantasy/stone-wall-siege.yaml`)
 * or, for a file given by itself, its file name (`wall.yaml`): see rootsOf.
 *
 * A request names a file only by that name, looked up in the listing, so `..`, encoded dots,
 * absolute paths and anything not listed are unknown scenarios by construction. Symbolic links
 * are followed only when their target stays under the served folder (checked on the real paths,
 * again when the file is read).
 */
import { readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { ValidScenario } from '../api.js';
import { systemById, formatIssue, type ScenarioIssue, MSG, fileIssue, errCode } from '../api.js';
import { validateFileText, Validator, type FileValidation } from './validator.js';
import { skipsInside, walkerPasses, walkerSkips } from '../report/folder.js';

export interface Root {
  /** Real path of the served folder, or of the single file's folder. */
  dir: string;
  /** A single served file (its real path), or undefined for a folder. */
  file?: string;
  /** A single file's name; a folder's files' prefix ('' when it is the only root). */
  prefix: string;
}

export interface Entry {
  /** The name in URLs: `fantasy/stone-wall-siege.yaml` (always `/`). */
  name: string;
  /** Real path on disk. */
  abs: string;
  /** The path the CLI would be given, relative to the working directory. */
  display: string;
}

export type Loaded = { ok: true; entry: Entry; text: string; scenario: ValidScenario } | { ok: false; entry: Entry; issues: ScenarioIssue[] };

/**
 * Resolve the command-line arguments into roots; a missing one is reported, not thrown.
 *
 * Names are short and depend only on the arguments (the same ones give the same names at every
 * start, so a link stays good): a file given by itself is its file name (`wall.yaml`), a folder's
 * files are under the folder's name (`fantasy/stone-wall-siege.yaml`; plain paths when it is the
 * only thing served). Only names that clash take the folders above them, one at a time, until
 * they differ (`north/wall.yaml`, `south/wall.yaml`); the same path given twice is served once.
 */
export function rootsOf(args: string[]): { roots: Root[]; problems: string[] } {
  const found: { root: Root; parts: string[]; depth: number; folder: boolean }[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const a of args) {
    let real: string;
    let st: Stats;
    try {
      real = realpathSync(a);
      st = statSync(real);
    } catch (e) {
      problems.push(`${a}: ${MSG.fileUnreadable(errCode(e))}`);
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    // named as given (a link keeps its own name), not by its target
    const parts = path.resolve(a).split(path.sep).filter((x) => x !== '');
    const folder = st.isDirectory();
    const root: Root = folder ? { dir: real, prefix: '' } : { dir: path.dirname(real), file: real, prefix: '' };
    found.push({ root, parts: parts.length > 0 ? parts : ['root'], depth: 1, folder });
  }
  const label = (f: (typeof found)[number]) => f.parts.slice(-f.depth).join('/');
  // `a`'s name clashes with `b`'s when they are equal, or when `a` is a folder's and `b` lies under it.
  const over = (a: (typeof found)[number], b: (typeof found)[number]) => a.folder && label(b).startsWith(`${label(a)}/`);
  const clash = (a: (typeof found)[number], b: (typeof found)[number]) => label(a) === label(b) || over(a, b) || over(b, a);
  for (;;) {
    // equal names both take their next folder; a folder's name under which another lies takes its own
    const deepen = new Set(found.filter((f) => found.some((g) => g !== f && (label(f) === label(g) || over(f, g)))));
    let moved = false;
    for (const f of deepen) if (f.depth < f.parts.length) (f.depth++, (moved = true));
    if (!moved) break;
  }
  const used: (typeof found)[number][] = [];
  for (const f of found) {
    // still clashing with every folder above it spelled out (a file inside a served folder named
    // the same way): numbered, before the extension
    const base = label(f);
    for (let n = 2; used.some((g) => clash(f, g)); n++) f.parts[f.parts.length - 1] = path.basename(base).replace(/(\.[^.]*)?$/, (ext) => `-${n}${ext}`);
    f.root.prefix = label(f);
    used.push(f);
  }
  const roots = found.map((f) => f.root);
  // One folder: its names are plain paths under it.
  if (roots.length === 1 && !roots[0].file) roots[0].prefix = '';
  return { roots, problems };
}

/** Is `p` (a real path) the folder `dir` or inside it? */
export function isInside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Every served scenario file, in a stable order. */
export function listEntries(roots: Root[]): Entry[] {
  const out: Entry[] = [];
  for (const r of roots) {
    const files = r.file ? [{ at: r.file, abs: r.file }] : walk(r.dir, r.dir, 0);
    for (const { at, abs } of files) {
      const rel = path.relative(r.dir, at).split(path.sep).join('/');
      const name = r.file ? r.prefix : r.prefix ? `${r.prefix}/${rel}` : rel;
      out.push({ name, abs, display: path.relative(process.cwd(), abs) || abs });
    }
  }
  return out;
}

/**
 * Scenario files under `dir`: where each is listed (`at`, a link's own path) and what is read
 * (`abs`, its real path). What siegesim wrote is left out (folder.ts walkerSkips: a report's
 * scenario.yaml is a copy); `skip`: the files the manifest of a folder above lists in this one.
 */
function walk(root: string, dir: string, depth: number, skip: ReadonlySet<string> = new Set()): { at: string; abs: string }[] {
  if (depth > 16) return [];
  const own = walkerSkips(dir);
  if (own === 'all') return [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return [];
  }
  const out: { at: string; abs: string }[] = [];
  for (const e of entries) {
    if (walkerPasses(e.name)) continue; // hidden entries and node_modules, as the CLI's walker
    const p = path.join(dir, e.name);
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      continue; // a dangling link
    }
    if (!isInside(root, real)) continue; // a link out of the served folder
    if (e.isDirectory()) {
      out.push(...walk(root, p, depth + 1, skipsInside([...own, ...skip], e.name)));
    } else if (/\.ya?ml$/i.test(e.name) && !own.has(e.name) && !skip.has(e.name) && statSync(real).isFile()) out.push({ at: p, abs: real });
  }
  return out;
}

/**
 * The served scenarios and their validation, cached by file identity (path, size, mtime) so that
 * every request does not re-parse every file.
 */
export class Catalogue {
  private cache = new Map<string, { key: string; loaded: Loaded }>();
  private inflight = new Map<string, Promise<Loaded>>();
  private readonly validator = new Validator();
  /** `log`: the server's log, where an expect: item a scenario no longer matches is said once per version of the file. */
  constructor(
    readonly roots: Root[],
    private readonly log?: (line: string) => void,
  ) {}

  entries(): Entry[] {
    return listEntries(this.roots);
  }

  /** The entry named `name`, or undefined: only listed names are ever opened. */
  find(name: unknown): Entry | undefined {
    if (typeof name !== 'string' || name.length === 0 || name.length > 1000) return undefined;
    return this.entries().find((e) => e.name === name);
  }

  /** Read and validate an entry (cached while the file is unchanged), in this thread. */
  load(entry: Entry): Loaded {
    const at = this.stat(entry);
    if ('loaded' in at) return at.loaded;
    let v: FileValidation;
    try {
      const plain = validateFileText(entry.abs, entry.display);
      if ('error' in plain) throw new Error(plain.error);
      v = plain.ok ? { ok: true, text: plain.text, value: { ...plain.value, system: systemById(plain.value.system)! } } : plain;
    } catch (e) {
      v = { ok: false, issues: [issue(entry, MSG.yamlSyntax((e as Error).message.split('\n')[0]))] };
    }
    return this.keep(entry, at.key, v);
  }

  /**
   * Read and validate an entry off the server's thread (validator.ts), cached while the file is
   * unchanged; a file being validated is validated once however many requests ask for it.
   */
  async loadAsync(entry: Entry): Promise<Loaded> {
    const at = this.stat(entry);
    if ('loaded' in at) return at.loaded;
    const id = `${entry.abs}\u0000${at.key}`;
    let p = this.inflight.get(id);
    if (!p) {
      p = this.validator
        .validate(entry.abs, entry.display)
        .catch((e: unknown): FileValidation => ({ ok: false, issues: [issue(entry, MSG.yamlSyntax((e as Error).message.split('\n')[0]))] }))
        .then((v) => this.keep(entry, at.key, v))
        .finally(() => this.inflight.delete(id));
      this.inflight.set(id, p);
    }
    return p;
  }

  /** The entry's validation if it is already known for this version of the file (no waiting), else undefined. */
  peek(entry: Entry): Loaded | undefined {
    const at = this.stat(entry);
    return 'loaded' in at ? at.loaded : undefined;
  }

  /** Stop the validation thread. */
  close(): Promise<void> {
    return this.validator.close();
  }

  private stat(entry: Entry): { loaded: Loaded } | { key: string } {
    let st;
    try {
      // the link target may have moved since the listing: check again
      const real = realpathSync(entry.abs);
      if (!this.roots.some((r) => (r.file ? r.file === real : isInside(r.dir, real)))) throw Object.assign(new Error('outside'), { code: 'EACCES' });
      st = statSync(real);
    } catch (e) {
      return { loaded: { ok: false, entry, issues: [issue(entry, MSG.fileUnreadable(errCode(e)))] } };
    }
    const key = `${st.size}:${st.mtimeMs}`;
    const hit = this.cache.get(entry.abs);
    if (hit && hit.key === key) return { loaded: hit.loaded };
    return { key };
  }

  private keep(entry: Entry, key: string, v: FileValidation): Loaded {
    const stale = v.ok ? (v.value.staleExpect ?? []) : v.issues.filter((i) => i.stale);
    for (const i of stale) this.log?.(MSG.staleExpect(formatIssue(i)));
    for (const i of v.ok ? (v.value.warnings ?? []) : []) this.log?.(MSG.deadSetting(formatIssue(i)));
    const loaded: Loaded = v.ok ? { ok: true, entry, text: v.text, scenario: v.value } : { ok: false, entry, issues: v.issues.filter((i) => !i.stale) };
    this.cache.set(entry.abs, { key, loaded });
    return loaded;
  }
}

function issue(entry: Entry, message: string): ScenarioIssue {
  return fileIssue(entry.display, message);
}
