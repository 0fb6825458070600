import { unsureText } from '../src/report/tune-verdict.js';
import { describe, expect, it } from 'vitest';
import { YieldingExecutor } from './helpers.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseRange, parseTarget, plateauText, runScenario, solveJson, solveScenario, tuneScenario, TuneInputError, TuningInputError, validateText, type TuneResult } from '../src/api.js';
import { plateauAround } from '../src/api/plateau.js';
import { defaultRange, judge, missedBy } from '../src/api/tune.js';
import { baseCaseOf } from '../src/api/tunables.js';
import type { ValidScenario } from '../src/scenario/validate.js';
import { Z95 } from '../src/stats/intervals.js';
import type { Metric } from '../src/systems/types.js';
import { regionChart, tuneCsv, tuneJson, tunePage } from '../src/report/tune.js';
import { tuneProblemText } from '../src/report/tune-text.js';
import { tuneText } from '../src/cli/commands/tune.js';

const inProcess = new YieldingExecutor();

function scenario(text: string): ValidScenario {
  const v = validateText('t.yaml', text);
  if (!v.ok) throw new Error(v.issues.map((i) => `${i.path} ${i.message}`).join('; '));
  return v.value;
}

// See the fixture: both targets hold near HP 40-50, DC 12.
const SIEGE = readFileSync(path.resolve(import.meta.dirname, 'fixtures/tune-siege.yaml'), 'utf8');
const TARGETS = [parseTarget('p_attacker_wins in [0.45, 0.55]'), parseTarget('mean_rounds in [3.6, 4.2]')];
const RANGES: Record<string, [number, number]> = { 'wall.hp': [20, 60], 'wall.dc': [8, 16] };

const m = (value: number, ci = 0.01): Metric => ({ kind: 'probability', value, ci_low: value - ci, ci_high: value + ci, n: 100 });

describe('the verdict says when a target is met by the estimate alone', () => {
  it("'found' with every interval inside says nothing more; with an interval past an edge it says so (the second new-user audit)", () => {
    expect(unsureText([{ met: true, sure: true }])).toBe('');
    expect(unsureText([{ met: true, sure: false }])).toBe('; by its estimate: its 95% interval reaches past an edge of the target');
    expect(unsureText([{ met: true, sure: true }, { met: true, sure: false }, { met: true, sure: false }])).toBe('; 2 of 3 by the estimate alone: their 95% intervals reach past an edge');
    expect(unsureText(undefined)).toBe('');
  });
});

describe('tune: targets, ranges and scores', () => {
  it('parses "<metric> in [lo, hi]" and LO..HI, and rejects anything else', () => {
    expect(parseTarget('p_attacker_wins in [0.45, 0.55]')).toEqual({ metric: 'p_attacker_wins', lo: 0.45, hi: 0.55 });
    expect(parseTarget(' mean_rounds in [6,10] ')).toEqual({ metric: 'mean_rounds', lo: 6, hi: 10 });
    expect(parseTarget('x in [-1e-3, .5]')).toEqual({ metric: 'x', lo: -0.001, hi: 0.5 });
    for (const bad of ['p in 0.4..0.5', 'p in [0.5, 0.4]', 'p in [0.5, 0.5]', 'p >= 0.5', 'in [0, 1]', 'p in [a, b]']) expect(() => parseTarget(bad), bad).toThrow(TuningInputError);
    expect(parseRange('wall.hp=10..60')).toEqual({ param: 'wall.hp', lo: 10, hi: 60 });
    expect(parseRange('x=-3..4')).toEqual({ param: 'x', lo: -3, hi: 4 });
    for (const bad of ['wall.hp=10-60', 'wall.hp=1.5..3', '=1..2', 'wall.hp']) expect(() => parseRange(bad), bad).toThrow(TuningInputError);
  });

  it("default ranges: the file's sweep of the setting, else around the case's value (half to twice it, at least 5 either side), never the schema's whole range", () => {
    expect(defaultRange(0, 200, 8)).toEqual([3, 16]); // a count allows 0..200: searched near the 8 written
    expect(defaultRange(1, 40, 12)).toEqual([6, 24]);
    expect(defaultRange(0, 100000, 30)).toEqual([15, 60]);
    expect(defaultRange(0, 100000, 1)).toEqual([0, 6]);
    expect(defaultRange(-10, 10, -2)).toEqual([-7, 3]);
    expect(defaultRange(1, 6, 3)).toEqual([1, 6]); // inside the schema's bounds
    expect(defaultRange(0, 100000, 10, [10, 20, 30, 40, 60, 80])).toEqual([10, 80]); // the sweep's span
    expect(defaultRange(0, 100000, 10, [10])).toEqual([5, 20]); // one value is no span
    expect(defaultRange(1, 40, undefined)).toEqual([1, 40]); // no value in the case: the schema's, when narrow
    expect(defaultRange(0, 100000, undefined)).toBeUndefined(); // ... else ask for --range
  });

  it('searches near the case, not over the whole schema range where the answer sat at a corner (climbers-dc: 1 infantry of the 8 written, DC 7)', async () => {
    const climbers = scenario(readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/climbers-dc.yaml'), 'utf8'));
    const plan = async (ranges?: Record<string, [number, number]>) => {
      let params: unknown;
      const stop = (p: { params: unknown }) => {
        params = p.params;
        throw new TuningInputError('planned');
      };
      await expect(tuneScenario(climbers, { executor: inProcess, params: ['wall.dc', 'attacker.infantry'], targets: [parseTarget('p_breach in [0.45, 0.55]')], ranges, onPlan: stop })).rejects.toThrow('planned');
      return params;
    };
    // wall.dc: the file sweeps it over 8, 12, 16; attacker.infantry: around the 8 written (it searched 1..40 and 0..200)
    expect(await plan()).toEqual([
      { path: 'wall.dc', lo: 8, hi: 16, loaded: 8 },
      { path: 'attacker.infantry', lo: 3, hi: 16, loaded: 8 },
    ]);
    // an explicit --range exactly as given
    expect(await plan({ 'wall.dc': [1, 40], 'attacker.infantry': [0, 200] })).toEqual([
      { path: 'wall.dc', lo: 1, hi: 40, loaded: 8 },
      { path: 'attacker.infantry', lo: 0, hi: 200, loaded: 8 },
    ]);
  });

  it('says plainly when the answer sits at an end of the range searched, and the --range that widens it; at the setting\'s own bound, that nothing is beyond', async () => {
    const v = scenario(SIEGE);
    // the shortest sieges are at the lowest DC (never as short as one round): the bottom of the range searched
    const ask = { executor: inProcess, params: ['wall.dc'], targets: [parseTarget('mean_rounds in [0, 1]')], trials: 100, budget: 4000 };
    const low = await tuneScenario(v, { ...ask, ranges: { 'wall.dc': [5, 12] } });
    expect(low.params[0]).toMatchObject({ lo: 5, hi: 12 });
    expect(low.best.values['wall.dc']).toBe(5);
    expect(low.edges).toEqual([{ param: 'wall.dc', value: 5, end: 'lo', bound: false, range: [1, 12] }]);
    const line = 'wall.dc = 5 is the bottom of the range searched (5..12): a better value may lie beyond it; widen the search with --range wall.dc=1..12';
    expect(tuneText(low)).toContain(`\n  ${line}\n`);
    expect(tuneText(low)).toContain('\n  searched wall.dc 5..12 (started from 12)\n');
    expect(tunePage(low, [], [])).toContain(line);
    expect(tuneJson(low).edges).toEqual(low.edges);
    // DC 1 is the lowest a DC can be
    const bound = await tuneScenario(v, { ...ask, ranges: { 'wall.dc': [1, 12] } });
    expect(bound.best.values['wall.dc']).toBe(1);
    expect(bound.edges).toEqual([{ param: 'wall.dc', value: 1, end: 'lo', bound: true }]);
    expect(tuneText(bound)).toContain('  wall.dc = 1 is the bottom of the range searched (1..12) and the lowest value wall.dc allows: nothing beyond it to try\n');
    // an answer inside the range: nothing said
    const inside = await tuneScenario(v, { ...ask, targets: [parseTarget('p_attacker_wins in [0.45, 0.55]')], ranges: { 'wall.dc': [1, 30] } });
    const dc = inside.best.values['wall.dc'];
    expect(dc > 1 && dc < 30, `wall.dc = ${dc}`).toBe(true);
    expect(inside.edges).toEqual([]);
  });

  it("a setting the file leaves out is searched around the value the rules give it (a palisade's 15 HP)", async () => {
    const v = scenario(SIEGE.replace(/wall:.*\n/, 'wall: { type: palisade }\n'));
    let params: unknown;
    const stop = (plan: { params: unknown }) => {
      params = plan.params;
      throw new TuningInputError('planned');
    };
    await expect(tuneScenario(v, { executor: inProcess, params: ['wall.hp', 'wall.dc'], targets: [TARGETS[0]], onPlan: stop })).rejects.toThrow('planned');
    expect(params).toEqual([
      { path: 'wall.hp', lo: 8, hi: 30, loaded: 15 },
      { path: 'wall.dc', lo: 5, hi: 20, loaded: 10 },
    ]);
  });

  it('scores: inside every target, the most central is best; otherwise the distance in target widths', () => {
    const t = [parseTarget('a in [0, 1]'), parseTarget('b in [10, 20]')];
    const central = judge(t, { a: m(0.5), b: m(15) });
    const edge = judge(t, { a: m(0.9), b: m(15) });
    const out = judge(t, { a: m(1.2), b: m(25) });
    expect(central.met).toBe(2);
    expect(central.score).toBeCloseTo(-0.5, 12);
    expect(edge.score).toBeCloseTo(-0.1, 12);
    expect(out.met).toBe(0);
    expect(out.distance).toBeCloseTo(0.2 + 0.5, 12);
    expect(out.score).toBeCloseTo(0.7, 12);
    expect(central.checks[0].sure).toBe(true);
    expect(judge(t, { a: m(0.995), b: m(15) }).checks[0]).toEqual(expect.objectContaining({ met: true, sure: false }));
  });

  it('says a miss in the metric\'s own units too: "2.942 target widths (5.885 below 8)"', () => {
    const [below, above] = judge([parseTarget('mean_rounds in [8, 10]'), parseTarget('b in [10, 20]')], { mean_rounds: m(2.115), b: m(25) }).checks;
    expect(below.gap).toBeCloseTo(5.885, 12);
    expect(missedBy(below, (x) => Number(x.toPrecision(4)).toString())).toBe('2.942 target widths (5.885 below 8)');
    expect(missedBy(above, String)).toBe('0.5 target widths (5 above 20)');
    const met = judge([parseTarget('b in [10, 20]')], { b: m(15) }).checks[0];
    expect(met.gap).toBe(0);
    expect(missedBy(met, String)).toBe('0 target widths');
  });
});

describe('tune: a fantasy siege, wall HP and DC for two targets', () => {
  const v = scenario(SIEGE);
  let r: TuneResult;

  it('meets both targets, and the answer holds on other dice', async () => {
    r = await tuneScenario(v, { executor: inProcess, params: ['wall.hp', 'wall.dc'], targets: TARGETS, ranges: RANGES });
    expect(r.found).toBe(true);
    expect(r.best.stage).toBe('confirm');
    expect(r.best.trials).toBe(800);
    expect(r.best.checks!.every((c) => c.met)).toBe(true);
    expect(r.trialsUsed).toBeLessThanOrEqual(r.budget);
    // an independent look: the answer with other dice and 10x the trials stays in (or within
    // noise of) each target: distance to the interval under 4.5 standard errors
    const at = SIEGE.replace('hp: 30, dc: 12', `hp: ${r.best.values['wall.hp']}, dc: ${r.best.values['wall.dc']}`);
    const check = await runScenario(scenario(at), { trials: 4000, seed: 'independent', executor: inProcess });
    for (const t of TARGETS) {
      const got = check.cases[0].metrics[t.metric];
      const se = (got.ci_high - got.ci_low) / 2 / Z95;
      const gap = Math.max(0, t.lo - got.value, got.value - t.hi);
      expect(gap / se, `${t.metric} = ${got.value}`).toBeLessThan(4.5);
    }
  });

  it('is deterministic for a fixed seed, and says plainly when no candidate meets every target', async () => {
    const again = await tuneScenario(v, { executor: inProcess, params: ['wall.hp', 'wall.dc'], targets: TARGETS, ranges: RANGES });
    expect(tuneCsv(again)).toBe(tuneCsv(r));
    // a long siege the attacker still usually wins: not on this map
    const none = await tuneScenario(v, { executor: inProcess, params: ['wall.hp', 'wall.dc'], targets: [parseTarget('p_attacker_wins in [0.9, 1]'), parseTarget('mean_rounds in [5, 8]')], ranges: RANGES, trials: 100, budget: 4000 });
    expect(none.found).toBe(false);
    expect(none.best.met).toBeLessThan(2);
    expect(none.best.distance).toBeGreaterThan(0);
    expect(none.trialsUsed).toBeLessThanOrEqual(4000);
    expect(none.exhausted).toBe(true);
  });

  it('draws the feasible region for two parameters and each target for one', async () => {
    const region = regionChart(r);
    expect(region.name).toBe('tune_region');
    const values = (region.spec.data as { values: { status: string; best: string }[] }).values;
    expect(values.some((x) => x.status === 'all 2 targets met')).toBe(true);
    expect(values.filter((x) => x.best === 'best')).toHaveLength(1);
    const one = await tuneScenario(v, { executor: inProcess, params: ['wall.dc'], targets: [TARGETS[0]], ranges: { 'wall.dc': [5, 20] }, trials: 200 });
    expect(one.found).toBe(true);
    // not "all 1 targets"; at 200 trials its interval reaches past an edge of the target, and the verdict says so
    expect(tuneText(one)).toMatch(/^found: wall\.dc = \d+ meets the target \(\d+ trials\)(; by its estimate: its 95% interval reaches past an edge of the target)?\n/);
    expect(tuneText(one).split('\n')[0].endsWith('reaches past an edge of the target')).toBe(one.best.checks!.some((c) => c.met && !c.sure));
    const spec = regionChart(one).spec as { facet?: unknown; spec: { layer: { encoding: { x?: { scale?: { domain?: number[] } } } }[] } };
    expect(spec.facet).toBeDefined();
    // its axis spans the range searched, not from 0 (wall.dc 5..20 was drawn from 0)
    for (const layer of spec.spec.layer.filter((l) => l.encoding.x)) expect(layer.encoding.x!.scale?.domain).toEqual([5, 20]);
  });

  it('plays every candidate on the same dice: a setting the siege never reads changes nothing, exactly', async () => {
    // hp.captain is read only when the captain is a unit (H23 (b)); here Might is a bonus
    const crn = await tuneScenario(v, { executor: inProcess, params: ['hp.captain', 'wall.dc'], targets: [TARGETS[0]], ranges: { 'hp.captain': [1, 9], 'wall.dc': [8, 16] }, trials: 100, budget: 4000 });
    const byDc = new Map<number, number[]>();
    for (const e of crn.evaluations.filter((x) => x.stage !== 'confirm')) byDc.set(e.values['wall.dc'], [...(byDc.get(e.values['wall.dc']) ?? []), e.checks![0].value]);
    expect([...byDc.values()].some((xs) => xs.length > 1)).toBe(true);
    for (const xs of byDc.values()) expect(new Set(xs).size).toBe(1);
  });

  it('stops when its signal is aborted (the workbench cancels a search)', async () => {
    const ac = new AbortController();
    let seen = 0;
    const p = tuneScenario(v, { executor: inProcess, params: ['wall.hp', 'wall.dc'], targets: TARGETS, ranges: RANGES, trials: 50, signal: ac.signal, onEvaluate: () => (++seen === 3 ? ac.abort() : undefined) });
    await expect(p).rejects.toThrow(/cancelled/);
    expect(seen).toBe(25); // the coarse batch in flight finishes; nothing after it starts
  });

  it('rejects unknown metrics and parameters, non-integer settings and ranges outside the schema', async () => {
    const go = (o: Partial<Parameters<typeof tuneScenario>[1]>) => tuneScenario(v, { executor: inProcess, params: ['wall.hp'], targets: TARGETS, trials: 10, ...o });
    await expect(go({ targets: [parseTarget('p_atacker_wins in [0.4, 0.6]')] })).rejects.toThrow(/unknown metric "p_atacker_wins".*did you mean "p_attacker_wins"/);
    await expect(go({ params: ['wall.hpp'] })).rejects.toThrow(/"wall.hpp" is not a tunable setting.*did you mean "wall.hp"/);
    await expect(go({ targets: [parseTarget('p_attacker_wins in [0.5, 1.2]')] })).rejects.toThrow('target "p_attacker_wins in [0.5, 1.2]" is outside [0, 1]: "p_attacker_wins" is a probability');
    await expect(go({ targets: [parseTarget('p_breach in [-0.1, 0.5]')] })).rejects.toThrow(/outside \[0, 1\]/);
    await expect(go({ targets: [parseTarget('mean_volley_a_damage in [1, 2]')] })).rejects.toThrow(/unknown metric "mean_volley_a_damage" \(this scenario's metrics: p_attacker_wins, .*mean_breach_round/);
    await expect(go({ targets: [parseTarget('mean_volley_a_damage in [1, 2]')] })).rejects.not.toThrow(/volley_b/);
    await expect(go({ params: ['wall.type'] })).rejects.toThrow(/not an integer setting/);
    await expect(go({ params: ['policy.defender_fire_share'] })).rejects.toThrow(/not an integer setting \(it is a decimal\)/);
    await expect(go({ params: ['wall'] })).rejects.toThrow(/a group of settings/);
    // refused with the problem as data, worded in the CLI's flags
    const said = (p: Promise<unknown>) =>
      p.then(
        () => 'not refused',
        (e: unknown) => (e instanceof TuneInputError ? tuneProblemText(e.problem) : `not a TuneInputError: ${String(e)}`),
      );
    await expect(go({ ranges: { 'wall.hp': [-5, 10] } })).rejects.toMatchObject({ problem: { code: 'range-bounds', param: 'wall.hp', lo: -5, hi: 10, min: 0, max: 100000 } });
    await expect(go({ ranges: { 'wall.hp': [-5, 10] } })).rejects.toBeInstanceOf(TuningInputError);
    expect(await said(go({ ranges: { 'wall.hp': [-5, 10] } }))).toBe("--range wall.hp=-5..10 must be inside the schema's bounds 0..100000");
    expect(await said(go({ ranges: { 'wall.dc': [5, 10] } }))).toBe('--range names "wall.dc", which is not in --params');
    expect(await said(go({ params: ['wall.hp', 'wall.dc', 'max_rounds', 'attacker.infantry'] }))).toBe('tune takes one to three --params (got 4)');
    expect(await said(go({ targets: [] }))).toBe('give at least one --target "<metric> in [lo, hi]"');
    expect(await said(go({ budget: 5 }))).toMatch(/^--budget 5 leaves no room to search: give at least \d+ trials$/);
  });
});

describe('tune: the loaded settings roll the dice of run', () => {
  it('evaluates the loaded values exactly as run reports them (same file, seed and trials)', async () => {
    const grid = scenario(readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/wall-hp-dc-grid.yaml'), 'utf8'));
    const trials = 5000;
    const ran = await runScenario(grid, { trials, executor: inProcess });
    const at = ran.cases.find((c) => c.params['wall.hp'] === 30 && c.params['wall.dc'] === 14)!;
    const r = await tuneScenario(grid, {
      executor: inProcess,
      trials,
      where: { 'wall.hp': 30, 'wall.dc': 14 },
      params: ['wall.hp'],
      ranges: { 'wall.hp': [30, 38] },
      targets: [parseTarget('p_attacker_wins in [0.45, 0.55]')],
    });
    const loaded = r.evaluations.find((e) => e.values['wall.hp'] === 30 && e.trials === trials)!;
    expect(loaded.checks![0].value).toEqual(at.metrics.p_attacker_wins.value);
  });
});

describe('tune and solve: an answer on a plateau says so', () => {
  // Past wall.dc 20 no climber ever gets over the stone wall (H22): the result no longer depends
  // on the DC, and on the same dice every such value gives bit-identical estimates.
  // Read with H28 end_of_phase, where these thresholds hold: what is tested is the plateau, not
  // the reading.
  const wall = scenario(`${readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/stone-wall-siege.yaml'), 'utf8')}\nrules: { wall_fall: end_of_phase }\n`);

  it('plateauAround: the evaluated values next to the answer whose results are identical at every shared trial count', () => {
    const pt = (value: number, trials: number, key: string) => ({ value, trials, key });
    const pts = [pt(20, 100, 'b'), pt(21, 100, 'a'), pt(21, 400, 'A'), pt(22, 100, 'a'), pt(22, 400, 'A'), pt(25, 100, 'a'), pt(30, 400, 'A'), pt(40, 100, 'a')];
    expect(plateauAround('wall.dc', ['p'], 21, pts)).toEqual({ param: 'wall.dc', from: 21, to: 40, tried: 5, metrics: ['p'] });
    // one trial count that disagrees ends it, and so does a value with no trial count in common
    expect(plateauAround('wall.dc', ['p'], 21, [...pts.slice(0, 5), pt(25, 400, 'B'), ...pts.slice(5)])?.to).toBe(22);
    expect(plateauAround('wall.dc', ['p'], 21, [...pts.slice(0, 5), pt(23, 1000, 'a'), ...pts.slice(5)])?.to).toBe(22);
    expect(plateauAround('wall.dc', ['p'], 20, pts)).toBeUndefined();
    expect(plateauText(plateauAround('wall.dc', ['p'], 21, pts)!)).toBe(
      'wall.dc: any value from 21 to 40 gives the same p (the metric does not depend on it there: the 5 values tried give identical results on the same dice)',
    );
  });

  it('tune: the DC the answer names is any from it to the top of the range searched (24, twice the 12 written), in the printed answer, tune.json and the page; HP matters, so no plateau for it', async () => {
    const t = await tuneScenario(wall, { executor: inProcess, params: ['wall.hp', 'wall.dc'], targets: [parseTarget('p_attacker_wins in [0.45, 0.55]')], trials: 300, budget: 40_000 });
    expect(t.found).toBe(true);
    expect(t.best.values['wall.dc']).toBeGreaterThan(20);
    expect(t.plateaus).toEqual([{ param: 'wall.dc', from: t.best.values['wall.dc'], to: 24, tried: expect.any(Number), metrics: ['p_attacker_wins'] }]);
    expect(t.edges.map((e) => e.param)).not.toContain('wall.dc'); // on a plateau: that says more than an end would
    const line = `wall.dc: any value from ${t.best.values['wall.dc']} to 24 gives the same p_attacker_wins (the metric does not depend on it there`;
    expect(tuneText(t)).toContain(line);
    expect(tunePage(t, [], [])).toContain(line);
    // where it worked from, said once, without a parenthesis inside a parenthesis
    expect(tunePage(t, [], [])).toContain('<span class="muted">Working on the baseline variant (as-written).</span>');
    expect(tuneJson(t).plateaus).toEqual(t.plateaus);
  });

  it('solve: the smallest DC for p_attacker_wins <= 0.95 sits on the plateau to 40; the one for 0.99 (DC 16) does not', async () => {
    const dc = await solveScenario(wall, { executor: inProcess, param: 'wall.dc', metric: 'p_attacker_wins', target: 0.95, from: 1, to: 40, trials: 2000 });
    expect(dc.value).toBe(21);
    expect(dc.plateau).toMatchObject({ param: 'wall.dc', from: 21, to: 40, metrics: ['p_attacker_wins'] });
    expect(solveJson(dc).plateau).toEqual(dc.plateau);
    const below = await solveScenario(wall, { executor: inProcess, param: 'wall.dc', metric: 'p_attacker_wins', target: 0.99, from: 1, to: 40, trials: 2000 });
    expect(below.value).toBeLessThan(20);
    expect(below.plateau).toBeUndefined();
  });
});

describe('where a search holds', () => {
  const grid = () => scenario(readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/wall-hp-dc-grid.yaml'), 'utf8'));
  it("names only the settings it does not search at the working point: never 'at the first sweep point (wall.dc=...)' while searching wall.dc", async () => {
    const r = await tuneScenario(grid(), { params: ['wall.dc'], targets: [parseTarget('p_attacker_wins in [0.45, 0.55]')], trials: 500, budget: 4000, executor: inProcess });
    expect(r.note).toBe('working with wall.hp=10 as at the first sweep point (--where picks another)');
    expect(r.note).not.toMatch(/wall\.dc/);
    const both = await tuneScenario(grid(), { params: ['wall.dc', 'wall.hp'], targets: [parseTarget('p_attacker_wins in [0.45, 0.55]')], trials: 500, budget: 4000, executor: inProcess });
    expect(both.note ?? '').not.toMatch(/wall\.dc|wall\.hp|first sweep point/);
    expect(tuneText(both)).not.toMatch(/first sweep point/);
    // the searched ranges say where the search started, never in the answer's form (`wall.dc = 6`)
    expect(tuneText(both)).toMatch(/^ {2}searched wall\.dc \d+\.\.\d+ \(started from 6\), wall\.hp \d+\.\.\d+ \(started from 10\)$/m);
  }, 60_000);
});

describe('tune: the case an answer holds in, what its means count, targets out of reach, the chart', () => {
  const grid = () => scenario(readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/wall-hp-dc-grid.yaml'), 'utf8'));
  const P50 = parseTarget('p_attacker_wins in [0.45, 0.55]');
  /** The plan a request passes to (nothing runs): its parameters. */
  const planned = async (v: ValidScenario, o: Omit<Parameters<typeof tuneScenario>[1], 'onPlan'>) => {
    let plan: unknown;
    await expect(
      tuneScenario(v, {
        ...o,
        onPlan: (p) => {
          plan = p.params;
          throw new TuningInputError('planned');
        },
      }),
    ).rejects.toThrow('planned');
    return plan as { path: string; lo: number; hi: number; loaded?: number }[];
  };

  it("--where naming some swept settings: the others keep the first sweep point's value (the search starts there too), and stdout says where the answer holds", async () => {
    const g = grid();
    // wall.hp searched, wall.dc held at 12: wall.hp starts from the first sweep point's 10, not the file's 30
    expect((await planned(g, { params: ['wall.hp'], targets: [P50], where: { 'wall.dc': 12 }, trials: 200 }))[0]).toMatchObject({ path: 'wall.hp', loaded: 10 });
    let said: string | undefined;
    const r = await tuneScenario(g, { executor: inProcess, params: ['wall.hp'], targets: [P50], where: { 'attacker.mages': 2 }, trials: 200, budget: 3000, onPlan: (p) => (said = p.note) });
    expect(said).toBe(r.note); // said before the first trial (the CLI's stderr)
    expect(r.where).toEqual({ 'wall.hp': 10, 'wall.dc': 6, 'attacker.mages': 2 });
    expect(r.note).toBe('working at wall.dc=6, attacker.mages=2 (wall.dc as at the first sweep point)');
    expect(tuneText(r)).toContain('\n  working at wall.dc=6, attacker.mages=2 (wall.dc as at the first sweep point)\n  searched wall.hp ');
    expect(tuneJson(r)).toMatchObject({ where: r.where, note: r.note });
    // without --where the held setting is said on stdout too, not only on stderr and the page
    const plain = await tuneScenario(g, { executor: inProcess, params: ['wall.hp'], targets: [P50], trials: 200, budget: 3000 });
    expect(tuneText(plain)).toContain('\n  working with wall.dc=6 as at the first sweep point (--where picks another)\n');
  }, 60_000);

  it("refuses a target interval outside the values a mean can take (mean_rounds under max_rounds: 12); one the searched settings bring into reach is searched; a probability's outside [0, 1] stays refused", async () => {
    const g = grid();
    const go = (o: Partial<Parameters<typeof tuneScenario>[1]>) => tuneScenario(g, { executor: inProcess, params: ['wall.hp'], targets: [parseTarget('mean_rounds in [20, 30]')], trials: 200, ...o });
    await expect(go({})).rejects.toThrow('target "mean_rounds in [20, 30]" is outside the values "mean_rounds" can take in this case (0 to 12): no value searched can reach it');
    await expect(go({ targets: [parseTarget('mean_breach_round in [-3, 0.5]')] })).rejects.toThrow(/"mean_breach_round" can take in this case \(1 to 12\)/);
    await expect(go({ targets: [parseTarget('p_attacker_wins in [1.1, 1.2]')] })).rejects.toThrow(/outside \[0, 1\]: "p_attacker_wins" is a probability/);
    // overlapping the range is enough; and max_rounds (the round cap) searched 6..24 reaches 20
    expect(await planned(g, { params: ['wall.hp'], targets: [parseTarget('mean_rounds in [10, 30]')], trials: 200 })).toHaveLength(1);
    expect(await planned(g, { params: ['max_rounds'], targets: [parseTarget('mean_rounds in [20, 30]')], trials: 200 })).toEqual([{ path: 'max_rounds', lo: 6, hi: 24, loaded: 12 }]);
  });

  it('a mean over the trials with an event says over how many of the trials (stdout, page, JSON)', async () => {
    const r = await tuneScenario(grid(), { executor: inProcess, params: ['wall.hp'], targets: [parseTarget('mean_breach_round in [1.2, 1.4]'), P50], where: { 'wall.dc': 12 }, ranges: { 'wall.hp': [40, 80] }, trials: 200, budget: 3000 });
    expect(r.conditional_on).toEqual({ mean_breach_round: 'p_breach' });
    const c = r.best.checks!.find((x) => x.metric === 'mean_breach_round')!;
    expect(c.n).toBeLessThan(r.best.trials);
    const over = `(a mean over the ${c.n.toLocaleString('en-US')} of the ${r.best.trials.toLocaleString('en-US')} trials with p_breach)`;
    expect(tuneText(r).split('\n').find((l) => l.startsWith('  mean_breach_round = '))).toMatch(new RegExp(`   ${over.replace(/[()]/g, '\\$&')}$`));
    expect(tuneText(r).split('\n').find((l) => l.startsWith('  p_attacker_wins = '))).not.toContain('a mean over');
    expect(tunePage(r, [], [])).toContain(over);
    expect(tuneJson(r)).toMatchObject({ conditional_on: { mean_breach_round: 'p_breach' } });
  }, 60_000);

  it("the region chart draws what its caption says: the coarse grid's candidates as big squares, the refinement's as small ones", async () => {
    const r = await tuneScenario(grid(), { executor: inProcess, params: ['wall.hp', 'wall.dc'], targets: [P50], trials: 200, budget: 20_000 });
    const chart = regionChart(r);
    expect(chart.caption).toContain('big squares: the coarse grid; small: the refinement');
    const values = (chart.spec.data as { values: { x: number; y: number; size: number; stage: string }[] }).values;
    const first = new Map<string, string>();
    for (const e of r.evaluations) if (!first.has(`${e.values['wall.hp']},${e.values['wall.dc']}`)) first.set(`${e.values['wall.hp']},${e.values['wall.dc']}`, e.stage);
    const coarse = values.filter((x) => first.get(`${x.x},${x.y}`) === 'coarse');
    const finer = values.filter((x) => first.get(`${x.x},${x.y}`) !== 'coarse');
    expect(coarse.length).toBe(25);
    expect(finer.length).toBeGreaterThan(0);
    expect(coarse.every((x) => x.stage === 'coarse grid') && finer.every((x) => x.stage === 'refinement')).toBe(true);
    expect(Math.min(...coarse.map((x) => x.size))).toBeGreaterThanOrEqual(2 * Math.max(...finer.map((x) => x.size)));
  }, 60_000);
});

describe("the case's note names a variant whose settings --where gives", () => {
  const file = path.resolve(__dirname, '../scenarios/fantasy/climbers-dc.yaml');
  const v = validateText(file, readFileSync(file, 'utf8'));
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  it('the settings of variant above-dc: its case, said so (the baseline variant at them reads as another case)', () => {
    expect(baseCaseOf(v.value, { 'wall.dc': 14, 'rules.climb_comparison': 'gt' }).note).toBe(
      'working on the baseline variant (at-least-dc) at wall.dc=14, rules.climb_comparison=gt (variant "above-dc"\'s case: it sets rules.climb_comparison=gt)',
    );
  });
  it('other settings, or another value of the variant\'s: no variant named', () => {
    expect(baseCaseOf(v.value, { 'wall.dc': 14 }).note).toBe('working on the baseline variant (at-least-dc) at wall.dc=14');
    expect(baseCaseOf(v.value, { 'rules.climb_comparison': 'ge' }).note).not.toMatch(/above-dc/);
  });
});
