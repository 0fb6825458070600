/** Fantasy's accumulator, trial by trial (test/kernel-acc.shared.ts says how). */
import { describe, expect, it } from 'vitest';
import { compileFantasy, NT } from '../src/systems/fantasy/compile.js';
import { fantasyKernel } from '../src/systems/fantasy/kernel.js';
import type { Tree } from './helpers.js';
import { Checks, nonZero, oneByOne, scenario, tally } from './kernel-acc.shared.js';

/**
 * Fantasy's layout (fantasy/kernel.ts): [1] attacker wins [2] defender wins [3] undecided
 * [4] Σ end round [5] Σ² [6] breached [7] Σ breach round [8] Σ² [9] round cap [10] Σ first
 * volley's damage [11] Σ² [12] withdrew [13 + r - 1] breached in round r (r = 1..maxRounds); then
 * a block of 2 + 4·7 slots for each round 0..maxRounds (Σ wall HP, Σ², then each side's units
 * alive by type, Σ and Σ²: the state at the end of that round, or the state the battle ended
 * with for the rounds after it); then the first volley's damage histogram 0..maxVolley (an open
 * field that ends in round 0 counts a damage of 0).
 */
describe('fantasy: the accumulator, trial by trial', () => {
  const STRIDE = 2 + 4 * NT;
  const cases: [string, Tree, number][] = [
    // a siege that breaches in different rounds, ends by a wipe-out, a withdrawal or the cap
    ['siege', { mode: 'siege', attacker: { infantry: 8, archers: 3, mages: 1, siege_engines: 2, captain_might: 1 }, defender: { infantry: 4, archers: 3, clerics: 1 }, wall: { hp: 30 }, max_rounds: 2, policy: { withdraw_below: 0.2 } }, 1100],
    // the open field, with a round cap judged on total HP
    ['open field', { mode: 'open_field', attacker: { infantry: 5, cavalry: 2, archers: 3, mages: 2 }, defender: { infantry: 12, cavalry: 3, archers: 2, clerics: 1 }, max_rounds: 1 }, 1100],
    // the same at a round cap judged undecided: every capped trial is undecided
    ['open field, cap undecided', { mode: 'open_field', attacker: { infantry: 5, cavalry: 2, archers: 3, mages: 2 }, defender: { infantry: 12, cavalry: 3, archers: 2, clerics: 1 }, max_rounds: 1, rules: { round_cap_result: 'undecided' } }, 300],
    // a side with no units: the battle ends before round 1
    ['empty defender', { mode: 'siege', attacker: { infantry: 2 }, defender: {}, max_rounds: 2 }, 50],
    // the same in the open field, with shooters that never fire: the volley histogram still counts the trial (damage 0)
    ['empty defender, open field', { mode: 'open_field', attacker: { archers: 2, mages: 1 }, defender: {}, max_rounds: 2 }, 50],
  ];

  it.each(cases)('%s: one outcome; rounds, breach round and volley with their squares; the round blocks; the outcome as the last state says', (label, body, trials) => {
    const c = compileFantasy(scenario('fantasy', body));
    const R = c.maxRounds;
    const rb = 13 + R;
    const hb = rb + (R + 1) * STRIDE;
    expect(fantasyKernel.accLength(c)).toBe(hb + c.maxVolley + 1);
    const each = oneByOne(fantasyKernel, c, trials, `fantasy ${label}`);
    const block = (a: Float64Array, r: number) => [...a.subarray(rb + r * STRIDE, rb + (r + 1) * STRIDE)];
    /** Units alive on side s in a round block (the Σ slots of its seven types). */
    const alive = (bl: number[], s: number) => {
      let n = 0;
      for (let t = 0; t < NT; t++) n += bl[2 + 2 * (s * NT + t)];
      return n;
    };
    const w0 = c.siege === 1 ? c.wallHp : 0;
    const start = [w0, w0 * w0];
    for (let i = 0; i < 2 * NT; i++) start.push(c.units[i], c.units[i] ** 2);
    const ck = new Checks();
    for (const a of each) {
      ck.trial++;
      ck.eq(a[0], 1, 'trials');
      ck.eq(nonZero(a, 1, 4).map(([, v]) => v), [1], 'attacker wins, defender wins, undecided: one of them');
      const end = a[4];
      ck.ok(Number.isInteger(end) && end >= 0 && end <= R, `end round ${end}`);
      ck.eq(a[5], end * end, 'Σ end round²');
      ck.ok(a[9] === 0 || (a[9] === 1 && end === R), `round cap ${a[9]} at round ${end}`);
      ck.ok(a[12] === 0 || (a[12] === 1 && a[2] === 1 && c.siege === 1), 'a withdrawal is a defender win, in a siege');
      const byRound = nonZero(a, 13, 13 + R);
      if (a[6] === 1) {
        const r = a[7];
        ck.ok(c.siege === 1 && r >= 1 && r <= Math.max(end, 1), `breach in round ${r}, the battle ended in ${end}`);
        ck.eq([a[8], byRound], [r * r, [[13 + r - 1, 1]]], 'Σ breach round², and the count at the round');
      } else ck.eq([a[6], a[7], a[8], byRound], [0, 0, 0, []], 'no breach');
      const hist = nonZero(a, hb);
      if (c.siege === 0 && end >= 1) {
        const v = a[10];
        ck.ok(v >= 0 && v <= c.maxVolley, `first volley ${v}: at most maxVolley (3 a mage, 2 an archer)`);
        ck.eq([a[11], hist], [v * v, [[hb + v, 1]]], 'Σ volley², and its histogram count');
      } else if (c.siege === 0) ck.eq([a[10], a[11], hist], [0, 0, [[hb, 1]]], 'no Phase A: a first volley of 0, in the histogram too');
      else ck.eq([a[10], a[11], hist], [0, 0, []], 'a siege: no first volley');
      // the round blocks: Σ and Σ² pairs, round 0 the starting state, the rounds after the end the last state
      for (let r = 0; r <= R; r++) {
        const bl = block(a, r);
        for (let k = 0; k < STRIDE; k += 2) ck.eq(bl[k + 1], bl[k] * bl[k], `round ${r} slot ${k}: Σ²`);
        if (r === 0) ck.eq(bl, start, 'round 0: the starting state');
        if (r > end) ck.eq(bl, block(a, end), `round ${r} after the end (${end}): the state it ended with`);
        // a round before the last: the battle went on, so both sides had units at its end
        if (r >= 1 && r < end) ck.ok(alive(bl, 0) > 0 && alive(bl, 1) > 0, `round ${r} of ${end}: ${alive(bl, 0)} and ${alive(bl, 1)} units`);
      }
      // how it ended, from the last state: a side with no units lost, unless the cap or a withdrawal came first
      const last = block(a, end);
      const [att, def] = [alive(last, 0), alive(last, 1)];
      if (a[9] === 1 && label === 'open field, cap undecided') ck.eq(a[3], 1, 'the cap judged undecided');
      if (a[9] === 0 && a[12] === 0) {
        const want = att > 0 && def === 0 ? 1 : def > 0 && att === 0 ? 2 : att === 0 && def === 0 ? 3 : 0;
        ck.ok(want !== 0 && a[want] === 1, `outcome ${[1, 2, 3].find((k) => a[k] === 1)} with ${att} and ${def} units left in round ${end}`);
      }
    }
    expect(ck.failed).toEqual([]);
    if (label === 'siege') {
      const ends = tally(each, (a) => (a[9] === 1 ? 'cap' : a[12] === 1 ? 'withdrew' : `outcome ${[1, 2, 3].find((k) => a[k] === 1)}`));
      for (const k of ['cap', 'withdrew', 'outcome 1']) expect(ends[k], k).toBeGreaterThan(5);
      expect(new Set(each.map((a) => a[7])).size, 'breaches in several rounds, and none').toBeGreaterThanOrEqual(3);
    }
    if (label === 'open field') {
      expect(each.some((a) => a[9] === 1)).toBe(true);
      expect(new Set(each.map((a) => a[10])).size).toBeGreaterThanOrEqual(4);
    }
    if (label === 'open field, cap undecided') {
      expect(each.filter((a) => a[9] === 1).length, 'capped trials').toBeGreaterThan(10);
    }
    if (label.startsWith('empty defender')) expect(each.every((a) => a[4] === 0 && a[1] === 1)).toBe(true);
  });
});
