import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { YieldingExecutor } from './helpers.js';
import { commandCase, describeControls, parseSettings, runScenario, sensitivityScenario, parseStep, tunablesOf, tunedScenario, tunedYaml, TuningInputError, validateText, type SensitivityResult } from '../src/api.js';
import { sensitivityLine } from '../src/serve/tuning.js';
import { shellSplit } from './ranking-line.js';
import { validateCase, type ValidScenario } from '../src/scenario/validate.js';
import { OTHER_GAME, stepsOf } from '../src/api/sensitivity.js';
import { rankingText } from '../src/cli/commands/sensitivity.js';
import { baseCaseOf, compileSetting } from '../src/api/tunables.js';
import { Z95 } from '../src/stats/intervals.js';
import { dominantCount, sensitivityCsv, sensitivityJson, sensitivityPage, tornadoChart } from '../src/report/sensitivity.js';
import { estimateText } from '../src/report/answer-text.js';
import { DIRECTION_COLOURS } from '../src/systems/chart-kit.js';

const inProcess = new YieldingExecutor();

function scenario(text: string): ValidScenario {
  const v = validateText('t.yaml', text);
  if (!v.ok) throw new Error(v.issues.map((i) => `${i.path} ${i.message}`).join('; '));
  return v.value;
}

/** The exact value of a metric at the scenario's base case with `settings` on top. */
function exactAt(v: ValidScenario, settings: Record<string, unknown>, metric: string): number {
  const c = validateCase(v, settings);
  if (!c.ok) throw new Error(c.messages.join('; '));
  return v.system.exact!(v.system.compile(c.scenario))!.metrics[metric].value;
}

// A surrender siege over 4 turns with a besieger's card in play: every setting's effect on
// p_surrender is known exactly (the closed form), so the ranking can be held to the truth.
const SIEGE = `name: sens-siege
system: surrender
seed: 11
trials: 20000
structure: { surrender_level: 3, port: true, blockade_chance: 0.7 }
besieger: { combat_units: 3, heavy_siege_artillery: 1 }
besieged: { steps_inside: 9 }
cards: { besieger: { chance: 0.4, modifier: -1 } }
turns: 4
`;

describe('sensitivity: the tunable settings', () => {
  it('reaches numbers (with bounds), enums and booleans, list elements, and skips the common keys', () => {
    const v = scenario(SIEGE);
    const t = tunablesOf(v.system, v.points[0].variants[0].scenario);
    const by = (p: string) => t.find((x) => x.path === p);
    expect(by('structure.surrender_level')).toEqual(expect.objectContaining({ kind: 'int', value: 3, min: -20, max: 1000 }));
    expect(by('structure.blockade_chance')).toEqual(expect.objectContaining({ kind: 'number', value: 0.7, min: 0, max: 1 }));
    expect(by('rules.comparison')).toEqual(expect.objectContaining({ kind: 'enum', value: 'lt', options: ['lt', 'le'] }));
    expect(by('structure.port')).toEqual(expect.objectContaining({ kind: 'boolean', value: true }));
    expect(t.some((x) => ['seed', 'trials', 'name'].includes(x.path.split('.')[0]))).toBe(false);

    const cr = scenario(`name: cr
system: crusader-rex
seed: 1
trials: 10
player1: franks
attacker: saracens
blocks:
  - { block: Saladin, steps: 3 }
  - { name: Militia, side: franks, steps: 2, max: 3, rating: C2 }
`);
    const ct = tunablesOf(cr.system, cr.points[0].variants[0].scenario);
    expect(ct.find((x) => x.path === 'blocks.0.steps')).toEqual(expect.objectContaining({ kind: 'int', value: 3, min: 1, max: 4 }));
    expect(ct.find((x) => x.path === 'blocks.1.max')).toEqual(expect.objectContaining({ kind: 'int', value: 3 }));
    expect(ct.find((x) => x.path === 'blocks.1.at')).toEqual(expect.objectContaining({ kind: 'enum', value: 'field' }));
    expect(ct.some((x) => x.path.startsWith('blocks.2'))).toBe(false);

    // a battering question has no melee defender: that optional section is not a setting; an
    // element of a list the file leaves to its default is turned by setting the whole list
    const ch = scenario(`name: ch
system: cry-havoc
seed: 1
trials: 10
kind: battering
engines: { ram: 1 }
`);
    const ht = tunablesOf(ch.system, ch.points[0].variants[0].scenario);
    expect(ht.some((x) => x.path.startsWith('defender.'))).toBe(false);
    expect(ht.find((x) => x.path === 'rules.vikings_shortbow_long.0')).toEqual(expect.objectContaining({ kind: 'int', value: 26 }));
    const c = compileSetting(ch, baseCaseOf(ch), { 'rules.vikings_shortbow_long.0': 20, 'rules.vikings_shortbow_long.1': 60 });
    expect(c.ok).toBe(true);
    const same = compileSetting(ch, baseCaseOf(ch), { 'rules.vikings_shortbow_long': [20, 60] });
    expect(same).toEqual(c);
  });

  it('steps integers by 1 (or N, or P% rounded, at least 1), decimals by 10%, within the schema bounds', () => {
    const int = { path: 'a', kind: 'int' as const, value: 3, min: 0, max: 4 };
    expect(stepsOf(int)).toEqual([
      { to: 2, direction: 'down' },
      { to: 4, direction: 'up' },
    ]);
    expect(stepsOf(int, { abs: 2 })).toEqual([
      { to: 1, direction: 'down' },
      { to: 4, direction: 'up' }, // clipped to the bound
    ]);
    expect(stepsOf({ ...int, value: 20, max: 100 }, { percent: 10 })).toEqual([
      { to: 18, direction: 'down' },
      { to: 22, direction: 'up' },
    ]);
    expect(stepsOf({ ...int, value: 0 })).toEqual([{ to: 1, direction: 'up' }]);
    expect(stepsOf({ path: 'p', kind: 'number', value: 0.7, min: 0, max: 1 })).toEqual([
      { to: 0.63, direction: 'down' },
      { to: 0.77, direction: 'up' },
    ]);
    expect(stepsOf({ path: 'p', kind: 'number', value: 1, min: 0, max: 1 })).toEqual([{ to: 0.9, direction: 'down' }]);
    expect(stepsOf({ path: 'e', kind: 'enum', value: 'b', options: ['a', 'b', 'c'] })).toEqual([
      { to: 'a', direction: 'option' },
      { to: 'c', direction: 'option' },
    ]);
    expect(stepsOf({ path: 'h', kind: 'int', value: undefined, min: 0, max: 9 })).toMatch(/not set in the scenario/);
    expect(parseStep('2')).toEqual({ abs: 2 });
    expect(parseStep('15%')).toEqual({ percent: 15 });
    for (const bad of ['0', '-1', 'x', '5%%', '']) expect(() => parseStep(bad)).toThrow(TuningInputError);
  });
});

describe('sensitivity: a constructed battle with one decisive setting', () => {
  it('ranks the decisive setting first; settings the battle never reads change nothing, exactly (same dice)', async () => {
    // An open-field battle of infantry alone: the threat value of clerics (there are none) and
    // the captain's HP (the captain is a bonus, not a unit: H23 DEFAULT) are never read.
    const v = scenario(`name: sens-field
system: fantasy
seed: 3
trials: 1500
mode: open_field
attacker: { infantry: 8 }
defender: { infantry: 8 }
`);
    const r = await sensitivityScenario(v, { executor: inProcess, params: ['values.cleric', 'hp.captain', 'attacker.infantry'], metric: 'p_attacker_wins' });
    expect(r.ranking.map((x) => x.param)).toEqual(['attacker.infantry', 'hp.captain', 'values.cleric']); // ties in schema order
    const inf = r.rows.filter((x) => x.param === 'attacker.infantry');
    expect(inf.map((x) => x.to)).toEqual([7, 9]);
    expect(inf[0].ci_high).toBeLessThan(0); // one fewer attacker: fewer attacker wins
    expect(inf[1].ci_low).toBeGreaterThan(0);
    // a setting never read changes no trial: effect 0; its interval only says what 1 500 trials
    // cannot rule out (the case is another program, so a difference in rarer trials is not excluded)
    const half = Z95 * Math.sqrt(2 / 1502 / 1502);
    for (const x of r.rows.filter((y) => y.param !== 'attacker.infantry')) {
      expect(x.effect).toBe(0);
      expect(x.ci_low).toBeCloseTo(-half, 15);
      expect(x.ci_high).toBeCloseTo(half, 15);
    }

    // The tornado colours a bar by the change's direction, as the tables do (blue up, orange
    // down), never by the kind of step: one fewer attacker is a fall, orange; one more a rise, blue.
    const spec = tornadoChart(r)!.spec as { data: { values: { param: string; step: string; change: string }[] }; layer: { mark: { type: string }; encoding: Record<string, { field?: string; scale?: { domain: string[]; range: unknown[] } }> }[] };
    const bars = spec.layer.find((l) => l.mark.type === 'bar')!.encoding;
    expect(bars.color.field).toBe('change');
    const colour = (d: string) => bars.color.scale!.range[bars.color.scale!.domain.indexOf(d)];
    expect(colour('up')).toBe(DIRECTION_COLOURS.up);
    expect(colour('down')).toBe(DIRECTION_COLOURS.down);
    expect(bars.fillOpacity.field).toBe('step'); // the step is the fill, not the colour
    const cases = spec.data.values.filter((x) => x.param === 'attacker.infantry').map((x) => [x.step, x.change]);
    expect(cases).toEqual([
      ['one step down', 'down'],
      ['one step up', 'up'],
    ]);
    // the tooltip gives each effect with its interval in the reports' digits (a fixed .4f read a tiny effect as 0.0000)
    const shown = (spec.data.values as unknown as { param: string; shown: string; effect: number; lo: number; hi: number }[]).filter((x) => x.param === 'attacker.infantry');
    const { showInterval } = await import('../src/report/format.js');
    for (const x of shown) expect(x.shown).toBe(showInterval(x.effect, x.lo, x.hi));
    expect(JSON.stringify(bars.tooltip)).not.toContain('.4f');
    // no tornado when nothing moved (it would be its 0 axis alone)
    const still = await sensitivityScenario(v, { executor: inProcess, params: ['values.cleric', 'hp.captain'], metric: 'p_attacker_wins' });
    expect(still.rows.length).toBeGreaterThan(0);
    expect(tornadoChart(still)).toBeUndefined();
  });
});

describe('sensitivity: ranking against the exact effects', () => {
  let r: SensitivityResult;
  const v = scenario(SIEGE);

  it('finds the setting that dominates, and every effect agrees with the exact one', async () => {
    r = await sensitivityScenario(v, { executor: inProcess, metric: 'p_surrender' });
    expect(r.metric).toBe('p_surrender');
    const exactBase = exactAt(v, {}, 'p_surrender');
    const exact = new Map<string, number>();
    for (const row of r.rows) {
      const e = exactAt(v, { [row.param]: row.to }, 'p_surrender') - exactBase;
      exact.set(`${row.param}->${String(row.to)}`, e);
      expect(row.paired).toBe(true);
      // |z| < 4.5 for each of ~60 rows: a false alarm about once in 2,000 runs of this test
      const se = (row.ci_high - row.ci_low) / 2 / Z95;
      if (se === 0) expect(Math.abs(row.effect - e), `${row.param} -> ${String(row.to)}`).toBeLessThan(1e-12);
      else expect(Math.abs(row.effect - e) / se, `${row.param} -> ${String(row.to)}: ${row.effect} vs exact ${e}`).toBeLessThan(4.5);
    }
    // the exactly largest effect: rules.modifiers_apply_to (roll -> level turns every modifier around)
    const truth = [...exact.entries()].sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
    const top = truth[0][0].split('->')[0];
    const second = truth.find(([k]) => !k.startsWith(top + '->'))!;
    expect(Math.abs(truth[0][1]) - Math.abs(second[1])).toBeGreaterThan(0.05); // the construction has a clear winner
    expect(r.ranking[0].param).toBe(top);
    expect(r.rows[0].rank).toBe(1);
    // the ranks follow the sizes: each setting's largest |effect| does not grow down the list,
    // except that settings stepped from 0 by a share of their range come after all the others
    const zero = r.ranking.findIndex((x) => x.from_zero);
    if (zero >= 0) expect(r.ranking.slice(zero).every((x) => x.from_zero)).toBe(true);
    const sameGroup = (i: number, j: number) => r.ranking[i].from_zero === r.ranking[j].from_zero;
    for (let i = 1; i < r.ranking.length; i++) if (sameGroup(i, i - 1)) expect(Math.abs(r.ranking[i].effect)).toBeLessThanOrEqual(Math.abs(r.ranking[i - 1].effect));
    // and the whole order agrees with the exact one wherever the exact sizes differ by more
    // than the noise (4.5 standard errors of each)
    const exactMax = (param: string) => Math.max(...r.rows.filter((x) => x.param === param).map((x) => Math.abs(exact.get(`${x.param}->${String(x.to)}`)!)));
    const seOf = (param: string) => Math.max(...r.rows.filter((x) => x.param === param).map((x) => (x.ci_high - x.ci_low) / 2 / Z95));
    for (let i = 0; i < r.ranking.length; i++) {
      for (let j = i + 1; j < r.ranking.length; j++) {
        if (!sameGroup(i, j)) continue;
        const [a, b] = [r.ranking[i].param, r.ranking[j].param];
        expect(exactMax(a), `${a} ranked above ${b}`).toBeGreaterThanOrEqual(exactMax(b) - 4.5 * (seOf(a) + seOf(b)) - 1e-12);
      }
    }
    // both directions of a setting share its rank
    const lvl = r.rows.filter((x) => x.param === 'structure.surrender_level');
    expect(lvl.map((x) => [x.direction, x.to])).toEqual([
      ['down', 2],
      ['up', 4],
    ]);
    expect(new Set(lvl.map((x) => x.rank)).size).toBe(1);
    // the baseline is the baseline
    expect(Math.abs(r.baseline.value - exactBase) / ((r.baseline.ci_high - r.baseline.ci_low) / 2 / Z95)).toBeLessThan(4.5);
  });

  it('is deterministic, and the numbers do not depend on how the turned cases are batched', async () => {
    const again = await sensitivityScenario(v, { executor: inProcess, metric: 'p_surrender', batch: 3 });
    expect(sensitivityCsv(again)).toBe(sensitivityCsv(r));
    const other = await sensitivityScenario(v, { executor: inProcess, metric: 'p_surrender', seed: 12 });
    expect(sensitivityCsv(other)).not.toBe(sensitivityCsv(r));
  });

  it('ranks only the settings asked for; a mean that is not per trial gets a Welch interval', async () => {
    const some = await sensitivityScenario(v, { executor: inProcess, params: ['besieger', 'turns'], metric: 'mean_turns', trials: 5000 });
    expect(new Set(some.rows.map((x) => x.param))).toEqual(new Set(['besieger.combat_units', 'besieger.heavy_siege_artillery', 'besieger.artillery', 'besieger.bombers', 'besieger.engineers', 'besieger.siege_leaders', 'turns']));
    expect(some.rows.every((x) => !x.paired)).toBe(true);
    const chart = tornadoChart(some)!;
    expect(chart.name).toBe('sensitivity');
  });

  it('stops when its signal is aborted', async () => {
    const ac = new AbortController();
    const p = sensitivityScenario(v, { executor: inProcess, metric: 'p_surrender', trials: 300000, batch: 1, signal: ac.signal, onProgress: () => ac.abort() });
    await expect(p).rejects.toThrow(/cancelled/);
  });

  it('rejects an unknown metric or setting with a suggestion, and a bad --where', async () => {
    await expect(sensitivityScenario(v, { executor: inProcess, metric: 'p_surender' })).rejects.toThrow(/unknown metric "p_surender".*did you mean "p_surrender"/);
    await expect(sensitivityScenario(v, { executor: inProcess, params: ['structure.surender_level'] })).rejects.toThrow(/did you mean "structure.surrender_level"/);
    await expect(sensitivityScenario(v, { executor: inProcess, where: { 'structure.surrender_level': 'x' } })).rejects.toThrow(TuningInputError);
  });

  it('works at the first sweep point of a swept scenario, on its baseline variant, and says so', async () => {
    const swept = scenario(`${SIEGE}sweep:\n  structure.surrender_level: [5, 6]\nvariants:\n  - name: plain\n  - name: lenient\n    set: { rules.comparison: le }\n`);
    const s = await sensitivityScenario(swept, { executor: inProcess, params: ['structure.surrender_level'], trials: 2000 });
    expect(s.where).toEqual({ 'structure.surrender_level': 5 });
    expect(s.rows.map((x) => x.from)).toEqual([5, 5]);
    expect(s.note).toMatch(/baseline variant \(plain\) at the first sweep point/);
    const w = await sensitivityScenario(swept, { executor: inProcess, params: ['structure.surrender_level'], trials: 2000, where: { 'structure.surrender_level': 6 } });
    expect(w.rows.map((x) => x.from)).toEqual([6, 6]);
  });
});

describe('sensitivity: the loaded settings roll the dice of run', () => {
  const grid = readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/wall-hp-dc-grid.yaml'), 'utf8');
  const siege = readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/stone-wall-siege.yaml'), 'utf8').replace('hp: 30,', 'hp: 40,');

  it('gives the same baseline value as run for the same file, seed and trials (a sweep point past the first; a file with variants)', async () => {
    const trials = 5000; // two chunks, the second cut
    const g = scenario(grid);
    const runG = await runScenario(g, { trials, executor: inProcess });
    const where = { 'wall.hp': 30, 'wall.dc': 14 };
    const atG = runG.cases.find((c) => c.params['wall.hp'] === 30 && c.params['wall.dc'] === 14)!;
    expect(atG.case).toBeGreaterThan(1);
    const sG = await sensitivityScenario(g, { executor: inProcess, trials, where, params: ['wall.hp', 'attacker.mages'] });
    expect(sG.baseline).toEqual(atG.metrics.p_attacker_wins);
    // the turned cases stay paired with it: a turned value's own estimate minus the baseline is the paired effect
    for (const r of sG.rows) expect(r.at.value - sG.baseline.value).toBeCloseTo(r.effect, 12);

    const w = scenario(siege);
    const runW = await runScenario(w, { trials, seed: 'other', executor: inProcess });
    const sW = await sensitivityScenario(w, { executor: inProcess, trials, seed: 'other', params: ['wall.dc'] });
    expect(runW.cases[0].variant).toBe('as-written');
    expect(sW.baseline).toEqual(runW.cases[0].metrics.p_attacker_wins);
  });
});

describe('sensitivity: what the answer starts from is said, and a jump from 0 is not ranked as a small change', () => {
  const PALISADE = readFileSync(path.resolve(import.meta.dirname, 'fixtures/palisade.yaml'), 'utf8');
  const v = scenario(PALISADE);

  it("turns a setting the file leaves out from the value the rules give it (the wall type's HP), not 'not set'", async () => {
    const t = tunablesOf(v.system, v.points[0].variants[0].scenario);
    expect(t.find((x) => x.path === 'wall.hp')).toEqual(expect.objectContaining({ value: 15, derived: true, min: 0, max: 100000 }));
    expect(t.find((x) => x.path === 'wall.dc')).toEqual(expect.objectContaining({ value: 10, derived: true }));
    const s = await sensitivityScenario(v, { executor: inProcess, params: ['wall.hp', 'wall.dc'], trials: 400 });
    expect(s.rows.map((x) => `${x.param} ${x.from}->${x.to}`)).toEqual(expect.arrayContaining(['wall.hp 15->14', 'wall.hp 15->16', 'wall.dc 10->9', 'wall.dc 10->11']));
    expect(s.skipped).toEqual([]);
  });

  it('a conditional mean: over_different_trials where its event\'s own paired interval (the same turned cases on the same dice) lies clear of 0, and only there; in sensitivity.json', async () => {
    const w = scenario('name: small\nsystem: fantasy\nseed: 8\ntrials: 1000\nmode: siege\nattacker: { infantry: 6, cavalry: 2, siege_engines: 1 }\ndefender: { infantry: 3, archers: 2 }\nmax_rounds: 6\n');
    const params = ['wall.hp', 'wall.dc', 'attacker.siege_engines', 'policy.climbers', 'rules.breach_pool_targetable'];
    const m = await sensitivityScenario(w, { executor: inProcess, params, metric: 'mean_breach_round' });
    const p = await sensitivityScenario(w, { executor: inProcess, params, metric: 'p_breach' });
    const event = new Map(p.rows.map((x) => [`${x.param}->${String(x.to)}`, x]));
    let shifted = 0;
    for (const x of m.rows) {
      const e = event.get(`${x.param}->${String(x.to)}`)!;
      const clear = e.ci_low > 0 || e.ci_high < 0;
      expect(x.over_different_trials !== undefined, `${x.param}->${String(x.to)}`).toBe(clear);
      if (clear) shifted++;
    }
    expect(shifted).toBeGreaterThan(0);
    const json = sensitivityJson(m) as { rows: { over_different_trials?: { event: string } }[] };
    expect(json.rows.filter((x) => x.over_different_trials?.event === 'p_breach').length).toBe(shifted);
  });

  it('states the working point of --where, swept or not (note, JSON, page lead)', async () => {
    const s = await sensitivityScenario(v, { executor: inProcess, params: ['wall.dc'], trials: 400, where: { 'wall.hp': 20 } });
    expect(s.note).toBe('working at wall.hp=20');
    expect(sensitivityJson(s)).toMatchObject({ where: { 'wall.hp': 20 }, note: 'working at wall.hp=20' });
    const page = sensitivityPage(s, [], []);
    expect(page).toContain('<p>p_attacker_wins at wall.hp=20: 0.');
  });

  it('flags a P% step from 0 (a share of the allowed range), ranks it after the small changes, and says so', async () => {
    const s = await sensitivityScenario(v, { executor: inProcess, params: ['wall.hp', 'defender.cavalry', 'attacker.infantry'], step: { percent: 20 }, trials: 400 });
    const cav = s.rows.filter((x) => x.param === 'defender.cavalry');
    expect(cav.map((x) => [x.from, x.to, x.from_zero])).toEqual([[0, 40, true]]);
    expect(s.rows.filter((x) => x.param !== 'defender.cavalry').every((x) => !x.from_zero)).toBe(true);
    // a jump of 40 cavalry dwarfs a few HP; it still comes last
    expect(Math.abs(cav[0].effect)).toBeGreaterThan(Math.max(...s.rows.filter((x) => !x.from_zero).map((x) => Math.abs(x.effect))));
    expect(s.ranking.map((x) => [x.param, x.from_zero])).toEqual([
      [expect.not.stringMatching('defender.cavalry'), false],
      [expect.not.stringMatching('defender.cavalry'), false],
      ['defender.cavalry', true],
    ]);
    const json = sensitivityJson(s) as { rows: { param: string; from_zero: boolean; step_note?: string }[] };
    expect(json.rows.find((x) => x.param === 'defender.cavalry')).toMatchObject({ from_zero: true, step_note: 'from 0: the step is 20% of the allowed range, not of the value' });
    const page = sensitivityPage(s, [], []);
    expect(page).toContain('0 → 40 <span class="muted from-zero">(from 0: the step is 20% of the allowed range, not of the value)</span>');
    expect(page).toMatch(/except the 1 setting\(s\) at 0 marked "from 0"/);
    expect(sensitivityCsv(s).split('\n')[0]).toMatch(/,from_zero$/);
  });

  it('leaves a setting that changes the kind of game (mode: siege -> open_field) out of the ranking, unless --params names it', async () => {
    // every setting: mode is not turned (a siege against an open field would swamp the tornado), and said so
    const all = await sensitivityScenario(v, { executor: inProcess, trials: 200 });
    expect(all.ranking.map((x) => x.param)).not.toContain('mode');
    expect(all.rows.some((x) => x.param === 'mode')).toBe(false);
    expect(all.skipped).toContainEqual({ param: 'mode', to: 'open_field', reason: OTHER_GAME });
    // a rule option that plays the same game (same metrics) is still ranked
    expect(all.ranking.map((x) => x.param)).toContain('rules.melee_start');
    expect(rankingText(all, 3)).toContain('  not ranked: mode, which changes the kind of game (--params mode to rank it)');
    // named: turned and ranked like any other
    const named = await sensitivityScenario(v, { executor: inProcess, params: ['mode', 'wall.dc'], trials: 200 });
    expect(named.rows.filter((x) => x.param === 'mode').map((x) => x.to)).toEqual(['open_field']);
    expect(named.skipped).toEqual([]);
  });

  it('"did you mean" offers a group of settings too', async () => {
    await expect(sensitivityScenario(v, { executor: inProcess, params: ['wal'] })).rejects.toThrow('"wal" is not a tunable setting of this fantasy scenario (did you mean "wall"?)');
  });
});

describe('sensitivity: one setting dwarfs the rest (stone-wall-siege: rules.hp_preset -> one, -0.77)', () => {
  // Read with H28 end_of_phase: there 1-HP armies wipe each other out (undecided)
  // and hp_preset dwarfs the rest; with the DEFAULT at_once the round the engines drop the wall
  // lets the attacker's whole volley reach 1-HP defenders first, and the effect all but vanishes.
  const wall = scenario(`${readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/stone-wall-siege.yaml'), 'utf8')}\nrules: { wall_fall: end_of_phase }\n`);

  it('dominantCount: the fewest settings (up to 3) reaching 5 times as far as the next, with two left', () => {
    expect(dominantCount([0.79, 0.057, 0.015, 0.01])).toBe(1);
    expect(dominantCount([0.8, 0.7, 0.1, 0.05])).toBe(2);
    expect(dominantCount([0.3, 0.2, 0.1, 0.05])).toBe(0);
    expect(dominantCount([0.8, 0.01])).toBe(0); // one left: nothing to zoom
    expect(dominantCount([0.8, 0, 0])).toBe(0);
  });

  it('the tornado: the dominant setting in a panel of its own, the rest zoomed below, no axis past ±1; text and page write intervals as run does; the lead is not nested', async () => {
    const r = await sensitivityScenario(wall, { executor: inProcess, params: ['rules.hp_preset', 'attacker.archers', 'attacker.mages', 'defender.archers', 'defender.clerics'], trials: 2000 });
    const spec = tornadoChart(r)!.spec as { vconcat?: { data: { values: { param: string }[] }; layer: { encoding: { x?: { scale?: { domain: number[] } } } }[] }[] };
    expect(spec.vconcat).toHaveLength(2);
    const [top, rest] = spec.vconcat!;
    expect([...new Set(top.data.values.map((x) => x.param))]).toEqual(['rules.hp_preset']);
    expect(new Set(rest.data.values.map((x) => x.param))).toEqual(new Set(['attacker.archers', 'attacker.mages', 'defender.archers', 'defender.clerics']));
    for (const panel of spec.vconcat!) {
      const [lo, hi] = panel.layer[0].encoding.x!.scale!.domain;
      expect(lo).toBeGreaterThanOrEqual(-1);
      expect(hi).toBeLessThanOrEqual(1);
    }
    const [, restHi] = rest.layer[0].encoding.x!.scale!.domain;
    expect(restHi).toBeLessThan(0.2); // its own, finer scale
    // the printed ranking writes every interval with run's formatter, a change with its sign
    const text = rankingText(r, 5);
    const preset = r.rows.find((x) => x.param === 'rules.hp_preset' && x.to === 'one')!;
    expect(text).toContain(`table→one ${estimateText({ value: preset.effect, ci_low: preset.ci_low, ci_high: preset.ci_high }, true)}`);
    expect(text.split('\n')[0]).toBe(`p_attacker_wins = ${estimateText(r.baseline)} on the baseline variant (as-written); 2000 trials per case`);
    expect(text).not.toMatch(/\[\+/); // not "+0.0025 [+0.0009523, ...]"
    expect(text).not.toMatch(/\d\.\d{5,}/);
    const page = sensitivityPage(r, [], []);
    expect(page).toContain('<p>p_attacker_wins on the baseline variant (as-written): ');
    expect(page).not.toMatch(/\(\([^)]*\)\)|\([^()]*\([^()]*\)\)/); // no nested parentheses in the lead
  });
});

describe('sensitivity --where naming some of the swept settings: one rule, every setting said', () => {
  const grid = () => scenario(readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/wall-hp-dc-grid.yaml'), 'utf8'));
  const ask = { executor: inProcess, trials: 2000, params: ['defender.clerics'] };

  it("a swept setting --where leaves out keeps the first sweep point's value (as without --where, never the file's own), and stdout, the JSON and the page name it", async () => {
    const g = grid();
    const none = await sensitivityScenario(g, ask);
    let planned: string | undefined;
    const hp = await sensitivityScenario(g, { ...ask, where: { 'wall.hp': 10 }, onPlan: (p) => (planned = p.note) });
    expect(planned).toBe(hp.note); // said before the first trial (the CLI's stderr)
    expect(hp.where).toEqual({ 'wall.hp': 10, 'wall.dc': 6 }); // the file says dc 12; the first sweep point, 6
    expect(hp.baseline).toEqual(none.baseline); // the same case, the same dice
    expect(hp.note).toBe('working at wall.hp=10, wall.dc=6 (wall.dc as at the first sweep point)');
    expect(rankingText(hp, 10).split('\n')[0]).toBe(`p_attacker_wins = ${estimateText(hp.baseline)} at wall.hp=10, wall.dc=6 (wall.dc as at the first sweep point); 2000 trials per case`);
    expect(sensitivityJson(hp)).toMatchObject({ where: { 'wall.hp': 10, 'wall.dc': 6 }, note: hp.note });
    expect(sensitivityPage(hp, [], [])).toContain('<p>p_attacker_wins at wall.hp=10, wall.dc=6 (wall.dc as at the first sweep point): ');

    // the other way round: wall.hp from the first point, and the value is run's at that point
    const dc = await sensitivityScenario(g, { ...ask, where: { 'wall.dc': 14 } });
    expect(dc.where).toEqual({ 'wall.hp': 10, 'wall.dc': 14 });
    expect(dc.note).toBe('working at wall.hp=10, wall.dc=14 (wall.hp as at the first sweep point)');
    const ran = await runScenario(g, { trials: 2000, executor: inProcess });
    expect(dc.baseline).toEqual(ran.cases.find((c) => c.params['wall.hp'] === 10 && c.params['wall.dc'] === 14)!.metrics.p_attacker_wins);

    // a setting that is not swept: both swept ones from the first point, said
    const mages = await sensitivityScenario(g, { ...ask, where: { 'attacker.mages': 2 } });
    expect(mages.note).toBe('working at wall.hp=10, wall.dc=6, attacker.mages=2 (wall.hp, wall.dc as at the first sweep point)');
    // naming every swept setting leaves nothing to explain
    const both = await sensitivityScenario(g, { ...ask, where: { 'wall.hp': 16, 'wall.dc': 12 } });
    expect(both.note).toBe('working at wall.hp=16, wall.dc=12');
  }, 60_000);

  it('a mean over the trials with an event says over how many of them (stdout, page, JSON)', async () => {
    const s = await sensitivityScenario(grid(), { ...ask, metric: 'mean_breach_round', where: { 'wall.hp': 30, 'wall.dc': 17 } });
    expect(s.conditional_on).toBe('p_breach');
    expect(s.baseline.n).toBeLessThan(2000);
    const n = s.baseline.n.toLocaleString('en-US');
    expect(rankingText(s, 10).split('\n')[0]).toMatch(new RegExp(`; 2000 trials per case \\(here a mean over the ${n} of them with p_breach\\)$`));
    expect(sensitivityJson(s)).toMatchObject({ conditional_on: 'p_breach' });
    expect(sensitivityPage(s, [], [])).toContain(`(a mean over the ${n} of the 2,000 trials with p_breach)`);
    const p = await sensitivityScenario(grid(), ask);
    expect(p.conditional_on).toBeUndefined();
    expect(rankingText(p, 10)).not.toContain('a mean over');
  }, 60_000);
});

describe("sensitivity: the workbench's command line gives the case on screen", () => {
  const files = ['surrender', 'crusader-rex', 'fantasy', 'cry-havoc'].flatMap((d) =>
    readdirSync(path.join('scenarios', d))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => path.join('scenarios', d, f)),
  );
  const fake = (v: ValidScenario): SensitivityResult => ({ metric: 'p_x', trials: 1000, seed: v.seed, rows: [], skipped: [] }) as unknown as SensitivityResult;

  /** The case `siegesim sensitivity` starts from for the line's file and --where, and the one the page ranks: the same settings and the same dice. */
  function sameCase(file: string, v: ValidScenario, text: string, o: { variant?: string; values?: Record<string, unknown> }): string {
    const line = sensitivityLine(path.basename(file), commandCase(v, o), fake(v), {});
    if (line.command === null) throw new Error(`${file}: no command line: ${line.reason}`);
    const words = shellSplit(line.command);
    expect(words.slice(0, 4)).toEqual(['npx', 'siegesim', 'sensitivity', line.tuned ? path.basename(file).replace(/\.yaml$/, '.tuned.yaml') : path.basename(file)]);
    const i = words.indexOf('--where');
    const where = i < 0 ? undefined : parseSettings(words[i + 1]);
    let cli = v;
    if (line.tuned) {
      const saved = tunedYaml(text, v, o);
      if (!saved.ok) throw new Error(JSON.stringify(saved.issues));
      const t = validateText(file, saved.yaml);
      if (!t.ok) throw new Error(t.issues.map((x) => x.message).join('; '));
      cli = t.value;
    }
    const tv = tunedScenario(v, o);
    if (!tv.ok) throw new Error(JSON.stringify(tv.issues));
    const page = baseCaseOf(tv.value);
    const command = baseCaseOf(cli, where);
    expect(command.stream, line.command!).toBe(page.stream);
    expect(command.tunables.map((t) => [t.path, t.value]), line.command!).toEqual(page.tunables.map((t) => [t.path, t.value]));
    expect(v.system.compile(command.scenario), line.command!).toEqual(v.system.compile(page.scenario));
    return line.command!;
  }

  it('for every bundled scenario and variant: as loaded, a value tuned, a swept value tuned off the sweep', () => {
    let lines = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const r = validateText(file, text);
      if (!r.ok) throw new Error(file);
      const v = r.value;
      for (const variant of v.variantNames) {
        const d = describeControls(v, variant);
        if ('issues' in d) throw new Error(file);
        const int = d.controls.find((c) => c.kind === 'int' && c.inFile && typeof c.value === 'number' && !v.params.includes(c.path));
        const tuned: Record<string, unknown> = {};
        if (int) tuned[int.path] = (int.value as number) + 1 <= (int.max ?? Infinity) ? (int.value as number) + 1 : (int.value as number) - 1;
        const cases: Record<string, unknown>[] = [{}, tuned];
        if (v.params.length > 0) {
          const p = v.params[0];
          const c = d.controls.find((x) => x.path === p)!;
          const grid = [...new Set(v.points.map((pt) => Number(pt.params[p])))].sort((a, b) => a - b);
          const off = c.kind === 'int' ? [grid[grid.length - 1] + 1, grid[0] - 1].find((x) => x >= (c.min ?? -Infinity) && x <= (c.max ?? Infinity) && !grid.includes(x)) : (grid[0] + grid[1]) / 2;
          if (off !== undefined) cases.push({ ...tuned, [p]: off });
        }
        for (const values of cases) {
          const command = sameCase(file, v, text, { variant, values });
          lines++;
          if (v.params.length > 0) expect(command).toContain(`--where `);
        }
      }
    }
    expect(lines).toBeGreaterThan(60);
  });

  it('a case at none of the sweep points with nothing tuned: the line is the file with --where, the dice point 0 as the live run rolls', () => {
    const text = SIEGE.replace('turns: 4\n', 'turns: 4\nsweep:\n  structure.surrender_level: [1, 2, 4]\n');
    const v = scenario(text);
    const command = sameCase('t.yaml', v, text, {});
    expect(command).toBe("npx siegesim sensitivity t.yaml --where structure.surrender_level=3 --metric p_x --trials 1000 --seed 11");
    const tv = tunedScenario(v, {});
    expect(tv.ok && baseCaseOf(tv.value).stream).toBe('point-0');
    // tuned as well: the saved copy's sweep gains 3, and the line runs it
    expect(sameCase('t.yaml', v, text, { values: { 'besieger.combat_units': 4 } })).toBe(
      "npx siegesim sensitivity t.tuned.yaml --where structure.surrender_level=3,besieger.combat_units=4 --metric p_x --trials 1000 --seed 11",
    );
  });

  it('names the settings "written in the file" chose from in --params, leaving out one that changes the kind of game', () => {
    const v = scenario(SIEGE);
    const r = { ...fake(v), rows: [{ param: 'turns' }, { param: 'structure.port' }], skipped: [{ param: 'structure.port', reason: 'no room' }] } as unknown as SensitivityResult;
    expect(sensitivityLine('my siege.yaml', commandCase(v, {}), r, { among: ['turns', 'cards.besieger.chance', 'structure.port'] }).command).toBe(
      "npx siegesim sensitivity 'my siege.yaml' --metric p_x --trials 1000 --seed 11 --params turns,structure.port",
    );
    const game = { ...r, skipped: [{ param: 'mode', reason: OTHER_GAME }] } as unknown as SensitivityResult;
    expect(sensitivityLine('a.yaml', commandCase(v, {}), game, { among: ['mode', 'turns'] }).command).toBe('npx siegesim sensitivity a.yaml --metric p_x --trials 1000 --seed 11 --params turns');
  });
});
