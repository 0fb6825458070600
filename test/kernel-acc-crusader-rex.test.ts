/** Crusader Rex's accumulator, trial by trial, on each path (test/kernel-acc.shared.ts says how). */
import { describe, expect, it } from 'vitest';
import { compileCrusaderRex } from '../src/systems/crusader-rex/compile.js';
import { crusaderRexKernel, _internals as CR, type CrusaderRexPath } from '../src/systems/crusader-rex/kernel.js';
import { FIELD_BATTLE, SIEGE } from './crusader-rex.shared.js';
import { merge, type Tree } from './helpers.js';
import { Checks, checkTrace, nonZero, oneByOne, scenario, tally } from './kernel-acc.shared.js';

/**
 * Crusader Rex's layout (crusader-rex/layout.ts): [1] attacker wins [2] defender holds [3] castle
 * falls [4] siege lifted [5] continues [6] both gone [7] Σ rounds [8] Σ² [9 + 2 side] Σ steps
 * lost [10 + 2 side] Σ² [13] guard; [14 + side·(maxAll + 1) + steps] surviving steps; then per
 * turn, slot (end of round 1..3, end of turn), side and place (field, castle, reserves) Σ steps
 * and Σ². Each of the kernel's paths (closed field, field-run, table, general) fills it alike: each is run here.
 */
describe('Crusader Rex: the accumulator, trial by trial, on each path', () => {
  /** The reference battle's blocks with reserves on both sides (they arrive in rounds 2 and 3). */
  const RESERVES: Tree[] = [
    { block: 'Saladin' },
    { block: 'Turks 1' },
    { block: 'Al Adil', at: 'other_road' },
    { block: 'Genoa Pilgrims', steps: 1 },
    { block: 'Conrad', at: 'main_road' },
    { block: 'Balian', at: 'other_road' },
  ];
  /**
   * A Nomad that harries (6.33: fires, then retreats by road) against a one-step Pilgrim: when its
   * shot kills the Pilgrim, both sides are gone from the town (a harry choice: not the field run path).
   */
  const HARRY: Tree = { town: { rating: 0 }, player1: 'saracens', attacker: 'saracens', blocks: [{ block: 'Kurds 1' }, { block: 'Genoa Pilgrims', steps: 1 }], policy: { harry: 'always' } };

  const cases: [string, Tree, CrusaderRexPath][] = [
    ['field battle, closed field path', merge(FIELD_BATTLE, { turns: 2 }), 'kernel'],
    ['field battle, field-run path', merge(FIELD_BATTLE, { turns: 2 }), 'field'],
    ['field battle, table path', merge(FIELD_BATTLE, { turns: 2 }), 'table'],
    ['field battle, general path', merge(FIELD_BATTLE, { turns: 2 }), 'general'],
    ['field battle with reserves, field-run path', merge(FIELD_BATTLE, { turns: 2, blocks: RESERVES }), 'kernel'],
    ['field battle with reserves, table path', merge(FIELD_BATTLE, { turns: 2, blocks: RESERVES }), 'table'],
    ['field battle with reserves, general path', merge(FIELD_BATTLE, { turns: 2, blocks: RESERVES }), 'general'],
    ['siege, table path', merge(SIEGE, { turns: 2 }), 'kernel'],
    ['siege, general path', merge(SIEGE, { turns: 2 }), 'general'],
    // ties at random: not a plain case, so the table path plays it round by round (playTrials), not as a walk
    ['siege, ties at random, table path', merge(SIEGE, { turns: 2, policy: { tie_break: 'random' } }), 'kernel'],
    ['harry, both sides gone, table path', merge(HARRY, { turns: 2 }), 'kernel'],
    ['harry, both sides gone, general path', merge(HARRY, { turns: 2 }), 'general'],
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
    if (label.includes('closed field path')) expect(CR.closedFieldApplies(c)).toBe(true);
    if (label.includes('field-run path') && path === 'kernel') expect(CR.fieldPathApplies(c) && !CR.closedFieldApplies(c)).toBe(true);
    if (label.includes('table path') && path === 'kernel') expect(CR.tablePathApplies(c) && !CR.fieldPathApplies(c)).toBe(true);
    // ties at random are never played as a walk (table-path.ts runTable): round by round
    if (label.includes('ties at random')) expect(c.tieBreak).toBe(2);
    let each: Float64Array[];
    CR.setPath(path);
    try {
      each = oneByOne(crusaderRexKernel, c, 600, `crusader-rex ${label}`);
      // traced (paired variants): the outcome, rounds, steps lost and survivors slots, which every path keeps trial by trial
      checkTrace(crusaderRexKernel, c, each, Array.from({ length: attr - 1 }, (_, k) => k + 1), `crusader-rex ${label}`);
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
      for (let k = attr; k < a.length; k += 2) ck.ok(a[k + 1] === a[k] * a[k] && a[k] >= 0, `attrition slot ${k}: ${a[k]} and Σ² ${a[k + 1]}`);
      // every record: a side's steps in the field, the castle and the reserves at most its starting steps
      for (let t = 1; t <= T; t++)
        for (let slot = 0; slot < 4; slot++)
          for (const s of [0, 1]) ck.ok(at(a, t, slot, s, 0) + at(a, t, slot, s, 1) + at(a, t, slot, s, 2) <= start[s], `turn ${t} slot ${slot} side ${s}: more than its starting steps`);
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
    // the harrier leaves in round 1 whatever happens: one round in every trial
    if (!label.includes('reserves') && !label.includes('harry')) expect(new Set(each.map((a) => a[7])).size, 'several numbers of rounds').toBeGreaterThanOrEqual(2);
    if (label.includes('both sides gone')) expect(outcomes[6], JSON.stringify(outcomes)).toBeGreaterThan(100);
    if (label.includes('reserves')) expect(each.filter((a) => at(a, 1, 0, 0, 2) > 0 && at(a, 1, 0, 1, 2) > 0).length, 'both sides with reserves on the road after round 1').toBe(600);
    if (siege) {
      expect(tally(each, (a) => a[3]), 'castles that fell and held').toMatchObject({ 0: expect.any(Number), 1: expect.any(Number) });
      expect(tally(each, (a) => a[4]), 'sieges lifted and not').toMatchObject({ 0: expect.any(Number), 1: expect.any(Number) });
    }
  });
});
