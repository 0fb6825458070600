/**
 * The fantasy kernel's round records (record.ts: kept as changes at each loss and each blow to
 * the wall) against the state itself: a trial capped at round k plays the same dice as the
 * uncapped trial up to round k (max_rounds only bounds the loop), so its state at the end is the
 * state after round k (or the final state, when the battle ended before). Each trial's record of
 * round k in the uncapped run must be exactly that state (wall HP, alive per side and type, and
 * their squares), on rule sets that reach every place a unit dies: the volley table, the
 * allocations on the list and by the order (melee), random and knapsack allocation, wounds,
 * climbs by the table and die by die, a full battle after the breach, the open field.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { validateText } from '../src/api.js';
import { compileFantasy, NT } from '../src/systems/fantasy/compile.js';
import { accLengthFantasy, prepareFantasy, roundBase, ROUND_STRIDE, runFantasyState } from '../src/systems/fantasy/kernel.js';
import { deriveState } from '../src/engine/rng.js';
import { G, TOT } from '../src/systems/fantasy/state.js';
import { merge, type Tree } from './helpers.js';
import { FANTASY_FIELD, FANTASY_SIEGE } from './fantasy.shared.js';

function compiled(body: Tree, maxRounds: number) {
  const v = validateText('f.yaml', `name: f\nsystem: fantasy\nseed: fantasy-records\ntrials: 1\n${stringify({ ...body, max_rounds: maxRounds })}`);
  if (!v.ok) throw new Error(JSON.stringify(v));
  return compileFantasy(v.value.points[0].variants[0].scenario);
}

/** One trial (the i-th of the stream) of `body` capped at `rounds`: its accumulator and final state. */
function trial(body: Tree, rounds: number, i: number, perDie: boolean) {
  const c = compiled(body, rounds);
  const st = prepareFantasy(c, { perDie });
  const acc = new Float64Array(accLengthFantasy(c));
  const stream = deriveState('fantasy-records', 'trials', i);
  runFantasyState(st, stream, 1, acc);
  const alive: number[] = [];
  for (let s = 0; s < 2; s++)
    for (let t = 0; t < NT; t++) {
      const b = TOT + s * G * NT + t;
      alive.push(st.cnt[b] + st.cnt[b + NT] + st.cnt[b + 2 * NT]);
    }
  return { c, acc, wall: Math.max(0, st.wallHp), alive, end: acc[4] };
}

const SIEGE = FANTASY_SIEGE;
const FIELD = FANTASY_FIELD;

describe('fantasy records: each round is the state after it', () => {
  const cases: [string, Tree, boolean][] = [
    ['the reference siege (DEFAULT rules)', SIEGE, false],
    ['the reference siege, per-die mode', SIEGE, true],
    ['siege: random allocation, random melee', merge(SIEGE, { policy: { damage_allocation: 'random' }, rules: { melee_allocation: 'random' } }), false],
    ['siege: knapsack allocation, receiver in the melee', merge(SIEGE, { policy: { damage_allocation: 'knapsack' }, rules: { melee_allocation: 'receiver' } }), false],
    ['siege: wounds persist, HP = melee die', merge(SIEGE, { rules: { leftover: 'persistent', hp_preset: 'melee_die' } }), false],
    ['siege: failed climbers keep their damage (die by die)', merge(SIEGE, { rules: { failed_climb: 'persistent' }, hp: { infantry: 7, cavalry: 8 } }), false],
    ['siege: failures may not retry, pools accumulate, towers always', merge(SIEGE, { rules: { failed_climb: 'no_retry', siege_pool: 'accumulate', tower_bonus: 'always' } }), false],
    ['siege: per-mage targets, the highest results removed', merge(SIEGE, { attacker: { mages: 4 }, rules: { mage_targeting: 'per_mage', dice_removal: 'highest_results' } }), false],
    ['siege: a full battle after the breach, the captain a unit', merge(SIEGE, { rules: { captain: 'unit', melee_start: 'full_battle' } }), false],
    ['open field, optimal shields (DEFAULT)', FIELD, false],
    ['open field, no-waste shields, phases repeated', merge(FIELD, { policy: { shield_spending: 'no_waste' }, rules: { open_field_rounds: 'repeat_phases' } }), false],
  ];
  const R = 8;
  const TRIALS = 40;
  it.each(cases)('%s', (_name, body, perDie) => {
    let compared = 0;
    let later = 0; // trials that last past round 1 (the changes of several rounds summed)
    for (let i = 0; i < TRIALS; i++) {
      const full = trial(body, R, i, perDie);
      if (full.end > 1) later++;
      for (let k = 1; k <= R; k++) {
        const capped = trial(body, k, i, perDie);
        const b = roundBase(full.c) + k * ROUND_STRIDE;
        const got = Array.from(full.acc.subarray(b, b + ROUND_STRIDE));
        const want = [capped.wall, capped.wall * capped.wall];
        for (let j = 0; j < 2 * NT; j++) want.push(capped.alive[j], capped.alive[j] * capped.alive[j]);
        expect(got, `trial ${i}, round ${k}`).toEqual(want);
        compared++;
      }
    }
    expect(compared).toBe(TRIALS * R);
    expect(later).toBeGreaterThan(0);
  });
});
