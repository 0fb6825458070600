/** `siegesim test`: judge every scenario's `expect:` assertions; JUnit XML and a GitHub step summary. */
import type { Command } from 'commander';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { prepareExact, testScenario, TEST_CONFIDENCE, type ScenarioTestResult, MSG, formatIssue, type ScenarioIssue, LIMITS, type ValidScenario } from '../../api.js';
import { junitXml, testFooter, testJson, testLines, testMarkdown, totalsOf } from '../../report/test-report.js';
import { checkOutputFile, OutputError, reasonOf, writeFileAtomic } from '../../report/write.js';
import { atDefaultSignals, controller, executorOf, failWith, loadSome, makeProgress, UserError, outArg, scenarioArgsOrDefault, probabilityArg, seedArg, threadsOpt, trialsArg } from '../common.js';

interface TestFlags {
  junit?: string;
  strict?: boolean;
  trials?: number;
  maxTrials?: number;
  confidence: number;
  seed?: string | number;
  threads: number;
  progress?: boolean;
  allowEmpty?: boolean;
  json?: boolean;
}

async function testCommand(files: string[], flags: TestFlags): Promise<void> {
  // test judges expect:, so an item the scenario no longer matches is an error here (exit 2), not a warning.
  // A file with problems is not tested, but the others are (pytest's collection errors): each of
  // its problems is an <error> in the JUnit XML and a row of the step summary, and the exit is 2.
  const loaded = loadSome(scenarioArgsOrDefault(files, 'siegesim test my.yaml'), { staleExpect: 'error' });
  const issues: ScenarioIssue[] = loaded.issues;
  // Exact answers first: a case without one is a problem of its scenario, found before anything runs.
  const prepared: ({ v: ValidScenario } & ReturnType<typeof prepareExact>)[] = [];
  for (const v of loaded.valid) if (v.expect.length > 0) prepared.push({ v, ...(await atDefaultSignals(() => prepareExact(v))) });
  for (const p of prepared) for (const i of p.issues) issues.push(i);
  const bad = new Set(issues.map((i) => i.file));
  const scenarios = loaded.valid.filter((v) => !bad.has(v.file));
  const judged = prepared.filter((p) => !bad.has(p.v.file));
  const withExpect = judged.map((p) => p.v);
  const exact = judged.map((p) => p.answers);
  const skipped = scenarios.filter((v) => v.expect.length === 0);
  // Outputs are checked before any trial runs (exit 2), as run's are: not found after the whole suite has run.
  // every file read, the bad ones too: none may be an output
  const inputs = [...loaded.valid.map((v) => v.file), ...bad];
  if (flags.junit) checkOutputFile(flags.junit, inputs, JUNIT_FILE);
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (summary) checkSummaryFile(summary, inputs);
  if (issues.length > 0 && scenarios.length === 0) {
    // nothing to judge: the problems, as every command says them, and in the JUnit XML and step summary, so CI shows them
    if (!flags.junit && !summary) failWith(issues);
    sayProblems(issues);
    await writeOutputs(flags, summary, [], false, [], undefined, issues);
    const n = issues.length;
    const e = new UserError(`${n} problem${n === 1 ? '' : 's'} found; nothing was run`);
    e.problems = issues.slice(0, LIMITS.problemsShown);
    throw e;
  }
  // said at once, before anything runs, as every command says them; the good files are judged next
  if (issues.length > 0) sayProblems(issues);

  // --json keeps stdout for the JSON alone: the console's lines go to stderr (a CI log still shows them).
  const say = (text: string) => (flags.json ? process.stderr : process.stdout).write(text);
  const results: ScenarioTestResult[] = [];
  const exec = executorOf(flags.threads);
  try {
    for (const [i, v] of withExpect.entries()) {
      const progress = makeProgress(flags.progress !== false && process.stderr.isTTY === true, v.name.padEnd(24).slice(0, 24), 'trials');
      const r = await testScenario(
        v,
        { trials: flags.trials, maxTrials: flags.maxTrials, confidence: flags.confidence, seed: flags.seed, executor: exec, signal: controller.signal, onProgress: progress.onProgress },
        exact[i],
      );
      progress.stop();
      results.push(r);
      say(testLines(r).join('\n') + '\n');
    }
  } finally {
    await exec.close();
  }

  if (skipped.length > 0) say(`skipped (no expect: block): ${skipped.map((v) => v.name).join(', ')}\n`);
  const strict = flags.strict === true;
  const t = totalsOf(results);
  // No assertion is not a pass: a gate pointed at the wrong folder, or at a file whose expect:
  // was deleted, would otherwise stay green while proving nothing (as check's 0 comparisons).
  // (a run with bad files is not empty: it fails for them)
  const empty = t.pass + t.fail + t.inconclusive === 0 && !flags.allowEmpty && issues.length === 0 ? MSG.testEmpty(scenarios.length) : undefined;
  say(testFooter(results, strict, skipped.length, flags.allowEmpty, issues).join('\n') + '\n');
  if (empty !== undefined) process.stderr.write(`siegesim: ${empty}\n`);
  await writeOutputs(flags, summary, results, strict, skipped, empty, issues);
  if (flags.json) process.stdout.write(JSON.stringify(testJson(results, strict, skipped, flags.allowEmpty === true, empty, issues), null, 2) + '\n');
  if (issues.length > 0) {
    // a bad file is bad input (exit 2), whatever the verdicts of the others
    const n = issues.length;
    const nFiles = new Set(issues.map((i) => i.file)).size;
    process.stderr.write(`siegesim: ${n} problem${n === 1 ? '' : 's'} found in ${nFiles} file${nFiles === 1 ? '' : 's'}, not tested; the others were\n`);
    process.exitCode = 2;
  } else if (t.fail + (strict ? t.inconclusive : 0) > 0 || empty !== undefined) process.exitCode = 1;
}

/** The first `LIMITS.problemsShown` problems (then how many more), on stderr. */
function sayProblems(issues: readonly ScenarioIssue[]): void {
  const shown = Math.min(issues.length, LIMITS.problemsShown);
  let out = '';
  for (let i = 0; i < shown; i++) out += formatIssue(issues[i]) + '\n';
  if (issues.length > shown) out += MSG.moreProblems(issues.length - shown, shown) + '\n';
  process.stderr.write(out);
}

/**
 * The JUnit XML and the step summary. Written beside, then renamed into place (a reader never
 * sees half a file); a failed write is one line, exit 1.
 */
async function writeOutputs(
  flags: TestFlags,
  summary: string | undefined,
  results: ScenarioTestResult[],
  strict: boolean,
  skipped: readonly { name: string }[],
  empty: string | undefined,
  issues: readonly ScenarioIssue[],
): Promise<void> {
  if (flags.junit) {
    await writeFileAtomic(flags.junit, junitXml(results, strict, empty, issues));
    process.stderr.write(`JUnit XML -> ${flags.junit}\n`);
  }
  if (summary) {
    try {
      mkdirSync(path.dirname(path.resolve(summary)), { recursive: true });
      appendFileSync(summary, testMarkdown(results, strict, skipped.map((v) => v.name), empty, issues) + '\n');
    } catch (e) {
      throw new OutputError(`cannot write to ${summary} (GITHUB_STEP_SUMMARY): ${reasonOf(e)}`, 1);
    }
  }
}

/** The step summary is appended to, so it must be a file (or not exist yet) in a folder that does. */
function checkSummaryFile(file: string, inputs: readonly string[]): void {
  try {
    checkOutputFile(file, inputs);
  } catch (e) {
    if (e instanceof OutputError) throw new OutputError(e.message.replace(`cannot write to ${file}:`, `cannot write to ${file} (GITHUB_STEP_SUMMARY):`), e.exitCode);
    throw e;
  }
}

/** A JUnit file `siegesim test` wrote: its root element is named so (test-report.ts junitXml). */
const JUNIT_FILE = { what: "a JUnit file of siegesim test's", own: (head: string) => head.includes('<testsuites name="siegesim test"') };

export function register(program: Command): void {
  program
    .command('test')
    .description("judge the scenarios' expect: assertions (pass, FAIL, inconclusive); exit 1 on a failure or on none at all")
    .argument('[files...]', 'scenario files or folders (default: scenarios)')
    .option('--junit <FILE>', 'write JUnit XML: one testsuite per scenario, one testcase per assertion', outArg('--junit', 'leave the flag out to write no JUnit file'))
    .option('--strict', 'an inconclusive assertion fails too')
    .option('--trials <N>', "trials per case at the first look (default: the scenario's)", trialsArg('--trials'))
    .option('--max-trials <N>', 'cap on trials per case when an interval straddles a bound (default 16 x trials)', trialsArg('--max-trials'))
    .option('--confidence <C>', 'confidence of the interval each assertion is judged on', probabilityArg('--confidence', '0.999'), TEST_CONFIDENCE)
    .option('--seed <S>', 'random seed (overrides the scenario)', seedArg)
    .addOption(threadsOpt())
    .option('--no-progress', 'no progress bar')
    .option('--json', 'print the verdicts as one JSON document to stdout (the console lines go to stderr)')
    .option('--allow-empty', 'exit 0 even when no scenario has an expect: block (0 assertions); without it that exits 1')
    .action((files: string[], flags: TestFlags) => testCommand(files, flags));
}
