/** Reading scenario files and folders for the CLI. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { MSG } from '../scenario/messages.js';
import type { ScenarioIssue } from '../scenario/load.js';

/** Expand files and folders (recursively) into scenario files, in a stable order. */
export function expandScenarioArgs(args: string[]): { files: string[]; issues: ScenarioIssue[] } {
  const files: string[] = [];
  const issues: ScenarioIssue[] = [];
  for (const a of args) {
    let st;
    try {
      st = statSync(a);
    } catch (e) {
      issues.push({ file: a, line: 0, col: 0, path: '(file)', message: MSG.fileUnreadable((e as NodeJS.ErrnoException).code ?? String(e)) });
      continue;
    }
    if (st.isDirectory()) {
      const found = walk(a);
      if (found.length === 0) issues.push({ file: a, line: 0, col: 0, path: '(file)', message: MSG.noScenarios(a) });
      files.push(...found);
    } else files.push(a);
  }
  return { files, issues };
}

function walk(dir: string): string[] {
  const out: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (/\.ya?ml$/i.test(e.name)) out.push(p);
  }
  return out;
}

export function readText(file: string): { text?: string; issue?: ScenarioIssue } {
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (e) {
    return { issue: { file, line: 0, col: 0, path: '(file)', message: MSG.fileUnreadable((e as NodeJS.ErrnoException).code ?? String(e)) } };
  }
}

/** `file:line:col  path  message` */
export function formatIssue(i: ScenarioIssue): string {
  const where = i.line > 0 ? `${i.file}:${i.line}:${i.col}` : i.file;
  return `${where}  ${i.path}  ${i.message}`;
}
