import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { MSG } from '../../src/scenario/messages.js';
import { jsonSchemaOf } from '../../src/scenario/schema.js';
import { SYSTEMS } from '../../src/systems/registry.js';
import { VERSION } from '../../src/version.js';
import { show as showOf, showInterval } from '../../src/report/format.js';
import { runCliBatch } from '../cli-batch.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'dist/src/cli/main.js');
const FIX = path.join(ROOT, 'test/fixtures');

/**
 * Run the built CLI as a child process without blocking this test worker (a blocked worker
 * cannot answer vitest's RPC, which times out on a loaded machine).
 */
function cli(args: string[], cwd = ROOT): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], cwd);
}

/** Any program, the same way (exit code null: it could not be started). */
function run(cmd: string, args: string[], cwd: string, env?: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: env ? { ...process.env, ...env } : process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => resolve({ code: null, stdout, stderr: stderr + String(e) }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'siegesim-e2e-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A command's result, made once for the tests that only read it (each awaits it; any one of them may run alone). */
function shared<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** good-small as written, on one thread, through the bundle (the launcher's default): its report folder and the result. */
const goodSmallOneThread = shared(async () => {
  const out = path.join(tmp(), 'a');
  return { out, r: await cli(['run', path.join(FIX, 'good-small.yaml'), '--threads', '1', '--out', out]) };
});

/** Three scenarios of three systems in one run, as text (no --json, no --brief), under one --out. */
const THREE = [path.join(ROOT, 'scenarios/surrender/town-basic.yaml'), path.join(ROOT, 'scenarios/fantasy/climbers-dc.yaml'), path.join(FIX, 'good-small.yaml')];
const threeAsText = shared(async () => {
  const out = path.join(tmp(), 'full');
  return { out, r: await cli(['run', ...THREE, '--trials', '2000', '--no-progress', '--out', out]) };
});

describe('siegesim run', () => {
  it('writes byte-identical CSV with --threads 1 and --threads 2, and the whole report', async () => {
    const dir = tmp();
    const { out: one, r: a } = await goodSmallOneThread();
    const b = await cli(['run', path.join(FIX, 'good-small.yaml'), '--threads', '2', '--out', path.join(dir, 'b')]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    for (const f of ['summary.csv', 'surrender_by_turn.csv']) {
      expect(readFileSync(path.join(dir, 'b', f), 'utf8')).toBe(readFileSync(path.join(one, f), 'utf8'));
    }
    const csv = readFileSync(path.join(one, 'summary.csv'), 'utf8').split('\n');
    expect(csv[0]).toBe('case,variant,structure.surrender_level,besieger.heavy_siege_artillery,metric,value,ci_low,ci_high,trials,n');
    expect(csv.some((l) => l.startsWith('1,lenient,2,0,diff_p_surrender,'))).toBe(true);
    const curve = readFileSync(path.join(one, 'surrender_by_turn.csv'), 'utf8').split('\n');
    expect(curve[0]).toBe('case,variant,turn,p_cumulative,ci_low,ci_high');
    const json = JSON.parse(readFileSync(path.join(one, 'summary.json'), 'utf8'));
    expect(Object.keys(json)).toEqual(expect.arrayContaining(['name', 'system', 'seed', 'trials', 'cases', 'provenance']));
    expect(json.cases).toHaveLength(8);
    expect(Object.keys(json.cases[0].metrics)).toEqual(['p_test', 'p_surrender', 'mean_turns']);
    expect(json.cases[0].metrics.p_surrender).toEqual(expect.objectContaining({ value: expect.any(Number), ci_low: expect.any(Number), ci_high: expect.any(Number) }));
    expect(json.provenance).toEqual(expect.objectContaining({ version: VERSION, threads: 1, seconds: expect.any(Number), trials_per_second: expect.any(Number) }));
    const charts = readdirSync(path.join(one, 'charts')).sort();
    expect(charts).toEqual(
      expect.arrayContaining(['p_surrender_heatmap.svg', 'p_surrender_heatmap.vl.json', 'surrender_by_turn.svg', 'surrender_by_turn.vl.json']),
    );
    const svg = readFileSync(path.join(one, 'charts', 'surrender_by_turn.svg'), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    const html = readFileSync(path.join(one, 'index.html'), 'utf8');
    expect(html).toContain('charts/surrender_by_turn.svg');
    expect(html).not.toMatch(/https?:\/\/(?!vega\.github\.io)/); // nothing fetched from the network
  });

  it('runs from its bundle (dist/cli, made after the compiled modules), and the compiled modules give the same report', async () => {
    // npm run build bundles after tsc: the launcher takes the bundle only when it is not older
    const bundle = path.join(ROOT, 'dist/cli/siegesim.cjs');
    expect(existsSync(bundle), 'dist/cli/siegesim.cjs: run npm run build').toBe(true);
    expect(statSync(bundle).mtimeMs).toBeGreaterThanOrEqual(statSync(path.join(ROOT, 'dist/src/cli/entry.js')).mtimeMs);
    // the bundle's report is the one-thread run of good-small (also read by the test above)
    const b = path.join(tmp(), 'b');
    const [{ out: a, r: x }, y] = await Promise.all([
      goodSmallOneThread(),
      run(process.execPath, [CLI, 'run', path.join(FIX, 'good-small.yaml'), '--threads', '1', '--out', b], ROOT, { SIEGESIM_NO_BUNDLE: '1' }),
    ]);
    expect([x.code, y.code], x.stderr + y.stderr).toEqual([0, 0]);
    for (const f of readdirSync(a).filter((n) => n.endsWith('.csv'))) expect(readFileSync(path.join(a, f), 'utf8'), f).toBe(readFileSync(path.join(b, f), 'utf8'));
    expect(readdirSync(path.join(a, 'charts')).sort()).toEqual(readdirSync(path.join(b, 'charts')).sort());
    for (const f of readdirSync(path.join(a, 'charts')).filter((n) => n.endsWith('.svg'))) {
      expect(readFileSync(path.join(a, 'charts', f), 'utf8'), f).toBe(readFileSync(path.join(b, 'charts', f), 'utf8'));
    }
  });

  it('runs the compiled modules, not the bundle, once tsc has re-emitted any module after the build (tsc -w, tsc --incremental)', async () => {
    // Those re-emit only the modules that changed, not entry.js, and rewrite dist/tsconfig.tsbuildinfo;
    // the worker threads load the compiled modules, so the bundle must not run beside newer ones.
    // A copy of the build: the launcher finds the bundle and the build info from its own place.
    const root = tmp();
    copyFileSync(path.join(ROOT, 'package.json'), path.join(root, 'package.json'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
    for (const d of ['src', 'workers', 'cli']) cpSync(path.join(ROOT, 'dist', d), path.join(root, 'dist', d), { recursive: true, preserveTimestamps: true });
    const info = path.join(root, 'dist/tsconfig.tsbuildinfo');
    cpSync(path.join(ROOT, 'dist/tsconfig.tsbuildinfo'), info, { preserveTimestamps: true });
    const main = path.join(root, 'dist/src/cli/main.js');
    const version = path.join(root, 'dist/src/version.js');
    const bundleTime = statSync(path.join(root, 'dist/cli/siegesim.cjs')).mtime;
    expect(statSync(info).mtimeMs, 'npm run build writes the build info before the bundle').toBeLessThanOrEqual(bundleTime.getTime());
    // version.js says another version, as if tsc had re-emitted it; while it and the build info are older than the bundle, the bundle runs
    writeFileSync(version, readFileSync(version, 'utf8').replace(`'${VERSION}'`, `'${VERSION}-re-emitted'`));
    const before = new Date(bundleTime.getTime() - 2000);
    utimesSync(version, before, before);
    const bundled = await run(process.execPath, [main, '--version'], root);
    expect([bundled.code, bundled.stdout.trim()], bundled.stderr).toEqual([0, VERSION]);
    // as tsc writes them: the module and the build info newer than the bundle, entry.js as it was
    const after = new Date(bundleTime.getTime() + 2000);
    utimesSync(version, after, after);
    utimesSync(info, after, after);
    const compiled = await run(process.execPath, [main, '--version'], root);
    expect([compiled.code, compiled.stdout.trim()], compiled.stderr).toEqual([0, `${VERSION}-re-emitted`]);
  });

  it('prints each scenario\'s answer on stdout (the status lines stay on stderr), as summary.json holds it', async () => {
    const dir = tmp();
    const town = path.join(ROOT, 'scenarios/surrender/town-basic.yaml');
    const r = await cli(['run', path.join(FIX, 'keep.yaml'), town, '--trials', '4000', '--out', dir, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const blocks = r.stdout.split('\n\n'); // one block per scenario, a blank line between
    expect(blocks.map((b) => b.split('\n')[0])).toEqual(['keep: 95% intervals over 4,000 trials (seed keep; at most 20 rounds a trial)', 'surrender-town-basic: 95% intervals over 4,000 trials (seed 42; 12 game turns a trial)']);
    const keep = JSON.parse(readFileSync(path.join(dir, 'keep', 'summary.json'), 'utf8'));
    for (const m of ['p_attacker_wins', 'p_defender_wins', 'p_undecided', 'p_breach']) {
      const e = keep.cases[0].metrics[m];
      expect(blocks[0]).toMatch(new RegExp(`^  ${m} +${showInterval(e.value, e.ci_low, e.ci_high).replace(/[[\]().+]/g, '\\$&')}$`, 'm'));
    }
    expect(r.stderr).toContain(`keep: 1 case(s) x 4,000 trials`);
    expect(r.stderr).not.toContain('95% intervals');
  });

  it('a report keeps what made it (scenario.yaml, its SHA-256, its source, the overrides); a copy with the same name: refused, naming the file that made the report, unless --force', async () => {
    const dir = tmp();
    const keep = readFileSync(path.join(FIX, 'keep.yaml'), 'utf8');
    writeFileSync(path.join(dir, 'keep.yaml'), keep);
    writeFileSync(path.join(dir, 'k2.yaml'), keep.replace('dc: 12', 'dc: 13'));
    const first = await run(process.execPath, [CLI, 'run', 'keep.yaml', '--trials', '4000', '--no-progress'], dir);
    expect(first.code, first.stderr).toBe(0);
    const report = path.join(dir, 'reports', 'keep');
    const json = JSON.parse(readFileSync(path.join(report, 'summary.json'), 'utf8'));
    expect(readFileSync(path.join(report, 'scenario.yaml'), 'utf8')).toBe(keep);
    expect(json.provenance.scenario).toEqual({ file: 'scenario.yaml', sha256: createHash('sha256').update(keep).digest('hex'), source: '../../keep.yaml' });
    expect(json.provenance.overrides).toEqual({}); // --trials 4000 is the file's own: it changes no number (as merge records it)
    expect(readFileSync(path.join(report, 'index.html'), 'utf8')).toContain('<a href="scenario.yaml"');
    // the same file again: nothing said; `run .` does not take the report's copy for a scenario (a duplicate name).
    // These two, and the forced run and the rerun below, through one child each (test/cli-batch.ts, the writing
    // command first: a refusal ends a batch's writing); `run` itself is the real processes around them
    const [same, again] = await runCliBatch([['run', 'keep.yaml', '--trials', '4000', '--no-progress', '--no-charts'], ['run', '.', '--trials', '4000', '--no-progress', '--no-charts']], dir);
    expect(again.code, again.stderr).toBe(2); // keep.yaml and k2.yaml share a name: refused
    expect(again.stderr).not.toContain('scenario.yaml');
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toContain('warning');
    // the copy: refused before the run (the report of another file), then replaced with --force
    const was = readFileSync(path.join(report, 'summary.json'), 'utf8');
    const copy = await run(process.execPath, [CLI, 'run', 'k2.yaml', '--trials', '4000', '--no-progress', '--no-charts'], dir);
    expect(copy.code, copy.stderr).toBe(2);
    expect(copy.stderr).toBe(`siegesim: cannot write to ${path.join('reports', 'keep')}: ${MSG.otherScenarioReport({ name: 'keep', file: 'keep.yaml', gone: false }, { name: 'keep', file: 'k2.yaml' }, false)}\n`);
    expect(copy.stderr).toContain('give one of them another name:, choose another --out, or add --force to replace it');
    expect(readFileSync(path.join(report, 'summary.json'), 'utf8')).toBe(was);
    // then run from the copy in the report, elsewhere: the same CSV byte for byte
    const [forced, rerun] = await runCliBatch([
      ['run', 'k2.yaml', '--trials', '4000', '--no-progress', '--force', '--no-charts'],
      ['run', path.join(report, 'scenario.yaml'), '--trials', '4000', '--no-progress', '--out', path.join(dir, 'rerun'), '--no-charts'],
    ], dir);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).not.toContain('warning');
    expect(JSON.parse(readFileSync(path.join(report, 'summary.json'), 'utf8')).provenance.scenario.source).toBe('../../k2.yaml');
    expect(readFileSync(path.join(report, 'scenario.yaml'), 'utf8')).toContain('dc: 13');
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'rerun', 'summary.csv'), 'utf8')).toBe(readFileSync(path.join(report, 'summary.csv'), 'utf8'));
    // a folder holding only the scenario and its reports: run . finds the scenario alone
    rmSync(path.join(dir, 'k2.yaml'));
    const dot = await run(process.execPath, [CLI, 'run', '.', '--trials', '4000', '--no-progress', '--no-charts'], dir);
    expect(dot.code, dot.stderr).toBe(0);
    expect(dot.stderr).toContain('-> reports/keep');
  });

  it('--no-charts writes the report with its charts as Vega-Lite specs only, each said in its place, and the same numbers; merge takes it too', async () => {
    const dir = tmp();
    const scen = path.join(ROOT, 'scenarios/fantasy/climbers-dc.yaml'); // a sweep: a lead chart with its answer table, and the rest
    const [drawn, plain, s1, s2] = await runCliBatch([
      ['run', scen, '--trials', '3000', '--out', path.join(dir, 'drawn'), '--json'],
      ['run', scen, '--trials', '3000', '--out', path.join(dir, 'plain'), '--json', '--no-charts'],
      ['run', scen, '--trials', '3000', '--shard', '1/2', '--out', path.join(dir, 's1.json')],
      ['run', scen, '--trials', '3000', '--shard', '2/2', '--out', path.join(dir, 's2.json')],
    ]);
    for (const r of [drawn, plain, s1, s2]) expect(r.code, r.stderr).toBe(0);
    const merged = await cli(['merge', scen, path.join(dir, 's1.json'), path.join(dir, 's2.json'), '--out', path.join(dir, 'merged'), '--no-charts']);
    expect(merged.code, merged.stderr).toBe(0);
    const specs = readdirSync(path.join(dir, 'drawn', 'charts')).filter((f) => f.endsWith('.vl.json')).sort();
    expect(specs.length).toBeGreaterThan(1);
    for (const d of ['plain', 'merged']) {
      // the specs byte for byte, no SVG; the tables and the answer as drawn
      expect(readdirSync(path.join(dir, d, 'charts')).sort(), d).toEqual(specs);
      for (const f of specs) expect(readFileSync(path.join(dir, d, 'charts', f), 'utf8'), `${d}/${f}`).toBe(readFileSync(path.join(dir, 'drawn', 'charts', f), 'utf8'));
      for (const f of readdirSync(path.join(dir, 'drawn')).filter((x) => x.endsWith('.csv'))) expect(readFileSync(path.join(dir, d, f), 'utf8'), `${d}/${f}`).toBe(readFileSync(path.join(dir, 'drawn', f), 'utf8'));
      const page = readFileSync(path.join(dir, d, 'index.html'), 'utf8');
      expect(page, d).not.toContain('<img');
      expect(page.match(/not drawn \(the report was written with <code>--no-charts<\/code>/g)?.length, d).toBe(specs.length);
      for (const f of specs) expect(page, `${d}: ${f}`).toContain(`href="charts/${f}"`);
    }
    const untimed = (j: any) => ({ ...j, provenance: { ...j.provenance, seconds: 0, trials_per_second: 0, threads: 0 } });
    expect(untimed(JSON.parse(plain.stdout)[0])).toEqual(untimed(JSON.parse(drawn.stdout)[0]));
    // with its charts, the same page has an image where each says it is not drawn
    expect(readFileSync(path.join(dir, 'drawn', 'index.html'), 'utf8').match(/<img src="charts\//g)?.length).toBe(specs.length);
    // run again --no-charts over the drawn report: its own SVGs go with it (siegesim wrote them), the specs stay
    const again = await cli(['run', scen, '--trials', '3000', '--out', path.join(dir, 'drawn'), '--no-charts', '--no-progress']);
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(path.join(dir, 'drawn', 'charts')).sort()).toEqual(specs);
  });

  it('--json prints an array of summary.json, one per scenario, also for one scenario', async () => {
    const dir = tmp();
    const r = await cli(['run', path.join(FIX, 'good-small.yaml'), '--trials', '1000', '--out', dir, '--json', '--threads', '1', '--no-charts']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(Array.isArray(j)).toBe(true);
    expect(j).toHaveLength(1);
    expect(j[0].name).toBe('good-small');
    expect(j[0].cases[0].trials).toBe(1000);
    expect(j[0]).toEqual(JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')));
  });

  it('several scenarios go under --out with an index linking each; --json has one element each', async () => {
    const dir = tmp();
    const r = await cli(['run', path.join(ROOT, 'scenarios/surrender/town-basic.yaml'), path.join(FIX, 'good-small.yaml'), '--trials', '2000', '--out', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const index = readFileSync(path.join(dir, 'index.html'), 'utf8');
    expect(index).toContain('href="surrender-town-basic/index.html"');
    expect(index).toContain('href="good-small/index.html"');
    expect(JSON.parse(r.stdout).map((s: { name: string }) => s.name)).toEqual(['surrender-town-basic', 'good-small']);
    // the last status line names the page that gathers them (npm start's too); stdout keeps the answers alone
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(`reports: ${path.join(dir, 'index.html')} (open it in a browser)`);
    expect(r.stdout).not.toContain('index.html');
    // as text (the run of three scenarios the --brief test below compares with)
    const { out: full, r: text } = await threeAsText();
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr.trimEnd().split('\n').at(-1)).toBe(`reports: ${path.join(full, 'index.html')} (open it in a browser)`);
    expect(text.stdout).not.toContain('index.html');
  });

  it('npm start (run --brief): a line per scenario in columns under one head, then where the reports went; the same files as without it', async () => {
    // npm start's own command line, from package.json
    const start = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
    expect(start.split(' && ').at(-1)).toBe('node dist/src/cli/main.js run scenarios --brief');
    const dir = tmp();
    const files = THREE;
    const r = await cli(['run', ...files, '--trials', '2000', '--brief', '--out', path.join(dir, 'brief')]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^scenario +cases {2}trials\/case {6}time {2}answer: its report's first two metrics \(one case: value \[95% interval\]; several: lowest – highest\)$/);
    expect(lines[1]).toMatch(/^surrender-town-basic {3,}1 {8}2,000 +[\d.]+ s {2}p_test 0\.\d{4} \[0\.\d{4}, 0\.\d{4}\]; p_surrender [\d.]+ \[[\d.]+, [\d.]+\]$/);
    expect(lines[2]).toMatch(/^fantasy-climbers-dc {3,}6 {8}2,000 +[\d.]+ s {2}p_attacker_wins [\d.]+ – [\d.]+; p_defender_wins [\d.]+ – [\d.]+$/);
    expect(lines[3]).toMatch(/^good-small {3,}\d+ +2,000 +[\d.]+ s {2}\S/);
    // the columns line up: every line's answer starts where the head's does
    const at = lines[0].indexOf('answer');
    for (const l of lines.slice(1)) expect(l.indexOf('  p_') + 2, l).toBe(at);
    // stderr: no start line or per-scenario status line (the table has them), then the closing summary and the index
    const err = r.stderr.trimEnd().split('\n');
    expect(err).toEqual([
      expect.stringMatching(new RegExp(`^3 scenarios, 15 cases, 30,000 trials in [\\d.]+ s; each report in ${path.join(dir, 'brief').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/<scenario>/ \\(index\\.html, summary\\.csv, summary\\.json, scenario\\.yaml, charts/, a CSV per curve\\)$`)),
      `reports: ${path.join(dir, 'brief', 'index.html')} (open it in a browser)`,
    ]);
    // the same files, with the same numbers, as a run without --brief
    const { out: fullDir, r: full } = await threeAsText();
    expect(full.code, full.stderr).toBe(0);
    const tree = (d: string): string[] => readdirSync(d, { recursive: true, encoding: 'utf8' }).sort();
    expect(tree(path.join(dir, 'brief'))).toEqual(tree(fullDir));
    for (const f of tree(path.join(dir, 'brief')).filter((f) => f.endsWith('.csv') || f.endsWith('.yaml'))) {
      expect(readFileSync(path.join(dir, 'brief', f), 'utf8'), f).toBe(readFileSync(path.join(fullDir, f), 'utf8'));
    }
    // one scenario: its folder; --brief and --json share stdout, so together they are refused
    const one = await cli(['run', files[0], '--trials', '2000', '--brief', '--out', path.join(dir, 'one')]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toMatch(new RegExp(`^1 scenario, 1 case, 2,000 trials in [\\d.]+ s; each report in ${path.join(dir, 'one').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/ \\(`));
    const both = await cli(['run', files[0], '--brief', '--json', '--out', path.join(dir, 'both')]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--brief prints a line per scenario and --json a JSON array on the same stdout: choose one');
    // --json: the error is a JSON document on stdout too (docs/cli.md, "Bad input, limits and outputs")
    expect(JSON.parse(both.stdout)).toEqual({ error: { message: expect.stringContaining('choose one'), exit_code: 2, problems: [] } });
    expect(existsSync(path.join(dir, 'both'))).toBe(false);
  });

  it('test and serve where there is no scenarios/ folder: say it is the default and that files or folders can be named (exit 2)', async () => {
    const empty = tmp();
    mkdirSync(path.join(empty, 'none')); // for the folder named below (the default is scenarios/)
    // test in a process of its own, the rest through one child (test/cli-batch.ts): refusals all
    const [serve, ...named] = await runCliBatch([['serve', '--port', '0'], ...['test', 'run', 'validate'].map((verb) => [verb, 'none'])], empty);
    const bare = await cli(['test'], empty);
    for (const [verb, r] of [['test', bare], ['serve', serve]] as const) {
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toBe(`siegesim: ${MSG.noDefaultFolder('scenarios', realpathSync(empty), `siegesim ${verb} my.yaml`)}\n`);
      expect(r.stderr).not.toContain('(file)');
    }
    // a folder named is called a folder, not a file
    for (const r of named) {
      expect([r.code, r.stderr.split('\n')[0]]).toEqual([2, `none  (folder)  ${MSG.noScenarios('none')}`]);
    }
  });

  it('--precision says when the cap stopped it, and reports the trials each case ran (keep.yaml)', async () => {
    const dir = tmp();
    const keep = path.join(FIX, 'keep.yaml'); // 4000 trials, fantasy's chunk is 4096
    // both runs through one child (test/cli-batch.ts; run has processes of its own above), on one
    // thread: what is checked is the trials and the messages, which do not depend on it
    const [r, low] = await runCliBatch([
      ['run', keep, '--precision', '0.005', '--max-trials', '20000', '--out', path.join(dir, 'a'), '--json', '--threads', '1', '--no-charts'],
      ['run', keep, '--precision', '0.005', '--max-trials', '3000', '--out', path.join(dir, 'b'), '--json', '--threads', '1', '--no-charts'],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [j] = JSON.parse(r.stdout);
    expect(j.cases[0].trials).toBe(20000); // the cap, not the last whole chunk under it
    expect(j.cases[0].precision).toEqual({ target: 0.005, half_width: expect.any(Number), reached: false });
    expect(j.cases[0].precision.half_width).toBeGreaterThan(0.005);
    expect(j.provenance).toMatchObject({ precision: 0.005, precision_missed: 1, max_trials: 20000 });
    expect(r.stderr).toContain('keep: running 1 case(s) x 4,000 trials, then more until every headline interval is within ±0.005 (at most 20,000 a case)');
    expect(r.stderr).toMatch(/keep: 1 case\(s\) x 20,000 trials \(precision 0\.005\)/);
    expect(r.stderr).toMatch(/keep: precision 0\.005 NOT reached in 1 of 1 case\(s\).*20,000 trials per case/);
    // a cap below the scenario's trials is honoured too
    expect(low.code, low.stderr).toBe(0);
    expect(JSON.parse(low.stdout)[0].cases[0].trials).toBe(3000);
    expect(low.stderr).toContain('keep: running 1 case(s) x 3,000 trials, then more until');
    expect(low.stderr).toMatch(/keep: 1 case\(s\) x 3,000 trials/);
  });
});

describe('shards', () => {
  it('run --shard k/n then merge gives the report one run gives, byte for byte', async () => {
    const dir = tmp();
    const scen = path.join(ROOT, 'scenarios/surrender/port-blockade.yaml');
    const full = await cli(['run', scen, '--trials', '700000', '--out', path.join(dir, 'full'), '--no-charts']); // the numbers and the page (the charts: the --no-charts test)
    expect(full.code, full.stderr).toBe(0);
    // the shards on one thread (their chunks do not depend on it), the whole run on all cores; the
    // shards, and a shard of another run for merge's refusals below, through one child (test/cli-batch.ts)
    const shards = await runCliBatch([
      ...[1, 2, 3].map((k) => ['run', scen, '--trials', '700000', '--threads', '1', '--shard', `${k}/3`, '--out', path.join(dir, `s${k}.json`)]),
      ['run', scen, '--trials', '300000', '--threads', '1', '--shard', '2/3', '--out', path.join(dir, 'odd2.json')],
    ]);
    for (const r of shards) expect(r.code, r.stderr).toBe(0);
    const merged = await cli(['merge', scen, path.join(dir, 's3.json'), path.join(dir, 's1.json'), path.join(dir, 's2.json'), '--out', path.join(dir, 'merged'), '--json', '--no-charts']);
    expect(merged.code, merged.stderr).toBe(0);
    // --json: the same shape as run --json (an array of summary.json)
    expect(JSON.parse(merged.stdout)).toEqual([JSON.parse(readFileSync(path.join(dir, 'merged', 'summary.json'), 'utf8'))]);
    for (const f of ['summary.csv', 'surrender_by_turn.csv']) {
      expect(readFileSync(path.join(dir, 'merged', f), 'utf8')).toBe(readFileSync(path.join(dir, 'full', f), 'utf8'));
    }
    // summary.json too, but for how the numbers were made: the shards' --trials are its overrides
    // (the reproduction recipe runs scenario.yaml with them), and it says it was merged, not timed
    const json = (d: string) => JSON.parse(readFileSync(path.join(dir, d, 'summary.json'), 'utf8'));
    const [fullJson, mergedJson] = [json('full'), json('merged')];
    expect(mergedJson.provenance.overrides).toEqual({ trials: 700000 });
    expect(mergedJson.provenance.merged).toEqual({ shards: 3, given: 3 });
    const untimed = (j: any) => ({ ...j, provenance: { ...j.provenance, threads: 0, seconds: 0, trials_per_second: 0, merged: undefined } });
    expect(untimed(mergedJson)).toEqual(untimed(fullJson));
    const page = readFileSync(path.join(dir, 'merged', 'index.html'), 'utf8');
    expect(page).toContain('merged from 3 shards; their threads and times are not recorded</p>');
    expect(page).not.toMatch(/1 thread|trials\/s/);
    // the merged report's recipe run again, and (without --json) merge printing on stdout the answer run printed
    // for the whole run (status lines on stderr): through one child (test/cli-batch.ts; run and merge are real processes above)
    const [again, answer] = await runCliBatch([
      ['run', path.join(dir, 'merged', 'scenario.yaml'), '--trials', String(mergedJson.provenance.overrides.trials), '--threads', '1', '--out', path.join(dir, 'again'), '--no-charts'],
      ['merge', scen, path.join(dir, 's1.json'), path.join(dir, 's2.json'), path.join(dir, 's3.json'), '--out', path.join(dir, 'merged2'), '--no-charts'],
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'again', 'summary.csv'), 'utf8')).toBe(readFileSync(path.join(dir, 'merged', 'summary.csv'), 'utf8'));
    expect(answer.code, answer.stderr).toBe(0);
    expect(full.stdout).toMatch(/^surrender-port-blockade: .*\n {2}case/);
    expect(answer.stdout).toBe(full.stdout);
    expect(answer.stderr).toContain('surrender-port-blockade: merged 3 shard(s) -> ');
    // merge's refusals through one child (test/cli-batch.ts): the merges above are merge's own processes
    const [missing, twice, mixed, other] = await runCliBatch([
      ['merge', scen, path.join(dir, 's1.json'), path.join(dir, 's3.json'), '--out', path.join(dir, 'm2')],
      ['merge', scen, path.join(dir, 's1.json'), path.join(dir, 's1.json'), path.join(dir, 's2.json'), path.join(dir, 's3.json'), '--out', path.join(dir, 'm3')],
      ['merge', scen, path.join(dir, 's1.json'), path.join(dir, 'odd2.json'), path.join(dir, 's3.json'), '--out', path.join(dir, 'm5')],
      ['merge', path.join(ROOT, 'scenarios/surrender/town-basic.yaml'), path.join(dir, 's1.json'), '--out', path.join(dir, 'm4')],
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/shard\(s\) 2 of 3 not given/);
    expect(existsSync(path.join(dir, 'm2'))).toBe(false);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`is in two shards: ${path.join(dir, 's1.json')} (shard 1/3) and ${path.join(dir, 's1.json')} (shard 1/3)`);
    // a shard of another run: the file named, and what differs
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain(`${path.join(dir, 'odd2.json')} (shard 2/3) was run with 300,000 trials, not 700,000 as ${path.join(dir, 's1.json')} (shard 1/3)`);
    expect(existsSync(path.join(dir, 'm5'))).toBe(false);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/made from another scenario/);
    expect((await cli(['run', scen, '--shard', '4/3'])).code).toBe(2);
  });

  it('a sweep with variants prints, at each swept value, each reading and their paired difference with its 95% interval (summary.json\'s), and merge prints the same (fresh-eyes trial: a plain value table, no difference, and a "reaches 0.5" block that said nothing)', async () => {
    const dir = tmp();
    const scen = path.join(FIX, 'heavy-is-artillery.yaml');
    // 3 chunks a case (surrender: 262,144 trials a chunk), so three shards each hold one
    const full = await cli(['run', scen, '--trials', '600000', '--out', path.join(dir, 'full'), '--no-charts']);
    expect(full.code, full.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(path.join(dir, 'full', 'summary.json'), 'utf8')) as {
      cases: { variant: string; params: Record<string, number>; metrics: Record<string, { value: number; ci_low: number; ci_high: number }>; differences: Record<string, { value: number; ci_low: number; ci_high: number }> }[];
    };
    const at = (v: string, guns: number) => summary.cases.find((c) => c.variant === v && c.params['besieger.heavy_siege_artillery'] === guns)!;
    const interval = (e: { value: number; ci_low: number; ci_high: number }) => `${e.value > 0 ? '+' : ''}${showInterval(e.value, e.ci_low, e.ci_high)}`;
    const lines = full.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe("heavy-is-artillery: 6 cases (3 sweep x 2 variants) over 600,000 trials a case (seed 3; 4 game turns a trial); each variant's value (their 95% intervals: in the report) and Δ: the paired difference from heavy-counts, with its 95% interval");
    expect(lines[1].trim().split(/\s{2,}/)).toEqual(['metric', 'heavy_siege_artillery', 'heavy-counts', 'heavy-alone', 'Δ heavy-alone']);
    const rows = lines.slice(2, 8).map((l) => l.trim().split(/\s{2,}/));
    for (const [i, m] of ['p_test', 'p_surrender'].entries()) {
      for (const guns of [0, 1, 2]) {
        const d = at('heavy-alone', guns).differences[m];
        expect(rows[3 * i + guns], `${m} at ${guns}`).toEqual([...(guns === 0 ? [m] : []), String(guns), showOf(at('heavy-counts', guns).metrics[m].value), showOf(at('heavy-alone', guns).metrics[m].value), interval(d)]);
      }
    }
    // the readings part at 1 heavy gun: the difference there excludes 0
    expect(at('heavy-alone', 1).differences.p_test.ci_high).toBeLessThan(0);
    // p_surrender is past 0.5 at 0 heavy guns in both readings: one sentence, not a table of "0 ≥ 0.5 (the lowest value reaches it)"
    const first = at('heavy-counts', 0).metrics.p_surrender;
    // (then what the metrics count, the glossary's lines)
    expect(lines.slice(8, lines.indexOf('what these metrics count:'))).toEqual([
      `where p_surrender reaches 0.5: p_surrender is at or above 0.5 already at heavy_siege_artillery = 0, the lowest swept, in every variant (${showInterval(first.value, first.ci_low, first.ci_high)}): the sweep does not bracket 0.5, so it does not show where it is first reached`,
    ]);
    // the shards and their merge through one child (test/cli-batch.ts; the test above runs merge's own processes)
    const batch = await runCliBatch([
      ...[1, 2, 3].map((k) => ['run', scen, '--trials', '600000', '--threads', '1', '--shard', `${k}/3`, '--out', path.join(dir, `s${k}.json`)]),
      ['merge', scen, path.join(dir, 's2.json'), path.join(dir, 's3.json'), path.join(dir, 's1.json'), '--out', path.join(dir, 'merged'), '--no-charts'],
    ]);
    for (const r of batch.slice(0, 3)) expect(r.code, r.stderr).toBe(0);
    const merged = batch[3];
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toBe(full.stdout);
    expect(readFileSync(path.join(dir, 'merged', 'summary.csv'), 'utf8')).toBe(readFileSync(path.join(dir, 'full', 'summary.csv'), 'utf8'));
  });

  it('a shard past the run\'s chunks is said to be empty, and merge says which shards it did not need', async () => {
    const dir = tmp();
    const scen = path.join(FIX, 'keep.yaml'); // fantasy: 4,096 trials a chunk, so 6,000 trials are 2 chunks
    const warn = MSG.shardEmpty(3, 4, 2, 6000, 4096);
    expect(warn).toBe('warning: shard 3/4 has nothing to run: 6,000 trials make 2 chunks per case (4,096 trials each), so shards 3 to 4 of 4 are empty and merge does not need them; --shard k/2 splits this run with none empty');
    // the shards and both merges through one child (test/cli-batch.ts; the tests above run merge's own processes)
    const shard = (k: number) => ['run', scen, '--trials', '6000', '--threads', '1', '--shard', `${k}/4`, '--out', path.join(dir, `s${k}.json`)];
    const [s1, s2, s3, merged, all] = await runCliBatch([
      shard(1),
      shard(2),
      shard(3),
      ['merge', scen, path.join(dir, 's1.json'), path.join(dir, 's2.json'), path.join(dir, 's3.json'), '--out', path.join(dir, 'm')],
      ['merge', scen, path.join(dir, 's1.json'), path.join(dir, 's2.json'), '--out', path.join(dir, 'm2')],
    ]);
    for (const r of [s1, s2, s3]) expect(r.code, r.stderr).toBe(0);
    expect(s1.stderr).not.toMatch(/warning/);
    expect(s3.stderr.split('\n')[0]).toBe(warn);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain(`keep: ${MSG.shardsNotNeeded([3, 4], 4, 2, 1)}\n`);
    expect(MSG.shardsNotNeeded([3, 4], 4, 2, 1)).toBe('shards 3 to 4 of 4 hold no chunks (the run has 2 chunks per case): they were not needed (1 absent, 1 given empty)');
    expect(all.stderr).toContain(MSG.shardsNotNeeded([3, 4], 4, 2, 0));
    expect(readFileSync(path.join(dir, 'm2', 'index.html'), 'utf8')).toContain('merged from 2 of 4 shards (the others held no chunks); their threads and times are not recorded');
    // a run of one chunk: no k/1 advice (it only allows 1/1), sharding it gains nothing
    expect(MSG.shardEmpty(2, 2, 1, 4000, 4096)).toBe('warning: shard 2/2 has nothing to run: 4,000 trials make 1 chunk per case (4,096 trials each), so shard 2 of 2 is empty and merge does not need it; one chunk cannot be split: sharding this run gains nothing, run it whole (without --shard)');
  });
});

describe('bad input', () => {
  const cases: [string, RegExp][] = [
    ['bad-yaml.yaml', /bad-yaml\.yaml:\d+:\d+ {2}\(yaml\) {2}YAML syntax error/],
    ['bad-unknown-key.yaml', /bad-unknown-key\.yaml:7:3 {2}besieged\.seige_leaders {2}unknown key "seige_leaders" \(did you mean "siege_leaders"\?\)/],
    ['bad-type.yaml', /bad-type\.yaml:4:9 {2}trials {2}expected a whole number, got the text "lots"\n/],
    ['bad-negative.yaml', /bad-negative\.yaml:5:24 {2}besieger\.artillery {2}must be at least 0, got -2/],
    // the new-user trial: an enum typo had no "did you mean", 1.5 read "expected int, received number",
    // a forgotten set: repeated the baseline silently, and a sweep too large did not say how to shrink it
    ['bad-enum.yaml', /bad-enum\.yaml:5:40 {2}rules\.leader_bonus {2}"per_leadr" is not an option \(did you mean "per_leader"\?\)/],
    ['bad-fraction.yaml', /bad-fraction\.yaml:5:24 {2}besieger\.artillery {2}expected a whole number, got 1\.5\n/],
    ['bad-variant-no-set.yaml', /bad-variant-no-set\.yaml:7:5 {2}variants\[1\]\.name {2}variant "lenient" sets nothing, so it would run the scenario as written, exactly as the baseline "as-written" does/],
    ['bad-sweep-size.yaml', /bad-sweep-size\.yaml:5:1 {2}sweep {2}the sweep would make 30,003 cases \(3 values of turns x 10,001 values of structure\.blockade_chance\); at most 10,000 are allowed: list fewer values, or use a coarser step/],
  ];
  // One run of all of them: run checks every file before anything runs and says every problem
  // at once, so each file's line is there as it would be alone (a problem hiding another's fails).
  const allBad = shared(async () => {
    const dir = tmp();
    const out = path.join(dir, 'out');
    return { dir, out, r: await cli(['run', ...cases.map(([file]) => path.join('test/fixtures', file)), '--out', out]) };
  });
  it.each(cases)('%s exits 2 with file:line:col and the key path, and writes nothing', async (file, pattern) => {
    const { dir, out, r } = await allBad();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr.split('\n').filter((l) => l.startsWith(`test/fixtures/${file}:`))).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(`siegesim: ${cases.length} problems found; nothing was run or written`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('every independent problem in one pass: no bad sweep entry or expect item hides another\'s, sorted by line:col', async () => {
    // the new-user trial: a range without its step hid the reversed range and the typo, an empty
    // list hid `seed` in the sweep, and one quoted number in expect: hid six other mistakes
    // validate, not run: run says the expect: items the scenario no longer matches (p_braech,
    // diff_ without variants, a where on wall.type) as warnings and refuses the rest, while
    // validate (as test) refuses them all, which is the one-pass listing this pins
    const dir = tmp();
    const out = path.join(dir, 'out');
    const r = await cli(['validate', 'test/fixtures/bad-many.yaml']);
    expect(r.code).toBe(2);
    const F = 'test/fixtures/bad-many.yaml';
    expect(r.stderr.split('\n')).toEqual([
      `${F}:12:3  sweep.attacker.infantry.step  ${MSG.missingKey()}`,
      `${F}:13:21  sweep.attacker.cavalry  ${MSG.sweepRange()}`,
      `${F}:14:3  sweep.wall.dcc  ${MSG.badPath('wall.dcc', 'wall.dc')}`,
      `${F}:15:22  sweep.defender.infantry  ${MSG.tooFewEntries(1, 0)}`,
      `${F}:16:3  sweep.seed  ${MSG.reservedPath('seed')}`,
      `${F}:19:35  expect[0].at_least  ${MSG.wrongKind('a number', 'the text "0.1"', true)}`,
      `${F}:20:15  expect[1].metric  unknown metric "p_braech" (did you mean "p_breach"?)`,
      `${F}:21:34  expect[2].between  ${MSG.expectBetweenOrder(0.9, 0.5)}`,
      `${F}:22:34  expect[3].at_most  ${MSG.outsideProbability('at_most: 50', 'p_breach')}`,
      `${F}:23:15  expect[4].metric  ${MSG.diffNeedsVariants('diff_p_breach')}`,
      `${F}:24:5  expect[5]  ${MSG.expectOneBound([])}`,
      `${F}:25:49  expect[6].where.wall.type  ${MSG.whereNotSwept('wall.type', 'wall.hp', ['wall.hp'])}`,
      'siegesim: 12 problems found; nothing was run or written',
      '',
    ]);
    // run: the same problems in one pass, in the file's order; the file refused, its three stale expect: items are
    // among them, each saying test refuses it and the other commands go on without it (they were warnings first,
    // "this command goes on without it", above a refusal that counted 9)
    const ran = await cli(['run', F, '--out', out]);
    expect(ran.code).toBe(2);
    const lines = r.stderr.split('\n');
    const stale = [lines[6], lines[9], lines[11]];
    expect(stale.map((l) => l.split('  ')[1])).toEqual(['expect[1].metric', 'expect[4].metric', 'expect[6].where.wall.type']);
    expect(ran.stderr.split('\n')).toEqual([
      ...lines.slice(0, -2).map((l) => (stale.includes(l) ? `${l}; ${MSG.staleExpectRefused}` : l)),
      'siegesim: 12 problems found; nothing was run or written',
      '',
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('one bad file stops the whole run before anything is written', async () => {
    const dir = tmp();
    const r = await cli(['run', path.join(FIX, 'good-small.yaml'), path.join(FIX, 'bad-negative.yaml'), '--out', dir]);
    expect(r.code).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('bad flags and missing files exit 2', async () => {
    expect((await cli(['run', path.join(FIX, 'good-small.yaml'), '--threads', 'zero'])).code).toBe(2);
    const flag = await cli(['run', path.join(FIX, 'good-small.yaml'), '--precision', '-1']);
    expect(flag.code).toBe(2);
    // the problem and where to look, not 30 lines of usage that push the problem off the screen
    expect(flag.stderr).toBe("error: option '--precision <E>' argument '-1' is invalid. --precision must be a positive number\n(add --help to see the options)\n");
    expect(flag.stdout).toBe('');
    // the rest through one child (test/cli-batch.ts): the refusals above are run's own processes
    const dir = tmp();
    const locked = path.join(dir, 'locked.yaml');
    writeFileSync(locked, 'name: locked\n');
    chmodSync(locked, 0);
    writeFileSync(path.join(dir, 'keep.yaml'), 'name: keep\n');
    const [swallowed, missing, through, denied, near] = await runCliBatch([
      ['run', path.join(FIX, 'good-small.yaml'), '--seed', '--no-progress'],
      ['run', 'no/such/file.yaml'],
      ['validate', path.join(FIX, 'good-small.yaml', 'x.yaml')],
      ['validate', locked],
      ['run', path.join(dir, 'keep.yml')],
    ]);
    // a near miss beside it (keep.yml for keep.yaml) is named
    expect([near.code, near.stderr.split('\n')[0]]).toEqual([2, `${path.join(dir, 'keep.yml')}  (file)  ${MSG.fileUnreadable('ENOENT')} (did you mean ${path.join(dir, 'keep.yaml')}?)`]);
    // a flag whose value was left out does not take the next flag as its value (the seed "--no-progress")
    expect([swallowed.code, swallowed.stderr]).toEqual([2, "error: option '--seed <S>' argument '--no-progress' is invalid. --seed needs a value: --no-progress is one of run's options, not a value (was the value left out?)\n(add --help to see the options)\n"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`no/such/file.yaml  (file)  ${MSG.fileUnreadable('ENOENT')}\nsiegesim: 1 problem found; nothing was run or written\n`);
    expect(MSG.fileUnreadable('ENOENT')).toBe('no such file or folder'); // not the system's "ENOENT"
    // a path through a file, and a file this user may not read (root reads everything: not checked then)
    expect([through.code, through.stderr]).toEqual([2, expect.stringContaining(`x.yaml  (file)  ${MSG.fileUnreadable('ENOTDIR')}\n`)]);
    if (process.getuid?.() !== 0) {
      expect([denied.code, denied.stderr]).toEqual([2, expect.stringContaining(`locked.yaml  (file)  ${MSG.fileUnreadable('EACCES')}\n`)]);
      expect(MSG.fileUnreadable('EACCES')).toMatch(/^permission denied/);
    }
  });

  it('an interrupted run leaves no report and no temporary folder', async () => {
    const dir = tmp();
    const out = path.join(dir, 'big');
    const child = spawn(process.execPath, [CLI, 'run', path.join(FIX, 'good-small.yaml'), '--trials', '2000000000', '--out', out, '--threads', '1'], {
      cwd: ROOT,
    });
    // Interrupt once the run has started (its first line is printed), however slow the machine.
    await new Promise<void>((resolve) => {
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        err += d;
        if (/good-small: running/.test(err)) resolve();
      });
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(130);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('exact, check, validate, schema', () => {
  // One system at a time, so a slow system (crusader-rex's exact chains) is its own test.
  // One thread: the results do not depend on it (the 1-and-N-threads property test), and a pool
  // of two costs more CPU than it saves here (crusader-rex 9.1 s against 11.0, fantasy 1.4 against 2.7).
  const checkSystem = new Map(['surrender', 'crusader-rex', 'fantasy', 'cry-havoc'].map((system) => [system, shared(() => cli(['check', `scenarios/${system}`, '--trials', '20000', '--threads', '1']))]));
  it.each(['surrender', 'crusader-rex', 'fantasy', 'cry-havoc'])('check passes on every bundled %s scenario that has an exact form', async (system) => {
    // 20000 trials a case keeps the suite quick; rare events are judged by exact binomial tails
    const r = await checkSystem.get(system)!();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/check passed: \d+ comparisons/);
  }); // crusader-rex: every exact chain, ~7 s of CPU of its ~9, over a minute on a loaded machine (vitest.config.ts)

  it("check's table names every variant and metric whole, in aligned columns (charge-when-weaker was cut to charge-when-weake)", async () => {
    // knights-charge's own table in the check of every crusader-rex scenario above (its exact
    // chain is a second of CPU to compute again): from its head line to the next scenario's
    const r = await checkSystem.get('crusader-rex')!();
    expect(r.code, r.stderr).toBe(0);
    const all = r.stdout.split('\n');
    const start = all.findIndex((l) => /^# crusader-rex-knights-charge: /.test(l));
    expect(start).toBeGreaterThanOrEqual(0);
    const next = all.findIndex((l, i) => i > start && l.startsWith('# '));
    const lines = all.slice(start, next < 0 ? undefined : next);
    const header = lines.find((l) => l.startsWith('case '))!;
    const rows = lines.filter((l) => /^1 +charge-when-weaker +p_attacker_wins /.test(l));
    expect(rows).toHaveLength(1);
    expect(rows[0].indexOf('p_attacker_wins')).toBe(header.indexOf('metric'));
    expect(rows[0].length).toBe(header.length);
  });

  it('check with nothing to compare is not a pass, unless --allow-empty', async () => {
    const keep = path.join(FIX, 'keep.yaml'); // no exact form
    const r = await cli(['check', keep]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('keep: no exact form, skipped');
    expect(r.stdout).toMatch(/check FAILED: 0 comparisons/);
    expect(r.stderr).toContain('pass --allow-empty');
    const ok = await cli(['check', keep, '--allow-empty']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/check passed \(empty, --allow-empty\): 0 comparisons/);
  });

  it('check exits 1 when a |z| exceeds the limit', async () => {
    // With a limit of 0.001 some of the ~60 comparisons must exceed it: the exit path is real.
    const r = await cli(['check', path.join(FIX, 'good-small.yaml'), '--threads', '1', '--trials', '50000', '--z-limit', '0.001']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/check FAILED: \d+ comparisons/);
    expect(r.stdout).toContain('FAIL');
    const ok = await cli(['check', path.join(FIX, 'good-small.yaml'), '--threads', '1', '--trials', '50000']);
    expect(ok.code, ok.stdout).toBe(0);
  });

  const GRID = 'scenarios/fantasy/wall-hp-dc-grid.yaml';
  const HP = ['--param', 'wall.hp', '--metric', 'p_defender_wins', '--target', '0.5', '--from', '5', '--to', '60'];

  it('solve finds the smallest wall HP for a target, and says when it is out of reach', async () => {
    const r = await cli(['solve', GRID, '--threads', '1', ...HP, '--trials', '2000', '--no-sweep', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [j] = JSON.parse(r.stdout);
    expect(j).toMatchObject({ reachable: true, resolved: true, increasing: true, variant: 'baseline', point: {} });
    expect(j.at.ci_low).toBeGreaterThanOrEqual(0.5);
    expect(j.neighbour.value).toBe(j.value - 1);
    expect(j.neighbour.metric.ci_high).toBeLessThan(0.5);
    expect(j.evaluations.length).toBeLessThan(16); // bisection, not a scan
    // the rest through one child (test/cli-batch.ts): the real process above is solve's own
    const [text, none, noneJson, top, bad, outside, over, metric, variant] = await runCliBatch([
      ['solve', GRID, '--threads', '1', ...HP, '--trials', '2000', '--no-sweep'],
      ['solve', GRID, '--threads', '1', '--param', 'wall.hp', '--metric', 'p_defender_wins', '--target', '0.999', '--from', '5', '--to', '12', '--trials', '1000', '--no-sweep'],
      ['solve', GRID, '--threads', '1', '--param', 'wall.hp', '--metric', 'p_defender_wins', '--target', '0.999', '--from', '5', '--to', '12', '--trials', '1000', '--no-sweep', '--json'],
      ['solve', GRID, '--threads', '1', '--param', 'wall.dc', '--metric', 'p_defender_wins', '--target', '0.9999', '--from', '1', '--to', '40', '--trials', '1000', '--no-sweep'],
      ['solve', GRID, '--threads', '1', '--param', 'wall.hpp', '--metric', 'p_defender_wins', '--target', '0.5'],
      ['solve', GRID, '--threads', '1', '--param', 'wall.dc', '--metric', 'p_defender_wins', '--target', '0.5', '--from', '0', '--to', '20'],
      ['solve', GRID, '--threads', '1', '--param', 'wall.hp', '--metric', 'p_attacker_wins', '--target', '1.5', '--no-sweep', '--trials', '1000'],
      ['solve', GRID, '--threads', '1', '--param', 'wall.hp', '--metric', 'mean_volley_a_damage', '--target', '0.5'],
      ['solve', GRID, '--threads', '1', ...HP, '--variant', 'nope'],
    ]);
    expect(text.stdout).toMatch(new RegExp(`^wall\\.hp = ${j.value}: the smallest value with p_defender_wins >= 0\\.5`));
    expect(none.code).toBe(3);
    expect(none.stdout).toMatch(/^not reachable: p_defender_wins >= 0\.999 is not reached for wall\.hp in \[5, 12\]/);
    // which way to widen: the metric grows with wall.hp, so a higher --to (wall.hp allows up to 100,000)
    expect(none.stdout).toContain('p_defender_wins grows with wall.hp towards the target: try a higher --to (wall.hp allows up to 100000), e.g. --to 19');
    // the head line alone answers: the end that came closest, with its estimate and interval
    expect(none.stdout.split('\n')[0]).toMatch(/; closest at wall\.hp = 12 \(the top of the range\): 0\.\d{4} \[0\.\d{4}, 0\.\d{4}\]$/);
    expect(none.stdout).toMatch(/\n {2}at wall\.hp = 12: .*\(1,000 trials\), the closest\n {2}next: p_defender_wins grows/);
    // --json: an answer that is not there is "value": null, not a missing key
    expect(noneJson.code).toBe(3);
    const [n] = JSON.parse(noneJson.stdout);
    expect(n).toHaveProperty('value', null);
    expect(n).toMatchObject({ reachable: false, resolved: true, from: 5, to: 12, within: 0, allowed: { min: 0, max: 100000 } });
    expect(n.closest).toEqual({ end: 'to', value: 12, metric: n.ends.to });
    expect(n.next).toEqual({ widen: 'to', suggest: 19, text: 'p_defender_wins grows with wall.hp towards the target: try a higher --to (wall.hp allows up to 100000), e.g. --to 19' });
    // at the top of what the setting allows there is nowhere to widen to: said so
    expect(top.code).toBe(3);
    expect(top.stdout).toContain("p_defender_wins grows with wall.dc but 40 is the highest value it allows: the target is out of this setting's reach");
    expect(top.stdout.split('\n')[0]).toContain('; closest at wall.dc = 40 (the top of the range, the highest value wall.dc allows): ');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"wall.hpp" is not a numeric setting of system fantasy (did you mean "wall.hp"?)');
    expect(bad.stderr).not.toContain('solving'); // checked before the start line: nothing looks started
    expect(outside.code).toBe(2);
    expect(outside.stderr.trim()).toBe('siegesim: the range 0..20 goes outside the values wall.dc allows (1..40)');
    // a probability's target outside [0, 1]: refused before anything runs (never answered with exit 0)
    expect(over.code).toBe(2);
    expect(over.stdout).toBe('');
    expect(over.stderr).toContain('--target 1.5 is outside [0, 1]: "p_attacker_wins" is a probability');
    // an unknown metric: the scenario's own metrics listed, not another mode's (a siege has no volleys)
    expect(metric.code).toBe(2);
    expect(metric.stderr).toContain('unknown metric "mean_volley_a_damage" (this scenario\'s metrics: p_attacker_wins, p_defender_wins, p_undecided, mean_rounds');
    expect(metric.stderr).not.toMatch(/volley_b|mean_volley_a_damage,/);
    expect(variant.code).toBe(2);
    expect(variant.stderr).toContain('no variant "nope" in fantasy-wall-hp-dc-grid (its variants: baseline)');
  });

  it('solve finds a decimal setting\'s crossing to its resolution, checked against the exact answer (a chance in [0, 1] was bisected over the whole numbers 0 and 1: "= 1", exit 0)', async () => {
    const dir = tmp();
    // port-blockade without its sweep, at 20,000 trials: the blockade's chance in a turn is a decimal in [0, 1]
    const text = readFileSync(path.join(ROOT, 'scenarios/surrender/port-blockade.yaml'), 'utf8')
      .replace('trials: 5000000', 'trials: 20000')
      .replace(/\nsweep:\n.*\n?$/, '\n');
    expect(text).not.toContain('sweep:');
    const file = path.join(dir, 'blockade.yaml');
    writeFileSync(file, text);
    // the exact answer on the grid of hundredths: the smallest chance whose exact p_surrender >= 0.9
    const grid = path.join(dir, 'grid.yaml');
    writeFileSync(grid, text + 'sweep:\n  structure.blockade_chance: { from: 0, to: 1, step: 0.01 }\n');
    const ask = ['solve', file, '--threads', '1', '--param', 'structure.blockade_chance', '--metric', 'p_surrender', '--target', '0.9', '--no-progress'];
    // solve's text answer in a process of its own (below), the rest through one child (test/cli-batch.ts)
    const [exact, j, coarse, narrow, zero, port, half] = await runCliBatch([
      ['exact', grid, '--json'],
      [...ask, '--json'],
      [...ask, '--step', '0.05'],
      [...ask, '--from', '0.271', '--to', '0.279'],
      [...ask, '--step', '0'],
      ['solve', file, '--threads', '1', '--param', 'structure.port', '--metric', 'p_surrender', '--target', '0.9'],
      ['solve', file, '--threads', '1', '--param', 'turns', '--metric', 'p_surrender', '--target', '0.9', '--step', '0.5'],
    ]);
    expect(exact.code, exact.stderr).toBe(0);
    const cases = JSON.parse(exact.stdout)[0].cases as { params: Record<string, number>; metrics: { p_surrender: { value: number } } }[];
    expect(cases).toHaveLength(101);
    const first = cases.find((c) => c.metrics.p_surrender.value >= 0.9)!;
    const want = first.params['structure.blockade_chance'];
    expect(want).toBe(0.28); // 0.8946 at 0.27, 0.9039 at 0.28 (exact)
    const r = await cli(ask);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('solving structure.blockade_chance from 0 to 1 in steps of 0.01 for p_surrender to reach 0.9');
    expect(r.stdout).toMatch(/^structure\.blockade_chance = 0\.28 \(to 0\.01\): the smallest value with p_surrender >= 0\.9\n  at 0\.28: p_surrender 0\.9\d+ .*\n  at 0\.27: p_surrender 0\.89/);
    // --json: the answer, its neighbour one step below, the resolution and the kind; each value tried is on the grid
    expect(j.code, j.stderr).toBe(0);
    const [a] = JSON.parse(j.stdout);
    expect(a).toMatchObject({ value: want, step: 0.01, kind: 'number', from: 0, to: 1, allowed: { min: 0, max: 1 }, reachable: true, resolved: true, increasing: true });
    expect(a.neighbour.value).toBe(0.27);
    expect(a.at.ci_low).toBeGreaterThanOrEqual(0.9);
    expect(a.neighbour.metric.ci_high).toBeLessThan(0.9);
    for (const e of a.evaluations as { value: number }[]) expect(Math.abs(e.value * 100 - Math.round(e.value * 100))).toBeLessThan(1e-9);
    expect(a.evaluations.length).toBeLessThan(16); // bisection over the 101 hundredths, not a scan
    // a coarser resolution: --step 0.05 answers 0.3 (0.25 falls short: 0.8749 exact)
    expect(coarse.code, coarse.stderr).toBe(0);
    expect(coarse.stdout).toMatch(/^structure\.blockade_chance = 0\.3 \(to 0\.05\): the smallest value with p_surrender >= 0\.9\n/);
    // a range with no two values on the grid, a step that is not positive, and a yes/no setting: refused, exit 2, nothing printed
    expect(narrow.code).toBe(2);
    expect(narrow.stderr.trim()).toBe('siegesim: the range 0.271..0.279 holds fewer than two multiples of 0.01, the resolution: give a wider range or a smaller --step');
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--step must be a positive number, got 0');
    expect(port.code).toBe(2);
    expect(port.stdout).toBe('');
    expect(port.stderr).toContain('"structure.port" is a yes/no setting (false, true), not a number: solve searches a number\'s range for where a metric crosses a target; compare its options with a sweep of structure.port instead');
    // an integer setting keeps whole numbers: a fractional step is refused
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--step must be a whole number >= 1 (turns is an integer setting), got 0.5');
  }, 60_000);

  it('solve says when its answer is unresolved (exit 4), and adds trials to resolve it (at --trials 100 an answer of 18 over 17 at 0.5050 [0.4562, 0.5537] would be a guess)', async () => {
    // one thread throughout: the answers do not depend on it, and solve's many small evaluations
    // cost about twice the CPU on a pool of two
    const r = await cli(['solve', GRID, '--threads', '1', ...HP, '--trials', '100', '--no-sweep', '--max-trials', '400']);
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/^UNRESOLVED: wall\.hp = 18 is only the best estimate of the smallest value with p_defender_wins >= 0\.5: the 95% intervals of 18 and 17 do not separate the target even at the cap of 400 trials per value/);
    // --json, and the higher cap, through one child (test/cli-batch.ts)
    const [j, ok] = await runCliBatch([
      ['solve', GRID, '--threads', '1', ...HP, '--trials', '100', '--no-sweep', '--max-trials', '400', '--json'],
      ['solve', GRID, '--threads', '1', ...HP, '--trials', '100', '--no-sweep', '--max-trials', '20000', '--json'],
    ]);
    expect(j.code).toBe(4);
    const [u] = JSON.parse(j.stdout);
    expect(u).toMatchObject({ value: 18, reachable: true, resolved: false, max_trials: 400 });
    expect(u.neighbour.metric.ci_low).toBeLessThan(0.5);
    expect(u.neighbour.metric.ci_high).toBeGreaterThanOrEqual(0.5);
    // a higher cap lets it add trials on the same dice until the intervals separate
    expect(ok.code, ok.stderr).toBe(0);
    const [a] = JSON.parse(ok.stdout);
    expect(a).toMatchObject({ value: 18, resolved: true });
    expect(a.at.ci_low).toBeGreaterThanOrEqual(0.5);
    expect(a.neighbour.metric.ci_high).toBeLessThan(0.5);
    expect(a.at.n).toBeGreaterThan(400);
  });

  it('solve --within: a neighbour practically on the target counts as reaching it (the designer of wall.dc = 12 got exit 4 at 0.4994 [0.4981, 0.5006])', async () => {
    // without it 18 (0.52) over 17 (0.4685 [0.4576, 0.4794]); within 0.04, 17 is clearly on target and 16 (0.40) clearly not
    const args = ['solve', GRID, '--threads', '1', ...HP, '--trials', '2000', '--no-sweep'];
    const r = await cli([...args, '--within', '0.04']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wall\.hp = 17: the smallest value with p_defender_wins >= 0\.5 \(within 0\.04: >= 0\.46\)\n/);
    const bad = await cli([...args, '--within', '-1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--within must be a number >= 0');
  });

  it('solve answers at each sweep point, on the --variant asked for (surrender: exact answers)', async () => {
    // good-small sweeps surrender level L x heavy guns h; on "lenient" (<=) one test succeeds
    // with p = (L + h + k + 1) / 6, k = floor(steps / 5): p >= 0.9 first at k = 5 - L - h
    const r = await cli(['solve', path.join(FIX, 'good-small.yaml'), '--threads', '1', '--param', 'besieged.steps_inside', '--metric', 'p_test', '--target', '0.9', '--from', '0', '--to', '30', '--trials', '1000', '--variant', 'lenient', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.map((p: { point: object; value: number; variant: string; resolved: boolean }) => [p.point, p.value, p.variant, p.resolved])).toEqual([
      [{ 'structure.surrender_level': 2, 'besieger.heavy_siege_artillery': 0 }, 15, 'lenient', true],
      [{ 'structure.surrender_level': 2, 'besieger.heavy_siege_artillery': 1 }, 10, 'lenient', true],
      [{ 'structure.surrender_level': 3, 'besieger.heavy_siege_artillery': 0 }, 10, 'lenient', true],
      [{ 'structure.surrender_level': 3, 'besieger.heavy_siege_artillery': 1 }, 5, 'lenient', true],
    ]);
  });

  it('solve tells a log where it starts and how it ended, not every evaluation (--verbose lists them)', async () => {
    // a log gets two lines, not one per evaluation (some fifty for docs/scenarios.md's grid example)
    // one thread: the log does not depend on it, and solve's many small evaluations cost about twice the CPU on a pool of two
    const args = ['solve', GRID, '--threads', '1', '--param', 'wall.hp', '--metric', 'p_defender_wins', '--target', '0.5', '--from', '5', '--to', '80', '--trials', '1000'];
    const quiet = await cli(args);
    // 0, or 4 when an answer's value sits too near the target to separate at the trial cap (an
    // UNRESOLVED answer, decided by the dice): the log is the same either way
    expect([0, 4], quiet.stderr).toContain(quiet.code);
    const lines = quiet.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      'fantasy-wall-hp-dc-grid: solving wall.hp from 5 to 80 for p_defender_wins to reach 0.5',
      expect.stringMatching(/^fantasy-wall-hp-dc-grid: 5 answers, one per sweep point of wall\.dc, from \d+ evaluations \([\d,]+ trials\) in [\d.]+ s \(--verbose lists them\)$/),
    ]);
    const loud = await cli([...args, '--verbose', '--json']);
    expect(loud.code, loud.stderr).toBe(quiet.code);
    const evaluations = JSON.parse(loud.stdout).reduce((n: number, p: { evaluations: unknown[] }) => n + p.evaluations.length, 0);
    const listed = loud.stderr.split('\n').filter((l) => /^ {2}\[wall\.dc = \d+\] wall\.hp = \d+: p_defender_wins /.test(l));
    expect(listed).toHaveLength(evaluations);
    expect(loud.stderr).toContain(`from ${evaluations} evaluations`);
  });

  it.runIf(existsSync('/usr/bin/script'))('solve on a terminal draws one progress line that it rewrites in place, then clears', async () => {
    const cmd = [process.execPath, CLI, 'solve', GRID, '--threads', '1', '--param', 'wall.hp', '--metric', 'p_defender_wins', '--target', '0.5', '--from', '5', '--to', '80', '--trials', '1000', '--no-sweep'];
    // script(1) gives the child a terminal; its stdout goes to a file so the terminal shows stderr alone
    const out = path.join(tmp(), 'answer.txt');
    const r = await run('/usr/bin/script', ['-qec', `${cmd.map((a) => `'${a}'`).join(' ')} > '${out}'`, '/dev/null'], ROOT);
    expect(r.code, r.stdout).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^wall\.hp = \d+: the smallest value/);
    expect(r.stdout).toMatch(/fantasy-wall-hp-dc-grid  \[[^\]]*\] \d+% \| \d+\/\d+ evaluations/);
    expect(r.stdout).not.toMatch(/\n {2}wall\.hp = \d+: p_defender_wins/); // no listing
  });

  it('run --precision 2 is refused (a half-width on [0, 1]), and --max-trials without --precision is noted', async () => {
    const dir = tmp();
    const [out, never] = [path.join(dir, 'out'), path.join(dir, 'never')];
    // through one child (test/cli-batch.ts; run has processes of its own above), the runs that
    // write first (a refusal ends the child's writing), on one thread (not what is checked)
    const [capped, fine, two] = await runCliBatch([
      ['run', path.join(FIX, 'good-small.yaml'), '--max-trials', '100', '--out', out, '--json', '--threads', '1', '--no-charts'],
      ['run', path.join(FIX, 'good-small.yaml'), '--trials', '50', '--max-trials', '100', '--out', out, '--threads', '1', '--no-charts'],
      ['run', path.join(FIX, 'good-small.yaml'), '--precision', '2', '--out', never],
    ]);
    expect(two.code).toBe(2);
    expect(two.stderr.trim()).toBe(
      "siegesim: --precision must be below 0.5, got 2: it is the half-width of the headline probabilities' 95% intervals, on [0, 1], and every interval is narrower than 0.5 at once (for ±2 points, --precision 0.02)",
    );
    expect(existsSync(never)).toBe(false);
    // valid but easy to misread: the cap runs 100 trials a case whatever the file asks; said on stderr
    expect(capped.code, capped.stderr).toBe(0);
    expect(capped.stderr).toContain('siegesim: note: --max-trials 100 without --precision caps every case at 100 trials');
    expect(JSON.parse(capped.stdout)[0].cases.every((c: { trials: number }) => c.trials === 100)).toBe(true);
    // with --precision, or a --trials within the cap, nothing to note
    expect(fine.code).toBe(0);
    expect(fine.stderr).not.toContain('note: --max-trials');
  });

  it('solve works on the surrender system too', async () => {
    const r = await cli(['solve', 'scenarios/surrender/town-basic.yaml', '--threads', '1', '--param', 'besieged.steps_inside', '--metric', 'p_test', '--target', '0.9', '--from', '0', '--to', '40', '--trials', '20000', '--json']);
    expect(r.code, r.stderr).toBe(0);
    // town-basic: roll - 1 (artillery) - floor(steps/5) < 3 on a d6 reaches 5/6 at 10 steps, 1 at 15
    expect(JSON.parse(r.stdout)[0].value).toBe(15);
  });

  it("solve writes its values as run's answer does: a certainty is 1, not 1.0000 (found by the fresh-eyes trial)", async () => {
    const r = await cli(['solve', 'scenarios/surrender/town-basic.yaml', '--threads', '1', '--param', 'structure.surrender_level', '--metric', 'p_surrender', '--target', '0.99995', '--trials', '20000']);
    expect(r.code, r.stderr).toBe(0);
    // all 80 000 trials at level 3 surrendered: the value is 1, its interval reaches down to the target's side
    expect(r.stdout).toMatch(/^ {2}at 3: p_surrender 1 \[0\.9999\d*, 1\] \(80,000 trials\)$/m);
    expect(r.stdout).not.toMatch(/\b[01]\.0000\b/);
  });

  it('los answers the sight-line test and the dead zone', async () => {
    const r = await cli(['los', '--n', '3', '--d', '7', '--d1', '5', '--h', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ possible: true, lhs: 15, rhs: 14, minD1: 4, maxD2: 2, rounding: 'default' });
    // the other questions through one child (test/cli-batch.ts): the real process above is los's own
    const [src, impossible, notNumber, half, quarter, flat, flatJson, level, levelJson, higher, tooFar] = await runCliBatch([
      ['los', '--n', '3', '--d', '7', '--d1', '5', '--h', '2', '--rounding', 'source'],
      ['los', '--n', '3', '--d', '4', '--d1', '5', '--h', '2'],
      ['los', '--n', 'x', '--d', '4', '--d1', '1', '--h', '2'],
      // half levels (1.10: an embankment at 0.5, a siege-tower top at 2.5); a quarter is refused
      ['los', '--n', '2.5', '--d', '10', '--d1', '6', '--h', '0.5'],
      ['los', '--n', '1.25', '--d', '10', '--d1', '6', '--h', '0'],
      ['los', '--n', '2', '--d', '10', '--d1', '6', '--h', '0'],
      ['los', '--n', '2', '--d', '10', '--d1', '0', '--h', '0', '--json'],
      ['los', '--n', '1', '--d', '10', '--d1', '10', '--h', '1'],
      ['los', '--n', '1', '--d', '10', '--d1', '10', '--h', '1', '--json'],
      ['los', '--n', '2', '--d', '0', '--d1', '0', '--h', '3'],
      ['los', '--n', '3', '--d', '5', '--d1', '8', '--h', '2'],
    ]);
    expect(src.stdout).toMatch(/^possible: N x D1 = 3 x 5 = 15 >= D x H = 7 x 2 = 14/);
    expect(src.stdout).toContain('the upper character must stand at D2 <= 3');
    expect(impossible.code).toBe(2);
    expect(notNumber.code).toBe(2);
    expect(half.code, half.stderr).toBe(0);
    expect(half.stdout).toMatch(/^possible: N x D1 = 2\.5 x 6 = 15 >= D x H = 10 x 0\.5 = 5/);
    expect(half.stdout).toContain('the upper character must stand at D2 <= 24');
    expect(quarter.code).toBe(2);
    expect(quarter.stderr).toContain('--n must be a whole or half level >= 0 (0, 0.5, 1, 1.5, ...)');
    // an obstruction of height 0 hides nothing: said in words, never "D2 <= Infinity"
    expect(flat.stdout).toContain('the obstruction (H = 0) is no higher than the lower character: it hides nothing, at any distance (no dead zone)');
    expect(flat.stdout).not.toMatch(/Infinity|NaN/);
    expect(JSON.parse(flatJson.stdout)).toMatchObject({ possible: true, minD1: 0, maxD2: null, deadZone: 'none' });
    // N = H: possible only at D2 = 0, and the dead zone says the same (seed 004 R4)
    expect(level.stdout).toMatch(/^possible: N x D1 = 1 x 10 = 10 >= D x H = 10 x 1 = 10/);
    expect(level.stdout).toContain('only the upper character standing at it (D2 = 0) sees over it, from any D1');
    expect(JSON.parse(levelJson.stdout)).toMatchObject({ possible: true, minD1: 0, maxD2: 0, deadZone: 'partial' });
    expect(higher.stdout).toContain('no position with the characters apart (D > 0) sees over it; only D = D1 = 0 passes the test');
    expect(tooFar.stderr).toContain('--d1 cannot exceed --d (the obstruction lies between the two characters)');
  });

  it('exact prints the closed form; --json is an array, one element per scenario', async () => {
    const r = await cli(['exact', 'scenarios/surrender/town-basic.yaml', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toHaveLength(1);
    expect(j[0].cases[0].metrics.p_test.value).toBeCloseTo(4 / 6, 12);
    // a mean over the trials of an event says which, in JSON (as summary.json) and in the text
    expect(j[0].conditional_on).toEqual({ mean_turns: 'p_surrender' });
    // the text and two scenarios through one child (test/cli-batch.ts)
    const [text, two] = await runCliBatch([
      ['exact', 'scenarios/surrender/town-basic.yaml', 'scenarios/surrender/fortress-readings.yaml'],
      ['exact', 'scenarios/surrender/town-basic.yaml', 'scenarios/surrender/hopeless-citadel.yaml', '--json'],
    ]);
    expect(text.stdout.split('\n').filter((l) => l.startsWith('# mean_turns'))).toEqual([
      '# mean_turns: a mean over the trials with p_surrender',
      '# mean_turns: a mean over the trials with p_surrender (diff_mean_turns: the difference of two such means, over different trials where p_surrender differs)',
    ]);
    expect(JSON.parse(two.stdout).map((s: { name: string }) => s.name)).toEqual(['surrender-town-basic', 'surrender-hopeless-citadel']);
  });

  it('validate reports each file', async () => {
    const r = await cli(['validate', 'scenarios']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ok {2}scenarios\/surrender\/heavy-guns-grid\.yaml {2}surrender-heavy-guns-grid \(surrender, 30 cases\)/);
  });

  it('scenarios/scenario.schema.json is the generated schema (run npm run schema)', async () => {
    const committed = JSON.parse(readFileSync(path.join(ROOT, 'scenarios/scenario.schema.json'), 'utf8'));
    expect(committed).toEqual(jsonSchemaOf(SYSTEMS));
    const r = await cli(['schema']);
    expect(JSON.parse(r.stdout)).toEqual(committed);
  });

  it('the version matches package.json', async () => {
    expect(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version).toBe(VERSION);
    expect((await cli(['--version'])).stdout.trim()).toBe(VERSION);
  });

  it('runs as `npx siegesim` runs it: the bin of package.json, executed as a file (its mode and shebang), from the build', async () => {
    // npm exec runs a project's own bin in place, without the chmod npm install gives a linked
    // one: a bin left as tsc writes it (0644) fails every documented example with "Permission denied"
    const bin = path.join(ROOT, JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).bin.siegesim);
    expect(statSync(bin).mode & 0o111, `${bin} is not executable`).toBe(0o111);
    const r = await run(bin, ['--version'], ROOT);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(VERSION);
  });
});

describe('roster', () => {
  it('lists the 62 Crusader Rex blocks with side and stats; --json; other systems have none (exit 2)', async () => {
    const r = await cli(['roster', 'crusader-rex']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^# crusader-rex: 62 blocks \(31 franks, 31 saracens; docs\/rules\/crusader-rex\.md 5\.1\)/);
    expect(lines).toHaveLength(2 + 62);
    expect(r.stdout).toMatch(/\nJerusalem Templars +franks +military_order +3 +B3\n/);
    // --json and the system without a roster through one child (test/cli-batch.ts)
    const [j, none] = await runCliBatch([
      ['roster', 'crusader-rex', '--json'],
      ['roster', 'surrender'],
    ]);
    const all = JSON.parse(j.stdout);
    expect(all).toHaveLength(62);
    expect(all).toContainEqual({ name: 'Saladin', side: 'saracens', type: 'emir', steps: 4, rating: 'A3' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('system surrender has no roster');
  });
});

describe('bench and the checkout', () => {
  it('an unknown benchmark name exits 2 with the list of names, and writes nothing', async () => {
    const out = path.join(ROOT, 'bench/results/surender.json');
    const r = await cli(['bench', 'surender', '--check']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown benchmark "surender" (did you mean "surrender"?); the benchmarks are: dice, surrender,');
    expect(existsSync(out)).toBe(false);
    // a measurement is bounded: --seconds 1e9 ran until killed (found by the fuzzing helper)
    const long = await cli(['bench', 'dice', '--seconds', '1e9']);
    expect([long.code, long.stderr]).toEqual([2, expect.stringContaining('--seconds must be at most 600 (a measurement of ten minutes; a whole bench runs dozens), got 1e9')]);
  });

  it('no committed file is ignored by .gitignore (scenarios/scenario.schema.json among them)', async () => {
    const r = await run('git', ['ls-files', '--cached', '--ignored', '--exclude-standard'], ROOT);
    if (r.code === null || r.stderr.includes('not a git repository')) return; // not a checkout (a package)
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('');
  });
});
