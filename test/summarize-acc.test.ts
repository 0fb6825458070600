/**
 * Every system's summarize step on hand-built accumulators: each slot holds a different count, so
 * a metric or curve point read from the wrong slot, with the wrong range or over the wrong n
 * differs from the one built here from the documented layout (the comment at the top of each
 * kernel, or layout.ts) with the same `probability` and `mean` constructors. The metric names,
 * sides and definitions that summarize.ts makes from a scenario are checked word for word.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { validateText } from '../src/api.js';
import { mean, probability } from '../src/systems/metrics.js';
import type { CaseSummary, CurvePoint, Metric, RulesSystem } from '../src/systems/types.js';
import { SYSTEMS } from '../src/systems/registry.js';
import { compileSurrender } from '../src/systems/surrender/compile.js';
import { surrenderKernel } from '../src/systems/surrender/kernel.js';
import { summarizeSurrender } from '../src/systems/surrender/summarize.js';
import { compileCryHavoc, MELEE_FOOT_RESULTS, MELEE_MOUNTED_RESULTS, MISSILE_FOOT_RESULTS, MISSILE_MOUNTED_RESULTS } from '../src/systems/cry-havoc/compile.js';
import { cryHavocKernel, maxHealDay } from '../src/systems/cry-havoc/kernel.js';
import { metricDocCryHavoc, metricNamesCryHavoc, sidesCryHavoc, summarizeCryHavoc } from '../src/systems/cry-havoc/summarize.js';
import { compileFantasy, NT, TYPE_NAMES } from '../src/systems/fantasy/compile.js';
import { A_BY_ROUND, fantasyKernel, histBase, roundBase, ROUND_STRIDE } from '../src/systems/fantasy/kernel.js';
import { metricNamesFantasy, sidesFantasy, summarizeFantasy } from '../src/systems/fantasy/summarize.js';
import { compileCrusaderRex } from '../src/systems/crusader-rex/compile.js';
import { attrBase, crusaderRexKernel, maxAll, SURV } from '../src/systems/crusader-rex/kernel.js';
import { summarizeCrusaderRex } from '../src/systems/crusader-rex/summarize.js';
import type { Tree } from './helpers.js';

/** The scenario's first compiled case. */
function scenario(system: string, body: Tree): Record<string, unknown> {
  const v = validateText('s.yaml', `name: s\nsystem: ${system}\nseed: 1\ntrials: 1000\n${stringify(body)}`);
  if (!v.ok) throw new Error(v.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  return v.value.points[0].variants[0].scenario;
}

const N = 100_000;
/**
 * An accumulator of `len` slots: [0] the trial count N, every other slot a different count below
 * N (7919 is prime to 5003, so slots 1..5002 all differ), and no slot 0 but the first.
 */
function filled(len: number): Float64Array {
  const acc = new Float64Array(len);
  acc[0] = N;
  for (let i = 1; i < len; i++) acc[i] = 1 + ((i * 7919 + 13) % 5003);
  return acc;
}
const P = (acc: Float64Array, i: number): Metric => probability(acc[i], N);
/** The cumulative curve over slots base..base+count-1, x from 1 under `key`. */
function cumulative(acc: Float64Array, base: number, count: number, key: string): CurvePoint[] {
  const out: CurvePoint[] = [];
  for (let i = 0; i < count; i++) {
    let k = 0;
    for (let j = 0; j <= i; j++) k += acc[base + j];
    out.push({ x: { [key]: i + 1 }, m: probability(k, N) });
  }
  return out;
}

describe('summarize: surrender', () => {
  it('reads p_test [1], p_surrender [2], mean_turns (n [2], [3], [4]) on [1, turns], and the cumulative by-turn curve [5..]', () => {
    const c = compileSurrender(scenario('surrender', { structure: { surrender_level: 3 }, turns: 4 }));
    const len = surrenderKernel.accLength(c);
    expect(len).toBe(5 + 4);
    const acc = filled(len);
    const want: CaseSummary = {
      metrics: { p_test: P(acc, 1), p_surrender: P(acc, 2), mean_turns: mean(acc[2], acc[3], acc[4], [1, 4]) },
      curves: { surrender_by_turn: cumulative(acc, 5, 4, 'turn') },
    };
    expect(summarizeSurrender(c, acc)).toEqual(want);
  });
});

describe('summarize: Cry Havoc, kind by kind (layout at the top of cry-havoc/kernel.ts)', () => {
  const ch = (body: Tree) => compileCryHavoc(scenario('cry-havoc', body));
  const firstName = (l: string) => `p_first_${l === '-' ? 'none' : l}`;
  const shotName = (l: string) => `p_shot_${l === '-' ? 'miss' : l}`;

  it.each([false, true])('melee (defender mounted: %s): outcomes [1..4], mean_turns, the first roll on the starting table, results by turn', (mounted) => {
    const c = ch({ kind: 'melee', attackers: [{ attack: 5 }], defender: { defence: 4, mounted }, turns: 3 });
    const len = cryHavocKernel.accLength(c);
    expect(len).toBe(7 + 3 * 16);
    const acc = filled(len);
    const metrics: CaseSummary['metrics'] = {
      p_defender_killed: P(acc, 1),
      p_attacker_killed: P(acc, 2),
      p_undecided: P(acc, 3),
      p_no_attack: P(acc, 4),
      mean_turns: mean(acc[1] + acc[2], acc[5], acc[6], [1, 3]),
    };
    (mounted ? MELEE_MOUNTED_RESULTS : MELEE_FOOT_RESULTS).forEach((l, k) => (metrics[firstName(l)] = P(acc, 7 + (mounted ? 7 : 0) + k)));
    const rows: CurvePoint[] = [];
    for (let t = 1; t <= 3; t++) {
      for (const [table, letters, off] of [['foot', MELEE_FOOT_RESULTS, 0], ['mounted', MELEE_MOUNTED_RESULTS, 7]] as const)
        letters.forEach((l, k) => rows.push({ x: { turn: t, table, result: l }, m: P(acc, 7 + (t - 1) * 16 + off + k) }));
    }
    expect(rows).toHaveLength(3 * 16);
    expect(summarizeCryHavoc(c, acc)).toEqual({ metrics, curves: { results_by_turn: rows } });
  });

  it.each([false, true])('missile (target mounted: %s): [1] killed, mean turn [2] [3], [4] hurt, first shot [5..11] on the starting table, killed by turn [12..]', (mounted) => {
    const c = ch({ kind: 'missile', shooters: [{ weapon: 'longbow', range: 10 }], target: { mounted }, turns: 4 });
    const len = cryHavocKernel.accLength(c);
    expect(len).toBe(12 + 4);
    const acc = filled(len);
    const metrics: CaseSummary['metrics'] = { p_killed: P(acc, 1), mean_turns_to_kill: mean(acc[1], acc[2], acc[3], [1, 4]), p_hurt: P(acc, 4) };
    (mounted ? MISSILE_MOUNTED_RESULTS : MISSILE_FOOT_RESULTS).forEach((l, k) => (metrics[shotName(l)] = P(acc, 5 + k)));
    expect(summarizeCryHavoc(c, acc)).toEqual({ metrics, curves: { p_killed_by_turn: cumulative(acc, 12, 4, 'turn') } });
  });

  it('battering: [1] breached, mean day [2] [3] on [1, days], points lost [4] [5] on [0, the non-ram points] and engines out [6] [7] on [0, the non-ram engines] over all trials, breach by day [8..]', () => {
    const c = ch({ kind: 'battering', engines: { mangonel: 1, trebuchet: 1, ram: 0 }, wall: 'outer', days: 5 });
    const len = cryHavocKernel.accLength(c);
    expect(len).toBe(8 + 5);
    const acc = filled(len);
    expect(summarizeCryHavoc(c, acc)).toEqual({
      metrics: {
        p_breached: P(acc, 1),
        mean_days: mean(acc[1], acc[2], acc[3], [1, 5]),
        mean_points_lost: mean(N, acc[4], acc[5], [0, 4]), // a mangonel's 1 and a trebuchet's 3
        mean_engines_out: mean(N, acc[6], acc[7], [0, 2]),
      },
      curves: { breach_by_day: cumulative(acc, 8, 5, 'day') },
    });
  });

  it('fire: [1] ever ignited, [2] burning at the end, turns burning [3] [4] over all trials on [0, turns], burning at each turn [5..] (not cumulative)', () => {
    const c = ch({ kind: 'fire', fire: { method: 'oil_barrel', attempts: 2, extinguish_attempts: 1 }, turns: 4 });
    const len = cryHavocKernel.accLength(c);
    expect(len).toBe(5 + 4);
    const acc = filled(len);
    expect(summarizeCryHavoc(c, acc)).toEqual({
      metrics: { p_ever_ignited: P(acc, 1), p_burning_at_end: P(acc, 2), mean_turns_burning: mean(N, acc[3], acc[4], [0, 4]) },
      curves: { p_burning_by_turn: [1, 2, 3, 4].map((t) => ({ x: { turn: t }, m: P(acc, 4 + t) })) },
    });
  });

  it.each([
    ['siege', 20, 15],
    ['siege', 12, 12],
    ['croisades', 4, 4],
    ['croisades', 40, 15],
  ] as const)('healing (%s table, horizon %i days): [1] healed, [2] out, [3] dies, days [4] [5] on [1, the last day a roll can give], healed by day [6..] up to the horizon or that day', (table, horizon, points) => {
    const c = ch({ kind: 'healing', healing: { table, horizon_days: horizon } });
    const last = maxHealDay(c);
    expect(last).toBe(15); // the Croisades re-roll's 5 strategic turns of 3 days, whichever table is rolled
    expect(cryHavocKernel.accLength(c)).toBe(6 + points);
    const acc = filled(6 + points);
    expect(summarizeCryHavoc(c, acc)).toEqual({
      metrics: { p_healed: P(acc, 1), p_out_for_scenario: P(acc, 2), p_dies: P(acc, 3), mean_days_to_heal: mean(acc[1], acc[4], acc[5], [1, last]) },
      curves: { heal_by_day: cumulative(acc, 6, points, 'day') },
    });
  });

  it('names each kind its metrics, and per result letter of the table the defender or target starts on; both tables or every kind when it cannot tell', () => {
    const melee = ['p_defender_killed', 'p_attacker_killed', 'p_undecided', 'p_no_attack', 'mean_turns'];
    const missile = ['p_killed', 'mean_turns_to_kill', 'p_hurt'];
    const foot = ['p_first_none', 'p_first_A', 'p_first_B', 'p_first_C', 'p_first_D', 'p_first_E', 'p_first_F'];
    const mounted = [...foot, 'p_first_G', 'p_first_H'];
    const shotsFoot = ['p_shot_miss', 'p_shot_A', 'p_shot_B', 'p_shot_C'];
    const shotsMounted = [...shotsFoot, 'p_shot_D', 'p_shot_E', 'p_shot_F'];
    expect(metricNamesCryHavoc({ kind: 'melee', defender: { defence: 3, mounted: false } })).toEqual([...melee, ...foot]);
    expect(metricNamesCryHavoc({ kind: 'melee', defender: { defence: 3, mounted: true } })).toEqual([...melee, ...mounted]);
    // no defender yet, or one whose mounted flag is not a boolean: both tables, each letter once
    expect(metricNamesCryHavoc({ kind: 'melee' })).toEqual([...melee, ...mounted]);
    expect(metricNamesCryHavoc({ kind: 'melee', defender: { mounted: 'yes' } })).toEqual([...melee, ...mounted]);
    // an empty `defender:` or `target:` (YAML null) is not an object with a flag: both tables
    expect(metricNamesCryHavoc({ kind: 'melee', defender: null })).toEqual([...melee, ...mounted]);
    expect(metricNamesCryHavoc({ kind: 'missile', target: null })).toEqual([...missile, ...shotsMounted]);
    // a defender with problems elsewhere still says which table
    expect(metricNamesCryHavoc({ kind: 'melee', defender: { defence: 'x', mounted: false } })).toEqual([...melee, ...foot]);
    expect(metricNamesCryHavoc({ kind: 'missile', target: { mounted: false } })).toEqual([...missile, ...shotsFoot]);
    expect(metricNamesCryHavoc({ kind: 'missile', target: { mounted: true } })).toEqual([...missile, ...shotsMounted]);
    expect(metricNamesCryHavoc({ kind: 'missile', target: { mounted: 'yes' } })).toEqual([...missile, ...shotsMounted]);
    expect(metricNamesCryHavoc({ kind: 'missile' })).toEqual([...missile, ...shotsFoot]); // a target not given is on foot
    expect(metricNamesCryHavoc({ kind: 'fire' })).toEqual(['p_ever_ignited', 'p_burning_at_end', 'mean_turns_burning']);
    expect(metricNamesCryHavoc({ kind: 'battering' })).toEqual(['p_breached', 'mean_days', 'mean_points_lost', 'mean_engines_out']);
    expect(metricNamesCryHavoc({ kind: 'healing' })).toEqual(['p_healed', 'p_out_for_scenario', 'p_dies', 'mean_days_to_heal']);
    expect(metricNamesCryHavoc({ kind: 'sword' })).toEqual([
      ...melee,
      ...mounted,
      ...missile,
      ...shotsFoot,
      'p_breached',
      'mean_days',
      'mean_points_lost',
      'mean_engines_out',
      'p_ever_ignited',
      'p_burning_at_end',
      'mean_turns_burning',
      'p_healed',
      'p_out_for_scenario',
      'p_dies',
      'mean_days_to_heal',
    ]);
  });

  it('defines each result-letter metric from the tables that have the letter', () => {
    expect(metricDocCryHavoc('p_first_none')).toBe(
      'melee: the turn-1 combat roll gave "-" on the table the defender starts on, over all trials (every p_first_* is 0 when turn 1 allows no attack) (1.6; foot table: no effect; mounted table: no effect)',
    );
    expect(metricDocCryHavoc('p_first_F')).toBe(
      'melee: the turn-1 combat roll gave F on the table the defender starts on, over all trials (every p_first_* is 0 when turn 1 allows no attack) (1.6; foot table: defender killed; mounted table: horse killed, rider wounded, dismounted)',
    );
    expect(metricDocCryHavoc('p_first_H')).toBe(
      'melee: the turn-1 combat roll gave H on the table the defender starts on, over all trials (every p_first_* is 0 when turn 1 allows no attack) (1.6; mounted table: horse and rider killed)',
    );
    expect(metricDocCryHavoc('p_shot_miss')).toBe(
      'missile: the first shooter\'s first shot (turn 1, always made) gave "-" on the table the target starts on, over all trials (1.5; foot table: miss; mounted table: miss)',
    );
    expect(metricDocCryHavoc('p_shot_C')).toBe(
      "missile: the first shooter's first shot (turn 1, always made) gave C on the table the target starts on, over all trials (1.5; foot table: target killed; mounted table: horse unhurt, rider wounded and dismounted)",
    );
    expect(metricDocCryHavoc('p_shot_F')).toBe(
      "missile: the first shooter's first shot (turn 1, always made) gave F on the table the target starts on, over all trials (1.5; mounted table: horse and rider killed)",
    );
    // the mounted tables have every letter of the foot tables: each letter's definition names its mounted meaning
    expect(MELEE_FOOT_RESULTS.every((l) => MELEE_MOUNTED_RESULTS.includes(l)) && MISSILE_FOOT_RESULTS.every((l) => MISSILE_MOUNTED_RESULTS.includes(l))).toBe(true);
    for (const l of MELEE_MOUNTED_RESULTS) expect(metricDocCryHavoc(firstName(l))).toMatch(/; mounted table: [^;]+\)$/);
    for (const l of MISSILE_MOUNTED_RESULTS) expect(metricDocCryHavoc(shotName(l))).toMatch(/; mounted table: [^;]+\)$/);
    for (const name of ['p_first_I', 'p_shot_G', 'p_first_', 'xp_first_A', 'p_first_Ax', 'xp_shot_A', 'p_shot_Ax', 'p_shot_missx', 'p_shot_none', 'p_first_miss', 'mean_turns']) expect(metricDocCryHavoc(name), name).toBeUndefined();
  });

  it('names a melee\'s sides, one attacker or several', () => {
    expect(sidesCryHavoc({ kind: 'melee', attackers: [{ attack: 5, mounted: false }], defender: { defence: 4, mounted: true } })).toBe(
      'attacker = the attacking character (attack 5); defender = the defending character (defence 4, mounted)',
    );
    expect(sidesCryHavoc({ kind: 'melee', attackers: [{ attack: 5, mounted: true }, { attack: 2, mounted: false }], defender: { defence: 4, mounted: false } })).toBe(
      'attacker = the 2 attacking characters (attack 5, mounted; attack 2); defender = the defending character (defence 4)',
    );
    expect(sidesCryHavoc({ kind: 'melee' })).toBe('attacker = the 0 attacking characters (); defender = the defending character (defence ?)');
    expect(sidesCryHavoc({ kind: 'missile' })).toBeUndefined();
  });
});

describe('summarize: fantasy (layout at the top of fantasy/kernel.ts)', () => {
  const fc = (body: Tree) => compileFantasy(scenario('fantasy', body));
  /** The attrition curve: each round 0..maxRounds, side, and unit type the side had, from the round block's slots 2.. */
  function attrition(acc: Float64Array, rb: number, maxRounds: number, units: number[]): CurvePoint[] {
    const out: CurvePoint[] = [];
    for (let r = 0; r <= maxRounds; r++)
      for (const [s, side] of (['attacker', 'defender'] as const).entries())
        for (let t = 0; t < NT; t++) {
          const u = units[s * NT + t];
          if (u === 0) continue;
          const k = rb + r * ROUND_STRIDE + 2 + 2 * (s * NT + t);
          out.push({ x: { round: r, side, unit: TYPE_NAMES[t] }, m: mean(N, acc[k], acc[k + 1], [0, u]) });
        }
    return out;
  }

  it('a siege: outcomes [1..3], rounds [4] [5], cap [9], breach [6] [7] [8], withdrew [12], breach by round, wall HP and attrition by round', () => {
    const c = fc({ mode: 'siege', attacker: { infantry: 3, archers: 2, siege_engines: 1 }, defender: { infantry: 2, mages: 1 }, wall: { hp: 30 }, max_rounds: 3 });
    const rb = roundBase(c);
    expect(rb).toBe(A_BY_ROUND + 3);
    expect(fantasyKernel.accLength(c)).toBe(histBase(c) + c.maxVolley + 1);
    const acc = filled(fantasyKernel.accLength(c));
    expect([...c.units.slice(0, 6)]).toEqual([3, 0, 2, 0, 0, 1]); // infantry, cavalry, archers, mages, clerics, engines: some the side never had
    const got = summarizeFantasy(c, acc);
    expect(got.metrics).toEqual({
      p_attacker_wins: P(acc, 1),
      p_defender_wins: P(acc, 2),
      p_undecided: P(acc, 3),
      mean_rounds: mean(N, acc[4], acc[5], [0, 3]),
      p_round_cap: P(acc, 9),
      p_breach: P(acc, 6),
      mean_breach_round: mean(acc[6], acc[7], acc[8], [1, 3]),
      p_withdrew: P(acc, 12),
    });
    expect(got.curves.breach_by_round).toEqual(cumulative(acc, A_BY_ROUND, 3, 'round'));
    expect(got.curves.wall_hp).toEqual([0, 1, 2, 3].map((r) => ({ x: { round: r }, m: mean(N, acc[rb + r * ROUND_STRIDE], acc[rb + r * ROUND_STRIDE + 1], [0, 30]) })));
    expect(got.curves.attrition).toEqual(attrition(acc, rb, 3, Array.from(c.units.slice(0, 2 * NT))));
    expect(Object.keys(got.curves)).toEqual(['breach_by_round', 'wall_hp', 'attrition']);
  });

  it('an open-field battle: the same outcomes, the first volley\'s damage [10] [11] on [0, maxVolley] and its histogram after the round blocks', () => {
    const c = fc({ mode: 'open_field', attacker: { infantry: 2, archers: 2, mages: 1 }, defender: { cavalry: 3 }, max_rounds: 2 });
    expect(c.maxVolley).toBe(3 * 1 + 2 * 2);
    const acc = filled(fantasyKernel.accLength(c));
    const got = summarizeFantasy(c, acc);
    expect(got.metrics).toEqual({
      p_attacker_wins: P(acc, 1),
      p_defender_wins: P(acc, 2),
      p_undecided: P(acc, 3),
      mean_rounds: mean(N, acc[4], acc[5], [0, 2]),
      p_round_cap: P(acc, 9),
      mean_volley_a_damage: mean(N, acc[10], acc[11], [0, 7]),
    });
    const hb = roundBase(c) + 3 * ROUND_STRIDE;
    expect(histBase(c)).toBe(hb);
    expect(got.curves.volley_damage).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((d) => ({ x: { damage: d }, m: P(acc, hb + d) })));
    expect(got.curves.attrition).toEqual(attrition(acc, roundBase(c), 2, Array.from(c.units.slice(0, 2 * NT))));
    expect(Object.keys(got.curves)).toEqual(['volley_damage', 'attrition']);
  });

  it('names its metrics by mode (both when the mode cannot be read), and its armies', () => {
    const common = ['p_attacker_wins', 'p_defender_wins', 'p_undecided', 'mean_rounds', 'p_round_cap'];
    expect(metricNamesFantasy({ mode: 'siege' })).toEqual([...common, 'p_breach', 'mean_breach_round', 'p_withdrew']);
    expect(metricNamesFantasy({ mode: 'open_field' })).toEqual([...common, 'mean_volley_a_damage']);
    expect(metricNamesFantasy({ mode: 'melee' })).toEqual([...common, 'p_breach', 'mean_breach_round', 'p_withdrew', 'mean_volley_a_damage']);
    expect(sidesFantasy({ mode: 'siege', attacker: { archers: 1, mages: 2, clerics: 1, siege_engines: 2 }, defender: { siege_engines: 1, clerics: 3, captain_might: 1, infantry: 0 } })).toBe(
      'attacker = the army outside the wall (1 archer, 2 mages, 1 cleric, 2 siege engines), whose engines batter the wall and whose climbers go over it; defender = the army behind the wall (3 clerics, 1 siege engine; captain\'s Might 1) (4.2)',
    );
    expect(sidesFantasy({ mode: 'open_field', attacker: { infantry: 1, cavalry: 'x', mages: 1 }, defender: { archers: 2, captain_might: 0 } })).toBe(
      'attacker = the army that shoots first (Phase A) and charges with its cavalry (1 infantry, 1 mage); defender = the army it attacks (2 archers) (4.1)',
    );
    expect(sidesFantasy({ mode: 'siege', defender: { cavalry: 1, captain_might: 2 } })).toBe(
      "attacker = the army outside the wall (no units), whose engines batter the wall and whose climbers go over it; defender = the army behind the wall (1 cavalry; captain's Might 2) (4.2)",
    );
  });
});

describe('summarize: Crusader Rex (layout.ts)', () => {
  it('outcomes [1..6], rounds [7] [8] on [0, 3 turns], steps lost per side on [0, its starting steps], guard [13], survivors, attrition', () => {
    const c = compileCrusaderRex(
      scenario('crusader-rex', {
        town: { rating: 2 },
        player1: 'saracens',
        situation: 'existing_siege',
        besieged: 'franks',
        blocks: [{ block: 'Raymond (Tiberias)', at: 'castle' }, { block: 'Walter', at: 'castle' }, { block: 'Saladin' }, { block: 'Al Mashtub' }, { block: 'Tuman' }],
        turns: 2,
      }),
    );
    expect(c.turns).toBe(2);
    const acc = filled(crusaderRexKernel.accLength(c));
    // starting steps of each side (0 Franks, 1 Saracens), summed block by block
    let franks = 0;
    let saracens = 0;
    for (let b = 0; b < c.steps0.length; b++) {
      if (c.side[b] === 0) franks += c.steps0[b];
      else saracens += c.steps0[b];
    }
    expect(franks).toBeGreaterThan(0);
    expect(saracens).toBeGreaterThan(franks);
    const got = summarizeCrusaderRex(c, acc);
    expect(got.metrics).toEqual({
      p_attacker_wins: P(acc, 1),
      p_defender_holds: P(acc, 2),
      p_castle_falls: P(acc, 3),
      p_siege_lifted: P(acc, 4),
      p_siege_continues: P(acc, 5),
      p_both_gone: P(acc, 6),
      mean_rounds: mean(N, acc[7], acc[8], [0, 6]),
      mean_steps_lost_franks: mean(N, acc[9], acc[10], [0, franks]),
      mean_steps_lost_saracens: mean(N, acc[11], acc[12], [0, saracens]),
      p_guard: P(acc, 13),
    });
    const hn = maxAll(c) + 1;
    expect(SURV).toBe(14);
    const survivors: CurvePoint[] = [];
    for (const [side, name] of ['franks', 'saracens'].entries())
      for (let s = 0; s <= c.maxTotal[side]; s++) survivors.push({ x: { side: name, steps: s }, m: P(acc, 14 + side * hn + s) });
    expect(c.maxTotal[0]).not.toBe(c.maxTotal[1]); // the shorter side's histogram stops early
    expect(got.curves.survivors).toEqual(survivors);
    const base = attrBase(c);
    expect(base).toBe(14 + 2 * hn);
    const attrition: CurvePoint[] = [];
    for (let t = 1; t <= 2; t++)
      for (const [slot, round] of ['1', '2', '3', 'end'].entries())
        for (const [side, name] of ['franks', 'saracens'].entries())
          for (const [p, place] of ['field', 'castle', 'reserves'].entries()) {
            const k = base + 48 * (t - 1) + 12 * slot + 6 * side + 2 * p;
            attrition.push({ x: { turn: t, round, side: name, place }, m: mean(N, acc[k], acc[k + 1], [0, side === 0 ? franks : saracens]) });
          }
    expect(got.curves.attrition).toEqual(attrition);
    expect(acc.length).toBe(base + 2 * 48);
  });
});

describe('pairedSlots: every metric over all trials is paired, at the slot its summarize reads', () => {
  const cr = {
    town: { rating: 2 },
    player1: 'saracens',
    situation: 'existing_siege',
    besieged: 'franks',
    blocks: [{ block: 'Raymond (Tiberias)', at: 'castle' }, { block: 'Saladin' }, { block: 'Tuman' }],
    turns: 2,
  };
  const cases: [string, string, Tree][] = [
    ['surrender', 'a surrender test', { structure: { surrender_level: 3 }, turns: 4 }],
    ['cry-havoc', 'melee on foot', { kind: 'melee', attackers: [{ attack: 5 }], defender: { defence: 4 }, turns: 3 }],
    ['cry-havoc', 'melee mounted', { kind: 'melee', attackers: [{ attack: 5 }], defender: { defence: 4, mounted: true }, turns: 3 }],
    ['cry-havoc', 'missile on foot', { kind: 'missile', shooters: [{ weapon: 'longbow', range: 10 }], target: { mounted: false }, turns: 4 }],
    ['cry-havoc', 'missile mounted', { kind: 'missile', shooters: [{ weapon: 'longbow', range: 10 }], target: { mounted: true }, turns: 4 }],
    ['cry-havoc', 'battering', { kind: 'battering', engines: { mangonel: 1, trebuchet: 1, ram: 0 }, wall: 'outer', days: 5 }],
    ['cry-havoc', 'fire', { kind: 'fire', fire: { method: 'oil_barrel', attempts: 2, extinguish_attempts: 1 }, turns: 4 }],
    ['cry-havoc', 'healing (siege table)', { kind: 'healing', healing: { table: 'siege', horizon_days: 20 } }],
    ['cry-havoc', 'healing (croisades table)', { kind: 'healing', healing: { table: 'croisades', horizon_days: 20 } }],
    ['fantasy', 'a siege', { mode: 'siege', attacker: { infantry: 3, siege_engines: 1 }, defender: { infantry: 2 }, wall: { hp: 30 }, max_rounds: 3 }],
    ['fantasy', 'an open field', { mode: 'open_field', attacker: { infantry: 2, archers: 2 }, defender: { cavalry: 3 }, max_rounds: 2 }],
    ['crusader-rex', 'a siege', cr],
  ];
  it.each(cases)('%s, %s', (system, _what, body) => {
    const sys = SYSTEMS.find((s) => s.id === system)! as RulesSystem;
    const c = sys.compile(scenario(system, body));
    const acc = filled(sys.kernel.accLength(c));
    const { metrics } = sys.summarize(c, acc);
    // a metric over all trials has n = N (every slot of `filled` is below N: a mean over the trials of an event has a smaller n)
    const overAll = Object.keys(metrics).filter((m) => metrics[m].n === N);
    const conditional = Object.keys(metrics).filter((m) => metrics[m].n !== N);
    expect(conditional.sort(), 'the means over an event are the conditional ones').toEqual(Object.keys(sys.conditionalOn ?? {}).filter((m) => m in metrics).sort());
    const paired = sys.pairedSlots(c);
    expect(paired.map((p) => p.metric).sort()).toEqual(overAll.sort());
    for (const { metric, slot } of paired) {
      const m = metrics[metric];
      expect(m.kind === 'probability' ? m.k : m.sum, `${metric}: its count or sum is slot ${slot}`).toBe(acc[slot]);
    }
  });
});
