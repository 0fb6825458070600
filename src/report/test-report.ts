/**
 * What `siegesim test` prints and writes: one console line per assertion, JUnit XML (one
 * testsuite per scenario, one testcase per assertion) and a Markdown table for GitHub's step
 * summary. Pure: the CLI puts them on disk.
 */
import { fmtTest, type AssertionResult, type ScenarioTestResult } from '../api/test.js';
import { CHECK_Z_LIMIT } from '../api/exact.js';
import { zForConfidence } from '../stats/intervals.js';
import { MSG } from '../scenario/messages.js';
import { formatIssue, type ScenarioIssue } from '../scenario/load.js';
import { conditionalText, showCount } from './format.js';

export interface TestTotals {
  pass: number;
  fail: number;
  inconclusive: number;
}

/** Counts of each verdict; an inconclusive one counts as a failure under `strict`. */
export function totalsOf(results: readonly ScenarioTestResult[]): TestTotals {
  const t = { pass: 0, fail: 0, inconclusive: 0 };
  for (const r of results) for (const a of r.assertions) t[a.verdict]++;
  return t;
}

const LABEL: Record<AssertionResult['verdict'], string> = { pass: 'pass', fail: 'FAIL', inconclusive: 'inconclusive' };

/** `0.4712 [0.4601, 0.4823]` */
export function intervalText(a: AssertionResult): string {
  return `${fmtTest(a.value)} [${fmtTest(a.ci_low)}, ${fmtTest(a.ci_high)}]`;
}

/**
 * The console block of one scenario: a header, then one line per assertion. A pass is a row of
 * an aligned table; a FAIL or inconclusive one is a sentence that stands alone in a CI log:
 * where (file:line), the estimate and its interval, which side of the bound and by how much.
 */
export function testLines(r: ScenarioTestResult): string[] {
  const f = showCount;
  const most = Math.max(r.trials, ...r.assertions.map((a) => a.trials));
  const ranOn = [...new Set(r.assertions.filter((a) => a.ranOn).map((a) => a.metric))];
  const which = ranOn.length > 0 ? `: ${ranOn.join(', ')}` : '';
  const trials = most > r.trials ? `${f(r.trials)} trials per case at the first look (up to ${f(most)} where an interval straddled a bound${which})` : `${f(r.trials)} trials per case`;
  const out = [`${r.name} (${r.file}): ${r.assertions.length} assertion(s), ${trials}, seed ${r.result.seed}, ${pct(r.confidence)} intervals`];
  const rows = new Map(
    r.assertions.filter((a) => a.verdict === 'pass').map((a) => [a, [LABEL.pass, a.metric, a.where || '-', intervalText(a), a.boundText, a.trials < r.trials * 2 ? '' : `(${f(a.trials)} trials${a.ranOn ? `: undecided at ${f(r.trials)}` : ''})`]]),
  );
  const widths = [0, 1, 2, 3].map((k) => Math.max(0, ...[...rows.values()].map((row) => row[k].length)));
  for (const a of r.assertions) {
    const row = rows.get(a);
    if (row) out.push(('  ' + row.map((cell, k) => (k < 4 ? cell.padEnd(widths[k]) : cell)).join('  ')).trimEnd());
    else out.push(`  ${LABEL[a.verdict]}  ${placeOf(r, a)}  ${assertionMessage(a)}`);
  }
  // a mean over the trials of an event says which (as run's answer and history check do): not every trial's
  const conditional = [...new Set(r.assertions.map((a) => a.metric))].flatMap((m) => {
    const on = conditionalOf(r.result, m).conditional_on;
    return on === undefined ? [] : [`${m} (${conditionalText(on)})`];
  });
  if (conditional.length > 0) out.push(`  ${conditional.join('; ')}`);
  return out;
}

/** `scenarios/keep.yaml:11`: the file as given and the line of the `expect:` item. */
export function placeOf(r: ScenarioTestResult, a: AssertionResult): string {
  return `${r.file}:${a.line}`;
}

/** `99.9%` */
function pct(c: number): string {
  return `${Number((c * 100).toPrecision(6))}%`;
}

/** A distance between an interval and a bound: three significant digits (`0.0846`, `1.23e-5`). */
export function fmtGap(x: number): string {
  const a = Math.abs(x);
  return a !== 0 && a < 1e-3 ? a.toExponential(2) : String(Number(a.toPrecision(3)));
}

/**
 * Where the interval lies against the bound, in words: `is above the bound [0.3, 0.4] by at
 * least 0.0846` (a FAIL: the nearest end of the interval is that far past the bound), `straddles
 * the lower bound 0.9` (inconclusive), `is inside the bound [0.3, 0.4]` (a pass).
 */
export function relationText(a: AssertionResult): string {
  const b = a.bound;
  const { ci_low: lo, ci_high: hi } = a;
  if (b.kind === 'exact') {
    const ex = a.exact;
    if (!ex) return 'has no exact answer to compare with';
    if (Number.isNaN(ex.z)) return a.observations !== undefined ? MSG.testExactNoZ(fmtTest(ex.value), a.observations, showCount(a.trials)) : `has no z against the exact answer ${fmtTest(ex.value)}`;
    const z = `z = ${ex.z.toFixed(2)}`;
    if (a.verdict === 'pass') return `agrees with the exact answer ${fmtTest(ex.value)} (${z})`;
    // the limits judge() applies: |z| within the confidence's z passes, beyond the larger of it and check's 4.5 fails
    const pass = zForConfidence(a.confidence);
    const fail = Math.max(pass, CHECK_Z_LIMIT);
    const off = `is ${a.value < ex.value ? 'below' : 'above'} the exact answer ${fmtTest(ex.value)} by ${fmtGap(a.value - ex.value)}`;
    if (a.verdict === 'fail') return `${off} (${z}; |z| over ${fail} fails)`;
    return `${off} (${z}: over ${pass.toFixed(2)} to pass, not over ${fail} to fail)`;
  }
  const bound = b.kind === 'between' ? `the bound [${b.low}, ${b.high}]` : b.kind === 'at_least' ? `the lower bound ${b.low}` : `the upper bound ${b.high}`;
  if (a.verdict === 'pass') return `is inside ${bound}`;
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) {
    const n = a.observations;
    return n === undefined
      ? `has no interval to judge against ${bound} (too few observations)`
      : `has no interval to judge against ${bound}: ${showCount(n)} of ${showCount(a.trials)} trials gave it a value, and a mean needs 2`;
  }
  const low = b.kind === 'at_most' ? -Infinity : b.low;
  const high = b.kind === 'at_least' ? Infinity : b.high;
  if (a.verdict === 'fail') return hi < low ? `is below ${bound} by at least ${fmtGap(low - hi)}` : `is above ${bound} by at least ${fmtGap(lo - high)}`;
  if (b.kind !== 'between') return `straddles ${bound}`;
  const ends = [lo < low && hi >= low ? b.low : undefined, lo <= high && hi > high ? b.high : undefined].filter((e) => e !== undefined);
  return `straddles ${bound}${ends.length === 1 ? ` at ${ends[0]}` : ' at both ends'}`;
}

/**
 * The sentence a FAIL or inconclusive assertion carries, on the console, in the JUnit XML and
 * in the step summary: metric and where, estimate and interval, how it lies against the bound,
 * the interval's confidence and the trials it rests on.
 * @example `p_attacker_wins = 0.4875 [0.48459, 0.49041] is above the bound [0.3, 0.4] by at least 0.0846 (99.9% interval, 320,000 trials)`
 */
export function assertionMessage(a: AssertionResult): string {
  const trials = a.verdict === 'inconclusive' ? `still undecided at the cap of ${showCount(a.trials)} trials` : `${showCount(a.trials)} trials`;
  // a mean over the trials of an event says over how many of them, as solve does
  const basis = a.over && a.observations === undefined ? `${trials}; a mean over the ${showCount(a.over.n)} of them with ${a.over.event}` : trials;
  return `${a.metric}${a.where ? ` (${a.where})` : ''} = ${intervalText(a)} ${relationText(a)} (${pct(a.confidence)} interval, ${basis})`;
}

/**
 * The last line of a run: `test FAILED: 2 passed, 1 failed, 0 inconclusive; 1 scenario(s)
 * tested, 0 skipped`, then once the hints for what failed or stayed undecided.
 */
export function testFooter(results: readonly ScenarioTestResult[], strict: boolean, skipped: number, allowEmpty = false, errors: readonly ScenarioIssue[] = []): string[] {
  const t = totalsOf(results);
  const total = t.pass + t.fail + t.inconclusive;
  const bad = filesOf(errors).length;
  const failed = t.fail + (strict ? t.inconclusive : 0) > 0 || (total === 0 && !allowEmpty && bad === 0) || bad > 0;
  const why = strict ? ' (--strict: inconclusive fails)' : '';
  const empty = total === 0 && bad === 0 ? (allowEmpty ? ' (no assertions, --allow-empty)' : ' (no assertions)') : '';
  const errs = bad > 0 ? `, ${bad} file(s) with errors (not tested)` : '';
  const out = [`test ${failed ? 'FAILED' : 'passed'}: ${t.pass} passed, ${t.fail} failed, ${t.inconclusive} inconclusive${why}; ${results.length} scenario(s) tested, ${skipped} skipped${errs}${empty}`];
  return [...out, ...hintsOf(results)];
}

/** An inconclusive assertion with no interval at all (or, for `exact: true`, no z: a mean no trial gave a value): more trials cannot decide it when what its mean averages over stopped happening. */
const undefinedInterval = (a: AssertionResult): boolean =>
  a.verdict === 'inconclusive' && (a.bound.kind === 'exact' ? a.exact !== undefined && Number.isNaN(a.exact.z) : !(Number.isFinite(a.ci_low) && Number.isFinite(a.ci_high)));

/** The hints said once under the verdicts: for a FAIL, for a straddling assertion, for one with no interval. */
function hintsOf(results: readonly ScenarioTestResult[]): string[] {
  const all = results.flatMap((r) => r.assertions);
  const out: string[] = [];
  if (all.some((a) => a.verdict === 'fail')) out.push(MSG.testFailHint());
  if (all.some((a) => a.verdict === 'inconclusive' && !undefinedInterval(a))) out.push(MSG.testInconclusiveHint());
  if (all.some(undefinedInterval)) out.push(MSG.testNoIntervalHint());
  return out;
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** The files with problems, each once, in the order their first problem was found. */
export function filesOf(errors: readonly ScenarioIssue[]): string[] {
  return [...new Set(errors.map((e) => e.file))];
}

/**
 * The JUnit testsuites of the files that could not be tested (pytest's collection errors): one
 * testsuite per file, one testcase with an `<error>` per problem, named by its place
 * (`file:line:col path`) and carrying the problem as `file:line:col  path  message`.
 */
function errorSuites(errors: readonly ScenarioIssue[]): string[] {
  const lines: string[] = [];
  for (const file of filesOf(errors)) {
    const mine = errors.filter((e) => e.file === file);
    lines.push(`  <testsuite name="${xml(file)}" tests="${mine.length}" failures="0" errors="${mine.length}" skipped="0" time="0.000" file="${xml(file)}">`);
    for (const e of mine) {
      const place = e.line > 0 ? `${e.file}:${e.line}:${e.col}` : e.file;
      const text = xml(formatIssue(e));
      lines.push(
        `    <testcase name="${xml(`${place} ${e.path}`)}" classname="${xml(file)}" file="${xml(file)}" line="${e.line}" time="0">`,
        `      <error type="invalid scenario" message="${xml(e.message)}">${text}</error>`,
        '    </testcase>',
      );
    }
    lines.push('  </testsuite>');
  }
  return lines;
}

/**
 * JUnit XML: one testsuite per scenario, one testcase per assertion. A FAIL is a `<failure>`
 * (its message the console's sentence, its text that with the file:line before it); an
 * inconclusive assertion a `<failure type="inconclusive">` under `strict`, else `<skipped>`.
 * `empty`: the reason a run without assertions fails, carried by one failing testcase
 * (`expect: assertions`) so that a CI's test view is red for the reason the step is.
 */
export function junitXml(results: readonly ScenarioTestResult[], strict: boolean, empty?: string, errors: readonly ScenarioIssue[] = []): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const t = totalsOf(results);
  const failures = t.fail + (strict ? t.inconclusive : 0);
  const skipped = strict ? 0 : t.inconclusive;
  const seconds = results.reduce((s, r) => s + r.result.provenance.seconds, 0);
  if (empty !== undefined && errors.length === 0) {
    const msg = xml(empty);
    lines.push(
      '<testsuites name="siegesim test" tests="1" failures="1" errors="0" skipped="0" time="0.000">',
      '  <testsuite name="siegesim test" tests="1" failures="1" errors="0" skipped="0" time="0.000">',
      `    <testcase name="expect: assertions" classname="siegesim test" time="0">`,
      `      <failure type="empty" message="${msg}">${msg}</failure>`,
      '    </testcase>',
      '  </testsuite>',
      '</testsuites>',
    );
    return lines.join('\n') + '\n';
  }
  const tests = t.pass + t.fail + t.inconclusive + errors.length;
  lines.push(`<testsuites name="siegesim test" tests="${tests}" failures="${failures}" errors="${errors.length}" skipped="${skipped}" time="${seconds.toFixed(3)}">`);
  lines.push(...errorSuites(errors));
  for (const r of results) {
    const rt = totalsOf([r]);
    lines.push(
      `  <testsuite name="${xml(r.name)}" tests="${r.assertions.length}" failures="${rt.fail + (strict ? rt.inconclusive : 0)}" errors="0" ` +
        `skipped="${strict ? 0 : rt.inconclusive}" time="${r.result.provenance.seconds.toFixed(3)}" file="${xml(r.file)}">`,
    );
    lines.push(
      `    <properties><property name="system" value="${xml(r.system)}"/><property name="seed" value="${xml(String(r.result.seed))}"/>` +
        `<property name="confidence" value="${r.confidence}"/><property name="trials" value="${r.trials}"/><property name="max_trials" value="${r.maxTrials}"/></properties>`,
    );
    for (const a of r.assertions) {
      // the bound without its z (or its "no z"): a CI tool tracks a testcase by name from run to run
      const name = `${a.metric} ${a.boundText.replace(/ \((z = .*|no z)\)$/, '')}${a.where ? ` [${a.where}]` : ''}`;
      const open = `    <testcase name="${xml(name)}" classname="${xml(r.name)}" file="${xml(r.file)}" line="${a.line}" time="0"`;
      const msg = xml(assertionMessage(a));
      const body = `${xml(placeOf(r, a))}  ${msg}`;
      if (a.verdict === 'pass') lines.push(`${open}/>`);
      else if (a.verdict === 'fail') lines.push(`${open}>`, `      <failure type="FAIL" message="${msg}">${body}</failure>`, '    </testcase>');
      else if (strict) lines.push(`${open}>`, `      <failure type="inconclusive" message="${msg}">${body}</failure>`, '    </testcase>');
      else lines.push(`${open}>`, `      <skipped message="inconclusive: ${msg}"/>`, '    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n') + '\n';
}

function md(s: string): string {
  return s.replace(/\|/g, '\\|');
}

/**
 * For `$GITHUB_STEP_SUMMARY` or a PR comment: each FAIL and inconclusive assertion as the
 * console's sentence with its file:line, the hints, then a Markdown table of every assertion
 * (failures first). `empty`: the reason a run without assertions fails, said instead.
 */
export function testMarkdown(results: readonly ScenarioTestResult[], strict: boolean, skipped: readonly string[] = [], empty?: string, errors: readonly ScenarioIssue[] = []): string {
  const t = totalsOf(results);
  const bad = t.fail + (strict ? t.inconclusive : 0) + errors.length;
  const skippedLine = skipped.length > 0 ? ['', `Skipped (no \`expect:\`): ${skipped.map(md).join(', ')}`] : [];
  if (empty !== undefined && errors.length === 0) return ['### ❌ siegesim test: no assertions', '', md(empty), ...skippedLine].join('\n') + '\n';
  const icon = bad > 0 ? '❌' : t.inconclusive > 0 ? '⚠️' : '✅';
  const nFiles = filesOf(errors).length;
  const errorHead = nFiles > 0 ? `, ${nFiles} file(s) with errors` : '';
  const errorSaid = errors.map((e) => `- 🛑 **error** \`${md(e.line > 0 ? `${e.file}:${e.line}:${e.col}` : e.file)}\` ${md(e.path)} ${md(e.message)}`);
  const order = { fail: 0, inconclusive: 1, pass: 2 };
  const rows = results.flatMap((r) => r.assertions.map((a) => ({ r, a })));
  rows.sort((x, y) => order[x.a.verdict] - order[y.a.verdict]);
  const said = rows.filter(({ a }) => a.verdict !== 'pass').map(({ r, a }) => `- ${a.verdict === 'fail' ? '❌ **FAIL**' : '⚠️ **inconclusive**'} \`${md(placeOf(r, a))}\` ${md(assertionMessage(a))}`);
  const hints = hintsOf(results);
  const out = [
    `### ${icon} siegesim test: ${t.pass} passed, ${t.fail} failed, ${t.inconclusive} inconclusive${errorHead}${strict ? ' (--strict)' : ''}`,
    '',
    `Each assertion is judged on its metric's ${pct(results[0]?.confidence ?? 0.999)} interval.`,
    '',
    ...(errorSaid.length > 0 ? [...errorSaid, '', `${nFiles === 1 ? 'This file was' : 'These files were'} not tested (the others were): fix ${nFiles === 1 ? 'its problems' : 'their problems'} and run again.`, ''] : []),
    ...(said.length > 0 ? [...said, '', ...hints.flatMap((h) => [md(h), ''])] : []),
    '| result | scenario | metric | where | estimate [interval] | bound | trials |',
    '|---|---|---|---|---|---|---:|',
  ];
  for (const e of errors) out.push(`| 🛑 error | ${md(e.file)} | \`${md(e.path)}\` | ${e.line > 0 ? `line ${e.line}, column ${e.col}` : '–'} | – | ${md(e.message)} | – |`);
  for (const { r, a } of rows) {
    const label = a.verdict === 'fail' ? '❌ FAIL' : a.verdict === 'inconclusive' ? '⚠️ inconclusive' : '✅ pass';
    out.push(`| ${label} | ${md(r.name)} | \`${md(a.metric)}\` | ${md(a.where || '–')} | ${intervalText(a)} | ${md(a.boundText)} | ${showCount(a.trials)} |`);
  }
  out.push(...skippedLine);
  return out.join('\n') + '\n';
}

/** One assertion in `siegesim test --json`: every fact its console line carries, as data. */
export interface TestJsonAssertion {
  scenario: string;
  /** The scenario file as given, and the `expect:` item's line, column and index in the list. */
  file: string;
  line: number;
  col: number;
  index: number;
  metric: string;
  case: number;
  variant: string;
  params: Record<string, unknown>;
  /** `wall.dc=12, variant seed-reading`: empty for a one-case scenario. */
  where: string;
  bound: AssertionResult['bound'];
  /** `between [0.955, 0.985]`, `at least 0.9`, `exact 0.96967 (z = 0.54)` */
  bound_text: string;
  verdict: AssertionResult['verdict'];
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  confidence: number;
  trials: number;
  /** For `exact: true`: the exact answer and the estimate's z against it; null otherwise. */
  exact: { value: number; z: number } | null;
  /** The sentence a FAIL or inconclusive assertion prints (JUnit's message); null for a pass. */
  message: string | null;
  /**
   * For a mean over the trials of an event (or its `diff_`), that event (`p_surrender`), as
   * summary.json's `conditional_on`; absent for every other metric.
   */
  conditional_on?: string;
}

/** `siegesim test --json`: the verdicts, counts and exit verdict of a run, as one document. */
export interface TestJson {
  /** What the exit code says: true for exit 0. */
  passed: boolean;
  strict: boolean;
  allow_empty: boolean;
  pass: number;
  fail: number;
  inconclusive: number;
  /** Why a run without any assertion fails (null otherwise, and with --allow-empty). */
  empty: string | null;
  scenarios: { name: string; file: string; system: string; seed: string | number; confidence: number; trials: number; max_trials: number; trials_run: number; pass: number; fail: number; inconclusive: number }[];
  /** Scenarios given without an `expect:` block. */
  skipped: { name: string; file: string }[];
  /** Every assertion, scenario by scenario in `expect:` order. */
  assertions: TestJsonAssertion[];
  /** The problems of the files that could not be tested (each file's problems, in order); those files were not run. */
  errors: { file: string; line: number; col: number; path: string; message: string }[];
}

/** `{ conditional_on: event }` for a conditional mean or its `diff_` (ScenarioResult.conditionalOn), else `{}`. */
function conditionalOf(r: { conditionalOn?: Record<string, string> }, metric: string): { conditional_on?: string } {
  const base = metric.startsWith('diff_') ? metric.slice(5) : metric;
  const on = r.conditionalOn;
  return on && Object.hasOwn(on, base) ? { conditional_on: on[base] } : {};
}

/** A number for JSON: NaN and ±∞ (no interval: too few observations) become null, as JSON.stringify would make them. */
function num(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

/** The document `siegesim test --json` prints (the same verdicts as the console, the JUnit XML and the step summary). */
export function testJson(
  results: readonly ScenarioTestResult[],
  strict: boolean,
  skipped: readonly { name: string; file: string }[],
  allowEmpty = false,
  empty?: string,
  errors: readonly ScenarioIssue[] = [],
): TestJson {
  const t = totalsOf(results);
  return {
    passed: t.fail + (strict ? t.inconclusive : 0) === 0 && empty === undefined && errors.length === 0,
    strict,
    allow_empty: allowEmpty,
    ...t,
    empty: empty ?? null,
    scenarios: results.map((r) => ({
      name: r.name,
      file: r.file,
      system: r.system,
      seed: r.result.seed,
      confidence: r.confidence,
      trials: r.trials,
      max_trials: r.maxTrials,
      trials_run: Math.max(r.trials, ...r.assertions.map((a) => a.trials)),
      ...totalsOf([r]),
    })),
    skipped: skipped.map((s) => ({ name: s.name, file: s.file })),
    assertions: results.flatMap((r) =>
      r.assertions.map((a) => ({
        scenario: r.name,
        file: r.file,
        line: a.line,
        col: a.col,
        index: a.index,
        metric: a.metric,
        case: a.case,
        variant: a.variant,
        params: a.params,
        where: a.where,
        bound: a.bound,
        bound_text: a.boundText,
        verdict: a.verdict,
        value: num(a.value),
        ci_low: num(a.ci_low),
        ci_high: num(a.ci_high),
        confidence: a.confidence,
        trials: a.trials,
        exact: a.exact ? { value: a.exact.value, z: a.exact.z } : null,
        message: a.verdict === 'pass' ? null : assertionMessage(a),
        ...conditionalOf(r.result, a.metric),
      })),
    ),
    errors: errors.map((e) => ({ file: e.file, line: e.line, col: e.col, path: e.path, message: e.message })),
  };
}
