/** Cry Havoc's accumulator, trial by trial (test/kernel-acc.shared.ts says how). */
import { describe, expect, it } from 'vitest';
import { compileCryHavoc, type CryHavocCompiled } from '../src/systems/cry-havoc/compile.js';
import { cryHavocKernel } from '../src/systems/cry-havoc/kernel.js';
import type { Tree } from './helpers.js';
import { deriveState } from '../src/engine/rng.js';
import { Checks, nonZero, oneByOne, scenario, tally } from './kernel-acc.shared.js';

describe('Cry Havoc: the accumulator, trial by trial (layout at the top of cry-havoc/kernel.ts)', () => {
  const ch = (body: Tree): CryHavocCompiled => compileCryHavoc(scenario('cry-havoc', body));

  const MELEE: [string, Tree][] = [
    // two attackers on a foot defender in cover: deaths on both sides, the cap, no attack once
    // the attacker that made 1-1 is wounded
    ['foot, two attackers', { kind: 'melee', attackers: [{ attack: 3 }, { attack: 2 }], defender: { defence: 4, terrain: '+' }, turns: 6, rules: { retreat_blocked: true } }],
    ['mounted knight', { kind: 'melee', attackers: [{ attack: 5 }, { attack: 5 }, { attack: 5 }], defender: { defence: 4, mounted: true, wounded: { defence: 2 }, dismounted: { defence: 3, wounded_defence: 1 } }, turns: 5 }],
    ['no attack at all', { kind: 'melee', attackers: [{ attack: 1 }], defender: { defence: 3 }, turns: 3 }],
  ];

  it.each(MELEE)("melee, %s: one outcome; a decided trial's turn is the number of turns rolled; the first roll on the starting table; the last roll can have done it", (label, body) => {
    const c = ch(body);
    const T = c.turns;
    const each = oneByOne(cryHavocKernel, c, 800, `melee ${label}`);
    const ck = new Checks();
    for (const a of each) {
      ck.trial++;
      ck.eq(a[0], 1, 'trials');
      ck.eq(nonZero(a, 1, 5).map(([, v]) => v), [1], 'killed, attacker killed, cap, no attack: one of them, once');
      // each turn's block: one result at most, and every turn up to the last one rolled has one
      const rolls: number[] = [];
      for (let t = 1; t <= T; t++) {
        const r = nonZero(a, 7 + (t - 1) * 16, 7 + t * 16);
        ck.ok(r.length === (t <= rolls.length + 1 && r.length === 1 ? 1 : 0), `turn ${t}: ${JSON.stringify(r)} after ${rolls.length} turns rolled`);
        if (r.length === 1) {
          ck.eq(r[0][1], 1, `turn ${t}'s count`);
          rolls.push(r[0][0] - 7 - (t - 1) * 16);
        }
      }
      const R = rolls.length;
      // turn 1 on the table the defender starts on: foot codes 0..6, mounted 7 + 0..8
      if (R > 0) ck.ok(c.defMounted0 === 1 ? rolls[0] >= 7 : rolls[0] < 7, `turn 1 on the wrong table: ${rolls[0]}`);
      const code = rolls[R - 1] >= 7 ? rolls[R - 1] - 7 : rolls[R - 1];
      if (a[1] === 1 || a[2] === 1) {
        ck.eq([a[5], a[6]], [R, R * R], 'turn of death and its square');
        // the defender dies of C (retreat) or worse, an attacker of A (wound) or B (blocked retreat)
        if (a[1] === 1) ck.ok(code >= 3, `defender killed by ${code}`);
        else ck.ok(code === 1 || code === 2, `attacker killed by ${code}`);
      } else {
        ck.eq([a[5], a[6]], [0, 0], 'no death, no turn');
        if (a[3] === 1) ck.eq(R, T, 'the cap: every turn rolled');
        else ck.ok(R < T, 'no attack: the turn after the last roll was not fought');
      }
    }
    expect(ck.failed).toEqual([]);
    const kinds = tally(each, (a) => [1, 2, 3, 4].find((k) => a[k] === 1) ?? -1);
    if (label === 'no attack at all') expect(kinds).toEqual({ 4: 800 });
    else for (const k of label === 'mounted knight' ? [1, 3] : [1, 2, 3, 4]) expect(kinds[k], `outcome ${k}`).toBeGreaterThan(10);
  });

  const MISSILE: [string, Tree][] = [
    ['foot target, two shooters', { kind: 'missile', shooters: [{ weapon: 'longbow', range: 30 }, { weapon: 'crossbow', range: 20 }], target: { mounted: false, cover: 'light' }, turns: 4 }],
    ['mounted target', { kind: 'missile', shooters: [{ weapon: 'longbow', range: 10 }, { weapon: 'shortbow', range: 10 }], target: { mounted: true }, turns: 3 }],
    ['wounded target', { kind: 'missile', shooters: [{ weapon: 'shortbow', range: 40 }], target: { mounted: false, state: 'wounded' }, turns: 3 }],
  ];

  it.each(MISSILE)('missile, %s: a kill in turn t is t, t² and one count at turn t; one first shot on the starting table; hurt as the first shot says', (label, body) => {
    const c = ch(body);
    const T = c.turns;
    const each = oneByOne(cryHavocKernel, c, 800, `missile ${label}`);
    const ck = new Checks();
    for (const a of each) {
      ck.trial++;
      ck.eq(a[0], 1, 'trials');
      const byTurn = nonZero(a, 12, 12 + T);
      if (a[1] === 1) ck.eq([a[3], byTurn], [a[2] * a[2], [[12 + a[2] - 1, 1]]], 'killed: Σ turn², and the count at the turn');
      else ck.eq([a[1], a[2], a[3], byTurn], [0, 0, 0, []], 'not killed');
      // the first shooter's first shot, on the target's starting table (foot codes 0..3, mounted 0..6)
      const first = nonZero(a, 5, 12);
      ck.ok(first.length === 1 && first[0][1] === 1 && first[0][0] - 5 < (c.targetMounted0 === 1 ? 7 : 4), `first shot ${JSON.stringify(first)}`);
      const code = first.length === 1 ? first[0][0] - 5 : -1;
      ck.ok(a[4] === 0 || a[4] === 1, 'hurt once at most');
      if (c.targetState0 === 1) ck.eq(a[4], 1, 'a wounded target is hurt from the start');
      // a healthy target on foot killed outright by the first shot (C) was never wounded or stunned
      else if (c.targetMounted0 === 0 && code === 3) ck.eq([a[1], a[2], a[4]], [1, 1, 0], 'killed outright at turn 1');
      // a wound (B on foot) from the first shot: hurt
      if (c.targetMounted0 === 0 && code === 2) ck.eq(a[4], 1, 'wounded by the first shot');
    }
    expect(ck.failed).toEqual([]);
    expect(Object.keys(tally(each, (a) => a[2])).length, 'kills in several turns, and survivors').toBeGreaterThanOrEqual(Math.min(T, 3));
    if (c.targetState0 === 0) expect(each.some((a) => a[4] === 0)).toBe(true);
  });

  it.each([
    // two 1-point mangonels: every point lost takes one out (points lost = engines out)
    ['mangonels', { kind: 'battering', engines: { mangonel: 2, trebuchet: 0, ram: 1 }, wall: 'outer', days: 6, rules: { rolls_per_day: 2 } }],
    // one 3-point trebuchet: out only when all three points are lost
    ['a trebuchet', { kind: 'battering', engines: { mangonel: 0, trebuchet: 1, ram: 0 }, wall: 'interior', days: 4 }],
  ] as [string, Tree][])('battering, %s: a breach on day d is d, d² and one count at day d; points lost and engines out with their squares', (label, body) => {
    const c = ch(body);
    const D = c.days;
    const each = oneByOne(cryHavocKernel, c, 800, `battering ${label}`);
    const ck = new Checks();
    for (const a of each) {
      ck.trial++;
      ck.eq(a[0], 1, 'trials');
      const byDay = nonZero(a, 8, 8 + D);
      if (a[1] === 1) ck.eq([a[3], byDay], [a[2] * a[2], [[8 + a[2] - 1, 1]]], 'breached: Σ day², and the count at the day');
      else ck.eq([a[1], a[2], a[3], byDay], [0, 0, 0, []], 'not breached');
      const [lost, out] = [a[4], a[6]];
      ck.eq([a[5], a[7]], [lost * lost, out * out], 'squares');
      ck.eq(out, label === 'mangonels' ? lost : lost === 3 ? 1 : 0, `engines out after ${lost} points lost`);
    }
    expect(ck.failed).toEqual([]);
    expect(new Set(each.map((a) => a[2])).size, 'breaches on several days, and none').toBeGreaterThanOrEqual(3);
    expect(new Set(each.map((a) => a[4])).size, 'several numbers of points lost').toBeGreaterThanOrEqual(3);
  });

  it("fire: turns burning is the count of turns that ended burning, with its square; burning at the end is the last turn's; a burning turn means it was lit", () => {
    const c = compileCryHavoc(scenario('cry-havoc', { kind: 'fire', fire: { method: 'arrow_heavy', attempts: 2, extinguish_attempts: 1 }, turns: 5 }));
    const T = c.turns;
    const each = oneByOne(cryHavocKernel, c, 800, 'fire');
    const ck = new Checks();
    for (const a of each) {
      ck.trial++;
      ck.eq(a[0], 1, 'trials');
      const turns = nonZero(a, 5, 5 + T);
      ck.ok(turns.every(([, v]) => v === 1), 'one count a turn');
      ck.eq([a[3], a[4]], [turns.length, turns.length ** 2], 'turns burning and the square');
      ck.eq(a[2], a[5 + T - 1], 'burning at the end is burning at the end of the last turn');
      ck.ok(a[1] === 1 || (a[1] === 0 && turns.length === 0), 'a burning turn means it was lit');
    }
    expect(ck.failed).toEqual([]);
    expect(Object.keys(tally(each, (a) => a[3])).length, 'several numbers of turns burning').toBeGreaterThanOrEqual(4);
    expect(each.some((a) => a[1] === 1 && a[2] === 0), 'lit and put out').toBe(true);
    expect(each.some((a) => a[1] === 0), 'never lit').toBe(true);
  });

  it.each([
    ['siege', 6],
    ['croisades', 12],
  ] as const)('healing, %s table, horizon %i days: one of healed, out, dead; a heal on day d is d, d² and, up to the horizon, one count at day d', (table, horizon) => {
    const c = compileCryHavoc(scenario('cry-havoc', { kind: 'healing', healing: { table, horizon_days: horizon } }));
    const each = oneByOne(cryHavocKernel, c, 800, `healing ${table}`);
    expect(each[0].length).toBe(6 + horizon); // the curve's days only
    const ck = new Checks();
    for (const a of each) {
      ck.trial++;
      ck.eq(a[0], 1, 'trials');
      ck.eq(nonZero(a, 1, 4).map(([, v]) => v), [1], 'healed, out, dead: one of them');
      const byDay = nonZero(a, 6);
      const d = a[4];
      if (a[1] === 1) {
        ck.ok(d >= 1 && (table === 'siege' || d % 3 === 0), `healed on day ${d}`); // Croisades: strategic turns of 3 days
        ck.eq([a[5], byDay], [d * d, d <= horizon ? [[6 + d - 1, 1]] : []], 'Σ day², and the count at the day up to the horizon');
      } else ck.eq([a[4], a[5], byDay], [0, 0, []], 'not healed');
    }
    expect(ck.failed).toEqual([]);
    const days = tally(
      each.filter((a) => a[1] === 1),
      (a) => (a[4] <= horizon ? 'within' : 'after'),
    );
    expect(days.within).toBeGreaterThan(30);
    expect(days.after).toBeGreaterThan(30);
    expect(each.some((a) => a[table === 'siege' ? 2 : 3] === 1)).toBe(true);
  });

  it('healing, croisades: a 6 sends the wound to a reroll where 1-2 dies (1/6 x 2/6 = 1/18 of wounds): over 36 000 seeded wounds the dead are within 5 SE of it', () => {
    const c = compileCryHavoc(scenario('cry-havoc', { kind: 'healing', healing: { table: 'croisades', horizon_days: 12 } }));
    const acc = new Float64Array(cryHavocKernel.accLength(c));
    const n = 36_000;
    cryHavocKernel.run(c, deriveState('kernel-acc', 'croisades reroll', 0), n, acc);
    const p = 1 / 18;
    expect(acc[0]).toBe(n);
    expect(Math.abs(acc[3] / n - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / n));
  });
});

