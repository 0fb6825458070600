/**
 * The kernels' accumulator bookkeeping, seeded, checked against what each trial says about
 * itself. A kernel run over N trials must add up to the same kernel run one trial at a time on
 * the same stream (each trial draws its own generator state), and each one-trial accumulator is
 * one trial's record, whose slots must agree with each other: one outcome, Σx² the square of Σx,
 * a histogram's single 1 where the totals put it, a turn of death equal to the number of turns
 * the dice were rolled. Those relations are worked out here from the documented layouts, not
 * from the kernels' code, and hold whatever dice the kernel draws, so the checks survive a
 * rewrite of the rules code that keeps the layout.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { validateText } from '../src/api.js';
import { deriveState } from '../src/engine/rng.js';
import type { Kernel } from '../src/systems/types.js';
import { compileCryHavoc, type CryHavocCompiled } from '../src/systems/cry-havoc/compile.js';
import { cryHavocKernel } from '../src/systems/cry-havoc/kernel.js';
import { compileFantasy, NT } from '../src/systems/fantasy/compile.js';
import { fantasyKernel } from '../src/systems/fantasy/kernel.js';
import { compileCrusaderRex } from '../src/systems/crusader-rex/compile.js';
import { crusaderRexKernel, _internals as CR, type CrusaderRexPath } from '../src/systems/crusader-rex/kernel.js';
import { FIELD_BATTLE, SIEGE } from './crusader-rex.shared.js';
import { merge, type Tree } from './helpers.js';

/** The scenario's first compiled case. */
function scenario(system: string, body: Tree): Record<string, unknown> {
  const v = validateText('k.yaml', `name: k\nsystem: ${system}\nseed: 1\ntrials: 1000\n${stringify(body)}`);
  if (!v.ok) throw new Error(v.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  return v.value.points[0].variants[0].scenario;
}

/**
 * `trials` one-trial accumulators of c, run one after another on one stream, after checking that
 * their sum is the accumulator of one run of all the trials on the same stream.
 */
function oneByOne<C>(kernel: Kernel<C>, c: C, trials: number, label: string): Float64Array[] {
  const len = kernel.accLength(c);
  const batch = new Float64Array(len);
  kernel.run(c, deriveState('kernel-acc', label, 0), trials, batch);
  const stream = deriveState('kernel-acc', label, 0);
  const each: Float64Array[] = [];
  const sum = new Float64Array(len);
  for (let i = 0; i < trials; i++) {
    const a = new Float64Array(len);
    kernel.run(c, stream, 1, a);
    for (let k = 0; k < len; k++) sum[k] += a[k];
    each.push(a);
  }
  expect([...batch], `${label}: the run of ${trials} trials is the sum of its trials`).toEqual([...sum]);
  return each;
}

/** The slots of a from `from` to `to` (exclusive) that are not 0, as [slot, value] pairs. */
function nonZero(a: Float64Array, from: number, to = a.length): [number, number][] {
  const out: [number, number][] = [];
  for (let k = from; k < to; k++) if (a[k] !== 0) out.push([k, a[k]]);
  return out;
}

/**
 * The trial-by-trial checks, collected rather than asserted one by one (thousands of them): each
 * failure names the trial; the test asserts the list is empty.
 */
class Checks {
  readonly failed: string[] = [];
  trial = 0;
  /** x and y (numbers or arrays of them) are equal. */
  eq(x: unknown, y: unknown, what: string): void {
    if (JSON.stringify(x) !== JSON.stringify(y) && this.failed.length < 20) this.failed.push(`trial ${this.trial}: ${what}: ${JSON.stringify(x)}, want ${JSON.stringify(y)}`);
  }
  ok(cond: boolean, what: string): void {
    if (!cond && this.failed.length < 20) this.failed.push(`trial ${this.trial}: ${what}`);
  }
}

/** How many trials have each value of f (the test's check that a case exercises what it claims). */
function tally<T>(xs: T[], f: (x: T) => string | number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[f(x)] = (out[f(x)] ?? 0) + 1;
  return out;
}

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
});

/**
 * Fantasy's layout (fantasy/kernel.ts): [1] attacker wins [2] defender wins [3] undecided
 * [4] Σ end round [5] Σ² [6] breached [7] Σ breach round [8] Σ² [9] round cap [10] Σ first
 * volley's damage [11] Σ² [12] withdrew [13 + r - 1] breached in round r (r = 1..maxRounds); then
 * a block of 2 + 4·7 slots for each round 0..maxRounds (Σ wall HP, Σ², then each side's units
 * alive by type, Σ and Σ²: the state at the end of that round, or the state the battle ended
 * with for the rounds after it); then the first volley's damage histogram 0..maxVolley.
 */
describe('fantasy: the accumulator, trial by trial', () => {
  const STRIDE = 2 + 4 * NT;
  const cases: [string, Tree, number][] = [
    // a siege that breaches in different rounds, ends by a wipe-out, a withdrawal or the cap
    ['siege', { mode: 'siege', attacker: { infantry: 8, archers: 3, mages: 1, siege_engines: 2, captain_might: 1 }, defender: { infantry: 4, archers: 3, clerics: 1 }, wall: { hp: 30 }, max_rounds: 2, policy: { withdraw_below: 0.2 } }, 1100],
    // the open field, with a round cap judged on total HP
    ['open field', { mode: 'open_field', attacker: { infantry: 5, cavalry: 2, archers: 3, mages: 2 }, defender: { infantry: 12, cavalry: 3, archers: 2, clerics: 1 }, max_rounds: 1 }, 1100],
    // a side with no units: the battle ends before round 1
    ['empty defender', { mode: 'siege', attacker: { infantry: 2 }, defender: {}, max_rounds: 2 }, 50],
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
        ck.eq([a[11], hist], [v * v, [[hb + Math.min(v, c.maxVolley), 1]]], 'Σ volley², and its histogram count');
      } else ck.eq([a[10], a[11], hist], [0, 0, []], 'no first volley');
      // the round blocks: Σ and Σ² pairs, round 0 the starting state, the rounds after the end the last state
      for (let r = 0; r <= R; r++) {
        const bl = block(a, r);
        for (let k = 0; k < STRIDE; k += 2) ck.eq(bl[k + 1], bl[k] * bl[k], `round ${r} slot ${k}: Σ²`);
        if (r === 0) ck.eq(bl, start, 'round 0: the starting state');
        if (r > end) ck.eq(bl, block(a, end), `round ${r} after the end (${end}): the state it ended with`);
      }
      // how it ended, from the last state: a side with no units lost, unless the cap or a withdrawal came first
      const last = block(a, end);
      const [att, def] = [alive(last, 0), alive(last, 1)];
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
    if (label === 'empty defender') expect(each.every((a) => a[4] === 0 && a[1] === 1)).toBe(true);
  });
});

/**
 * Crusader Rex's layout (crusader-rex/layout.ts): [1] attacker wins [2] defender holds [3] castle
 * falls [4] siege lifted [5] continues [6] both gone [7] Σ rounds [8] Σ² [9 + 2 side] Σ steps
 * lost [10 + 2 side] Σ² [13] guard; [14 + side·(maxAll + 1) + steps] surviving steps; then per
 * turn, slot (end of round 1..3, end of turn), side and place (field, castle, reserves) Σ steps
 * and Σ². Each of the kernel's paths (field, table, general) fills it alike: each is run here.
 */
describe('Crusader Rex: the accumulator, trial by trial, on each path', () => {
  const cases: [string, Tree, CrusaderRexPath][] = [
    ['field battle, field path', merge(FIELD_BATTLE, { turns: 2 }), 'kernel'],
    ['field battle, table path', merge(FIELD_BATTLE, { turns: 2 }), 'table'],
    ['field battle, general path', merge(FIELD_BATTLE, { turns: 2 }), 'general'],
    ['siege, table path', merge(SIEGE, { turns: 2 }), 'kernel'],
    ['siege, general path', merge(SIEGE, { turns: 2 }), 'general'],
  ];

  it.each(cases)('%s: one outcome, as the last state says; rounds and steps lost with their squares; survivors where the losses put them; attrition pairs', (label, body, path) => {
    const c = compileCrusaderRex(scenario('crusader-rex', body));
    const T = c.turns;
    const hn = Math.max(c.maxTotal[0], c.maxTotal[1]) + 1;
    const attr = 14 + 2 * hn;
    expect(crusaderRexKernel.accLength(c)).toBe(attr + T * 48);
    const start = [0, 0];
    c.steps0.forEach((st, b) => (start[c.side[b]] += st));
    const siege = c.castleOwner0 >= 0;
    let each: Float64Array[];
    CR.setPath(path);
    try {
      each = oneByOne(crusaderRexKernel, c, 600, `crusader-rex ${label}`);
    } finally {
      CR.setPath('kernel');
    }
    /** Steps of side s at place p (0 field, 1 castle, 2 reserves) in turn t's slot (0..2 rounds, 3 the end). */
    const at = (a: Float64Array, t: number, slot: number, s: number, p: number) => a[attr + ((t - 1) * 4 + slot) * 12 + (s * 3 + p) * 2];
    const ck = new Checks();
    for (const a of each) {
      ck.trial++;
      ck.eq(a[0], 1, 'trials');
      ck.eq(nonZero(a, 1, 7).filter(([k]) => k !== 3 && k !== 4).map(([, v]) => v), [1], 'wins, holds, continues, both gone: one of them');
      ck.ok([0, 1].includes(a[3]) && [0, 1].includes(a[4]), 'falls and lifted once at most');
      if (!siege) ck.eq([a[3], a[4]], [0, 0], 'no castle: nothing falls or is lifted');
      ck.eq(a[13], 0, 'guard');
      ck.ok(a[7] >= 0 && a[7] <= 3 * T && a[8] === a[7] * a[7], `rounds ${a[7]}, Σ² ${a[8]}`);
      for (const s of [0, 1]) {
        const lost = a[9 + 2 * s];
        ck.eq(a[10 + 2 * s], lost * lost, `side ${s}: Σ lost²`);
        ck.eq(nonZero(a, 14 + s * hn, 14 + (s + 1) * hn), [[14 + s * hn + start[s] - lost, 1]], `side ${s}: survivors at ${start[s]} - ${lost}`);
      }
      for (let k = attr; k < a.length; k += 2) ck.ok(a[k + 1] === a[k] * a[k], `attrition slot ${k}: Σ²`);
      // the end of the last turn: who is in the town (field or castle)
      const inTown = [0, 1].map((s) => at(a, T, 3, s, 0) + at(a, T, 3, s, 1) > 0);
      const [attIn, defIn] = [inTown[c.attacker0], inTown[1 - c.attacker0]];
      const want = attIn && !defIn ? 1 : defIn && !attIn ? 2 : attIn && defIn ? 5 : 6;
      ck.eq(a[want], 1, `outcome with the attacker ${attIn ? 'in' : 'out of'} the town and the defender ${defIn ? 'in' : 'out'}`);
      // lifted: at the end its holder is in the castle and the other side not in the field
      if (a[4] === 1) ck.ok([0, 1].some((s) => at(a, T, 3, s, 1) > 0 && at(a, T, 3, 1 - s, 0) === 0), 'lifted, as the end says');
      for (const s of [0, 1]) ck.ok(at(a, T, 3, s, 0) + at(a, T, 3, s, 1) + at(a, T, 3, s, 2) <= start[s] - a[9 + 2 * s], `side ${s}: at most its surviving steps placed`);
    }
    expect(ck.failed).toEqual([]);
    const outcomes = tally(each, (a) => [1, 2, 5, 6].find((k) => a[k] === 1)!);
    expect(Object.keys(outcomes).length, JSON.stringify(outcomes)).toBeGreaterThanOrEqual(2);
    expect(new Set(each.map((a) => a[7])).size, 'several numbers of rounds').toBeGreaterThanOrEqual(2);
    if (siege) {
      expect(tally(each, (a) => a[3]), 'castles that fell and held').toMatchObject({ 0: expect.any(Number), 1: expect.any(Number) });
      expect(tally(each, (a) => a[4]), 'sieges lifted and not').toMatchObject({ 0: expect.any(Number), 1: expect.any(Number) });
    }
  });
});
