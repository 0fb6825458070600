/** Reading scenario files and folders for the CLI. */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { isReportFolder, SCENARIO_COPY, skipsInside, walkerPasses, walkerSkips } from '../report/folder.js';
import { realPathOr } from '../paths.js';
import { suggest } from '../text/suggest.js';
import { MSG, fileIssue, folderIssue, errCode } from '../api.js';
import type { ScenarioIssue } from '../api.js';

/** Reading a scenario file and saying its issues (`file:line:col  path  message`): the api's, which the workbench shares. */
export { formatIssue, readRegularFile, readText } from '../api.js';

/**
 * Expand files and folders (recursively) into scenario files, in a stable order. A file named
 * twice (`a.yaml a.yaml`, `dir dir/a.yaml`, a link and its target) is read once, where it first comes.
 */
export function expandScenarioArgs(args: string[]): { files: string[]; issues: ScenarioIssue[] } {
  const { files, issues } = expandAll(args);
  const seen = new Set<string>();
  return {
    files: files.filter((f) => {
      const real = realPathOr(f);
      return !seen.has(real) && Boolean(seen.add(real));
    }),
    issues,
  };
}

/** A file beside a missing path whose name is close to it (`keep.yml` for keep.yaml, a typo): its path as the user would type it. */
function nearName(a: string): string | undefined {
  const dir = path.dirname(a);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /\.ya?ml$/i.test(n) || !n.includes('.'));
  } catch {
    return undefined;
  }
  const base = path.basename(a);
  const stem = base.replace(/\.ya?ml$/i, '');
  const same = names.find((n) => n.replace(/\.ya?ml$/i, '') === stem && n !== base);
  const hit = same ?? suggest(base, names);
  return hit === undefined ? undefined : dir === '.' && !a.startsWith('.') ? hit : path.join(dir, hit);
}

function expandAll(args: string[]): { files: string[]; issues: ScenarioIssue[] } {
  const files: string[] = [];
  const issues: ScenarioIssue[] = [];
  for (const a of args) {
    let st;
    try {
      st = statSync(a);
    } catch (e) {
      const near = errCode(e) === 'ENOENT' ? nearName(a) : undefined;
      issues.push(fileIssue(a, `${MSG.fileUnreadable(errCode(e))}${near !== undefined ? ` (did you mean ${near}?)` : ''}`));
      continue;
    }
    if (st.isDirectory()) {
      const found = walk(a, issues);
      if (found.length === 0) issues.push(folderIssue(a, isReportFolder(a) ? MSG.noScenariosInReport(a, path.join(a, SCENARIO_COPY)) : MSG.noScenarios(a)));
      files.push(...found);
    } else files.push(a);
  }
  return { files, issues };
}

/**
 * The scenario files under `dir`, leaving out what siegesim wrote (folder.ts walkerSkips): a
 * report's scenario.yaml is the copy of a run, also in a folder that holds the user's scenarios
 * beside a report (--out . --force); `skip`: the files the manifest of a folder above lists in
 * this one. Hidden entries and node_modules are passed over (folder.ts walkerPasses).
 */
function walk(dir: string, issues: ScenarioIssue[], skip: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  const own = walkerSkips(dir);
  if (own === 'all') return out;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  } catch (e) {
    issues.push(folderIssue(dir, MSG.fileUnreadable(errCode(e))));
    return out;
  }
  for (const e of entries) {
    if (walkerPasses(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p, issues, skipsInside([...own, ...skip], e.name)));
    else if (/\.ya?ml$/i.test(e.name) && !own.has(e.name) && !skip.has(e.name)) out.push(p);
  }
  return out;
}
