/** `siegesim diff`: what moved between two runs (report folders, folders of them, or summary.json files). */
import type { Command } from 'commander';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { diffSets, diffSummaries, DiffError, DIFF_ALPHA, type SummaryDoc } from '../../api.js';
import { diffMarkdown, diffText } from '../../report/diff-report.js';
import { probabilityArg, UserError } from '../common.js';

interface DiffFlags {
  json?: boolean;
  markdown?: boolean;
  failOnChange?: boolean;
  alpha: number;
  ignoreName?: boolean;
}

/** A summary.json, a report folder (holding one), or a folder of report folders. */
function readSummaries(where: string): SummaryDoc[] {
  let st;
  try {
    st = statSync(where);
  } catch (e) {
    throw new UserError(`${where}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  const files: string[] = [];
  if (!st.isDirectory()) files.push(where);
  else if (existsSync(path.join(where, 'summary.json'))) files.push(path.join(where, 'summary.json'));
  else {
    for (const d of readdirSync(where, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const f = path.join(where, d.name, 'summary.json');
      if (d.isDirectory() && existsSync(f)) files.push(f);
    }
    if (files.length === 0) throw new UserError(`${where}: no summary.json in it nor in its folders (give a report folder, a folder of them, or a summary.json)`);
  }
  return files.map((f) => {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(f, 'utf8'));
    } catch (e) {
      throw new UserError(`${f}: not a summary.json (${(e as Error).message})`);
    }
    const d = doc as Partial<SummaryDoc>;
    if (typeof d?.name !== 'string' || typeof d.system !== 'string' || !Array.isArray(d.cases) || !Array.isArray(d.params) || !Array.isArray(d.variants)) {
      throw new UserError(`${f}: not a summary.json (it needs name, system, params, variants and cases)`);
    }
    return d as SummaryDoc;
  });
}

function diffCommand(before: string, after: string, flags: DiffFlags): void {
  if (flags.json && flags.markdown) throw new UserError('choose one of --json and --markdown');
  const b = readSummaries(before);
  const a = readSummaries(after);
  const single = b.length === 1 && a.length === 1;
  if (flags.ignoreName && !single) throw new UserError('--ignore-name compares one report with one report: give two report folders or summary.json files, not folders of reports');
  let d;
  try {
    d = single ? diffSummaries(b[0], a[0], { alpha: flags.alpha, ignoreName: flags.ignoreName }) : diffSets(b, a, { alpha: flags.alpha });
  } catch (e) {
    if (e instanceof DiffError) throw new UserError(`cannot compare ${before} with ${after}: ${e.message}`);
    throw e;
  }
  process.stdout.write(flags.json ? JSON.stringify(d, null, 2) + '\n' : flags.markdown ? diffMarkdown(d) : diffText(d));
  if (flags.failOnChange && d.moved > 0) process.exitCode = 1;
}

export function register(program: Command): void {
  program
    .command('diff')
    .description('what moved between two runs: every metric tested, Holm-corrected; exit 2 if they cannot be compared')
    .argument('<before>', 'a report folder, a folder of report folders, or a summary.json')
    .argument('<after>', 'the same, for the other run')
    .option('--json', 'print the comparison as JSON')
    .option('--markdown', 'print Markdown fit for a pull-request comment')
    .option('--fail-on-change', 'exit 1 when any metric moved significantly')
    .option('--ignore-name', 'compare two reports whatever their scenarios are named (without it: the same name, or <name> and its workbench copy <name>-tuned)')
    .option('--alpha <A>', 'family-wise false-alarm rate (Holm)', probabilityArg('--alpha', '0.001'), DIFF_ALPHA)
    .action((before: string, after: string, flags: DiffFlags) => diffCommand(before, after, flags));
}
