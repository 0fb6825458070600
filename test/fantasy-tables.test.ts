/**
 * The fantasy kernel's table mode: sums of identical dice, cleric pools and classes of climbers
 * drawn from alias tables (kernel-tables.ts) instead of die by die. The tables are held to the
 * exact distributions, the draws to the tables, and the table mode to the per-die mode (a
 * different dice stream: two independent samples of the same battles) and to the exact solvers.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_Z_LIMIT, checkScenario, exactScenario, runScenario, validateText } from '../src/api.js';
import { aliasDraw, aliasMass, AliasTables, binomialDistribution, ensureBinomials, ensureClimbOutcomes, ensurePoolFaces, ensurePoolPairs, ensureSums, ensureSums32, ensureVolleys, JOINT_MAX, JOINT_OUTCOMES_MAX, poolPairOutcomes, sums32Outcomes, volleyOutcomes, sum32Distribution, sumDistribution } from '../src/systems/fantasy/kernel-tables.js';
import { compileFantasy } from '../src/systems/fantasy/compile.js';
import { prepareFantasy } from '../src/systems/fantasy/state.js';
import { perDie } from './fantasy-per-die.js';
import { deriveState } from '../src/engine/rng.js';
import { merge, zAll, type Tree } from './helpers.js';
import { stringify } from 'yaml';
import { FANTASY_FIELD, FANTASY_SIEGE } from './fantasy.shared.js';

const TWO32 = 2 ** 32;

function valid(body: Tree, trials: number) {
  const v = validateText('f.yaml', `name: f\nsystem: fantasy\nseed: fantasy-tables\ntrials: ${trials}\n${stringify(body)}`);
  if (!v.ok) throw new Error(v.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  return v.value;
}

/** Upper tail of chi-square at 1e-6 (Wilson-Hilferty): a correct table fails once in a million seeds. */
function chiCritical(df: number): number {
  const z = 4.753; // standard normal upper 1e-6 point
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

describe('fantasy tables: every outcome has its exact probability to within 2^-32', () => {
  const tables = new AliasTables();
  /** Check a table against a distribution (outcome code -> probability). */
  function holds(base: number, exact: (code: number) => number, codes: number[]) {
    const mass = aliasMass(tables.al, base);
    let total = 0;
    for (const [code, m] of mass) {
      total += m;
      if (m > 0) expect(codes, `code ${code}`).toContain(code); // nothing impossible is drawn
    }
    expect(Math.abs(total - 1)).toBeLessThan(1e-12);
    for (const code of codes) expect(Math.abs((mass.get(code) ?? 0) - exact(code)), `code ${code}`).toBeLessThanOrEqual(1 / TWO32);
  }

  it('sums of n dice (d2, d3, d6), n = 0..40', () => {
    for (const die of [2, 3, 6]) {
      const bases = ensureSums(tables, die, 40);
      for (let n = 0; n <= 40; n++) {
        const dist = sumDistribution(die, n);
        const codes = Array.from({ length: (die - 1) * n + 1 }, (_, i) => n + i);
        holds(bases[n], (s) => dist[s] ?? 0, codes);
      }
    }
  });

  it('binomial counts (pools 1/3 and 1/2, climbs 9/20, 2d3 >= HP), n = 0..60, and certain outcomes', () => {
    for (const [key, p] of [
      ['1/3', 1 / 3],
      ['1/2', 1 / 2],
      ['9/20', 9 / 20],
      ['2d3>=4', 6 / 9],
      ['0/20', 0],
      ['20/20', 1],
    ] as [string, number][]) {
      const bases = ensureBinomials(tables, key, p, 60);
      for (let n = 0; n <= 60; n++) {
        const dist = binomialDistribution(n, p);
        holds(bases[n], (k) => dist[k] ?? 0, Array.from({ length: n + 1 }, (_, k) => k));
      }
    }
    // the exact distribution itself, against the closed form for a small case
    expect(binomialDistribution(3, 1 / 3).map((q) => q * 27)).toEqual([8, 12, 6, 1].map((x) => expect.closeTo(x, 10)));
  });

  it('draws follow their table (chi-square, 600k draws of 3d6), and a wrong distribution is caught', () => {
    const base = ensureSums(tables, 6, 3)[3];
    const rng = deriveState('fantasy-tables', 'draws', 0);
    const counts = new Array<number>(19).fill(0);
    const N = 600_000;
    for (let i = 0; i < N; i++) counts[aliasDraw(rng, tables.al, base)]++;
    expect(counts[0] + counts[1] + counts[2]).toBe(0);
    const chi = (dist: number[]) => {
      let x = 0;
      for (let s = 3; s <= 18; s++) x += (counts[s] - N * dist[s]) ** 2 / (N * dist[s]);
      return x;
    };
    expect(chi(sumDistribution(6, 3))).toBeLessThan(chiCritical(15));
    // 2d6 and a die that shows 6 a fifth of the time: the same test rejects it
    const two = sumDistribution(6, 2);
    const biased = new Array<number>(19).fill(0);
    for (let s = 0; s < two.length; s++) for (let f = 1; f <= 6; f++) biased[s + f] += two[s] * (f === 6 ? 0.2 : 0.16);
    expect(chi(biased)).toBeGreaterThan(chiCritical(15));
  });
});

/** C(n, k) exactly. */
function choose(n: number, k: number): bigint {
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}

describe('fantasy tables: two counts in one draw, every outcome exact to within 2^-32', () => {
  const tables = new AliasTables();
  /** The table at base against exact probabilities num(code) / den (counted over every die face). */
  function holdsExactly(base: number, codes: Map<number, bigint>, den: bigint) {
    const mass = aliasMass(tables.al, base);
    let total = 0;
    for (const [code, m] of mass) {
      total += m;
      if (m > 0) expect(codes.has(code), `code ${code} is possible`).toBe(true);
    }
    expect(Math.abs(total - 1)).toBeLessThan(1e-12);
    for (const [code, num] of codes) expect(Math.abs((mass.get(code) ?? 0) - Number(num) / Number(den)), `code ${code}`).toBeLessThanOrEqual(1 / TWO32);
  }

  it('a pool of n d3 by its faces (ones | twos << 8), n = 0..JOINT_MAX: n! / (ones! twos! threes!) of 3^n', () => {
    const bases = ensurePoolFaces(tables, JOINT_MAX);
    for (let n = 0; n <= JOINT_MAX; n++) {
      const codes = new Map<number, bigint>();
      for (let a = 0; a <= n; a++) for (let b = 0; a + b <= n; b++) codes.set(a | (b << 8), choose(n, a) * choose(n - a, b));
      holdsExactly(bases[n], codes, 3n ** BigInt(n));
    }
  });

  it('a class of n climbers (ok | lost << 8) at every hit threshold of the d20 and every 2d3 kill chance, n = 0..3, 5, 8 and JOINT_MAX', () => {
    // f faces of 20 succeed; a failed climber dies on Q of the 9 outcomes of 2d3 (4.4: HP 2..7)
    for (let f = 0; f <= 20; f++)
      for (const Q of [9, 8, 6, 3, 1, 0]) {
        const bases = ensureClimbOutcomes(tables, `${f}/20 ${Q}/9`, f / 20, Q / 9, JOINT_MAX);
        for (const n of [0, 1, 2, 3, 5, 8, JOINT_MAX]) {
          // counted over 20^n d20 faces and 9^(failures) 2d3 outcomes, scaled to 20^n 9^n
          const codes = new Map<number, bigint>();
          for (let ok = 0; ok <= n; ok++)
            for (let lost = 0; ok + lost <= n; lost++) {
              const fail = n - ok;
              const num = choose(n, ok) * BigInt(f) ** BigInt(ok) * BigInt(20 - f) ** BigInt(fail) * choose(fail, lost) * BigInt(Q) ** BigInt(lost) * BigInt(9 - Q) ** BigInt(fail - lost) * 9n ** BigInt(ok);
              if (num > 0n) codes.set(ok | (lost << 8), num);
            }
          holdsExactly(bases[n], codes, 20n ** BigInt(n) * 9n ** BigInt(n));
        }
      }
  });

  it('n3 d3 plus n2 d2, n3 = 0..8, n2 = 0..12, counted over every face', () => {
    const N3 = 8;
    const N2 = 12;
    const bases = ensureSums32(tables, N3, N2);
    for (let n3 = 0; n3 <= N3; n3++)
      for (let n2 = 0; n2 <= N2; n2++) {
        const ways = ways32(n3, n2); // ways[s]: the faces that total s
        const codes = new Map<number, bigint>();
        ways.forEach((w, s) => {
          if (w > 0n) codes.set(s, w);
        });
        holdsExactly(bases[n3 * (N2 + 1) + n2], codes, 3n ** BigInt(n3) * 2n ** BigInt(n2));
        // and the helper the tests use is the same distribution
        const dist = sum32Distribution(n3, n2);
        for (const [code, w] of codes) expect(dist[code]).toBeCloseTo(Number(w) / Number(3n ** BigInt(n3) * 2n ** BigInt(n2)), 12);
      }
  });

  /** ways[s]: how many of the faces of n3 d3 and n2 d2 total s (every face counted). */
  function ways32(n3: number, n2: number): bigint[] {
    let ways: bigint[] = [1n];
    const roll = (die: number) => {
      const next = new Array<bigint>(ways.length + die).fill(0n);
      for (let s = 0; s < ways.length; s++) for (let f = 1; f <= die; f++) next[s + f] += ways[s];
      ways = next;
    };
    for (let i = 0; i < n3; i++) roll(3);
    for (let i = 0; i < n2; i++) roll(2);
    return ways;
  }

  it('a volley (M | A << 16: m d3, and a d2 with or without the 2d3 tower bonus), m = 0..4, a = 0..9', () => {
    for (const tower of [false, true]) {
      const bases = ensureVolleys(tables, 4, 9, tower);
      for (let m = 0; m <= 4; m++)
        for (let a = 0; a <= 9; a++) {
          const wm = ways32(m, 0);
          const wa = ways32(tower ? 2 : 0, a);
          const codes = new Map<number, bigint>();
          wm.forEach((x, M) => wa.forEach((y, A) => x * y > 0n && codes.set(M | (A << 16), x * y)));
          holdsExactly(bases[m * 10 + a], codes, 3n ** BigInt(m + (tower ? 2 : 0)) * 2n ** BigInt(a));
        }
    }
  });

  it('both cleric pools (a1 | a2 << 8 | d1 << 16 | d2 << 24), 0..4 clerics a side', () => {
    const bases = ensurePoolPairs(tables, 4, 4);
    for (let na = 0; na <= 4; na++)
      for (let nd = 0; nd <= 4; nd++) {
        const codes = new Map<number, bigint>();
        for (let a1 = 0; a1 <= na; a1++)
          for (let a2 = 0; a1 + a2 <= na; a2++)
            for (let d1 = 0; d1 <= nd; d1++)
              for (let d2 = 0; d1 + d2 <= nd; d2++) codes.set(a1 | (a2 << 8) | (d1 << 16) | (d2 << 24), choose(na, a1) * choose(na - a1, a2) * choose(nd, d1) * choose(nd - d1, d2));
        holdsExactly(bases[na * 5 + nd], codes, 3n ** BigInt(na + nd));
      }
  });

  it('a case gets the joint tables only where they stay small (the kernel then draws the counts apart)', () => {
    const prep = (body: Tree) => {
      const v = valid(body, 1000);
      return prepareFantasy(compileFantasy(v.points[0].variants[0].scenario));
    };
    const small = prep({ mode: 'siege', attacker: { infantry: 10, cavalry: 4, archers: 6, clerics: 2 }, defender: { archers: 6, mages: 1, clerics: 1 } });
    expect(small.poolFaces.length).toBe(3); // n = 0..2 clerics
    expect(small.climbJoint.length).toBe(6); // HP 2..7
    expect(small.sum32N3).toBe(6);
    const big = prep({ mode: 'siege', attacker: { infantry: JOINT_MAX + 1, archers: 64 }, defender: { clerics: JOINT_MAX + 1, archers: 64 } });
    expect(big.poolFaces.length).toBe(0);
    expect(big.climbJoint.length).toBe(0);
    expect(sums32Outcomes(64, 64)).toBeGreaterThan(JOINT_OUTCOMES_MAX);
    expect(big.sum32N3).toBe(-1);
    expect(small.volNM).toBe(1);
    expect(small.towerNA).toBe(6);
    expect(small.poolND).toBe(1);
    const wide = prep({ mode: 'siege', attacker: { mages: 60, archers: 60, clerics: 12 }, defender: { mages: 60, archers: 60, clerics: 12 } });
    expect(volleyOutcomes(60, 60, false)).toBeGreaterThan(JOINT_OUTCOMES_MAX);
    expect(poolPairOutcomes(12, 12)).toBeGreaterThan(JOINT_OUTCOMES_MAX);
    expect([wide.volNM, wide.towerNM, wide.poolND]).toEqual([-1, -1, -1]);
  });
});

describe('fantasy tables: the table mode agrees with the per-die mode (|z| < 4.5 everywhere)', () => {
  const SIEGE = FANTASY_SIEGE;
  const FIELD = FANTASY_FIELD;
  const cases: [string, Tree][] = [
    ['the reference siege (DEFAULT rules)', SIEGE],
    ['a grid point: a thick wall, DC 17, a smaller assault', merge(SIEGE, { attacker: { infantry: 8, cavalry: 2, archers: 4, mages: 1, clerics: 1, siege_engines: 2, captain_might: 1 }, defender: { archers: 5 }, wall: { hp: 60, dc: 17 }, max_rounds: 12 })],
    ['open field, optimal shields (DEFAULT)', FIELD],
    ['open field, no-waste shields, phases repeated', merge(FIELD, { policy: { shield_spending: 'no_waste' }, rules: { open_field_rounds: 'repeat_phases' } })],
    ['siege: failures may not retry, pools accumulate, towers always, climbs by d20 > DC', merge(SIEGE, { rules: { failed_climb: 'no_retry', siege_pool: 'accumulate', tower_bonus: 'always', climb_comparison: 'gt' } })],
    ['siege: wounds persist (climbers below full HP), HP = melee die', merge(SIEGE, { rules: { leftover: 'persistent', hp_preset: 'melee_die' } })],
    ['siege: failed climbers keep their damage (climbs die by die), one HP each', merge(SIEGE, { rules: { failed_climb: 'persistent' }, hp: { infantry: 7, cavalry: 8 } })],
    ['siege: per-mage targets, the highest results removed (mage dice one by one)', merge(SIEGE, { attacker: { mages: 4 }, rules: { mage_targeting: 'per_mage', dice_removal: 'highest_results' } })],
    ['siege: the captain is a unit, a full battle after the breach', merge(SIEGE, { rules: { captain: 'unit', melee_start: 'full_battle' } })],
    ['siege: one HP per unit, fortress', merge(SIEGE, { rules: { hp_preset: 'one' }, wall: { type: 'fortress', hp: 50, dc: 14 } })],
    // the one-draw tables at their edges: one unit of each (a pool of one die, classes of one
    // climber, the tower with one archer or none), a climb that always succeeds and one that
    // never does, and armies past the joint tables' sizes (the counts drawn apart)
    ['siege: one of each, the climb always succeeds (DC 1)', { mode: 'siege', attacker: { infantry: 1, cavalry: 1, archers: 1, mages: 1, clerics: 1, siege_engines: 1 }, defender: { infantry: 1, archers: 1, mages: 1, clerics: 1 }, wall: { hp: 12, dc: 1, breach_threshold: 2 }, max_rounds: 8 }],
    ['siege: no defending archers, the climb never succeeds (DC 21), one cleric a side', merge(SIEGE, { attacker: { clerics: 1 }, defender: { archers: 0, mages: 2 }, wall: { dc: 21 } })],
    ['siege: armies past the joint tables (41 clerics, 41 climbers, 64 archers, 40 mages), no-waste shields', { mode: 'siege', attacker: { infantry: 41, archers: 64, clerics: 41 }, defender: { infantry: 10, archers: 64, mages: 40, clerics: 41 }, wall: { hp: 30, dc: 12 }, max_rounds: 3, policy: { shield_spending: 'no_waste' } }],
  ];
  it.each(cases)('%s', async (_label, body) => {
    const v = valid(body, 30000);
    const table = await runScenario(v);
    const dice = await perDie(() => runScenario(v));
    const zs = zAll(table, dice);
    expect(zs.length).toBeGreaterThan(30);
    expect(zs.some(([, z]) => z !== 0)).toBe(true); // not the same dice
    for (const [label, z] of zs) expect(Math.abs(z), label).toBeLessThan(CHECK_Z_LIMIT);
  });

  it('the comparison can fail: a climb table one face off is caught', async () => {
    // DC 12 against DC 13 in per-die mode: one face of the d20 (5 points of climb success)
    const v = valid(merge(SIEGE, { wall: { dc: 12 } }), 30000);
    const w = valid(merge(SIEGE, { wall: { dc: 13 } }), 30000);
    const table = await runScenario(v);
    const dice = await perDie(() => runScenario(w));
    const worst = Math.max(...zAll(table, dice).map(([, z]) => Math.abs(z)));
    expect(worst).toBeGreaterThan(CHECK_Z_LIMIT);
  });
});

describe('fantasy tables: both modes agree with the exact solvers (|z| < 4.5)', () => {
  const cases: [string, string][] = [
    ['(a) engines alone', 'mode: siege\nattacker: { siege_engines: 3 }\ndefender: { infantry: 3 }\nrules: { engines_targetable: false }\nwall: { hp: 50 }\nmax_rounds: 8'],
    ['(b) climbs alone, no retry', 'mode: siege\nattacker: { infantry: 8, cavalry: 3 }\ndefender: { infantry: 8 }\nwall: { dc: 13, breach_threshold: 4 }\nrules: { tower_bonus: none, failed_climb: no_retry }\nmax_rounds: 10'],
    ['(c) the first volley, many clerics', 'mode: open_field\nattacker: { mages: 3, archers: 5 }\ndefender: { infantry: 4, clerics: 6 }\npolicy: { shield_spending: no_waste }'],
  ];
  for (const mode of ['table', 'per-die'] as const) {
    it.each(cases)(`${mode} mode: %s`, async (_label, body) => {
      const v = validateText('f.yaml', `name: f\nsystem: fantasy\nseed: fantasy-exact\ntrials: 30000\n${body}`);
      if (!v.ok) throw new Error('invalid');
      const ex = exactScenario(v.value);
      expect(ex[0].exact).not.toBeNull();
      const run = () => runScenario(v.value);
      const rows = checkScenario(await (mode === 'table' ? run() : perDie(run)), ex);
      expect(rows.length).toBeGreaterThan(1);
      for (const r of rows) expect(Math.abs(r.z), `${r.metric}: ${r.simulated} vs ${r.exact}`).toBeLessThan(CHECK_Z_LIMIT);
    });
  }
});
