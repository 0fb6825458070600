/**
 * What `siegesim test` prints and writes: one console line per assertion, JUnit XML (one
 * testsuite per scenario, one testcase per assertion) and a Markdown table for GitHub's step
 * summary. Pure: the CLI puts them on disk.
 */
import { fmtTest, type AssertionResult, type ScenarioTestResult } from '../api/test.js';
import { showCount } from './format.js';

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

/** The console block of one scenario: a header, then one aligned line per assertion. */
export function testLines(r: ScenarioTestResult): string[] {
  const trials = r.assertions.map((a) => a.trials);
  const lo = Math.min(...trials);
  const hi = Math.max(...trials);
  const f = showCount;
  const out = [`${r.name} (${r.file}): ${r.assertions.length} assertion(s), ${lo === hi ? f(lo) : `${f(lo)}–${f(hi)}`} trials per case, ${pct(r.confidence)} intervals`];
  const rows = r.assertions.map((a) => [LABEL[a.verdict], a.metric, a.where || '-', intervalText(a), a.boundText, a.trials < r.trials * 2 ? '' : `(${f(a.trials)} trials)`]);
  const widths = [0, 1, 2, 3].map((k) => Math.max(...rows.map((row) => row[k].length)));
  for (const row of rows) out.push(('  ' + row.map((cell, k) => (k < 4 ? cell.padEnd(widths[k]) : cell)).join('  ')).trimEnd());
  return out;
}

/** `99.9%` */
function pct(c: number): string {
  return `${Number((c * 100).toPrecision(6))}%`;
}

/** The message a failed or inconclusive assertion carries: observed value, interval and bound. */
export function assertionMessage(a: AssertionResult): string {
  const what = a.verdict === 'fail' ? 'outside' : 'straddles';
  return (
    `${a.metric}${a.where ? ` (${a.where})` : ''} = ${intervalText(a)} (${pct(a.confidence)} interval, ${showCount(a.trials)} trials) ` +
    `${a.verdict === 'pass' ? 'inside' : what} ${a.boundText}`
  );
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/**
 * JUnit XML: one testsuite per scenario, one testcase per assertion. A FAIL is a `<failure>`;
 * an inconclusive assertion a `<failure type="inconclusive">` under `strict`, else `<skipped>`.
 */
export function junitXml(results: readonly ScenarioTestResult[], strict: boolean): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const t = totalsOf(results);
  const failures = t.fail + (strict ? t.inconclusive : 0);
  const skipped = strict ? 0 : t.inconclusive;
  const seconds = results.reduce((s, r) => s + r.result.provenance.seconds, 0);
  lines.push(`<testsuites name="siegesim test" tests="${t.pass + t.fail + t.inconclusive}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds.toFixed(3)}">`);
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
      const name = `${a.metric} ${a.boundText.replace(/ \(z = .*\)$/, '')}${a.where ? ` [${a.where}]` : ''}`;
      const open = `    <testcase name="${xml(name)}" classname="${xml(r.name)}" file="${xml(r.file)}" line="${a.line}" time="0"`;
      const msg = xml(assertionMessage(a));
      if (a.verdict === 'pass') lines.push(`${open}/>`);
      else if (a.verdict === 'fail') lines.push(`${open}>`, `      <failure type="FAIL" message="${msg}">${msg}</failure>`, '    </testcase>');
      else if (strict) lines.push(`${open}>`, `      <failure type="inconclusive" message="${msg}">${msg}</failure>`, '    </testcase>');
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

/** A Markdown table of every assertion (failures first), for `$GITHUB_STEP_SUMMARY` or a PR comment. */
export function testMarkdown(results: readonly ScenarioTestResult[], strict: boolean, skipped: readonly string[] = []): string {
  const t = totalsOf(results);
  const bad = t.fail + (strict ? t.inconclusive : 0);
  const icon = bad > 0 ? '❌' : t.inconclusive > 0 ? '⚠️' : '✅';
  const out = [
    `### ${icon} siegesim test: ${t.pass} passed, ${t.fail} failed, ${t.inconclusive} inconclusive${strict ? ' (--strict)' : ''}`,
    '',
    `Each assertion is judged on its metric's ${pct(results[0]?.confidence ?? 0.999)} interval.`,
    '',
    '| result | scenario | metric | where | estimate [interval] | bound | trials |',
    '|---|---|---|---|---|---|---:|',
  ];
  const order = { fail: 0, inconclusive: 1, pass: 2 };
  const rows = results.flatMap((r) => r.assertions.map((a) => ({ r, a })));
  rows.sort((x, y) => order[x.a.verdict] - order[y.a.verdict]);
  for (const { r, a } of rows) {
    const label = a.verdict === 'fail' ? '❌ FAIL' : a.verdict === 'inconclusive' ? '⚠️ inconclusive' : '✅ pass';
    out.push(`| ${label} | ${md(r.name)} | \`${md(a.metric)}\` | ${md(a.where || '–')} | ${intervalText(a)} | ${md(a.boundText)} | ${showCount(a.trials)} |`);
  }
  if (skipped.length > 0) out.push('', `Skipped (no \`expect:\`): ${skipped.map(md).join(', ')}`);
  return out.join('\n') + '\n';
}
