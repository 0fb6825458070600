/**
 * `siegesim test` and `siegesim diff` end to end: a rules change (the wall's DC one higher) is
 * caught by an `expect:` bound and by diff; the JUnit XML parses back; the step summary is
 * Markdown; exit codes 0, 1 and 2.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, runCli, tempDirs } from '../cli-child.js';
import { runCliBatch } from '../cli-batch.js';
import { MSG } from '../../src/scenario/messages.js';

const FIX = path.join(ROOT, 'test/fixtures');
const tmp = tempDirs('siegesim-balance-');
/** The built CLI (a time limit for a loaded machine: these run fantasy sieges). */
const cli = (args: string[], env?: Record<string, string>) => runCli(args, { env, timeoutMs: 240_000 });

const CLIMBERS = path.join(FIX, 'balance/climbers-dc12.yaml');

/** `text` as a regular expression that matches it literally. */
const lit = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The fixture with the climb DC one higher: the rules change CI must catch (`rename` to test both at once). */
function dcOneHigher(dir: string, rename = false): string {
  const f = path.join(dir, 'climbers-dc13.yaml');
  const text = readFileSync(CLIMBERS, 'utf8');
  writeFileSync(f, text.replace('dc: 12,', 'dc: 13,').replace('name: balance-climbers', rename ? 'name: balance-climbers-dc13' : 'name: balance-climbers'));
  expect(readFileSync(f, 'utf8')).not.toBe(text);
  return f;
}

describe('siegesim test', () => {
  it('passes on the rules as they are; the DC one higher FAILs the bound (exit 1) but not the exact check', async () => {
    const dir = tmp();
    const ok = await cli(['test', CLIMBERS, '--threads', '1']);
    expect(ok.code, ok.stderr).toBe(0);
    const lines = ok.stdout.split('\n');
    expect(lines[0]).toMatch(/^balance-climbers \(.*climbers-dc12\.yaml\): 3 assertion\(s\), 16,384 trials per case, seed 23, 99\.9% intervals$/);
    expect(lines[1]).toMatch(/^ {2}pass {2}p_breach +- +0\.9\d+ \[0\.9\d+, 0\.9\d+\] +between \[0\.955, 0\.985\]$/);
    expect(lines[2]).toMatch(/^ {2}pass {2}p_breach +- .* exact 0\.96967 \(z = -?\d\.\d\d\)$/);
    expect(lines[4]).toBe('  mean_breach_round (a mean over the trials with p_breach)'); // over which trials the mean is taken
    expect(lines.slice(5)).toEqual(['test passed: 3 passed, 0 failed, 0 inconclusive; 1 scenario(s) tested, 0 skipped', '']);

    // A FAIL says where (file:line of the expect: item), which side of the bound and by how much
    // (the gap from the interval's near end), at what confidence and on how many trials; and
    // once under the verdict, what to do.
    const f = dcOneHigher(dir);
    const bad = await cli(['test', f, '--threads', '1']);
    expect(bad.code, bad.stderr).toBe(1);
    const fail = new RegExp(`^ {2}FAIL {2}${lit(path.relative(ROOT, f))}:14 {2}p_breach = 0\\.9[34]\\d* \\[(0\\.9\\d+), (0\\.9\\d+)\\] is below the bound \\[0\\.955, 0\\.985\\] by at least (0\\.0\\d+) \\(99\\.9% interval, 16,384 trials\\)$`, 'm');
    expect(bad.stdout).toMatch(fail);
    const [, , high, gap] = fail.exec(bad.stdout)!;
    expect(Number(gap)).toBeCloseTo(0.955 - Number(high), 4);
    expect(bad.stdout).toMatch(/ {2}pass {2}p_breach +- .* exact 0\.93763/);
    expect(bad.stdout.split('\n').slice(-3)).toEqual(['test FAILED: 2 passed, 1 failed, 0 inconclusive; 1 scenario(s) tested, 0 skipped', MSG.testFailHint(), '']);
    expect(ok.stdout).not.toContain('hint:');
  });

  it('writes JUnit XML that a JUnit parser reads back, and appends a Markdown table to GITHUB_STEP_SUMMARY', async () => {
    const dir = tmp();
    const junit = path.join(dir, 'out', 'balance.xml');
    const summary = path.join(dir, 'step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = await cli(['test', CLIMBERS, dcOneHigher(dir, true), '--junit', junit, '--threads', '1'], { GITHUB_STEP_SUMMARY: summary });
    expect(r.code, r.stderr).toBe(1);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(readFileSync(junit, 'utf8'));
    expect(doc.testsuites).toMatchObject({ name: 'siegesim test', tests: '6', failures: '1', errors: '0', skipped: '0' });
    expect(doc.testsuites.testsuite.map((s: { name: string; tests: string; failures: string }) => [s.name, s.tests, s.failures])).toEqual([
      ['balance-climbers', '3', '0'],
      ['balance-climbers-dc13', '3', '1'],
    ]);
    const changed = doc.testsuites.testsuite[1];
    expect(changed.file).toMatch(/climbers-dc13\.yaml$/);
    expect(changed.properties.property.find((p: { name: string }) => p.name === 'confidence').value).toBe('0.999');
    const [between, exact] = changed.testcase;
    expect(between).toMatchObject({ name: 'p_breach between [0.955, 0.985]', classname: 'balance-climbers-dc13', line: '14' });
    expect(between.failure.type).toBe('FAIL');
    expect(between.failure.message).toMatch(/^p_breach = 0\.9\d+ \[0\.9\d+, 0\.9\d+\] is below the bound \[0\.955, 0\.985\] by at least 0\.0\d+ \(99\.9% interval, 16,384 trials\)$/);
    expect(between.failure['#text']).toBe(`${changed.file}:14  ${between.failure.message}`);
    expect(exact.failure).toBeUndefined();
    expect(exact.name).toBe('p_breach exact 0.93763');

    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# earlier step\n')).toBe(true);
    expect(md).toContain('### ❌ siegesim test: 5 passed, 1 failed, 0 inconclusive');
    expect(md).toContain('| result | scenario | metric | where | estimate [interval] | bound | trials |');
    expect(md).toContain(`- ❌ **FAIL** \`${changed.file}:14\` ${between.failure.message}\n\n${MSG.testFailHint()}\n`);
    expect(md).toMatch(/\| ❌ FAIL \| balance-climbers-dc13 \| `p_breach` \| – \| 0\.9\d+ \[0\.9\d+, 0\.9\d+\] \| between \[0\.955, 0\.985\] \| 16,384 \|/);
  });

  it('inconclusive passes, --strict fails it; scenarios without expect: are skipped; bad input exits 2', async () => {
    const dir = tmp();
    const f = path.join(dir, 'tight.yaml');
    // a bound on the exact answer itself: the interval straddles it at every look
    writeFileSync(f, readFileSync(CLIMBERS, 'utf8').replace('between: [0.955, 0.985]', 'at_least: 0.9696731057'));
    const args = ['test', f, path.join(FIX, 'good-small.yaml'), '--trials', '4096', '--max-trials', '8192', '--threads', '1'];
    const loose = await cli(args);
    expect(loose.code, loose.stderr).toBe(0);
    expect(loose.stdout).toContain('skipped (no expect: block): good-small\n');
    // the header says the first look, the most a point ran and which assertion made it run on; the line, why it is undecided
    expect(loose.stdout).toContain(`balance-climbers (${path.relative(ROOT, f)}): 3 assertion(s), 4,096 trials per case at the first look (up to 8,192 where an interval straddled a bound: p_breach), seed 23, 99.9% intervals\n`);
    expect(loose.stdout).toMatch(
      new RegExp(`^ {2}inconclusive {2}${lit(path.relative(ROOT, f))}:14 {2}p_breach = 0\\.9\\d+ \\[0\\.9\\d+, 0\\.9\\d+\\] straddles the lower bound 0\\.9696731057 \\(99\\.9% interval, still undecided at the cap of 8,192 trials\\)$`, 'm'),
    );
    // decided at the first look, it ran on with its case for p_breach: its row says the trials, not 'undecided'
    expect(loose.stdout).toMatch(/^ {2}pass {2}mean_breach_round +- +1\.\d+ \[1\.\d+, 1\.\d+\] +at most 1\.5 {2}\(8,192 trials\)$/m);
    expect(loose.stdout).toContain(`\n${MSG.testInconclusiveHint()}\n`);
    expect(loose.stdout).not.toContain(MSG.testFailHint());
    const strict = await cli([...args, '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('(--strict: inconclusive fails)');

    writeFileSync(f, readFileSync(CLIMBERS, 'utf8').replace('metric: mean_breach_round', 'metric: mean_breach_rund'));
    const bad = await cli(['test', f]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/tight\.yaml:16:15 {2}expect\[2\]\.metric {2}unknown metric "mean_breach_rund" \(did you mean "mean_breach_round"\?\)/);
    expect(bad.stdout).toBe('');
    // a name nothing like a metric, in a file with a problem of its own: both said at once, nothing run
    writeFileSync(f, readFileSync(CLIMBERS, 'utf8').replace(/^trials: .*$/m, 'trials: 0').replace('metric: mean_breach_round', 'metric: p_dragon_wins'));
    const dragon = await cli(['test', f]);
    expect(dragon.code).toBe(2);
    expect(dragon.stderr).toMatch(/tight\.yaml:\d+:\d+ {2}trials {2}must be at least 1/);
    expect(dragon.stderr).toMatch(/tight\.yaml:16:15 {2}expect\[2\]\.metric {2}unknown metric "p_dragon_wins" \(this scenario's metrics: p_attacker_wins, .*, mean_breach_round, p_withdrew\)/);
    expect(dragon.stdout).toBe('');
  });
});

describe('siegesim test with nothing to judge', () => {
  it('fails (exit 1) with the reason, in the JUnit XML and the step summary too, unless --allow-empty', async () => {
    const dir = tmp();
    // the climbers with their expect: deleted, and a scenario that never had one
    const deleted = path.join(dir, 'climbers.yaml');
    writeFileSync(deleted, readFileSync(CLIMBERS, 'utf8').replace(/^expect:[^]*$/m, ''));
    const junit = path.join(dir, 'balance.xml');
    const summary = path.join(dir, 'step-summary.md');
    const args = ['test', deleted, path.join(FIX, 'good-small.yaml'), '--junit', junit, '--threads', '1'];
    const r = await cli(args, { GITHUB_STEP_SUMMARY: summary });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      'skipped (no expect: block): balance-climbers, good-small\n' + 'test FAILED: 0 passed, 0 failed, 0 inconclusive; 0 scenario(s) tested, 2 skipped (no assertions)\n',
    );
    expect(r.stderr).toContain(`siegesim: ${MSG.testEmpty(2)}\n`);
    expect(MSG.testEmpty(2)).toBe(
      '0 assertions: none of the 2 scenarios given has an expect: block, so the test would prove nothing; add one, or pass --allow-empty to accept that',
    );
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
    expect(doc.testsuites).toMatchObject({ tests: '1', failures: '1' });
    expect(doc.testsuites.testsuite.testcase.failure).toMatchObject({ type: 'empty', message: MSG.testEmpty(2) });
    expect(readFileSync(summary, 'utf8')).toMatch(/^### ❌ siegesim test: no assertions\n\n0 assertions: none of the 2 scenarios/);

    const one = await cli(['test', path.join(FIX, 'good-small.yaml'), '--threads', '1']);
    expect(one.code).toBe(1);
    expect(one.stderr).toContain(`siegesim: ${MSG.testEmpty(1)}\n`);
    expect(MSG.testEmpty(1)).toMatch(/^0 assertions: the scenario given has no expect: block, so/);

    const allowed = await cli([...args, '--allow-empty'], { GITHUB_STEP_SUMMARY: summary });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('test passed: 0 passed, 0 failed, 0 inconclusive; 0 scenario(s) tested, 2 skipped (no assertions, --allow-empty)\n');
    expect(allowed.stderr).not.toContain('siegesim:');
    expect(new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8')).testsuites).toMatchObject({ tests: '0', failures: '0' });
  });
});

describe('siegesim test with some bad files', () => {
  it('judges the good files and reports each bad one as a JUnit <error> and a summary row; exit 2 with bad files, 1 with only a FAIL; --json likewise', async () => {
    const dir = tmp();
    const junit = path.join(dir, 'balance.xml');
    const summary = path.join(dir, 'step-summary.md');
    const typo = path.relative(ROOT, path.join(FIX, 'bad-unknown-key.yaml'));
    const broken = path.relative(ROOT, path.join(FIX, 'bad-yaml.yaml'));
    const failing = dcOneHigher(dir, true);
    const args = ['test', typo, CLIMBERS, broken, failing, '--junit', junit, '--threads', '1', '--no-progress'];
    const r = await cli(args, { GITHUB_STEP_SUMMARY: summary });
    expect(r.code, r.stderr).toBe(2);
    // the problems said before anything runs, the good files judged, the verdict counts the bad files
    expect(r.stderr).toMatch(new RegExp(`^${lit(typo)}:7:3 {2}besieged\\.seige_leaders {2}unknown key "seige_leaders"`));
    expect(r.stdout).toContain('balance-climbers (test/fixtures/balance/climbers-dc12.yaml): 3 assertion(s)');
    expect(r.stdout).toMatch(/^ {2}FAIL {2}.*climbers-dc13\.yaml:14 {2}p_breach = /m);
    expect(r.stdout).toContain('test FAILED: 5 passed, 1 failed, 0 inconclusive; 2 scenario(s) tested, 0 skipped, 2 file(s) with errors (not tested)\n');
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(/^siegesim: \d+ problems? found in 2 files, not tested; the others were$/);

    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(readFileSync(junit, 'utf8'));
    const suites = doc.testsuites.testsuite as { name: string; tests: string; failures: string; errors: string; testcase: Record<string, any>[] }[];
    expect(suites.map((s) => [s.name, s.errors, s.failures])).toEqual([
      [typo, '1', '0'],
      [broken, String(suites[1].testcase.length), '0'],
      ['balance-climbers', '0', '0'],
      ['balance-climbers-dc13', '0', '1'],
    ]);
    expect(doc.testsuites).toMatchObject({ errors: String(1 + suites[1].testcase.length), failures: '1' });
    const [unknown] = suites[0].testcase;
    expect(unknown).toMatchObject({ name: `${typo}:7:3 besieged.seige_leaders`, file: typo, line: '7' });
    expect(unknown.error).toMatchObject({ type: 'invalid scenario', message: 'unknown key "seige_leaders" (did you mean "siege_leaders"?)' });
    expect(unknown.error['#text']).toBe(`${typo}:7:3  besieged.seige_leaders  unknown key "seige_leaders" (did you mean "siege_leaders"?)`);
    const yamlError = suites[1].testcase[0];
    expect(yamlError.file).toBe(broken);
    expect(Number(yamlError.line)).toBeGreaterThan(0);
    expect(yamlError.error['#text']).toMatch(new RegExp(`^${lit(broken)}:\\d+:\\d+ `));
    expect(suites[3].testcase[0].failure.type).toBe('FAIL');

    const md = readFileSync(summary, 'utf8');
    expect(md).toMatch(/^### ❌ siegesim test: 5 passed, 1 failed, 0 inconclusive, 2 file\(s\) with errors\n/);
    expect(md).toContain(`- 🛑 **error** \`${typo}:7:3\` besieged.seige_leaders unknown key "seige_leaders" (did you mean "siege_leaders"?)\n`);
    expect(md).toContain(`| 🛑 error | ${typo} | \`besieged.seige_leaders\` | line 7, column 3 | – | unknown key "seige_leaders" (did you mean "siege_leaders"?) | – |\n`);

    // --json: the verdicts of the good files and the errors of the bad ones, exit 2
    const j = await cli(['test', typo, CLIMBERS, '--json', '--threads', '1', '--no-progress']);
    expect(j.code, j.stderr).toBe(2);
    const out = JSON.parse(j.stdout);
    expect(out).toMatchObject({ passed: false, pass: 3, fail: 0, errors: [{ file: typo, line: 7, col: 3, path: 'besieged.seige_leaders' }] });
    expect(out.assertions).toHaveLength(3);

    // only the bad file: the JUnit XML still says why (no silent empty check run)
    const alone = await cli(['test', typo, '--junit', junit]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('siegesim: 1 problem found; nothing was run\n');
    const lone = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
    expect(lone.testsuites).toMatchObject({ tests: '1', errors: '1', failures: '0' });

    // no bad file: a FAIL alone exits 1
    const onlyFail = await cli(['test', CLIMBERS, failing, '--threads', '1', '--no-progress']);
    expect(onlyFail.code).toBe(1);
  });
});

describe('siegesim diff', () => {
  it('finds what the DC one higher moved (exit 1 with --fail-on-change), nothing between identical runs, and refuses other scenarios (exit 2)', async () => {
    const dir = tmp();
    const run = (file: string, out: string, ...more: string[]) => ['run', file, '--out', path.join(dir, out), '--threads', '1', '--no-progress', '--no-charts', ...more]; // diff reads summary.json
    // the other scenario is only compared to be refused: a few trials do; the three runs through one child (test/cli-batch.ts)
    for (const r of await runCliBatch([run(CLIMBERS, 'before'), run(dcOneHigher(dir), 'after'), run(path.join(FIX, 'good-small.yaml'), 'other', '--trials', '1000')])) {
      expect(r.code, r.stderr).toBe(0);
    }
    const before = path.join(dir, 'before');
    // the workbench's copy (<name>-tuned), for the comparisons below
    const summary = JSON.parse(readFileSync(path.join(dir, 'after', 'summary.json'), 'utf8'));
    writeFileSync(path.join(dir, 'tuned.json'), JSON.stringify({ ...summary, name: 'balance-climbers-tuned' }));
    const moved = await cli(['diff', before, path.join(dir, 'after'), '--markdown', '--fail-on-change']);
    // the other comparisons through one child (test/cli-batch.ts): the one above is diff's own process
    const [asJson, text, same, other, tuned, ignored, renamed, sets, missing] = await runCliBatch([
      ['diff', path.join(before, 'summary.json'), path.join(dir, 'after'), '--json'],
      ['diff', before, path.join(dir, 'after')],
      ['diff', before, before, '--fail-on-change'],
      ['diff', before, path.join(dir, 'other')],
      ['diff', before, path.join(dir, 'tuned.json')],
      ['diff', before, path.join(dir, 'other'), '--ignore-name'],
      ['diff', before, path.join(dir, 'tuned.json'), '--ignore-name', '--json'],
      ['diff', dir, dir, '--ignore-name'],
      ['diff', before, path.join(dir, 'nowhere')],
    ]);
    expect(moved.code, moved.stderr).toBe(1);
    expect(moved.stdout).toMatch(/^### ⚠️ siegesim diff: \d+ of \d+ metrics moved/);
    expect(moved.stdout).toMatch(/\| balance-climbers \| – \| `p_breach` \| 0\.9\d+ \| 0\.9\d+ \| -0\.0\d{3} \[-0\.0\d{3}, -0\.0\d{3}\] \| [\d.e-]+ \|/);
    const json = JSON.parse(asJson.stdout);
    const row = json.rows.find((r: { metric: string }) => r.metric === 'p_breach');
    expect(row.moved).toBe(true);
    expect(row.change.value).toBeCloseTo(0.9376 - 0.9697, 1);
    // which settings differ, read from the scenario copy beside each summary.json (the diff said only what moved before)
    expect(json.scenarios[0].settings).toEqual([{ key: 'wall.dc', before: 12, after: 13 }]);
    expect(moved.stdout).toContain('\nbalance-climbers: settings that differ: `wall.dc`: 12 → 13.\n');
    expect(text.stdout.split('\n')[1]).toBe('  settings that differ: wall.dc: 12 -> 13');

    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toMatch(/0 of \d+ comparisons moved significantly/);
    expect(same.stdout.split('\n')[1]).toBe(`  ${MSG.diffSettingsSame()}`);

    expect(other.code).toBe(2);
    // a fantasy scenario against a surrender one: the systems differ, which no flag gets past
    const systems = MSG.diffDifferentSystems('balance-climbers', 'fantasy', 'good-small', 'surrender');
    expect(other.stderr.trim()).toBe(`siegesim: cannot compare ${before} with ${path.join(dir, 'other')}: ${systems}`);
    expect(other.stderr).not.toContain('--ignore-name');
    // the workbench's copy (<name>-tuned) compares with its original, and the header says the names differ
    expect(tuned.code, tuned.stderr).toBe(0);
    expect(tuned.stdout.split('\n')[0]).toMatch(/^balance-climbers-tuned \(fantasy\) against balance-climbers before \(the names differ\): /);
    // a summary.json with no scenario.yaml beside it: the settings are said to be unknown, not alike
    expect(tuned.stdout.split('\n')[1]).toBe(`  ${MSG.diffSettingsUnknown([`after: ${path.join(dir, 'scenario.yaml')}: ${MSG.fileUnreadable('ENOENT')}`])}`);
    // --ignore-name: any two reports, one with one
    expect(ignored.stderr.trim()).toBe(`siegesim: cannot compare ${before} with ${path.join(dir, 'other')}: ${systems}`);
    expect(JSON.parse(renamed.stdout).scenarios[0]).toMatchObject({ name: 'balance-climbers-tuned', before_name: 'balance-climbers' });
    expect([sets.code, sets.stderr.trim()]).toEqual([2, 'siegesim: --ignore-name compares one report with one report: give two report folders or summary.json files, not folders of reports']);
    expect(missing.code).toBe(2);
  });

  it('compares each variant\'s difference from the baseline between the runs (diff_ rows: text, --markdown, --json), on the SE summary.json now keeps', async () => {
    const dir = tmp();
    // two readings at surrender level 2, then at level 3: lenient's gain in p_test stays 1/6
    // (one face of the d6), its gain in p_surrender falls from 0.104 to 0.0075 (exact)
    const one = READINGS.replace('sweep:\n  structure.surrender_level: [2, 3]\n', 'structure: { surrender_level: 2 }\n');
    writeFileSync(path.join(dir, 'before.yaml'), one);
    writeFileSync(path.join(dir, 'after.yaml'), one.replace('surrender_level: 2', 'surrender_level: 3'));
    // both runs through one child (test/cli-batch.ts), on one thread (the numbers do not depend on it)
    const sides = ['before', 'after'];
    for (const r of await runCliBatch(sides.map((side) => ['run', path.join(dir, `${side}.yaml`), '--out', path.join(dir, side), '--threads', '1', '--no-progress', '--no-charts']))) {
      expect(r.code, r.stderr).toBe(0);
    }
    const summary = JSON.parse(readFileSync(path.join(dir, 'before', 'summary.json'), 'utf8'));
    const sd = summary.cases[1].differences.p_test;
    expect(Object.keys(sd)).toEqual(['value', 'ci_low', 'ci_high', 'se', 'paired']);
    expect(sd.paired).toBe(true);
    // se is the plain √(s_d²/n); the paired interval, with its two more trials at ±1, a little wider than ±1.96·se
    const ratio = (sd.ci_high - sd.ci_low) / 2 / sd.se;
    expect(ratio).toBeGreaterThan(1.959963984540054);
    expect(ratio).toBeLessThan(1.959963984540054 * 1.01);

    const j = await cli(['diff', path.join(dir, 'before'), path.join(dir, 'after'), '--json']);
    expect(j.code, j.stderr).toBe(0);
    const d = JSON.parse(j.stdout);
    const rows = d.rows.filter((r: any) => r.metric.startsWith('diff_'));
    expect(rows.map((r: any) => r.metric)).toEqual(['diff_p_test', 'diff_p_surrender', 'diff_mean_turns']);
    const [pt, ps] = rows;
    expect(pt).toMatchObject({ variant: 'lenient', baseline: 'as-written', kind: 'probability', moved: false });
    expect(ps).toMatchObject({ moved: true });
    expect(ps.before.value).toBeCloseTo(0.104, 1);
    expect(ps.z).toBeCloseTo((ps.after.value - ps.before.value) / Math.hypot(ps.before.se, ps.after.se), 10);
    // one Holm family over the metrics and the differences
    expect(d.rows.length).toBe(6 + 3);
    expect(ps.p_holm).toBeCloseTo(Math.min(1, ps.p * d.rows.filter((r: any) => r.p >= 0).length), 6);

    // the text and --markdown through one child (test/cli-batch.ts)
    const [text, md] = await runCliBatch([
      ['diff', path.join(dir, 'before'), path.join(dir, 'after')],
      ['diff', path.join(dir, 'before'), path.join(dir, 'after'), '--markdown'],
    ]);
    expect(text.stdout).toMatch(/on 6 metrics and 3 differences between variants, Holm-corrected over all 9/);
    expect(text.stdout).toMatch(/variant lenient\s+diff_p_surrender\s+0\.1\d*\s+0\.00\d*\s+-0\.\d+ \[-0\.\d+, -0\.\d+\]/);
    // diff_p_test did not move: it is named only in the line of what did not
    expect(text.stdout).not.toMatch(/variant lenient\s+diff_p_test/);
    expect(text.stdout.split('\n').filter((l) => l.includes('diff_p_test'))).toEqual([expect.stringMatching(/no significant change: .*diff_p_test/)]);
    expect(md.stdout).toMatch(/\| readings \| variant lenient \| `diff_p_surrender` \|/);
    expect(md.stdout).toContain('`diff_<metric>`: the variant\'s difference from the baseline (as-written)');
  });

  it('given what is not a run: a scenario file is named as one (run it first), a missing path in the words run uses (exit 2)', async () => {
    const dir = tmp();
    const keep = path.join(dir, 'K.yaml');
    writeFileSync(keep, readFileSync(CLIMBERS, 'utf8'));
    const scenario = await cli(['diff', keep, keep]);
    expect([scenario.code, scenario.stdout]).toEqual([2, '']);
    // said once for the file given twice, with the report folder its run writes
    expect(scenario.stderr).toBe(`${keep}  (file)  ${MSG.diffScenarioFile(keep, 'balance-climbers')}\nsiegesim: 1 problem found; nothing was run or written\n`);
    expect(scenario.stderr).toContain('reports/balance-climbers/');
    writeFileSync(path.join(dir, 'other.json'), '{"a": 1}');
    // the missing paths and what is not a summary through one child (test/cli-batch.ts)
    const [nope, other] = await runCliBatch([
      ['diff', 'nope1', 'nope2'],
      ['diff', path.join(dir, 'other.json'), dir],
    ]);
    expect([nope.code, nope.stderr]).toEqual([2, `nope1  (file)  ${MSG.fileUnreadable('ENOENT')}\nnope2  (file)  ${MSG.fileUnreadable('ENOENT')}\nsiegesim: 2 problems found; nothing was run or written\n`]);
    expect((await cli(['run', 'nope1'])).stderr.split('\n')[0]).toBe(nope.stderr.split('\n')[0]); // the same words as run
    expect(other.stderr.split('\n').slice(0, 2)).toEqual([
      `${path.join(dir, 'other.json')}  (file)  ${MSG.notASummary('it needs name, system, params, variants and cases')}`,
      `${dir}  (folder)  ${MSG.noSummaryIn()}`,
    ]);
  });
});

describe('diff of damaged results (found by the fuzzing helper: TypeErrors, a pipe waited on for ever, a scenario copy parsed with no limit)', () => {
  it('a summary.json missing or mistyping what diff reads, a pipe, a device: each said, exit 2; a scenario copy past the limits: settings not known', async () => {
    const dir = tmp();
    const good = {
      name: 'g',
      system: 'surrender',
      params: [],
      variants: ['baseline'],
      cases: [{ case: 0, variant: 'baseline', params: {}, trials: 100, metrics: { p_test: { value: 0.5, ci_low: 0.4, ci_high: 0.6, n: 100, kind: 'probability' } } }],
    };
    const put = (name: string, doc: unknown) => {
      const f = path.join(dir, `${name}.json`);
      writeFileSync(f, JSON.stringify(doc));
      return f;
    };
    const ok = put('good', good);
    const bad: [string, unknown, string][] = [
      ['null-case', { ...good, cases: [null] }, 'cases[0] is not an object'],
      ['null-metrics', { ...good, cases: [{ ...good.cases[0], metrics: null }] }, 'cases[0].metrics is not an object'],
      ['null-params', { ...good, cases: [{ ...good.cases[0], params: null }] }, 'cases[0].params is not an object'],
      ['text-value', { ...good, cases: [{ ...good.cases[0], metrics: { p_test: { ...good.cases[0].metrics.p_test, value: '0.5' } } }] }, 'cases[0].metrics.p_test.value is not a number or null'],
      ['null-n', { ...good, cases: [{ ...good.cases[0], metrics: { p_test: { ...good.cases[0].metrics.p_test, n: null } } }] }, 'cases[0].metrics.p_test.n is not a count'],
      // impossible values and a case given twice (found by the fresh-eyes helper: compared as results)
      ['negative-p', { ...good, cases: [{ ...good.cases[0], metrics: { p_test: { ...good.cases[0].metrics.p_test, value: -1 } } }] }, 'cases[0].metrics.p_test.value is -1, not a probability'],
      ['huge-trials', { ...good, cases: [{ ...good.cases[0], trials: 1e308 }] }, 'cases[0].trials is not a count of trials'],
      ['twice', { ...good, cases: [good.cases[0], { ...good.cases[0], case: 1 }] }, 'cases[1] is the same case as cases[0] (its variant and params)'],
      ['null-difference', { ...good, cases: [{ ...good.cases[0], differences: { p_test: null } }] }, 'cases[0].differences.p_test is not an object'],
    ];
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    // a report whose scenario.yaml copy is 5 MB of '[': parsed without limits it ran out of memory
    const report = path.join(dir, 'report');
    mkdirSync(report);
    writeFileSync(path.join(report, 'summary.json'), JSON.stringify(good));
    writeFileSync(path.join(report, 'scenario.yaml'), `name: g\nzz: ${'['.repeat(5_000_000)}\n`);
    // a report folder whose summary.json is a folder
    const hollow = path.join(dir, 'hollow');
    mkdirSync(path.join(hollow, 'summary.json'), { recursive: true });
    const results = await runCliBatch([...bad.map(([name, doc]) => ['diff', ok, put(name, doc)]), ['diff', ok, fifo], ['diff', ok, '/dev/zero'], ['diff', ok, report], ['diff', ok, hollow]]);
    for (const [i, [name, , why]] of bad.entries()) {
      expect([name, results[i].code, results[i].stderr]).toEqual([name, 2, `${path.join(dir, `${name}.json`)}  (file)  ${MSG.notASummary(why)}\nsiegesim: 1 problem found; nothing was run or written\n`]);
    }
    const [pipe, device, copy, folder] = results.slice(bad.length);
    expect([folder.code, folder.stderr.split('\n')[0]]).toEqual([2, `${path.join(hollow, 'summary.json')}  (file)  ${MSG.notASummary('a folder, not a file')}`]);
    expect([pipe.code, pipe.stderr.split('\n')[0]]).toEqual([2, `${fifo}  (file)  ${MSG.notASummary('not a regular file: a pipe or a device')}`]);
    expect([device.code, device.stderr.split('\n')[0]]).toEqual([2, `/dev/zero  (file)  ${MSG.notASummary('not a regular file: a pipe or a device')}`]);
    expect(copy.code, copy.stderr).toBe(0);
    // the copy past the file limit is not parsed: which side, which file and why are said
    expect(copy.stdout.split('\n')[1]).toMatch(new RegExp(`^  settings that differ: not known \\(.*after: ${path.join(report, 'scenario.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*bytes.*\\)$`));
    // a folder holding two reports of one scenario: which to compare would be a guess
    const two = path.join(dir, 'two');
    for (const sub of ['a', 'b']) {
      mkdirSync(path.join(two, sub), { recursive: true });
      writeFileSync(path.join(two, sub, 'summary.json'), JSON.stringify(good));
    }
    const [both] = await runCliBatch([['diff', two, ok]]);
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('the before side holds two reports of scenario "g": name the report folders themselves')]);
  });

  it('a scenario copy is the text that ran: one edited since (its SHA-256 not the one summary.json records) or, in a summary without one, invalid leaves the settings not known, saying why (fresh-eyes helper: an edited copy reported settings the run never had)', async () => {
    const dir = tmp();
    const text = 'name: g\nsystem: surrender\nseed: 1\ntrials: 100\nstructure: { surrender_level: 3 }\nturns: 12\n';
    const sha = createHash('sha256').update(text, 'utf8').digest('hex');
    const summary = { name: 'g', system: 'surrender', seed: 1, trials: 100, params: [], variants: ['baseline'], cases: [{ case: 1, variant: 'baseline', params: {}, trials: 100, metrics: { p_surrender: { value: 0.5, ci_low: 0.4, ci_high: 0.6, n: 100, kind: 'probability' } } }] };
    const report = (name: string, copy: string, recorded: string | undefined) => {
      const f = path.join(dir, name);
      mkdirSync(f);
      writeFileSync(path.join(f, 'summary.json'), JSON.stringify({ ...summary, provenance: { scenario: { file: 'scenario.yaml', ...(recorded ? { sha256: recorded } : {}) } } }));
      writeFileSync(path.join(f, 'scenario.yaml'), copy);
      return f;
    };
    const ran = report('ran', text, sha);
    const edited = report('edited', text.replace('turns: 12', 'turns: 3'), sha);
    const older = report('older', text.replace('trials: 100', 'trials: -5'), undefined);
    const [same, changed, invalid] = await runCliBatch([['diff', ran, ran], ['diff', ran, edited], ['diff', older, ran]]);
    expect(same.stdout.split('\n')[1]).toBe(`  ${MSG.diffSettingsSame()}`);
    expect(changed.stdout.split('\n')[1]).toBe(`  settings that differ: not known (after: ${path.join(edited, 'scenario.yaml')} is not the text that ran (its SHA-256 is not the one summary.json records: edited since?))`);
    expect(invalid.stdout.split('\n')[1]).toBe(`  settings that differ: not known (before: ${path.join(older, 'scenario.yaml')}:4:9: trials: must be at least 1, got -5)`);
  });
});

describe('siegesim test --json and check --json', () => {
  /** stdout as one JSON document: nothing else may be on it. */
  const json = (r: { stdout: string }) => JSON.parse(r.stdout) as Record<string, any>;

  it('test --json: one document on stdout, the console lines on stderr, the same exit codes (pass 0, FAIL 1)', async () => {
    const dir = tmp();
    const ok = await cli(['test', CLIMBERS, '--json', '--threads', '1']);
    expect(ok.code, ok.stderr).toBe(0);
    const d = json(ok);
    expect(d).toMatchObject({ passed: true, strict: false, allow_empty: false, pass: 3, fail: 0, inconclusive: 0, empty: null, skipped: [] });
    expect(d.scenarios).toEqual([
      { name: 'balance-climbers', file: path.relative(ROOT, CLIMBERS), system: 'fantasy', seed: expect.anything(), confidence: 0.999, trials: 16384, max_trials: 262144, trials_run: 16384, pass: 3, fail: 0, inconclusive: 0 },
    ]);
    expect(d.assertions.map((a: any) => [a.line, a.metric, a.bound.kind, a.verdict])).toEqual([
      [14, 'p_breach', 'between', 'pass'],
      [15, 'p_breach', 'exact', 'pass'],
      [16, 'mean_breach_round', 'at_most', 'pass'],
    ]);
    const [between, exact] = d.assertions;
    expect(between).toMatchObject({ scenario: 'balance-climbers', file: path.relative(ROOT, CLIMBERS), col: 5, index: 0, case: 1, variant: 'baseline', params: {}, where: '', bound: { kind: 'between', low: 0.955, high: 0.985 }, bound_text: 'between [0.955, 0.985]', confidence: 0.999, trials: 16384, exact: null, message: null });
    expect(between.ci_low).toBeLessThan(between.value);
    expect(between.ci_high).toBeGreaterThan(between.value);
    expect(exact.exact.value).toBeCloseTo(0.96967, 5);
    expect(exact.bound_text).toBe(`exact 0.96967 (z = ${exact.exact.z.toFixed(2)})`);
    // the console's words, on stderr
    expect(ok.stderr).toContain('test passed: 3 passed, 0 failed, 0 inconclusive; 1 scenario(s) tested, 0 skipped\n');

    const bad = await cli(['test', dcOneHigher(dir), '--json', '--threads', '1']);
    expect(bad.code, bad.stderr).toBe(1);
    const b = json(bad);
    expect(b).toMatchObject({ passed: false, pass: 2, fail: 1, inconclusive: 0 });
    const fail = b.assertions.find((a: any) => a.verdict === 'fail');
    expect(fail).toMatchObject({ line: 14, metric: 'p_breach', bound_text: 'between [0.955, 0.985]' });
    expect(fail.message).toMatch(/^p_breach = 0\.9\d+ \[0\.9\d+, 0\.9\d+\] is below the bound \[0\.955, 0\.985\] by at least 0\.0\d+ \(99\.9% interval, 16,384 trials\)$/);
    expect(bad.stderr).toContain(`FAIL  ${fail.file}:14  ${fail.message}\n`);
    expect(bad.stderr).toContain(MSG.testFailHint());
  });

  it('test --json: inconclusive passes and --strict fails it; no assertion is empty (exit 1) unless --allow-empty; bad input prints the error as JSON (exit 2)', async () => {
    const dir = tmp();
    const f = path.join(dir, 'tight.yaml');
    writeFileSync(f, readFileSync(CLIMBERS, 'utf8').replace('between: [0.955, 0.985]', 'at_least: 0.9696731057'));
    const args = ['test', f, path.join(FIX, 'good-small.yaml'), '--json', '--trials', '4096', '--max-trials', '8192', '--threads', '1'];
    const loose = await cli(args);
    expect(loose.code, loose.stderr).toBe(0);
    const l = json(loose);
    expect(l).toMatchObject({ passed: true, strict: false, inconclusive: 1, fail: 0, skipped: [{ name: 'good-small', file: path.relative(ROOT, path.join(FIX, 'good-small.yaml')) }] });
    const undecided = l.assertions.find((a: any) => a.verdict === 'inconclusive');
    expect(undecided).toMatchObject({ line: 14, trials: 8192, bound: { kind: 'at_least', low: 0.9696731057 } });
    expect(undecided.message).toMatch(/straddles the lower bound 0\.9696731057 \(99\.9% interval, still undecided at the cap of 8,192 trials\)$/);
    expect(l.scenarios[0]).toMatchObject({ trials: 4096, max_trials: 8192, trials_run: 8192 });
    // the other runs of a good file through one child (test/cli-batch.ts; the one above is test's own process)
    const [strict, empty, allowed] = await runCliBatch([
      [...args, '--strict'],
      ['test', path.join(FIX, 'good-small.yaml'), '--json', '--threads', '1'],
      ['test', path.join(FIX, 'good-small.yaml'), '--json', '--allow-empty', '--threads', '1'],
    ]);
    expect(strict.code).toBe(1);
    expect(json(strict)).toMatchObject({ passed: false, strict: true, inconclusive: 1 });

    expect(empty.code).toBe(1);
    expect(json(empty)).toEqual({ passed: false, strict: false, allow_empty: false, pass: 0, fail: 0, inconclusive: 0, empty: MSG.testEmpty(1), scenarios: [], skipped: [expect.objectContaining({ name: 'good-small' })], assertions: [], errors: [] });
    expect(allowed.code).toBe(0);
    expect(json(allowed)).toMatchObject({ passed: true, allow_empty: true, empty: null });

    // bad input: stderr as without --json, and on stdout a JSON document of the error (stdout was empty, and a script's JSON.parse failed)
    writeFileSync(f, 'name: x\nsystem: fantasy\nseed: 1\ntrials: 0\n');
    const broken = await cli(['test', f, '--json']);
    expect(broken.code).toBe(2);
    const rel = path.relative(ROOT, f);
    expect(broken.stderr).toBe(`${rel}:4:9  trials  must be at least 1, got 0\nsiegesim: 1 problem found; nothing was run or written\n`);
    expect(json(broken)).toEqual({
      error: { message: '1 problem found; nothing was run or written', exit_code: 2, problems: [{ file: rel, line: 4, col: 9, path: 'trials', message: 'must be at least 1, got 0' }] },
    });
    // a bad flag (commander's message) and a missing file for diff: the same document; without --json, stdout stays empty
    // (through one child: test/cli-batch.ts; the refusal above is a process of its own)
    const [flag, nope, quiet] = await runCliBatch([
      ['check', f, '--json', '--z-limit', 'x'],
      ['diff', 'nope1', f, '--json'],
      ['test', f],
    ]);
    expect([flag.code, json(flag)]).toEqual([2, { error: { message: "option '--z-limit <Z>' argument 'x' is invalid. --z-limit must be a positive number", exit_code: 2, problems: [] } }]);
    expect(nope.code).toBe(2);
    expect(json(nope).error.problems[0]).toEqual({ file: 'nope1', line: 0, col: 0, path: '(file)', message: MSG.fileUnreadable('ENOENT') });
    expect(quiet.code).toBe(2);
    expect(quiet.stdout).toBe('');
  });

  it('check --json: every comparison (as --verbose lists them) with z and verdict; exit 0, 1 over the limit, 1 when nothing is compared', async () => {
    const small = path.join(FIX, 'good-small.yaml');
    const ok = await cli(['check', small, '--trials', '50000', '--threads', '1', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    const d = json(ok);
    expect(d).toMatchObject({ passed: true, z_limit: 4.5, failed: 0, allow_empty: false, empty: null, skipped: [] });
    expect(d.rows.length).toBe(d.compared);
    expect(d.scenarios).toEqual([{ name: 'good-small', file: path.relative(ROOT, small), system: expect.any(String), seed: expect.anything(), cases: expect.any(Number), trials: 50000, compared: d.compared, failed: 0, no_data: 0, unpaired_differences: ['diff_mean_turns'] }]);
    expect(d.max_abs_z).toBeCloseTo(Math.max(...d.rows.map((r: any) => Math.abs(r.z))), 12);
    for (const r of d.rows) {
      expect(Object.keys(r)).toEqual(['scenario', 'case', 'variant', 'params', 'where', 'metric', 'simulated', 'exact', 'n', 'z', 'verdict']);
      expect(r.verdict).toBe('pass');
    }
    // the rows are the ones --verbose prints (the same case, variant, metric, values and z)
    const verbose = await cli(['check', small, '--trials', '50000', '--threads', '1', '--verbose']);
    const table = verbose.stdout.split('\n').filter((l) => /^\d+ /.test(l));
    expect(table.length).toBe(d.rows.length);
    table.forEach((line, i) => {
      const r = d.rows[i];
      const cells = line.trim().split(/\s+/);
      expect([Number(cells[0]), cells[cells.length - 1]]).toEqual([r.case, r.z.toFixed(2)]);
      expect(line).toContain(r.simulated.toFixed(6));
    });
    expect(ok.stderr).toContain(`check passed: ${d.compared} comparisons`);

    const tight = await cli(['check', small, '--trials', '50000', '--threads', '1', '--z-limit', '0.001', '--json']);
    expect(tight.code).toBe(1);
    const t = json(tight);
    expect(t).toMatchObject({ passed: false, z_limit: 0.001 });
    expect(t.failed).toBe(t.rows.filter((r: any) => r.verdict === 'fail').length);
    expect(t.failed).toBeGreaterThan(0);

    const keep = path.join(FIX, 'keep.yaml'); // no exact form
    const none = await cli(['check', keep, '--json']);
    expect(none.code).toBe(1);
    expect(json(none)).toMatchObject({ passed: false, compared: 0, rows: [], skipped: [{ name: 'keep', reason: 'no exact form' }], empty: expect.stringMatching(/^0 comparisons/) });
    const allowed = await cli(['check', keep, '--json', '--allow-empty']);
    expect(allowed.code).toBe(0);
    expect(json(allowed)).toMatchObject({ passed: true, empty: null });
  });

  it('check names the case of every row as run does (the swept values, the variant), and a FAIL again as a sentence with its file', async () => {
    const grid = 'scenarios/fantasy/climbers-dc.yaml';
    // at this limit the above-dc reading at DC 12 FAILs (seed 23, 2,000 trials: z = -3.54); the table said only "2  above-dc" before
    const r = await cli(['check', grid, '--trials', '2000', '--threads', '1', '--z-limit', '1.5']);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    // its seed, its trials as run writes them, and which way a diff_ row runs
    expect(lines).toContain('# fantasy-climbers-dc: 6 case(s) x 2,000 trials, seed 23; diff_ rows: each variant − at-least-dc');
    const header = lines.find((l) => l.startsWith('case '))!;
    expect(header).toMatch(/^case +variant +dc +metric +simulated +exact +z$/);
    const row = lines.find((l) => /^2 +above-dc +12 +p_breach /.test(l))!;
    expect(row).toMatch(/ -3\.54  FAIL$/);
    expect(row.indexOf('p_breach')).toBe(header.indexOf('metric'));
    expect(lines).toContain('FAIL  fantasy-climbers-dc (scenarios/fantasy/climbers-dc.yaml) case 2 (wall.dc=12, variant above-dc): p_breach simulated 0.918500, exact 0.937626, z = -3.54, |z| over the limit 1.5 (2,000 observations)');
    // every row over the limit: at most 20 sentences, then how many more and where every one is
    // this and the --json below through one child (test/cli-batch.ts; the check above is its own process)
    const [all, asJson] = await runCliBatch([
      ['check', grid, '--trials', '2000', '--threads', '1', '--z-limit', '0.000001'],
      ['check', grid, '--trials', '2000', '--threads', '1', '--json'],
    ]);
    expect(all.stdout.split('\n').filter((l) => l.startsWith('FAIL  ')).length).toBe(20);
    expect(all.stdout).toMatch(/\n\.\.\. and \d+ more FAIL rows \(the table above, or --json, lists every one\)\ncheck FAILED: /);
    const j = json(asJson);
    expect(j.rows.find((x: any) => x.case === 2 && x.variant === 'above-dc' && x.metric === 'p_breach')).toMatchObject({ params: { 'wall.dc': 12 }, where: 'wall.dc=12, variant above-dc' });
  });

  it('check: a mean no trial gave a value has no z (null, "–" and why), neither a pass nor a fail; it showed z = 0.00 before', async () => {
    // the wall at DC 20: the exact p_breach is 0.0124, and 20 trials (seed 24) see no breach
    const f = path.join(tmp(), 'rare.yaml');
    writeFileSync(f, 'name: rare\nsystem: fantasy\nseed: 24\ntrials: 20\nmode: siege\nattacker: { infantry: 8, cavalry: 3 }\ndefender: { infantry: 8 }\nwall: { type: stone, breach_threshold: 4, dc: 20 }\nrules: { tower_bonus: none }\nmax_rounds: 10\n');
    // the text and --json through one child (test/cli-batch.ts; the test above runs check's own processes)
    const [r, asJson] = await runCliBatch([
      ['check', f, '--threads', '1'],
      ['check', f, '--threads', '1', '--json'],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const row = r.stdout.split('\n').find((l) => /^1 +baseline +mean_breach_round /.test(l))!;
    expect(row).toMatch(new RegExp(`n/a +3\\.256676 +–  ${lit(MSG.checkNoZ())}$`));
    expect(r.stdout).toContain(`; ${MSG.checkNoDataCount(1)}\n`);
    const j = json(asJson);
    expect(j).toMatchObject({ passed: true, failed: 0, no_data: 1, scenarios: [{ no_data: 1 }] });
    expect(j.rows.find((x: any) => x.metric === 'mean_breach_round')).toMatchObject({ simulated: null, n: 0, z: null, verdict: 'no_data' });
  });
});

/** Two readings of the surrender test (rules.comparison): lenient adds one face of the d6 to p_test, exactly 1/6. */
const READINGS = `name: readings
system: surrender
seed: 7
trials: 20000
variants:
  - name: as-written
  - name: lenient
    set: { rules.comparison: le }
sweep:
  structure.surrender_level: [2, 3]
`;

describe('the exact difference between two readings (variant − baseline)', () => {
  it('exact prints it and --json carries it; check compares the paired difference with it; expect: exact: true on a diff_ is judged', async () => {
    const dir = tmp();
    const f = path.join(dir, 'readings.yaml');
    writeFileSync(f, READINGS);
    const ex = await cli(['exact', f]);
    expect(ex.code, ex.stderr).toBe(0);
    const lines = ex.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('case 1 lenient −'))).toMatch(/^case 1 lenient − as-written structure\.surrender_level=2: diff_p_test=0\.1666666667 {2}diff_p_surrender=0\.10444930\d* {2}diff_mean_turns=-1\.5773086\d*$/);
    expect(lines.filter((l) => l.includes(' − as-written')).length).toBe(2);
    const json = JSON.parse((await cli(['exact', f, '--json'])).stdout);
    const cases = json[0].cases;
    expect(Object.keys(cases[0])).toEqual(['case', 'variant', 'params', 'metrics']);
    expect(Object.keys(cases[1])).toEqual(['case', 'variant', 'params', 'metrics', 'differences']);
    expect(cases[1].differences.p_test.value).toBeCloseTo(1 / 6, 12);
    expect(cases[1].differences.p_surrender.value).toBeCloseTo(cases[1].metrics.p_surrender.value - cases[0].metrics.p_surrender.value, 15);

    const check = await cli(['check', f, '--json']);
    expect(check.code, check.stderr).toBe(0);
    const d = JSON.parse(check.stdout);
    const diffs = d.rows.filter((r: any) => r.metric.startsWith('diff_'));
    expect(diffs.map((r: any) => `${r.case} ${r.variant} ${r.metric}`)).toEqual(['1 lenient diff_p_test', '1 lenient diff_p_surrender', '2 lenient diff_p_test', '2 lenient diff_p_surrender']);
    for (const r of diffs) {
      expect(r).toMatchObject({ verdict: 'pass', n: 20000, where: expect.stringContaining('variant lenient') });
      expect(Math.abs(r.z)).toBeLessThan(4.5);
    }
    expect(diffs[0].exact).toBeCloseTo(1 / 6, 12);
    expect(d.scenarios[0].unpaired_differences).toEqual(['diff_mean_turns']);
    expect(check.stderr).toMatch(/^1 +lenient +2 +diff_p_test +0\.1\d{5} +0\.166667 +-?\d\.\d\d$/m);
    expect(check.stderr).toContain(MSG.checkUnpaired(['diff_mean_turns']));
    expect(check.stderr).toMatch(/check passed: \d+ comparisons \(metrics, differences from the baseline and every curve point\)/);

    // expect: exact: true on a diff_ (refused before: 'exact: true is for summary metrics')
    writeFileSync(f, READINGS + 'expect:\n  - { metric: diff_p_test, variant: lenient, exact: true }\n');
    const t = await cli(['test', f]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/pass {2}diff_p_test +structure\.surrender_level=2, variant lenient +0\.1\d+ \[.*\] +exact 0\.16667 \(z = -?\d\.\d\d\)/);
    // a Welch difference has no paired SE to judge a z on: refused before anything runs (exit 2)
    writeFileSync(f, READINGS + 'expect:\n  - { metric: diff_mean_turns, variant: lenient, where: { structure.surrender_level: 3 }, exact: true }\n');
    const w = await cli(['test', f]);
    expect(w.code).toBe(2);
    expect(w.stderr).toContain(MSG.exactOfDiff('diff_mean_turns', 'structure.surrender_level=3, variant lenient'));
  });
});

describe('an expect: the scenario no longer matches', () => {
  it('warns once (file:line:col, and that test will refuse it) while run and exact go on; test and validate refuse it (exit 2)', async () => {
    // the designer's edit: a copy of climbers-dc with the sweep moved, so `where: { wall.dc: 16 }` names no sweep point
    const dir = tmp();
    const f = path.join(dir, 'keep3.yaml');
    writeFileSync(f, readFileSync(path.join(ROOT, 'scenarios/fantasy/climbers-dc.yaml'), 'utf8').replace('wall.dc: [8, 12, 16]', 'wall.dc: [10, 12, 14]'));
    const rel = path.relative(ROOT, f);
    const problem = `${rel}:30:48  expect[3].where.wall.dc  ${MSG.whereValueNotSwept('wall.dc', 16, [10, 12, 14])}`;
    const warning = MSG.staleExpect(problem);
    expect(warning).toBe(`warning: ${problem}; \`siegesim test\` will refuse this expect: item until it matches the scenario (this command goes on without it)`);

    const run = await cli(['run', f, '--trials', '500', '--out', path.join(dir, 'out'), '--threads', '1', '--no-progress']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n').filter((l) => l.includes('expect['))).toEqual([warning]); // once, not once per case (6 of them)
    expect(run.stderr.startsWith(warning + '\n')).toBe(true); // before anything runs
    expect(existsSync(path.join(dir, 'out', 'summary.json'))).toBe(true);
    expect(run.stdout).not.toContain('warning');
    // exact, and test and validate's refusals after it, through one child (test/cli-batch.ts)
    const [exact, ...refusals] = await runCliBatch([['exact', f, '--json'], ['test', f, '--threads', '1'], ['validate', f]]);
    expect(exact.code, exact.stderr).toBe(0);
    expect(exact.stderr).toBe(warning + '\n');
    expect(JSON.parse(exact.stdout)[0].cases).toHaveLength(6);

    for (const [i, verb] of ['test', 'validate'].entries()) {
      const r = refusals[i];
      expect(r.code, verb).toBe(2);
      expect(r.stderr, verb).toBe(`${problem}\nsiegesim: 1 problem found; nothing was run or written\n`);
      expect(r.stdout, verb).toBe('');
    }

    // an item wrong in itself (low above high) stays an error for run too; the file refused, its stale item is listed
    // with it, in the file's order and counted (it was a warning that "this command goes on without it" above the refusal)
    writeFileSync(f, readFileSync(f, 'utf8').replace('between: [0.955, 0.985]', 'between: [0.985, 0.955]'));
    const bad = await cli(['run', f, '--out', path.join(dir, 'bad'), '--threads', '1', '--no-progress']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`${rel}:29:80  expect[2].between  ${MSG.expectBetweenOrder(0.985, 0.955)}\n${problem}; ${MSG.staleExpectRefused}\nsiegesim: 2 problems found; nothing was run or written\n`);
    expect(existsSync(path.join(dir, 'bad'))).toBe(false);
  });
});
