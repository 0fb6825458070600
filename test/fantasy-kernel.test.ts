/**
 * The fantasy kernel's fast machinery against the plain ways of doing the same thing:
 * allocation orders sorted once per case against a sort per volley, volleys priced on a short
 * list of targets against pricing on a copy of the side, running unit totals against the classes.
 */
import { describe, expect, it } from 'vitest';
import { validateText } from '../src/api.js';
import { compileFantasy, NT, type FantasyCompiled } from '../src/systems/fantasy/compile.js';
import { allocate } from '../src/systems/fantasy/allocation.js';
import { A_ATT_WINS, A_BREACHED, A_DEF_WINS, A_UNDECIDED, fantasyKernel, prepareFantasy, runFantasyState, stateOf } from '../src/systems/fantasy/kernel.js';
import { addCount, ALL_GROUPS, ALL_TYPES, OE, off, P_GREEDY, P_LOWEST, P_RECEIVER, totalsMatch } from '../src/systems/fantasy/state.js';
import { receiveVolley } from '../src/systems/fantasy/volley.js';
import { deriveState, nextU32 } from '../src/engine/rng.js';
import { merge, type Tree } from './helpers.js';
import { stringify } from 'yaml';

function compiled(body: Tree): FantasyCompiled {
  const v = validateText('f.yaml', `name: f\nsystem: fantasy\nseed: 1\ntrials: 1000\n${stringify(body)}`);
  if (!v.ok) throw new Error(v.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  return compileFantasy(v.value.points[0].variants[0].scenario);
}

const SIEGE: Tree = {
  mode: 'siege',
  attacker: { infantry: 10, cavalry: 4, archers: 6, mages: 3, clerics: 3, siege_engines: 3, captain_might: 2 },
  defender: { infantry: 6, cavalry: 1, archers: 6, mages: 2, clerics: 2, siege_engines: 1, captain_might: 1 },
  wall: { hp: 45 },
  max_rounds: 12,
};
const FIELD: Tree = {
  mode: 'open_field',
  attacker: { infantry: 8, cavalry: 3, archers: 6, mages: 4, clerics: 4, siege_engines: 1, captain_might: 1 },
  defender: { infantry: 10, cavalry: 1, archers: 4, mages: 2, clerics: 5, captain_might: 1 },
};

/** Run `trials` trials of c on a fixed stream (pricing on a copy of the side if asked); the accumulator. */
function runAcc(c: FantasyCompiled, trials: number, key: string, copyPricing = false, volleyTable = true): Float64Array {
  const acc = new Float64Array(fantasyKernel.accLength(c));
  runFantasyState(prepareFantasy(c, { copyPricing, volleyTable }), deriveState('fantasy-kernel', key, 0), trials, acc);
  return acc;
}

describe('fantasy kernel: shield and mage-target pricing on the short target list', () => {
  // Same dice, same decisions: the accumulators must be equal to the last bit.
  const cases: [string, Tree][] = [
    ['siege, DEFAULT rules', SIEGE],
    ['siege, mages spill over (H5 (c)), shields per component (H8 (b))', merge(SIEGE, { rules: { mage_targeting: 'spill', shield_scope: 'per_component' } })],
    ['siege, threshold shields (H9 (d)), archer part first', merge(SIEGE, { policy: { shield_spending: 'threshold' }, rules: { shield_reduces: 'archer_first' } })],
    ['siege, lowest-HP allocation, accumulating pools, any targets', merge(SIEGE, { policy: { damage_allocation: 'lowest_hp' }, rules: { siege_pool: 'accumulate', attacker_fire_targets: 'any' } })],
    ['open field, DEFAULT rules (lambda in Phase A)', FIELD],
    ['open field, leftovers carried (H2 (c)), phases repeated, receiver melee', merge(FIELD, { rules: { leftover: 'next_phase', open_field_rounds: 'repeat_phases', melee_allocation: 'receiver' } })],
    ['open field, never in Phase A, melee-die HP', merge(FIELD, { policy: { shield_spending: 'never_phase_a' }, rules: { hp_preset: 'melee_die' } })],
  ];
  it.each(cases)('%s: the same accumulators as pricing on a copy of the side', (label, body) => {
    const c = compiled(body);
    const fast = runAcc(c, 1500, label);
    const copy = runAcc(c, 1500, label, true);
    expect(fast[0]).toBe(1500);
    expect(Array.from(fast)).toEqual(Array.from(copy));
  });
});

describe('fantasy kernel: the volley table (decisions kept per key) against deciding every volley', () => {
  // A volley's decisions involve no dice: looked up or made anew, the accumulators are equal to
  // the last bit, with the table on for the policies it holds and off (by itself) for the rest.
  const cases: [string, Tree][] = [
    ['siege, DEFAULT rules', SIEGE],
    ['siege, same-round melee, pool not targetable, end-of-phase wall', merge(SIEGE, { rules: { melee_start: 'same_round', breach_pool_targetable: false, wall_fall: 'end_of_phase' } })],
    ['siege, no-retry climbs, pool first, stays open', merge(SIEGE, { rules: { failed_climb: 'no_retry', pool_fire_order: 'pool_first', repelled_breach: 'stays_open' } })],
    ['siege, lowest-HP allocation, accumulating pools, spill, threshold shields', merge(SIEGE, { policy: { damage_allocation: 'lowest_hp', shield_spending: 'threshold' }, rules: { siege_pool: 'accumulate', mage_targeting: 'spill' } })],
    ['siege, full-block shields per component, archer part first', merge(SIEGE, { policy: { shield_spending: 'full_block' }, rules: { shield_scope: 'per_component', shield_reduces: 'archer_first' } })],
    ['open field, DEFAULT rules', FIELD],
    ['open field, leftovers carried (H2 (c)), phases repeated', merge(FIELD, { rules: { leftover: 'next_phase', open_field_rounds: 'repeat_phases' } })],
    ['open field, no-waste shields, simultaneous ranged phases', merge(FIELD, { policy: { shield_spending: 'no_waste' }, rules: { ranged_phases: 'simultaneous' } })],
  ];
  it.each(cases)('%s: the same accumulators with the table and without', (label, body) => {
    const c = compiled(body);
    expect(prepareFantasy(c).memoOn).toBe(true);
    const table = runAcc(c, 3000, label);
    const direct = runAcc(c, 3000, label, false, false);
    expect(table[0]).toBe(3000);
    expect(Array.from(table)).toEqual(Array.from(direct));
  });
  it('keys every listed class: eleven attacking classes (no-retry climbers in three groups, the captain a unit) fill all three count words', () => {
    const c = compiled(merge(SIEGE, { rules: { failed_climb: 'no_retry', captain: 'unit' } }));
    const st = prepareFantasy(c);
    const acc = new Float64Array(fantasyKernel.accLength(c));
    runFantasyState(st, deriveState('fantasy-kernel', 'eleven', 0), 3000, acc);
    expect(st.legalN[0]).toBe(11); // the defender's fire at every attacking class: counts 8..10 in the third word
    expect(Array.from(acc)).toEqual(Array.from(runAcc(c, 3000, 'eleven', false, false)));
  });
  it('is off where a volley needs dice or wounds (random or knapsack allocation, persistent wounds, per-mage targets)', () => {
    for (const extra of [{ policy: { damage_allocation: 'random' } }, { policy: { damage_allocation: 'knapsack' } }, { rules: { leftover: 'persistent' } }, { rules: { mage_targeting: 'per_mage' } }])
      expect(prepareFantasy(compiled(merge(SIEGE, extra))).memoOn).toBe(false);
  });
});

describe('fantasy kernel: the volley table keys only the classes a volley can reach', () => {
  // A volley at a drawn state, decided through the table (a miss: its key written) and directly;
  // then the same volley at a sibling state that differs only in the classes left out of that
  // key (any count up to 12), which must find the entry and leave what deciding it directly
  // leaves: the counts, the pool, the carried points and the damage through. Counts run to 12
  // on some classes so that some volleys empty a class and some do not; every listed class (up
  // to eleven: all three count words) is keyed by some state.
  const cases: [string, Tree][] = [
    ['siege, DEFAULT rules', SIEGE],
    ['siege, spill (H5 (c)), shields per component (H8 (b))', merge(SIEGE, { rules: { mage_targeting: 'spill', shield_scope: 'per_component' } })],
    ['siege, threshold shields (H9 (d)), archer part first', merge(SIEGE, { policy: { shield_spending: 'threshold' }, rules: { shield_reduces: 'archer_first' } })],
    ['siege, lowest-HP allocation, HP 1 to 7', merge(SIEGE, { policy: { damage_allocation: 'lowest_hp' }, hp: { infantry: 3, cavalry: 7, archer: 1, mage: 4, cleric: 1, siege_engine: 5 } })],
    ['siege, a type of value 0 (every class keyed)', merge(SIEGE, { values: { mage: 0, infantry: 0 } })],
    ['siege, leftovers carried (H2 (c)), no-retry climbers, the captain a unit', merge(SIEGE, { rules: { leftover: 'next_phase', failed_climb: 'no_retry', captain: 'unit' } })],
    ['open field, DEFAULT rules', FIELD],
  ];
  it.each(cases)('%s: the same result as deciding each volley', (label, body) => {
    const c = compiled(body);
    const viaTable = prepareFantasy(c);
    const direct = prepareFantasy(c, { volleyTable: false });
    expect(viaTable.memoOn).toBe(true);
    const rng = deriveState('fantasy-volley-key', label, 0);
    const r = (n: number) => nextU32(rng) % n;
    const ord = viaTable.ord;
    const masks = [
      [ALL_TYPES, ALL_GROUPS],
      [ALL_TYPES & ~(1 << 5), ALL_GROUPS],
      [ALL_TYPES, ALL_GROUPS & ~2],
      [(1 << 3) | (1 << 2), ALL_GROUPS],
    ];
    const union = [0, 0];
    const listed = [0, 0];
    let siblings = 0;
    let partial = 0; // keys that leave a listed class out
    /** The volley at a state of side s (counts by class index) through one state; what it leaves. */
    const volley = (st: typeof viaTable, counts: Map<number, number>, s: number, M: number, A: number, typeMask: number, groupMask: number, pool: number[], carry: number) => {
      st.cnt.fill(0);
      for (const [idx, n] of counts) addCount(st.cnt, idx, n);
      st.pool.set(pool);
      st.carry[s] = carry;
      const through = receiveVolley(st, c, st.rng, s, M, A, typeMask, groupMask, false);
      return [through, st.carry[s], ...st.pool, ...st.cnt];
    };
    const same = (x: number[], y: number[], what: string) => {
      if (x.some((v, j) => v !== y[j])) expect(x, what).toEqual(y);
    };
    for (let i = 0; i < 1500; i++) {
      const s = r(2);
      const counts = new Map<number, number>();
      for (let e = viaTable.ordFrom[s * 3]; e < viaTable.ordFrom[s * 3 + 1]; e++) counts.set(ord[e * OE], r(3) === 0 ? r(13) : r(4));
      const [typeMask, groupMask] = masks[r(4)];
      const M = [0, 0, 1, 2, 3, 7][r(6)];
      const A = r(3) === 0 ? r(30) : r(10);
      const pool = [0, r(3), r(2), r(2), 0, r(3), r(2), r(2)];
      const carry = c.leftover === 2 ? r(3) : 0;
      viaTable.memoKey[0] = -1; // memoFind writes the key on a miss only
      same(volley(viaTable, counts, s, M, A, typeMask, groupMask, pool, carry), volley(direct, counts, s, M, A, typeMask, groupMask, pool, carry), `volley ${i}`);
      const keyed = viaTable.memoKey[0] >>> 13;
      if (viaTable.memoKey[0] === -1) continue; // met before
      const q = viaTable.legalAt[s];
      const n = viaTable.legalN[q];
      if (typeMask === ALL_TYPES && groupMask === ALL_GROUPS) {
        union[s] |= keyed;
        listed[s] = n;
      }
      if (keyed !== (1 << n) - 1) partial++;
      // the sibling: every class the key leaves out drawn anew (the unlisted ones too)
      const kept = new Set<number>();
      for (let j = 0; j < n; j++) if ((keyed & (1 << j)) !== 0) kept.add(viaTable.legalIdx[q * 13 + j]);
      const sibling = new Map<number, number>();
      for (const [idx, k] of counts) sibling.set(idx, kept.has(idx) ? k : r(13));
      viaTable.memoKey[0] = -1;
      const found = volley(viaTable, sibling, s, M, A, typeMask, groupMask, pool, carry);
      expect(viaTable.memoKey[0], `sibling ${i}: the entry is found`).toBe(-1);
      same(found, volley(direct, sibling, s, M, A, typeMask, groupMask, pool, carry), `sibling ${i}`);
      siblings++;
    }
    expect(totalsMatch(viaTable.cnt)).toBe(true);
    expect(siblings).toBeGreaterThan(1000);
    if (c.value.every((v) => v > 0)) expect(partial).toBeGreaterThan(500);
    else expect(partial).toBe(0);
    expect(union).toEqual([(1 << listed[0]) - 1, (1 << listed[1]) - 1]); // every listed class keyed by some state
  });
});

describe('fantasy kernel: allocation orders made once per case', () => {
  /** The allocation as first written: list the legal non-empty classes, sort them per call. */
  function reference(c: FantasyCompiled, a: Int32Array, s: number, D: number, typeMask: number, groupMask: number, policy: number): number {
    const cls: { idx: number; h: number; v: number; key: number }[] = [];
    for (let g = 0; g < 3; g++) {
      if ((groupMask & (1 << g)) === 0) continue;
      for (let t = 0; t < NT; t++) {
        if ((typeMask & (1 << t)) === 0) continue;
        for (let h = 1; h <= c.maxHp; h++) {
          const idx = off(s, g, t) + h;
          if (a[idx] === 0) continue;
          const v = c.value[s * NT + t];
          const key = policy === P_GREEDY ? -v / h - v * 1e-7 : policy === P_LOWEST ? h - v * 1e-7 : v / h - h * 1e-7;
          cls.push({ idx, h, v, key });
        }
      }
    }
    if (cls.length === 0) return D;
    cls.sort((x, y) => x.key - y.key); // stable
    for (const x of cls) {
      if (D <= 0) break;
      const kill = Math.min(a[x.idx], Math.floor(D / x.h));
      a[x.idx] -= kill;
      D -= kill * x.h;
    }
    if (D > 0 && c.leftover === 1) {
      const x = cls.find((y) => a[y.idx] > 0);
      if (x) {
        a[x.idx]--;
        a[x.idx - D]++;
        return 0;
      }
    }
    return D;
  }

  for (const [label, body] of [
    ['full HP', SIEGE],
    ['persistent wounds (every HP reachable)', merge(SIEGE, { rules: { leftover: 'persistent' } })],
    ['failed climbers may not retry (three groups)', merge(SIEGE, { rules: { failed_climb: 'no_retry' } })],
  ] as [string, Tree][]) {
    it(`${label}: the same kills and leftovers as a sort per call, on random states`, () => {
      const c = compiled(body);
      const st = prepareFantasy(c);
      const rng = deriveState('alloc-orders', label, 0);
      const wounds = c.leftover === 1;
      const a = st.cnt;
      const b = new Int32Array(a.length);
      for (let trial = 0; trial < 3000; trial++) {
        a.fill(0);
        for (let s = 0; s < 2; s++)
          for (let t = 0; t < NT; t++) {
            if (c.units[s * NT + t] === 0) continue;
            // the groups a unit can reach: climbers go to the breach pool, failed ones to group 2 only with H17 (c)
            for (let g = 0; g < (s === 0 && t < 2 ? (c.failedClimb === 2 ? 3 : 2) : 1); g++) {
              const h = wounds ? 1 + (nextU32(rng) % c.hp[t]) : c.hp[t];
              a[off(s, g, t) + h] = nextU32(rng) % 4;
            }
          }
        b.set(a);
        const s = nextU32(rng) % 2;
        const D = nextU32(rng) % 30;
        const typeMask = 1 + (nextU32(rng) % 127);
        const groupMask = 1 + (nextU32(rng) % 7);
        const policy = [P_GREEDY, P_LOWEST, P_RECEIVER][nextU32(rng) % 3];
        const left = allocate(st, c, rng, a, s, D, typeMask, groupMask, policy);
        const want = reference(c, b, s, D, typeMask, groupMask, policy);
        expect(left).toBe(want);
        // the classes (not the running totals after them, which this random state never set)
        const classes = off(2, 0, 0); // both sides' classes end where a third side would start
        expect(Array.from(a.subarray(0, classes))).toEqual(Array.from(b.subarray(0, classes)));
      }
    });
  }
});

describe('fantasy kernel: running unit totals', () => {
  const cases: [string, Tree][] = [
    ['siege, DEFAULT', SIEGE],
    ['siege, persistent wounds and failed climbs, no retry groups', merge(SIEGE, { rules: { leftover: 'persistent', failed_climb: 'persistent' } })],
    ['siege, no retry, knapsack, random melee', merge(SIEGE, { rules: { failed_climb: 'no_retry', melee_allocation: 'random' }, policy: { damage_allocation: 'knapsack' } })],
    ['open field, random allocation, captain unit', merge(FIELD, { policy: { damage_allocation: 'random' }, rules: { captain: 'unit' } })],
  ];
  it.each(cases)('%s: agree with the classes after every trial', (label, body) => {
    const c = compiled(body);
    const acc = new Float64Array(fantasyKernel.accLength(c));
    const stream = deriveState('totals', label, 0);
    for (let i = 0; i < 300; i++) {
      fantasyKernel.run(c, stream, 1, acc);
      expect(totalsMatch(stateOf(c).cnt)).toBe(true);
    }
  });
});

describe('fantasy kernel: the per-trial trace of paired slots', () => {
  it.each([
    ['siege', SIEGE],
    ['open field', FIELD],
  ] as [string, Tree][])('%s: row t is the slots after trial t, and the accumulator is as without a trace', (label, body) => {
    const c = compiled(body);
    const slots = Int32Array.from([A_ATT_WINS, A_DEF_WINS, A_UNDECIDED, A_BREACHED]);
    const n = 300;
    const out = new Float64Array(n * slots.length).fill(-1);
    const traced = new Float64Array(fantasyKernel.accLength(c));
    fantasyKernel.run(c, deriveState('trace', label, 0), n, traced, { slots, out });
    const plain = new Float64Array(fantasyKernel.accLength(c));
    fantasyKernel.run(c, deriveState('trace', label, 0), n, plain);
    expect(Array.from(traced)).toEqual(Array.from(plain));
    const one = new Float64Array(fantasyKernel.accLength(c));
    const stream = deriveState('trace', label, 0);
    for (let t = 0; t < n; t++) {
      fantasyKernel.run(c, stream, 1, one);
      for (let p = 0; p < slots.length; p++) expect(out[t * slots.length + p]).toBe(one[slots[p]]);
    }
    expect(one[A_ATT_WINS] + one[A_DEF_WINS] + one[A_UNDECIDED]).toBe(n);
  });
});
