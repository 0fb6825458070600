/** `siegesim diff`: what moved between two runs (report folders, folders of them, or summary.json files). */
import type { Command } from 'commander';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { diffSets, diffSummaries, DiffError, DIFF_ALPHA, scenarioSettings, summaryShapeProblem, type SummaryDoc, fileIssue, folderIssue, MSG, errCode, loadScenarioText, NotAFile, readRegularFile, readText, TooLarge, validateLoaded } from '../../api.js';
import { diffMarkdown, diffText } from '../../report/diff-report.js';
import { failWith, probabilityArg, UserError } from '../common.js';
import type { ScenarioIssue } from '../../api.js';

/** The most diff reads of one summary.json (a 10,000-case sweep's is a few MB). */
const SUMMARY_MAX = 256 * 1024 * 1024;

interface DiffFlags {
  json?: boolean;
  markdown?: boolean;
  failOnChange?: boolean;
  alpha: number;
  ignoreName?: boolean;
}

/**
 * A summary.json, a report folder (holding one), or a folder of report folders; a problem is
 * said as every command says one about a file it was given (`file  (file)  message`), and a
 * scenario file given by mistake is named as such.
 */
function readSummaries(where: string): { docs: SummaryDoc[]; issues: ScenarioIssue[] } {
  let st;
  try {
    st = statSync(where);
  } catch (e) {
    return { docs: [], issues: [fileIssue(where, MSG.fileUnreadable(errCode(e)))] };
  }
  const files: string[] = [];
  if (!st.isDirectory()) files.push(where);
  else if (existsSync(path.join(where, 'summary.json'))) files.push(path.join(where, 'summary.json'));
  else {
    for (const d of readdirSync(where, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const f = path.join(where, d.name, 'summary.json');
      if (d.isDirectory() && existsSync(f)) files.push(f);
    }
    if (files.length === 0) return { docs: [], issues: [folderIssue(where, MSG.noSummaryIn())] };
  }
  const docs: SummaryDoc[] = [];
  const issues: ScenarioIssue[] = [];
  for (const f of files) {
    let text: string;
    try {
      // never waits on a pipe, never reads a device for ever
      text = readRegularFile(f, SUMMARY_MAX).toString('utf8');
    } catch (e) {
      const why = e instanceof NotAFile ? MSG.notASummary(isFolder(f) ? 'a folder, not a file' : 'not a regular file: a pipe or a device') : e instanceof TooLarge ? MSG.notASummary(`${e.bytes.toLocaleString('en-US')} bytes, over the ${SUMMARY_MAX.toLocaleString('en-US')} diff reads`) : MSG.fileUnreadable(errCode(e));
      issues.push(fileIssue(f, why));
      continue;
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      issues.push(fileIssue(f, looksLikeScenario(f, text) ? MSG.diffScenarioFile(f, /^name:[ \t]*([\w.-]+)[ \t]*$/m.exec(text)?.[1]) : MSG.notASummary(`not JSON: ${(e as Error).message}`)));
      continue;
    }
    const why = summaryShapeProblem(doc);
    if (why !== undefined) {
      issues.push(fileIssue(f, MSG.notASummary(why)));
      continue;
    }
    const beside = settingsBeside(f, doc as SummaryDoc);
    docs.push({ ...(doc as SummaryDoc), ...(typeof beside === 'string' ? { settings: null, settingsUnknown: beside } : { settings: beside }) });
  }
  return { docs, issues };
}

/**
 * The run's settings, from the scenario copy its report keeps beside summary.json (the file its
 * provenance names, scenario.yaml), read as any scenario file is (its size and nesting limits, a
 * pipe refused): null when it is not there or not readable, and the diff then says the settings
 * could not be compared.
 */
/**
 * The run's settings from the scenario copy beside its summary.json, or why they cannot be read
 * (`scenario.yaml: ...`). The copy must be the text that ran: its SHA-256 the one the summary
 * records (a copy edited since would report settings the run never had); a summary without one
 * (an older report) has its copy validated as any scenario file is.
 */
function settingsBeside(summary: string, d: SummaryDoc & { provenance?: { scenario?: { file?: unknown; sha256?: unknown } } }): Record<string, unknown> | string {
  const name = d.provenance?.scenario?.file;
  const base = typeof name === 'string' && name === path.basename(name) ? name : 'scenario.yaml';
  const file = path.join(path.dirname(summary), base);
  const read = readText(file);
  if (read.text === undefined) return `${file}: ${read.issue?.message ?? MSG.notAFile()}`;
  const sha = d.provenance?.scenario?.sha256;
  if (typeof sha === 'string' && createHash('sha256').update(read.text, 'utf8').digest('hex') !== sha) return `${file} is not the text that ran (its SHA-256 is not the one summary.json records: edited since?)`;
  const loaded = loadScenarioText(file, read.text);
  if (typeof sha !== 'string') {
    const v = validateLoaded(loaded);
    const at = v.ok ? undefined : v.issues[0];
    if (at) return `${file}:${at.line}:${at.col}: ${at.path ? `${at.path}: ` : ''}${at.message}`;
  }
  const first = loaded.issues[0];
  if (first) return `${file}:${first.line}:${first.col}: ${first.message}`;
  try {
    return scenarioSettings(loaded.data, { seed: d.seed, trials: d.trials });
  } catch {
    return `${file}: not a scenario`;
  }
}

function isFolder(f: string): boolean {
  try {
    return statSync(f).isDirectory();
  } catch {
    return false;
  }
}

/** A .yaml/.yml file, or YAML text with a scenario's `system:` key at the top level. */
function looksLikeScenario(file: string, text: string): boolean {
  return /\.ya?ml$/i.test(file) || /^system:/m.test(text);
}

function diffCommand(before: string, after: string, flags: DiffFlags): void {
  if (flags.json && flags.markdown) throw new UserError('choose one of --json and --markdown');
  const rb = readSummaries(before);
  const ra = readSummaries(after);
  // the same file twice (`diff K.yaml K.yaml`) is one problem
  const issues = [...rb.issues, ...ra.issues].filter((i, n, all) => all.findIndex((j) => j.file === i.file && j.message === i.message) === n);
  if (issues.length > 0) failWith(issues);
  const [b, a] = [rb.docs, ra.docs];
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
    .description("what moved between two runs: every metric and each variant's difference from the baseline tested, Holm-corrected together; exit 2 if they cannot be compared")
    .argument('<before>', 'a report folder, a folder of report folders, or a summary.json')
    .argument('<after>', 'the same, for the other run')
    .option('--json', 'print the comparison as JSON')
    .option('--markdown', 'print Markdown fit for a pull-request comment')
    .option('--fail-on-change', 'exit 1 when any metric moved significantly')
    .option('--ignore-name', 'compare two reports whatever their scenarios are named (without it: the same name, or <name> and its workbench copy <name>-tuned)')
    .option('--alpha <A>', 'family-wise false-alarm rate (Holm)', probabilityArg('--alpha', '0.001'), DIFF_ALPHA)
    .action((before: string, after: string, flags: DiffFlags) => diffCommand(before, after, flags));
}
