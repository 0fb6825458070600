/**
 * The workbench search's command line (`reproduce` in POST /api/tune's `done`): the `siegesim tune`
 * line that gives the page's answer, run with the built CLI and held to the answer candidate for
 * candidate; refused, with the reason, when no `--where` gives the case; and its words read back
 * as the numbers the page searched with.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { commandCase, mainThreadExecutor, parseRange, parseTarget, validateText, type Executor } from '../src/api.js';
import { tunedYaml } from '../src/api/live.js';
import type { Reproduce, TuneDone } from '../src/api/protocol.js';
import { num } from '../src/report/format.js';
import { rootsOf } from '../src/serve/catalogue.js';
import { startWorkbench, type Workbench } from '../src/serve/server.js';
import { tuneLine } from '../src/serve/tuning.js';
import { ROOT, runCli, tempDirs } from './cli-child.js';
import { shellSplit, type CliCheck } from './ranking-line.js';

const makeTmp = tempDirs('siegesim-tune-line-');
let wb: Workbench;
let exec: Executor;
let served: string;
const logs: string[] = [];

/** A file whose baseline variant sets wall.dc, left to the rules in the file, and whose second variant does not. */
const AUTO_DC = `name: auto-dc
system: fantasy
seed: 5
trials: 1000
mode: siege
attacker: { infantry: 8, cavalry: 3 }
defender: { infantry: 8 }
wall: { type: stone, breach_threshold: 4 }
rules: { tower_bonus: none }
max_rounds: 10
variants:
  - name: dc-14
    set: { wall.dc: 14 }
  - name: auto
    set: { max_rounds: 12 }
`;

beforeAll(async () => {
  served = path.join(makeTmp(), 'served');
  mkdirSync(path.join(served, 'fantasy'), { recursive: true });
  copyFileSync(path.join(ROOT, 'scenarios/fantasy/climbers-dc.yaml'), path.join(served, 'fantasy/climbers-dc.yaml'));
  writeFileSync(path.join(served, 'fantasy/auto-dc.yaml'), AUTO_DC);
  exec = mainThreadExecutor();
  wb = await startWorkbench({ roots: rootsOf([served]).roots, port: 0, executor: exec, log: (l) => logs.push(l) });
});

afterAll(async () => {
  await wb?.close();
  await exec?.close();
});

/** POST /api/tune, read to its end: the stream's last message (its `done`). */
async function tune(body: Record<string, unknown>): Promise<TuneDone> {
  const r = await fetch(`${wb.url}api/tune`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Siegesim-Client': 'tune-line-test-01' }, body: JSON.stringify(body) });
  const text = await r.text();
  expect(r.status, text).toBe(200);
  const last = JSON.parse(text.trim().split('\n').at(-1)!) as TuneDone;
  expect(last.type, text).toBe('done');
  return last;
}

interface CliEvaluation {
  values: Record<string, number>;
  trials: number;
  checks?: CliCheck[];
}

describe("the search's command line (siegesim tune)", () => {
  it('gives the page\'s answer and every candidate\'s numbers: a variant, a tuned value, and a swept one off the sweep (the tuned copy)', async () => {
    // climbers-dc sweeps wall.dc [8, 12, 16]: 20 is none of its points, so the line runs the saved
    // copy (its sweep gains 20, the point whose dice the page rolls); the page's default range is
    // the file's sweep (8..16) where tune on the copy would span the copy's (8..20): the line says the range
    const ask = { scenario: 'fantasy/climbers-dc.yaml', variant: 'above-dc', values: { 'wall.dc': 20, 'attacker.infantry': 10 } };
    const done = await tune({ ...ask, params: ['wall.dc'], targets: [{ metric: 'p_breach', lo: 0.6, hi: 0.7 }], trials: 512, budget: 40_000 });
    const line = done.reproduce;
    if (line.command === null) throw new Error(`no command line: ${line.reason}`);
    expect(line).toEqual({
      command: "npx siegesim tune climbers-dc.tuned.yaml --where wall.dc=20,rules.climb_comparison=gt,attacker.infantry=10 --params wall.dc --target 'p_breach in [0.6, 0.7]' --range wall.dc=8..16 --trials 512 --budget 40000 --seed 23",
      file: 'climbers-dc.tuned.yaml',
      where: { 'wall.dc': 20, 'rules.climb_comparison': 'gt', 'attacker.infantry': 10 },
      tuned: true,
      gains: { 'wall.dc': 20 },
      first: { 'wall.dc': 8 },
    });
    // the copy as the page saves it, and the line run where it is, as a person would
    const dir = makeTmp();
    const text = readFileSync(path.join(served, ask.scenario), 'utf8');
    const v = validateText(ask.scenario, text);
    if (!v.ok) throw new Error('climbers-dc');
    const saved = tunedYaml(text, v.value, ask);
    if (!saved.ok) throw new Error(JSON.stringify(saved.issues));
    writeFileSync(path.join(dir, line.file), saved.yaml);
    const words = shellSplit(line.command);
    expect(words.slice(0, 3)).toEqual(['npx', 'siegesim', 'tune']);
    const r = await runCli([...words.slice(2), '--json', '--no-progress', '--threads', '1', '--out', path.join(dir, 'tune')], { cwd: dir });
    expect(r.code === 0 || r.code === 3, `${line.command}\n${r.stderr}`).toBe(true); // 3: no candidate met the target
    const cli = JSON.parse(r.stdout) as { found: boolean; params: TuneDone['params']; trials_used: number; budget: number; best: CliEvaluation; evaluations: CliEvaluation[] };
    // the same search: the same ranges, candidates, trials and answer
    const check = (c: CliCheck) => [c.metric, num(c.value), num(c.ci_low), num(c.ci_high), c.met];
    expect([cli.found, cli.params, cli.trials_used, cli.budget, cli.evaluations.length]).toEqual([done.found, done.params, done.trialsUsed, done.budget, done.evaluated]);
    expect([cli.best.values, cli.best.trials, cli.best.checks!.map(check)]).toEqual([done.best.values, done.best.trials, done.best.checks!.map(check)]);
    // every candidate's numbers as the page drew them (one setting: each target's estimate and
    // interval at each value, the last, most trials, of each candidate)
    const latest = new Map<number, CliEvaluation>();
    for (const e of cli.evaluations) latest.set(e.values['wall.dc'], e);
    const drawn = (done.chart.spec as { data: { values: { x: number; metric: string; value: number; lo: number; hi: number }[] } }).data.values;
    const key = (x: number, m: string, value: number, lo: number, hi: number) => [x, m, num(value), num(lo), num(hi)];
    expect(drawn.length).toBeGreaterThan(8); // the coarse grid's 9 at least
    expect(drawn.map((d) => key(d.x, d.metric, d.value, d.lo, d.hi))).toEqual([...latest.values()].flatMap((e) => e.checks!.map((c) => key(e.values['wall.dc'], c.metric, c.value, c.ci_low, c.ci_high))));
  }, 120_000);

  it("a range left empty is the file's sweep of the setting, as the page says and tune on the file has it (was around the tuned case's value: 10..40 for wall.dc 20)", async () => {
    const done = await tune({ scenario: 'fantasy/climbers-dc.yaml', values: { 'wall.dc': 20 }, params: ['wall.dc', 'attacker.infantry'], targets: [{ metric: 'p_breach', lo: 0.6, hi: 0.7 }], trials: 64, budget: 64 * 200 });
    // a setting the file does not sweep: around its value (8: 3..16), as before
    expect(done.params).toEqual([
      { path: 'wall.dc', lo: 8, hi: 16, loaded: 20 },
      { path: 'attacker.infantry', lo: 3, hi: 16, loaded: 8 },
    ]);
  }, 60_000);

  it('says why no command line gives the case: the baseline variant sets a value the file leaves to the rules, the chosen one does not', async () => {
    const done = await tune({ scenario: 'fantasy/auto-dc.yaml', variant: 'auto', params: ['attacker.infantry'], targets: [{ metric: 'p_breach', lo: 0.4, hi: 0.6 }], trials: 64, budget: 64 * 200 });
    expect(done.reproduce).toEqual({
      command: null,
      reason: 'the baseline variant (dc-14) sets wall.dc, which the file leaves to the system and the variant "auto" does not set: --where cannot give this case',
    });
    // the baseline variant itself: the file as it is
    const base = await tune({ scenario: 'fantasy/auto-dc.yaml', params: ['attacker.infantry'], targets: [{ metric: 'p_breach', lo: 0.4, hi: 0.6 }], trials: 64, budget: 64 * 200 });
    const file = path.relative(process.cwd(), path.join(served, 'fantasy/auto-dc.yaml')); // as the server names it: from where it runs
    expect(base.reproduce.command).toBe(`npx siegesim tune ${file} --params attacker.infantry --target 'p_breach in [0.4, 0.6]' --range attacker.infantry=3..16 --trials 64 --budget 12800 --seed 5`);
    expect(logs.filter((l) => /failed|internal error/.test(l))).toEqual([]);
  }, 60_000);

  it('quotes what a shell would split and writes numbers that read back as the same ones', () => {
    const v = validateText('t.yaml', AUTO_DC);
    if (!v.ok) throw new Error('auto-dc');
    const r = { params: [{ path: 'wall.hp', lo: -5, hi: 3 }], targets: [{ metric: 'p_breach', lo: 1e-7, hi: 0.1 + 0.2 }, { metric: 'mean_rounds', lo: -0.5, hi: 2.5e21 }], trials: 100, budget: 20_000, seed: "it's" };
    const line: Reproduce = tuneLine('my siege.yaml', commandCase(v.value, {}), r);
    expect(line.command).toBe(
      "npx siegesim tune 'my siege.yaml' --params wall.hp --target 'p_breach in [1e-7, 0.30000000000000004]' --target 'mean_rounds in [-0.5, 2.5e+21]' --range wall.hp=-5..3 --trials 100 --budget 20000 --seed 'it'\\''s'",
    );
    const words = shellSplit(line.command!);
    const flag = (f: string) => words.flatMap((w, i) => (w === f ? [words[i + 1]] : []));
    expect(words[3]).toBe('my siege.yaml');
    expect(flag('--target').map(parseTarget)).toEqual(r.targets);
    expect(flag('--range').map(parseRange)).toEqual([{ param: 'wall.hp', lo: -5, hi: 3 }]);
    expect(flag('--seed')).toEqual(["it's"]);
  });
});
