import { describe, expect, it } from 'vitest';
import { checkScenario, exactScenario, runScenario, validateText, CHECK_Z_LIMIT } from '../src/api.js';
import { compileSurrender, modifierSum, testSucceeds, type SurrenderCompiled, type SurrenderScenario } from '../src/systems/surrender/compile.js';
import { exactSurrender, testProbability, turnHazard } from '../src/systems/surrender/exact.js';
import { ACC_BY_TURN, ACC_PROBE, ACC_SUM_T, ACC_SUM_T2, ACC_SURRENDERED, ACC_TRIALS, surrenderKernel } from '../src/systems/surrender/kernel.js';
import { summarizeSurrender } from '../src/systems/surrender/summarize.js';
import { deriveState, nextTrialState, type RngState } from '../src/engine/rng.js';
import { rollChance, rollDie } from '../src/engine/dice.js';
import { Z95 } from '../src/stats/intervals.js';
import { probability } from '../src/systems/metrics.js';
import { checkTrace, oneByOne } from './kernel-acc.shared.js';

/** A validated scenario's (single) compiled case, from YAML body lines. */
function compiled(body: string) {
  const v = validateText('t.yaml', `name: t\nsystem: surrender\nseed: 5\ntrials: 1000\n${body}`);
  if (!v.ok) throw new Error(v.issues.map((i) => i.message).join('; '));
  const s = v.value.points[0].variants[0].scenario;
  return { c: compileSurrender(s), s: s as unknown as SurrenderScenario, v: v.value };
}

describe('surrender: modifiers (seed 002 section B, docs/rules/surrender.md (i)-(v))', () => {
  it('the rules file worked example sums to -4 and gives 5/6', () => {
    const { c, s } = compiled(
      'structure: { surrender_level: 2 }\nbesieger: { heavy_siege_artillery: 1, siege_leaders: 1 }\nbesieged: { steps_inside: 12, siege_leaders: 1 }\n',
    );
    expect(modifierSum(s)).toBe(-4);
    expect(testProbability(c, c.baseMod)).toBeCloseTo(5 / 6, 15);
  });

  it('each toggle moves the sum as its reading says', () => {
    const sum = (body: string) => modifierSum(compiled(body).s);
    expect(sum('besieger: { heavy_siege_artillery: 2 }')).toBe(-3); // -1 each, plus any-artillery (iii)
    expect(sum('besieger: { heavy_siege_artillery: 2 }\nrules: { heavy_counts_as_artillery: false }')).toBe(-2);
    expect(sum('besieger: { artillery: 3, bombers: 2 }')).toBe(-1); // not cumulative
    expect(sum('besieger: { engineers: 1 }')).toBe(-1); // (ii) DEFAULT
    expect(sum('besieger: { engineers: 1 }\nrules: { engineers_count_as_artillery: false }')).toBe(0);
    expect(sum('besieger: { engineers: 1, artillery: 1 }\nrules: { engineers_separate_modifier: true }')).toBe(-2);
    expect(sum('besieged: { steps_inside: 14 }')).toBe(-2); // (iv) floor(14/5)
    expect(sum('besieged: { steps_inside: 14 }\nrules: { overcrowding_steps: 7 }')).toBe(-2);
    expect(sum('besieged: { steps_inside: 14 }\nrules: { overcrowding_steps: 4 }')).toBe(-3);
    expect(sum('besieger: { siege_leaders: 3 }\nbesieged: { siege_leaders: 2 }')).toBe(0); // (v) once per side
    expect(sum('besieger: { siege_leaders: 3 }\nbesieged: { siege_leaders: 2 }\nrules: { leader_bonus: per_leader }')).toBe(-2);
    expect(sum('extra_modifier: 3')).toBe(3);
  });
});

describe('surrender: closed form (docs/rules/surrender.md table)', () => {
  // E = L - Σm; P = clamp(E-1, 0, N)/N for "<", clamp(E, 0, N)/N for "<=".
  const table: [number, string, number, number][] = [];
  for (let E = -1; E <= 12; E++) {
    table.push([E, 'lt d6', 6, Math.min(Math.max(E - 1, 0), 6) / 6]);
    table.push([E, 'le d6', 6, Math.min(Math.max(E, 0), 6) / 6]);
    table.push([E, 'lt d10', 10, Math.min(Math.max(E - 1, 0), 10) / 10]);
    table.push([E, 'le d10', 10, Math.min(Math.max(E, 0), 10) / 10]);
  }
  it.each(table)('E=%i %s', (E, label, die) => {
    const cmp = label.startsWith('le') ? 'le' : 'lt';
    const { c } = compiled(`structure: { surrender_level: ${E} }\nrules: { die: ${die}, comparison: ${cmp} }`);
    expect(c.baseMod).toBe(0);
    const expected = table.find((r) => r[0] === E && r[1] === label)![3];
    expect(testProbability(c, 0)).toBeCloseTo(expected, 15);
  });

  it('natural 1 and natural max override the modifiers', () => {
    const hopeless = compiled('structure: { surrender_level: 1 }\nrules: { natural_one_succeeds: true }').c;
    expect(testProbability(hopeless, 0)).toBeCloseTo(1 / 6, 15);
    const certain = compiled('structure: { surrender_level: 20 }\nrules: { natural_max_fails: true }').c;
    expect(testProbability(certain, 0)).toBeCloseTo(5 / 6, 15);
  });

  it('modifiers on the level flip their effect (reading (i))', () => {
    const onRoll = compiled('structure: { surrender_level: 4 }\nbesieger: { artillery: 1 }').c;
    const onLevel = compiled('structure: { surrender_level: 4 }\nbesieger: { artillery: 1 }\nrules: { modifiers_apply_to: level }').c;
    expect(testProbability(onRoll, onRoll.baseMod)).toBeCloseTo(4 / 6, 15); // roll - 1 < 4
    expect(testProbability(onLevel, onLevel.baseMod)).toBeCloseTo(2 / 6, 15); // roll < 4 - 1
  });

  it('geometric turns: P(by T) = 1-(1-h)^T and E[turns | surrendered]', () => {
    const { c } = compiled('structure: { surrender_level: 3 }\nturns: 5');
    const h = 2 / 6;
    const e = exactSurrender(c);
    expect(e.metrics.p_surrender.value).toBeCloseTo(1 - (1 - h) ** 5, 14);
    let m = 0;
    for (let t = 1; t <= 5; t++) m += t * h * (1 - h) ** (t - 1);
    expect(e.metrics.mean_turns.value).toBeCloseTo(m / (1 - (1 - h) ** 5), 12);
  });

  it('blockade, cards and the too-few-besiegers rule enter the hazard', () => {
    const port = compiled(
      'structure: { surrender_level: 3, port: true, blockade_chance: 0.5 }\ncards: { besieger: { chance: 0.5, modifier: -1 }, besieged: { chance: 0.25 } }',
    ).c;
    // base P = 2/6; besieger card only: 3/6; besieged only: 1/6; both: 2/6
    const q = 0.5 * 0.75 * (2 / 6) + 0.5 * 0.75 * (3 / 6) + 0.5 * 0.25 * (1 / 6) + 0.5 * 0.25 * (2 / 6);
    expect(turnHazard(port)).toBeCloseTo(0.5 * q, 14);
    const lone = compiled('besieger: { combat_units: 1 }').c;
    expect(turnHazard(lone)).toBe(0);
    const twice = compiled('rules: { tests_per_turn: 2 }').c;
    expect(turnHazard(twice)).toBeCloseTo(1 - (4 / 6) ** 2, 14);
  });
});

describe('surrender: the kernel agrees with the closed form (|z| < 4.5 at fixed seeds)', () => {
  const cases: [string, string][] = [
    ['plain town', 'structure: { surrender_level: 3 }\nbesieger: { artillery: 1 }\nturns: 8'],
    ['port, cards, two tests', 'structure: { surrender_level: 2, port: true, blockade_chance: 0.4 }\nbesieger: { artillery: 1 }\ncards: { besieger: { chance: 0.3 }, besieged: { chance: 0.6, modifier: 2 } }\nrules: { tests_per_turn: 2, die: 10, comparison: le }\nturns: 10'],
    ['natural one only', 'structure: { surrender_level: 1 }\nrules: { natural_one_succeeds: true }\nturns: 6'],
    ['level reading, natural max', 'structure: { surrender_level: 6 }\nbesieger: { heavy_siege_artillery: 2 }\nrules: { modifiers_apply_to: level, natural_max_fails: true }\nturns: 4'],
    ['no siege', 'besieger: { combat_units: 1 }'],
  ];
  it.each(cases)('%s', async (_label, body) => {
    const v = validateText('t.yaml', `name: t\nsystem: surrender\nseed: z-test\ntrials: 200000\n${body}`);
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const result = await runScenario(v.value);
    const rows = checkScenario(result, exactScenario(v.value));
    expect(rows.length).toBeGreaterThan(3);
    for (const r of rows) {
      // a mean no trial gave a value has no z (zRow: NaN): it agrees only when the exact answer has none either (no siege: no surrender turn)
      if (r.n === 0) expect(r.exact, `${r.metric}: no observation, exact ${r.exact}`).toBeNaN();
      else expect(Math.abs(r.z), `${r.metric}: sim ${r.simulated} exact ${r.exact}`).toBeLessThan(CHECK_Z_LIMIT);
    }
  });

  it('the check catches a wrong kernel (the test can fail)', async () => {
    const v = validateText('t.yaml', 'name: t\nsystem: surrender\nseed: z-test\ntrials: 200000\nstructure: { surrender_level: 3 }\n');
    if (!v.ok) throw new Error('invalid');
    const result = await runScenario(v.value);
    const ex = exactScenario(v.value);
    // Pretend the exact answer were the "<=" reading: 3/6 instead of 2/6.
    ex[0].exact!.metrics.p_test.value = 3 / 6;
    const rows = checkScenario(result, ex);
    expect(Math.abs(rows.find((r) => r.metric === 'p_test')!.z)).toBeGreaterThan(CHECK_Z_LIMIT);
  });
});

describe('surrender: variants share dice', () => {
  it('a variant identical to the baseline has exactly zero difference', async () => {
    const v = validateText(
      't.yaml',
      'name: t\nsystem: surrender\nseed: 9\ntrials: 50000\nvariants:\n  - name: a\n  - name: same\n    set: { rules.die: 6 }\n  - name: le\n    set: { rules.comparison: le }\n',
    );
    if (!v.ok) throw new Error('invalid');
    const r = await runScenario(v.value);
    const same = r.cases.find((c) => c.variant === 'same')!;
    // the same program as the baseline's (a die of 6 is the default): no trial can differ, 0 [0, 0] by construction
    expect(same.differences.p_surrender).toMatchObject({ value: 0, ci_low: 0, ci_high: 0, se: 0, paired: true, spread: 0 });
    expect(same.metrics.p_surrender.k).toBe(r.cases[0].metrics.p_surrender.k);
    // The paired interval of the real difference is much narrower than an independent one.
    const le = r.cases.find((c) => c.variant === 'le')!;
    const paired = le.differences.p_test.ci_high - le.differences.p_test.ci_low;
    const p1 = le.metrics.p_test.value;
    const p0 = r.cases[0].metrics.p_test.value;
    const independent = 2 * 1.96 * Math.sqrt((p1 * (1 - p1) + p0 * (1 - p0)) / 50000);
    expect(paired).toBeLessThan(0.75 * independent);
    expect(le.differences.p_test.value).toBeCloseTo(1 / 6, 2);
  });
});

/**
 * The kernel against a plain model (docs/rules/surrender.md, written from the rules, one trial at
 * a time, with the same dice primitives), on the same streams: the accumulator must match slot
 * for slot. The model draws a card's chance only when the card can be played and the blockade
 * only for a port, as the kernel promises ("scenarios without cards keep their dice"), so a kernel
 * that drew one anyway would part from it at the first such draw.
 */
describe('surrender: the kernel against a plain model, trial by trial (fixed seeds)', () => {
  /** Each trial's surrender turn (0: held out, or no siege) and its p_test probe. */
  function model(c: SurrenderCompiled, stream: RngState, trials: number): { turn: number[]; probe: number[] } {
    const rng = new Int32Array(4);
    const turn: number[] = [];
    const probe: number[] = [];
    for (let i = 0; i < trials; i++) {
      nextTrialState(stream, rng);
      probe.push(testSucceeds(c, rollDie(rng, c.die, c.dieT), c.baseMod) ? 1 : 0);
      let fell = 0;
      for (let t = 1; c.siege === 1 && t <= c.turns && fell === 0; t++) {
        if (c.port === 1 && !rollChance(rng, c.blockadeT)) continue; // no blockade this turn: no test
        let m = c.baseMod;
        if (c.cardBChance > 0 && rollChance(rng, c.cardBT)) m += c.cardBMod;
        if (c.cardDChance > 0 && rollChance(rng, c.cardDT)) m += c.cardDMod;
        for (let k = 0; k < c.testsPerTurn && fell === 0; k++) if (testSucceeds(c, rollDie(rng, c.die, c.dieT), m)) fell = t;
      }
      turn.push(fell);
    }
    return { turn, probe };
  }

  const cases: [string, string][] = [
    ['no cards, no port', 'structure: { surrender_level: 3 }\nturns: 6'],
    ['no cards, a port', 'structure: { surrender_level: 3, port: true, blockade_chance: 0.6 }\nturns: 6'],
    ['besieger card only', 'structure: { surrender_level: 3 }\ncards: { besieger: { chance: 0.5, modifier: -2 } }\nturns: 6'],
    ['besieged card only, port', 'structure: { surrender_level: 4, port: true, blockade_chance: 0.7 }\ncards: { besieged: { chance: 0.4, modifier: 2 } }\nturns: 5'],
    ['both cards, two tests', 'structure: { surrender_level: 2 }\ncards: { besieger: { chance: 0.3 }, besieged: { chance: 0.6, modifier: 2 } }\nrules: { tests_per_turn: 2, die: 10 }\nturns: 8'],
    // 5e-10 of 2^31 rounds to a threshold of 0 (chanceThreshold): a chance of 1 in 2^31, still drawn
    ['both cards at the smallest chance that is drawn', 'structure: { surrender_level: 3 }\ncards: { besieger: { chance: 5e-10, modifier: -2 }, besieged: { chance: 5e-10 } }\nturns: 6'],
    ['no siege', 'besieger: { combat_units: 1 }'],
  ];

  it.each(cases)('%s', (label, body) => {
    const { c } = compiled(body);
    const trials = 3000;
    const acc = new Float64Array(surrenderKernel.accLength(c));
    surrenderKernel.run(c, deriveState('surrender-model', label, 0), trials, acc);
    const { turn, probe } = model(c, deriveState('surrender-model', label, 0), trials);
    const want = new Float64Array(acc.length);
    want[ACC_TRIALS] = trials;
    for (let i = 0; i < trials; i++) {
      want[ACC_PROBE] += probe[i];
      const t = turn[i];
      if (t === 0) continue;
      want[ACC_SURRENDERED] += 1;
      want[ACC_SUM_T] += t;
      want[ACC_SUM_T2] += t * t;
      want[ACC_BY_TURN + t - 1] += 1;
    }
    expect(acc.length).toBe(ACC_BY_TURN + c.turns);
    expect([...acc]).toEqual([...want]);
    if (c.siege === 1) expect(want[ACC_SURRENDERED]).toBeGreaterThan(100); // the case exercises the turns
    if (label.includes('smallest chance')) expect([c.cardBT, c.cardDT]).toEqual([0, 0]);
  });

  it.each(cases)('%s, traced (paired variants): the accumulator as untraced, each row the sums so far', (label, body) => {
    const { c } = compiled(body);
    const each = oneByOne(surrenderKernel, c, 500, `surrender ${label}`);
    // every slot but the trials count, which the kernel adds once per call
    checkTrace(surrenderKernel, c, each, Array.from({ length: surrenderKernel.accLength(c) - 1 }, (_, k) => k + 1), `surrender ${label}`);
    if (c.siege === 1) expect(each.filter((a) => a[ACC_SURRENDERED] === 1).length).toBeGreaterThan(20);
  });

  it("mean_turns is the mean surrender turn with its normal interval from Σturn and Σturn² (n − 1 variance, clamped to [1, turns])", () => {
    const { c } = compiled('structure: { surrender_level: 2 }\nturns: 5');
    const trials = 4000;
    const acc = new Float64Array(surrenderKernel.accLength(c));
    surrenderKernel.run(c, deriveState('surrender-model', 'mean_turns', 0), trials, acc);
    const turns = model(c, deriveState('surrender-model', 'mean_turns', 0), trials).turn.filter((t) => t > 0);
    const n = turns.length;
    const mean = turns.reduce((a, t) => a + t, 0) / n;
    const s2 = turns.reduce((a, t) => a + (t - mean) ** 2, 0) / (n - 1);
    const half = Z95 * Math.sqrt(s2 / n);
    const m = summarizeSurrender(c, acc).metrics.mean_turns;
    expect(m.n).toBe(n);
    expect(m.value).toBeCloseTo(mean, 12);
    expect(m.ci_low).toBeCloseTo(mean - half, 12);
    expect(m.ci_high).toBeCloseTo(mean + half, 12);
    expect(half).toBeGreaterThan(0.01); // a real interval, not a degenerate one
  });

  it('surrender_by_turn is the share surrendered by each turn 1..turns, with its Wilson interval', () => {
    const { c } = compiled('structure: { surrender_level: 2 }\nturns: 5');
    const trials = 2000;
    const acc = new Float64Array(surrenderKernel.accLength(c));
    surrenderKernel.run(c, deriveState('surrender-model', 'curve', 0), trials, acc);
    const turn = model(c, deriveState('surrender-model', 'curve', 0), trials).turn;
    const curve = summarizeSurrender(c, acc).curves.surrender_by_turn;
    expect(curve.map((p) => p.x)).toEqual([1, 2, 3, 4, 5].map((t) => ({ turn: t })));
    for (const p of curve) {
      const k = turn.filter((t) => t > 0 && t <= (p.x.turn as number)).length;
      expect(p.m, `turn ${p.x.turn}`).toEqual(probability(k, trials));
    }
    expect(curve[4].m.value).toBe(summarizeSurrender(c, acc).metrics.p_surrender.value);
  });
});
