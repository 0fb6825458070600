import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { checkScenario, exactScenario, runScenario, validateText, CHECK_Z_LIMIT } from '../src/api.js';
import { clampToRange } from '../src/api/exact.js';
import { los } from '../src/systems/cry-havoc/los.js';
import type { ScenarioResult } from '../src/systems/types.js';
import { zDiff, type Tree } from './helpers.js';

const HEAD = 'name: c\nsystem: cry-havoc\nseed: cry-havoc-tests\n';

function valid(body: Tree, trials = 20000) {
  const v = validateText('c.yaml', `${HEAD}trials: ${trials}\n${stringify(body)}`);
  if (!v.ok) throw new Error(v.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  return v.value;
}

async function pair(body: Tree, pathKey: string, value: unknown, trials = 20000): Promise<ScenarioResult> {
  return runScenario(valid({ ...body, variants: [{ name: 'base' }, { name: 'alt', set: { [pathKey]: value } }] }, trials));
}

const m = (r: ScenarioResult, vi: number, metric: string) => r.cases[vi].metrics[metric].value;
const up = (z: number) => expect(z).toBeGreaterThan(4);
const down = (z: number) => expect(z).toBeLessThan(-4);

const TWO_ON_ONE: Tree = {
  kind: 'melee',
  attackers: [{ attack: 6 }, { attack: 4 }],
  defender: { defence: 3, terrain: '+', wounded: { attack: 3, defence: 1 } },
  turns: 8,
};
const KNIGHT: Tree = {
  kind: 'melee',
  attackers: [{ attack: 5 }, { attack: 5 }],
  defender: { defence: 4, mounted: true, wounded: { defence: 2 } },
  turns: 8,
};

describe('cry-havoc: every rules option changes what it should', () => {
  it('odds below 1-1: no attack (DEFAULT) or fight on 1-1', async () => {
    const body = { kind: 'melee', attackers: [{ attack: 2 }], defender: { defence: 3 }, turns: 4 };
    const r = await pair(body, 'rules.odds_below_one', 'column_one');
    expect(m(r, 0, 'p_no_attack')).toBe(1);
    expect(m(r, 1, 'p_no_attack')).toBe(0);
    expect(m(r, 1, 'p_first_none')).toBeGreaterThan(0.4);
  });
  it('a column shifted below 1-1: clamped (DEFAULT) or no attack', async () => {
    const body = { kind: 'melee', attackers: [{ attack: 3, terrain: '-' }], defender: { defence: 3, terrain: '+' }, turns: 1 };
    const r = await pair(body, 'rules.shift_below_one', 'no_attack');
    expect(m(r, 0, 'p_no_attack')).toBe(0);
    expect(m(r, 1, 'p_no_attack')).toBe(1);
  });
  it('the multi-attacker shift on the mounted table too kills more knights', async () => {
    up(zDiff(await pair(KNIGHT, 'rules.multi_attacker_shift', 'both'), 'p_defender_killed'));
  });
  it('attackers on mixed terrain: the best terrain helps them', async () => {
    const body = { kind: 'melee', attackers: [{ attack: 6, terrain: '-' }, { attack: 6, terrain: '+' }], defender: { defence: 3 }, turns: 3 };
    up(zDiff(await pair(body, 'rules.attacker_terrain', 'best'), 'p_defender_killed'));
  });
  it('an "A" result that wounds all attackers kills more of them', async () => {
    // 1-1 fights go on even once a wounded attacker brings the odds below 1-1
    const body = { kind: 'melee', attackers: [{ attack: 3 }, { attack: 3 }], defender: { defence: 5 }, turns: 8, rules: { odds_below_one: 'column_one' } };
    up(zDiff(await pair(body, 'rules.attacker_wound', 'all'), 'p_attacker_killed'));
  });
  it('missing wounded counters: half values (DEFAULT) make a wounded defender easier to finish', async () => {
    const body = { kind: 'melee', attackers: [{ attack: 6 }], defender: { defence: 3, state: 'wounded' }, turns: 3 };
    down(zDiff(await pair(body, 'rules.wounded_values', 'unchanged'), 'p_defender_killed'));
  });
  it('a printed wounded defence is honoured (1.1, Part 4), foot and mounted, wounded and stunned', async () => {
    const exactKilled = (body: Tree) => exactScenario(valid(body, 10))[0].exact!.metrics.p_defender_killed.value;
    // 7 attack against a wounded defender printed 8 / wounded 2: 7 / 2 = the 3-1 column, not 7 / 4 (1-1)
    const foot = (wd: number) => exactKilled({ kind: 'melee', attackers: [{ attack: 7 }], defender: { defence: 8, state: 'wounded', wounded: { defence: wd } }, turns: 6 });
    expect(foot(2)).toBeGreaterThan(foot(4) + 0.1);
    expect(foot(4)).toBe(exactKilled({ kind: 'melee', attackers: [{ attack: 7 }], defender: { defence: 8, state: 'wounded' }, turns: 6 })); // halving only when the value is missing
    // a stunned foot defender defends at his printed wounded value (rules.stunned_defence: wounded)
    const stunned = (wd: number) => exactKilled({ kind: 'melee', attackers: [{ attack: 12 }], defender: { defence: 6, wounded: { defence: wd } }, turns: 1 + 1, rules: { stun_recovery: 'after_next_attack' } });
    expect(stunned(1)).toBeGreaterThan(stunned(3) + 0.01); // 2-1: a D stuns, then 12-1 against 4-1;
    // a knight unhorsed with no dismounted counters given keeps his printed wounded value (Part 4: "from the mounted values")
    const knight = (wd: number) => exactKilled({ kind: 'melee', attackers: [{ attack: 8 }, { attack: 8 }], defender: { defence: 4, mounted: true, wounded: { defence: wd } }, turns: 8, rules: { stun_recovery: 'after_next_attack' } }); // 4-1 mounted: D unhorses and stuns
    expect(knight(1)).toBeGreaterThan(knight(4) + 0.01);
    // the kernel agrees
    const body = { kind: 'melee', attackers: [{ attack: 7 }], defender: { defence: 8, state: 'wounded', wounded: { defence: 2 } }, turns: 6 };
    expect(m(await runScenario(valid(body, 20000)), 0, 'p_defender_killed')).toBeCloseTo(foot(2), 1);
  });
  it('stuns that last through the next attack kill more, and more so at the wounded defence', async () => {
    const r = await pair(TWO_ON_ONE, 'rules.stun_recovery', 'after_next_attack');
    up(zDiff(r, 'p_defender_killed'));
    const lasting = { ...TWO_ON_ONE, rules: { stun_recovery: 'after_next_attack' } };
    down(zDiff(await pair(lasting, 'rules.stunned_defence', 'normal'), 'p_defender_killed'));
  });
  it('blocked retreats wound instead', async () => {
    up(zDiff(await pair(TWO_ON_ONE, 'rules.retreat_blocked', true), 'p_defender_killed'));
  });
  it('revised range tables change the range modifier', async () => {
    const body = { kind: 'missile', shooters: [{ weapon: 'longbow', range: 70 }], target: { cover: 'none' }, turns: 3 };
    // 70 hexes: base medium (+1), Croisades long (+2)
    down(zDiff(await pair(body, 'rules.ranges', 'croisades'), 'p_killed'));
  });
  it('the Vikings short-bow long band is an option (O2)', async () => {
    const body = { kind: 'missile', shooters: [{ weapon: 'shortbow', range: 55 }], target: {}, turns: 2, rules: { ranges: 'vikings', vikings_shortbow_long: [26, 60] } };
    expect(m(await runScenario(valid(body, 2000)), 0, 'p_shot_miss')).toBeGreaterThan(0.5);
    const v = validateText('c.yaml', `${HEAD}trials: 10\n${stringify({ ...body, rules: { ranges: 'vikings' } })}`);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.issues[0]).toMatchObject({ path: 'shooters[0].range', message: expect.stringContaining("beyond the shortbow's long range") });
  });
  it('a Vikings short-bow long band with a gap refuses a range in the gap as in no band (not "beyond"); an overlapping one gives up the overlap', async () => {
    const at = (range: number, band: [number, number]) => ({ kind: 'missile', shooters: [{ weapon: 'shortbow', range }], target: {}, turns: 1, rules: { ranges: 'vikings', vikings_shortbow_long: band } });
    const gap = validateText('c.yaml', `${HEAD}trials: 10\n${stringify(at(27, [30, 50]))}`);
    expect(gap.ok).toBe(false);
    if (!gap.ok) {
      expect(gap.issues[0].path).toBe('shooters[0].range');
      expect(gap.issues[0].message).toBe('27 hexes is in none of the shortbow\'s range bands in the "vikings" table (short 1-10, medium 11-25, long 30-50): rules.vikings_shortbow_long leaves it out');
    }
    const far = validateText('c.yaml', `${HEAD}trials: 10\n${stringify(at(60, [30, 50]))}`);
    if (!far.ok) expect(far.issues[0].message).toContain("60 hexes is beyond the shortbow's long range");
    else expect.unreachable('60 hexes is beyond 30-50');
    // [20, 50] overlaps the medium band 11-25: 22 hexes is medium (+1), as with the DEFAULT band
    const miss = (band: [number, number]) => exactScenario(valid(at(22, band), 10))[0].exact!.metrics.p_shot_miss.value;
    expect(miss([20, 50])).toBe(miss([26, 50]));
  });
  it('a ballista under the revised range tables: refused (DEFAULT) or on the base bands (rules.revised_ballista)', async () => {
    const body = { kind: 'missile', shooters: [{ weapon: 'ballista', range: 60 }], target: {}, turns: 1, rules: { ranges: 'croisades' } };
    const v = validateText('c.yaml', `${HEAD}trials: 10\n${stringify(body)}`);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.issues[0]).toMatchObject({ path: 'shooters[0].weapon', message: expect.stringContaining('rules.revised_ballista: base_bands') });
    const base = exactScenario(valid({ ...body, rules: { ranges: 'base' } }, 10))[0].exact!.metrics;
    const revised = exactScenario(valid({ ...body, rules: { ranges: 'croisades', revised_ballista: 'base_bands' } }, 10))[0].exact!.metrics;
    expect(revised.p_killed.value).toBe(base.p_killed.value); // 60 hexes: the base medium band (+1) either way
  });
  it('a mounted target in heavy cover: medium column (DEFAULT) or light', async () => {
    const body = { kind: 'missile', shooters: [{ weapon: 'ballista', range: 10 }], target: { mounted: true, cover: 'heavy' }, turns: 1 };
    up(zDiff(await pair(body, 'rules.mounted_heavy_cover', 'light'), 'p_killed'));
  });
  it('Croisades errata: a "C" result leaves the rider mounted', async () => {
    const body = { kind: 'missile', shooters: [{ weapon: 'ballista', range: 10 }], target: { mounted: true, cover: 'medium' }, turns: 3 };
    const r = await pair(body, 'rules.croisades_mounted_errata', true);
    expect(Math.abs(zDiff(r, 'p_killed'))).toBeGreaterThan(4);
  });
  it('battering: two rolls a day, and which engines take the losses', async () => {
    const body = { kind: 'battering', engines: { trebuchet: 2, mangonel: 3 }, days: 12 };
    up(zDiff(await pair(body, 'rules.rolls_per_day', 2), 'p_breached'));
    const r = await pair(body, 'policy.engine_losses', 'largest_first');
    expect(m(r, 1, 'mean_points_lost')).toBe(m(r, 0, 'mean_points_lost')); // losses are the same points...
    expect(m(r, 1, 'mean_engines_out')).toBeLessThan(m(r, 0, 'mean_engines_out')); // ...from other engines
  });
  it('fire: the O8 row swap, and a fire fought only from the next turn', async () => {
    const body = { kind: 'fire', fire: { method: 'oil_barrel', attempts: 1, extinguish_attempts: 1 }, turns: 5 };
    up(zDiff(await pair(body, 'rules.oil_barrel_row7', 'swapped'), 'p_ever_ignited'));
    const late = await pair(body, 'rules.extinguish_same_turn', false);
    expect(m(late, 1, 'p_burning_at_end')).toBeGreaterThan(m(late, 0, 'p_burning_at_end'));
  });
  it('healing: the length of a strategic turn', async () => {
    const body = { kind: 'healing', healing: { table: 'croisades' } };
    const r = await pair(body, 'rules.strategic_turn_days', 4);
    expect(m(r, 1, 'mean_days_to_heal') / m(r, 0, 'mean_days_to_heal')).toBeCloseTo(4 / 3, 10);
  });
});

describe('cry-havoc: the kernels agree with the exact answers (|z| < 4.5)', () => {
  const dir = path.resolve(import.meta.dirname, '../scenarios/cry-havoc');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  it.each(files)('%s', async (f) => {
    const v = validateText(f, readFileSync(path.join(dir, f), 'utf8'));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const result = await runScenario(v.value, { trials: 60000 });
    const rows = checkScenario(result, exactScenario(v.value));
    expect(rows.length).toBeGreaterThan(3);
    for (const r of rows) {
      // a mean no trial gave a value has no z (zRow: NaN): it agrees only when the exact answer has none either (the event never happens)
      if (r.n === 0) expect(r.exact, `${r.variant} ${r.metric}: no observation, exact ${r.exact}`).toBeNaN();
      else expect(Math.abs(r.z), `${r.variant} ${r.metric}: ${r.simulated} vs ${r.exact}`).toBeLessThan(CHECK_Z_LIMIT);
    }
  });

  const melees: [string, Tree][] = [
    ['two on one, stuns last a turn, stunned defend normally', { ...TWO_ON_ONE, rules: { stun_recovery: 'after_next_attack', stunned_defence: 'normal' } }],
    ['blocked retreats, every attacker wounded by "A"', { ...TWO_ON_ONE, rules: { retreat_blocked: true, attacker_wound: 'all', odds_below_one: 'column_one' } }],
    ['a mounted knight unhorsed, shift on both tables', { ...KNIGHT, rules: { multi_attacker_shift: 'both' } }],
    ['wounded attackers, mixed terrain, below 1-1 stops the fight', { kind: 'melee', attackers: [{ attack: 4, state: 'wounded', wounded: { attack: 2 } }, { attack: 3, terrain: '-' }], defender: { defence: 2, terrain: '+' }, turns: 6 }],
  ];
  it.each(melees)('repeated melee against its exact chain: %s', async (_label, body) => {
    const v = valid(body, 60000);
    const rows = checkScenario(await runScenario(v), exactScenario(v));
    expect(rows.some((r) => r.metric === 'p_defender_killed')).toBe(true);
    expect(rows.some((r) => r.metric.startsWith('results_by_turn'))).toBe(true);
    for (const r of rows) expect(Math.abs(r.z), `${r.metric}: ${r.simulated} vs ${r.exact}`).toBeLessThan(CHECK_Z_LIMIT);
  });

  const volleys: [string, Tree][] = [
    ['a mounted knight under crossbows and a ballista, Croisades errata', { kind: 'missile', shooters: [{ weapon: 'crossbow', range: 20 }, { weapon: 'ballista', range: 60 }], target: { mounted: true, cover: 'light', dismounted_knight: true }, turns: 4, rules: { croisades_mounted_errata: true } }],
    ['heavy cover, blocked retreats, lasting stuns, a wounded archer', { kind: 'missile', shooters: [{ weapon: 'longbow', range: 35, wounded: true }, { weapon: 'shortbow', range: 10 }], target: { mounted: true, cover: 'heavy' }, turns: 5, rules: { retreat_blocked: true, stun_recovery: 'after_next_attack', mounted_heavy_cover: 'light' } }],
  ];
  it.each(volleys)('missile fire over the turns against its exact chain: %s', async (_label, body) => {
    const v = valid(body, 60000);
    const rows = checkScenario(await runScenario(v), exactScenario(v));
    expect(rows.some((r) => r.metric.startsWith('p_killed_by_turn'))).toBe(true);
    for (const r of rows) expect(Math.abs(r.z), `${r.metric}: ${r.simulated} vs ${r.exact}`).toBeLessThan(CHECK_Z_LIMIT);
  });

  it('hand values: first roll of a 3-1 foot melee, a short-range longbow shot, a 12-point battering roll', async () => {
    const melee = exactScenario(valid({ kind: 'melee', attackers: [{ attack: 9 }], defender: { defence: 3 } }))[0].exact!.metrics;
    // 3-1 vs foot: -30 A10 B10 C20 D20 E10 (rules 1.6 probabilities)
    expect([melee.p_first_none.value, melee.p_first_A.value, melee.p_first_C.value, melee.p_first_E.value].map((x) => Math.round(x * 10))).toEqual([3, 1, 2, 1]);
    const shot = exactScenario(valid({ kind: 'missile', shooters: [{ weapon: 'longbow', range: 10 }], target: {} }))[0].exact!.metrics;
    // longbow, no cover, short range: C 20 / B 20 / A 20 / - 40 (rules 1.5 sanity check)
    expect([shot.p_shot_C.value, shot.p_shot_B.value, shot.p_shot_A.value, shot.p_shot_miss.value].map((x) => Math.round(x * 10))).toEqual([2, 2, 2, 4]);
    const ram = exactScenario(valid({ kind: 'battering', engines: { ram: 2 }, wall: 'interior', days: 1 }))[0].exact!.metrics;
    expect(ram.p_breached.value).toBeCloseTo(0.8, 12); // 12+ column: D on 3-10
  });

  it('a first melee roll that cannot be made: every p_first_* is 0 (Part 3.2), in the kernel and the exact answer', async () => {
    const body = { kind: 'melee', attackers: [{ attack: 2 }], defender: { defence: 5 }, turns: 2 };
    const r = await runScenario(valid(body, 1000));
    const firsts = Object.entries(r.cases[0].metrics).filter(([k]) => k.startsWith('p_first_'));
    expect(firsts.length).toBe(7);
    for (const [k, x] of firsts) expect(x.value, k).toBe(0);
    expect(m(r, 0, 'p_no_attack')).toBe(1);
    const ex = exactScenario(valid(body, 10))[0].exact!.metrics;
    for (const [k] of firsts) expect(ex[k].value, k).toBe(0);
  });

  it('the exact answer names what it has no exact answer for: a melee of more than 6 attackers, p_hurt, mean_engines_out, mean_turns_burning', () => {
    const seven = exactScenario(valid({ kind: 'melee', attackers: Array.from({ length: 7 }, () => ({ attack: 5 })), defender: { defence: 10 }, turns: 2 }, 10))[0].exact!;
    expect(Object.keys(seven.metrics).every((k) => k.startsWith('p_first_'))).toBe(true);
    expect(seven.omitted).toEqual([
      {
        metrics: ['p_defender_killed', 'p_attacker_killed', 'p_undecided', 'p_no_attack', 'mean_turns', 'results_by_turn'],
        why: 'the melee chain is built for at most 6 attackers and this case has 7; only the first roll (p_first_*) is exact',
      },
    ]);
    const six = exactScenario(valid({ kind: 'melee', attackers: Array.from({ length: 6 }, () => ({ attack: 5 })), defender: { defence: 10 }, turns: 2 }, 10))[0].exact!;
    expect(six.omitted).toBeUndefined();
    expect(six.metrics.p_defender_killed).toBeDefined();
    const omitted = (body: Tree) => exactScenario(valid(body, 10))[0].exact!.omitted!.flatMap((o) => o.metrics);
    expect(omitted({ kind: 'missile', shooters: [{ weapon: 'longbow', range: 10 }], target: {} })).toEqual(['p_hurt']);
    expect(omitted({ kind: 'battering', engines: { mangonel: 2 } })).toEqual(['mean_engines_out']);
    expect(omitted({ kind: 'fire' })).toEqual(['mean_turns_burning']);
  });

  it('exact probabilities stay in [0, 1]: a melee whose sums land a few ulps outside gives 0 and 1 exactly', () => {
    // Summed in floating point, these gave p_undecided = -8.9e-16 (1000 turns, best terrain and
    // the multi-attacker column on both tables) and p_defender_killed = 1.0000000000000002 with
    // p_undecided = -2.2e-16 (a defence of 1 with stuns that last).
    const mixed = valid(
      {
        kind: 'melee',
        attackers: [{ attack: 5, terrain: '+' }, { attack: 5, terrain: '+' }, { attack: 4, terrain: '0', state: 'wounded' }],
        defender: { defence: 4, terrain: '-', wounded: { defence: 2 } },
        turns: 1000,
        rules: { attacker_terrain: 'best', multi_attacker_shift: 'both' },
      },
      10,
    );
    const sure = valid({ kind: 'melee', attackers: [{ attack: 6 }, { attack: 3 }], defender: { defence: 1, wounded: { defence: 1 } }, turns: 3, rules: { stun_recovery: 'after_next_attack' } }, 10);
    const a = exactScenario(mixed)[0].exact!;
    const b = exactScenario(sure)[0].exact!;
    expect(a.metrics.p_undecided.value).toBe(0);
    expect(b.metrics.p_defender_killed.value).toBe(1);
    expect(b.metrics.p_undecided.value).toBe(0);
    for (const e of [a, b]) {
      for (const [k, x] of Object.entries(e.metrics)) if (k.startsWith('p_')) expect(x.value >= 0 && x.value <= 1, `${k} = ${x.value}`).toBe(true);
      for (const pt of e.curves.results_by_turn) expect(pt.value >= 0 && pt.value <= 1, JSON.stringify(pt)).toBe(true);
    }
  });

  it('a variance a few ulps below 0 (a mean the same in every trial) is held to 0; others are left as they are', () => {
    const sys = { curveDefs: [{ file: 'attrition', keys: ['round'], valueName: 'mean' }] };
    const out = clampToRange(sys, {
      metrics: { mean_rounds: { value: 3.0000000000000027, variance: -1.4210854715202004e-14 }, mean_lost: { value: 2, variance: 1e-15 } },
      curves: { attrition: [{ x: { round: 1 }, value: 4, variance: -3e-15 }, { x: { round: 2 }, value: 1.5, variance: 0.25 }] },
    });
    expect(out.metrics).toEqual({ mean_rounds: { value: 3.0000000000000027, variance: 0 }, mean_lost: { value: 2, variance: 1e-15 } });
    expect(out.curves.attrition).toEqual([{ x: { round: 1 }, value: 4, variance: 0 }, { x: { round: 2 }, value: 1.5, variance: 0.25 }]);
  });
  it('holding probabilities to [0, 1] leaves means and every value already inside untouched', () => {
    const sys = { curveDefs: [{ file: 'by_turn', keys: ['turn'], valueName: 'p_cumulative' }, { file: 'attrition', keys: ['round'], valueName: 'mean' }] };
    const out = clampToRange(sys, {
      metrics: { p_low: { value: -8.881784197001252e-16 }, p_high: { value: 1.0000000000000002 }, p_in: { value: 0.30000000000000004 }, mean_turns: { value: -0.5, variance: 2 } },
      curves: { by_turn: [{ x: { turn: 1 }, value: 1.0000000000000004 }, { x: { turn: 2 }, value: 0.7 }], attrition: [{ x: { round: 1 }, value: 1.5 }] },
      omitted: [{ metrics: ['p_hurt'], why: 'w' }],
    });
    expect(out).toEqual({
      metrics: { p_low: { value: 0 }, p_high: { value: 1 }, p_in: { value: 0.30000000000000004 }, mean_turns: { value: -0.5, variance: 2 } },
      curves: { by_turn: [{ x: { turn: 1 }, value: 1 }, { x: { turn: 2 }, value: 0.7 }], attrition: [{ x: { round: 1 }, value: 1.5 }] },
      omitted: [{ metrics: ['p_hurt'], why: 'w' }],
    });
  });
});

describe('cry-havoc: sight lines (seed 004 R4, R5)', () => {
  it('the Thales test and the dead zone, with both roundings', () => {
    expect(los({ n: 2, d: 10, d1: 6, h: 1 })).toMatchObject({ possible: true, lhs: 12, rhs: 10, d2: 4, minD1: 4, maxD2: 6 });
    expect(los({ n: 2, d: 10, d1: 4, h: 1 }).possible).toBe(false);
    // N = 3, H = 2, D1 = 5: D2 <= 5 * 1 / 2 = 2.5 -> 2 (DEFAULT, a maximum rounds down) or 3 (source)
    expect(los({ n: 3, d: 7, d1: 5, h: 2 }).maxD2).toBe(2);
    expect(los({ n: 3, d: 7, d1: 5, h: 2, rounding: 'source' }).maxD2).toBe(3);
    // the DEFAULT's bounds satisfy the test; the source's D2 can break it
    const dflt = los({ n: 3, d: 7, d1: 5, h: 2 });
    expect(los({ n: 3, d: 5 + dflt.maxD2!, d1: 5, h: 2 }).possible).toBe(true);
    expect(los({ n: 3, d: 5 + 3, d1: 5, h: 2 }).possible).toBe(false);
    expect(los({ n: 1, d: 10, d1: 4, h: 1 }).minD1).toBeNull();
  });

  it('half levels (1.10: embankments 0.5, siege-tower tops 2.5): the bounds are the tightest whole hexes that pass', () => {
    // N = 2.5, H = 0.5, D = 10, D1 = 6: 15 >= 5; D1 >= 4 * 0.5 / 2 = 1; D2 <= 6 * 2 / 0.5 = 24
    expect(los({ n: 2.5, d: 10, d1: 6, h: 0.5 })).toMatchObject({ possible: true, lhs: 15, rhs: 5, d2: 4, minD1: 1, maxD2: 24, deadZone: 'partial' });
    // N = 1.5, H = 0.5, D1 = 2: D2 <= 2 * 1 / 0.5 = 4 exactly; one hex more is blocked, one hex less D1 too
    const r = los({ n: 1.5, d: 6, d1: 2, h: 0.5 });
    expect(r).toMatchObject({ possible: true, minD1: 2, maxD2: 4 });
    expect(los({ n: 1.5, d: 2 + r.maxD2! + 1, d1: 2, h: 0.5 }).possible).toBe(false);
    expect(los({ n: 1.5, d: r.minD1! - 1 + 4, d1: r.minD1! - 1, h: 0.5 }).possible).toBe(false);
    // N = H: only the upper character at the obstruction (D2 = 0) sees over it (R4: 0 >= D2·H)
    expect(los({ n: 0.5, d: 6, d1: 2, h: 0.5 })).toMatchObject({ possible: false, minD1: null, maxD2: 0, deadZone: 'partial' });
    expect(los({ n: 1, d: 10, d1: 10, h: 1 })).toMatchObject({ possible: true, minD1: 0, maxD2: 0, deadZone: 'partial' });
    // N < H: no position with D > 0 passes; D = D1 = 0 does (0 >= 0)
    expect(los({ n: 2, d: 8, d1: 5, h: 3 })).toMatchObject({ possible: false, minD1: null, maxD2: null, deadZone: 'total' });
    expect(los({ n: 2, d: 0, d1: 0, h: 3 })).toMatchObject({ possible: true, minD1: 0, maxD2: 0, deadZone: 'total' });
  });

  it('minD1 and maxD2 are the smallest D1 and largest D2 at which R4 holds, so possible never contradicts the dead zone', () => {
    const levels = [0, 0.5, 1, 1.5, 2, 2.5, 3, 5];
    const r4 = (n: number, d1: number, d2: number, h: number) => n * d1 >= (d1 + d2) * h;
    for (const n of levels) {
      for (const h of levels) {
        for (const [d, d1] of [[0, 0], [4, 0], [4, 4], [10, 6], [10, 10], [7, 5], [12, 3]]) {
          const r = los({ n, d, d1, h });
          const at = `N ${n}, H ${h}, D ${d}, D1 ${d1}`;
          expect(r.possible, at).toBe(r4(n, d1, d - d1, h));
          const d1s = Array.from({ length: 200 }, (_, k) => k).filter((x) => r4(n, x, d - d1, h));
          expect(r.minD1, at).toBe(d1s.length > 0 ? d1s[0] : null);
          const d2s = Array.from({ length: 200 }, (_, k) => k).filter((x) => r4(n, d1, x, h));
          if (h === 0) expect([r.maxD2, d2s.length, r.deadZone], at).toEqual([null, 200, 'none']);
          else expect(r.maxD2, at).toBe(d2s.length > 0 ? d2s[d2s.length - 1] : null);
          expect(r.deadZone, at).toBe(h === 0 ? 'none' : n < h ? 'total' : 'partial');
          // with D2 = maxD2 the shot passes: the dead zone's bound is a position that sees
          if (r.maxD2 !== null) expect(los({ n, d: d1 + r.maxD2, d1, h }).possible, at).toBe(true);
        }
      }
    }
  });

  it('an obstruction no higher than the lower character (H = 0) hides nothing: no dead zone, no bound on D2', () => {
    for (const n of [0, 0.5, 2]) {
      for (const d1 of [0, 3]) expect(los({ n, d: 10, d1, h: 0 }), `N ${n}, D1 ${d1}`).toEqual({ possible: true, lhs: n * d1, rhs: 0, d2: 10 - d1, minD1: 0, maxD2: null, rounding: 'default', deadZone: 'none' });
    }
  });
});

describe('cry-havoc: settings that change nothing are said as warnings, never refused (RulesSystem.deadSettings)', () => {
  const MELEE_FOOT: Tree = { kind: 'melee', attackers: [{ attack: 6, terrain: '-' }, { attack: 4 }], defender: { defence: 3 }, turns: 6 };
  const MISSILE_FOOT: Tree = { kind: 'missile', shooters: [{ weapon: 'longbow', range: 40 }], target: { cover: 'light' }, turns: 4 };
  // each: a case, a setting it writes, where the warning is said, and what it says (in part)
  const DEAD: [string, Tree, string, unknown, string, string][] = [
    ['shooters in a melee', MELEE_FOOT, 'shooters', [{ weapon: 'crossbow', range: 10 }], 'shooters', 'a melee question never reads shooters'],
    ['days in a melee', MELEE_FOOT, 'days', 40, 'days', 'a melee question never reads days'],
    ['turns in healing', { kind: 'healing' }, 'turns', 9, 'turns', 'a healing question never reads turns'],
    ['a missile rule in a fire', { kind: 'fire', turns: 5 }, 'rules.ranges', 'vikings', 'rules.ranges', 'rules.ranges is not read by a fire question'],
    ['dismounted counters on a defender on foot', MELEE_FOOT, 'defender.dismounted', { defence: 1, wounded_defence: 0 }, 'defender.dismounted', 'the defender is on foot from the start'],
    ['stunned_defence with stuns that wear off before the next attack', MELEE_FOOT, 'rules.stunned_defence', 'normal', 'rules.stunned_defence', 'no attack meets a stunned defender'],
    ['the multi-attacker shift against a defender on foot', MELEE_FOOT, 'rules.multi_attacker_shift', 'both', 'rules.multi_attacker_shift', 'the defender is on foot from the start'],
    ['the multi-attacker shift with one attacker', { ...KNIGHT, attackers: [{ attack: 9 }] }, 'rules.multi_attacker_shift', 'both', 'rules.multi_attacker_shift', 'there is one attacker'],
    ['the attacker wound with one attacker', { ...MELEE_FOOT, attackers: [{ attack: 6 }] }, 'rules.attacker_wound', 'all', 'rules.attacker_wound', 'there is one attacker'],
    ['attacker terrain with every attacker on one terrain', { ...MELEE_FOOT, attackers: [{ attack: 6, terrain: '-' }, { attack: 4, terrain: '-' }] }, 'rules.attacker_terrain', 'best', 'rules.attacker_terrain', 'the same terrain'],
    ['wounded values with every wounded value printed', { ...MELEE_FOOT, attackers: [{ attack: 7, wounded: { attack: 2 } }, { attack: 4, wounded: { attack: 3 } }], defender: { defence: 3, wounded: { defence: 2 } } }, 'rules.wounded_values', 'unchanged', 'rules.wounded_values', 'every wounded value this melee reads is printed'],
    ['the Vikings band under the base ranges', MISSILE_FOOT, 'rules.vikings_shortbow_long', [20, 60], 'rules.vikings_shortbow_long', 'the ranges are "base"'],
    ['the revised ballista with no ballista', { ...MISSILE_FOOT, rules: { ranges: 'croisades' } }, 'rules.revised_ballista', 'base_bands', 'rules.revised_ballista', 'no shooter has a ballista'],
    ['stun recovery at a target on foot', MISSILE_FOOT, 'rules.stun_recovery', 'after_next_attack', 'rules.stun_recovery', 'the foot table has no stun result'],
    ['the Croisades errata at a target on foot', MISSILE_FOOT, 'rules.croisades_mounted_errata', true, 'rules.croisades_mounted_errata', 'the target is on foot'],
    ['mounted heavy cover at a mounted target in light cover', { ...MISSILE_FOOT, target: { mounted: true, cover: 'light' } }, 'rules.mounted_heavy_cover', 'none', 'rules.mounted_heavy_cover', 'the cover is "light"'],
    ['engine losses with mangonels only', { kind: 'battering', engines: { mangonel: 3, ram: 1 }, days: 30 }, 'policy.engine_losses', 'largest_first', 'policy.engine_losses', 'mangonels only, or a single trebuchet'],
    ['the O8 swap for fire arrows', { kind: 'fire', fire: { method: 'arrow_light', attempts: 2 }, turns: 6 }, 'rules.oil_barrel_row7', 'swapped', 'rules.oil_barrel_row7', 'fire.method is arrow_light'],
    ['same-turn extinguishing with no extinguishing', { kind: 'fire', fire: { method: 'hand', attempts: 2, extinguish_attempts: 0 }, turns: 6 }, 'rules.extinguish_same_turn', false, 'rules.extinguish_same_turn', 'fire.extinguish_attempts is 0'],
  ];
  it.each(DEAD)('%s: a warning at the variant that writes it, and every metric and curve point the same on the same dice', async (_, body, key, value, at, says) => {
    const v = valid({ ...body, variants: [{ name: 'without' }, { name: 'with', set: { [key]: value } }] }, 3000);
    expect(v.warnings?.map((w) => w.path)).toEqual([`variants[1].set.${key}`]);
    expect(v.warnings![0].message).toContain(`in variant "with": changes nothing: `);
    expect(v.warnings![0].message).toContain(says);
    expect(key.startsWith(at)).toBe(true);
    const r = await runScenario(v);
    const [a, b] = r.cases;
    for (const [k, x] of Object.entries(a.metrics)) expect(b.metrics[k].value, k).toBe(x.value);
    expect(Object.values(b.curves).map((c) => c.map((p) => p.m.value))).toEqual(Object.values(a.curves).map((c) => c.map((p) => p.m.value)));
  });

  it('is said only where no case the place writes it for uses it, and never for a setting that can matter', () => {
    // the file writes stunned_defence; a variant makes stuns last, so it matters there: nothing to say
    expect(valid({ ...MELEE_FOOT, rules: { stunned_defence: 'normal' }, variants: [{ name: 'a' }, { name: 'b', set: { 'rules.stun_recovery': 'after_next_attack' } }] }, 10).warnings).toBeUndefined();
    // in every case it is written for it is dead: said once, at the file's key
    const once = valid({ ...MELEE_FOOT, rules: { stunned_defence: 'normal' }, variants: [{ name: 'a' }, { name: 'b', set: { 'rules.retreat_blocked': true } }] }, 10).warnings!;
    expect(once.map((w) => w.path)).toEqual(['rules.stunned_defence']);
    // settings that can matter here: none said
    for (const body of [
      { ...KNIGHT, rules: { multi_attacker_shift: 'both', stunned_defence: 'normal', stun_recovery: 'after_next_attack', attacker_wound: 'all', wounded_values: 'unchanged' }, defender: { defence: 4, mounted: true, dismounted: { defence: 3 } } },
      { ...MISSILE_FOOT, target: { mounted: true, cover: 'heavy' }, shooters: [{ weapon: 'shortbow', range: 30 }, { weapon: 'ballista', range: 20 }], rules: { ranges: 'vikings', vikings_shortbow_long: [26, 60], revised_ballista: 'base_bands', mounted_heavy_cover: 'light', croisades_mounted_errata: true, stun_recovery: 'after_next_attack' } },
      { kind: 'battering', engines: { mangonel: 1, trebuchet: 1 }, policy: { engine_losses: 'largest_first' } },
      { kind: 'fire', fire: { method: 'hand' }, rules: { oil_barrel_row7: 'swapped', extinguish_same_turn: false } },
    ])
      expect(valid(body, 10).warnings, JSON.stringify(body)).toBeUndefined();
    // the bundled scenarios write nothing dead
    const dir = path.join(import.meta.dirname, '..', 'scenarios', 'cry-havoc');
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml'))) {
      const b = validateText(f, readFileSync(path.join(dir, f), 'utf8'));
      expect(b.ok && b.value.warnings, f).toBeUndefined();
    }
  });
});
