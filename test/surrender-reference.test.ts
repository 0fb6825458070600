/**
 * Differential test (docs/rules/surrender.md): siegesim's surrender kernel, run in-process
 * through the public api (validateText, runScenario), against the plain per-die reference
 * written from the rules file and seed 002 alone (test/reference/surrender.ts), on scenarios
 * fast-check generates: random structures, besiegers, besieged, cards, dice, turns, ports and
 * blockades, and every key of "Every scenario option" with every value, in combination (each
 * key left out, so at its default, about half the time).
 *
 * A run is one scenario, or a baseline with one or two variants (each another generated scenario,
 * written as a variant's `set:`). Each case compares up to METRICS metrics by a two-sample z-test: p_test and p_surrender
 * (pooled two-proportion z), mean_turns over the trials that surrendered (Welch z from n, Σt,
 * Σt²), and surrender_by_turn at up to CURVE_POINTS turns (pooled z of each share). The limit is
 * Šidák-corrected for every comparison the run can make (RUNS x MAX_CASES x METRICS), so the whole run
 * raises a false alarm with probability FAMILY_ALPHA = 0.001 when kernel and reference play the
 * same rules. Beside the z-tests, what the rules make certain (a p_test or p_surrender of exactly
 * 0 or 1: reference.ts `certainties`) must hold exactly in both, and the curve must have one
 * row per turn ending at p_surrender. Seeds are fixed: a pass stays a pass. A failing scenario
 * is shrunk by fast-check.
 *
 * Default: 60 runs (93 cases) x 2000 trials, 1139 z-comparisons, worst |z| 2.76 against the
 * limit 5.083: 5.2 s of test time here (two cores shared with other jobs). Larger sweeps:
 *   SURRENDER_REF_RUNS=1000 SURRENDER_REF_TRIALS=20000 npx vitest run test/surrender-reference.test.ts
 * 1000 runs (1517 cases) x 20,000 trials: 170 s, 18,265 comparisons, worst |z| 3.76 (limit 5.594);
 * 200 runs (297 cases) x 200,000 trials: 237 s, 3,553 comparisons, worst |z| 3.88 (limit 5.307).
 * Made to fail on purpose (the reference mutated: overcrowding by ceil, a card drawn per test,
 * the natural maximum off by one, engineers needing two, the blockade drawn once a trial,
 * per_leader capped at 2), the default run fails on each, |z| 6-39 or an exact check.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { runScenario, validateText, type CaseResult } from '../src/api.js';
import { sidakLimit, zMean, zProp } from './reference/compare.js';
import { certainties, constantModifier, resolve, runReference, type SurrenderMoments, type SurrenderScenario } from './reference/surrender.js';

const RUNS = Number(process.env.SURRENDER_REF_RUNS ?? 60);
const TRIALS = Number(process.env.SURRENDER_REF_TRIALS ?? 2000);
/** surrender_by_turn is compared at every turn up to this many turns, else at this many spread over them. */
const CURVE_POINTS = 12;
const METRICS = 3 + CURVE_POINTS;
/** The chance that a correct kernel fails this run somewhere. */
const FAMILY_ALPHA = 0.001;
/** At most this many cases a run (the baseline and two variants). */
const MAX_CASES = 3;
const COMPARISONS = RUNS * MAX_CASES * METRICS;
/** Šidák: each of `count` comparisons at 1 - (1 - FAMILY_ALPHA)^(1 / count), two-sided. */
const sidak = (count: number) => sidakLimit(count, FAMILY_ALPHA);
export const Z_LIMIT = sidak(COMPARISONS);

// ---- the generator: every option of docs/rules/surrender.md "Every scenario option" -------------

/** Mostly small values, where the probabilities are neither 0 nor 1; now and then anywhere in the range. */
const mostly = (smallLo: number, smallHi: number, lo: number, hi: number) =>
  fc.oneof({ weight: 8, arbitrary: fc.integer({ min: smallLo, max: smallHi }) }, { weight: 1, arbitrary: fc.integer({ min: lo, max: hi }) });
/** A whole count, 0...1000: mostly 0...small. */
const count = (small: number) => mostly(0, small, 0, 1000);
/** Uniform on [0, 1] in steps of 10^-9 (fc.double crowds its values at the ends). */
const unit = fc.integer({ min: 0, max: 1e9 }).map((i) => i / 1e9);
/** A chance, 0...1: the ends, round values, uniform ones, and any double (tiny ones; -0 made 0). */
const chanceArb = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(0, 1) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 20 }).map((i) => i / 20) },
  { weight: 4, arbitrary: unit },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => x + 0) },
);
const optional = { requiredKeys: [] as never[] };

const rulesArb = fc.record(
  {
    die: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(6, 10) }, { weight: 2, arbitrary: fc.integer({ min: 2, max: 20 }) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 1000 }) }),
    comparison: fc.constantFrom('lt' as const, 'le' as const),
    natural_one_succeeds: fc.boolean(),
    natural_max_fails: fc.boolean(),
    heavy_counts_as_artillery: fc.boolean(),
    engineers_count_as_artillery: fc.boolean(),
    engineers_separate_modifier: fc.boolean(),
    leader_bonus: fc.constantFrom('once_per_side' as const, 'per_leader' as const),
    modifiers_apply_to: fc.constantFrom('roll' as const, 'level' as const),
    overcrowding_steps: mostly(1, 10, 1, 1000),
    min_besieging_units: mostly(0, 3, 0, 1000),
    tests_per_turn: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 4 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 100 }) }),
  },
  optional,
);

const cardArb = fc.record({ chance: chanceArb, modifier: mostly(-3, 3, -20, 20) }, optional);

/**
 * The surrender level: left at its default, anywhere in its range, or (most often) placed so that
 * the effective level E of the rules file's "Closed form" falls on the die, 1...die + 1, under
 * the reference's reading of Σm, so that p_test is neither 0 nor 1 in most scenarios.
 */
const levelArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'default' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('absolute' as const), level: mostly(-2, 12, -20, 1000) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('on_the_die' as const), at: unit }) },
);

const scenarioArb: fc.Arbitrary<SurrenderScenario> = fc
  .record({
    level: levelArb,
    s: fc.record(
      {
        structure: fc.record({ port: fc.boolean(), blockade_chance: chanceArb }, optional),
        besieger: fc.record(
          {
            combat_units: mostly(1, 8, 0, 1000),
            heavy_siege_artillery: count(3),
            artillery: count(3),
            bombers: count(2),
            engineers: count(3),
            siege_leaders: count(3),
          },
          optional,
        ),
        besieged: fc.record({ steps_inside: count(25), siege_leaders: count(3) }, optional),
        cards: fc.record({ besieger: cardArb, besieged: cardArb }, optional),
        turns: fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 20 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 10_000 }) }),
        extra_modifier: mostly(-3, 3, -100, 100),
        rules: rulesArb,
      },
      optional,
    ),
  })
  .map(({ level, s }) => {
    // at most 10,000 dice a trial (not a limit of siegesim's: 100 tests x 10,000 turns is valid)
    const tests = s.rules?.tests_per_turn ?? 1;
    if ((s.turns ?? 12) * tests > 10_000) s = { ...s, turns: Math.floor(10_000 / tests) };
    if (level.kind === 'default') return s;
    let l = level.kind === 'absolute' ? level.level : 0;
    if (level.kind === 'on_the_die') {
      const r = resolve(s);
      const e = 1 + Math.round(level.at * r.rules.die);
      const sigma = constantModifier(r);
      // roll: E = L - Σm; level: E = L + Σm
      l = Math.min(1000, Math.max(-20, r.rules.modifiers_apply_to === 'roll' ? e + sigma : e - sigma));
    }
    return { ...s, structure: { surrender_level: l, ...s.structure } };
  });

/**
 * A run: one scenario, or (a third of the time) the baseline with one or two variants, each a
 * whole other scenario written as a `set:` of every setup key. A mapping in `set:` replaces the
 * file's, its missing keys at the system's defaults (docs/scenarios.md "Variants"), as the
 * reference reads a missing key; the variants play on common dice, each its own rules.
 */
interface GeneratedRun {
  cases: SurrenderScenario[];
}
const runArb: fc.Arbitrary<GeneratedRun> = fc
  .tuple(scenarioArb, fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(scenarioArb, { minLength: 1, maxLength: 2 }) }))
  .map(([base, variants]) => ({ cases: [base, ...variants] }));

/**
 * Trials for a run: TRIALS, fewer where a trial may roll more than WORK dice (turns x
 * tests_per_turn, every turn rolled when nothing surrenders), at least a tenth of TRIALS.
 */
const WORK = 400;
function trialsFor(g: GeneratedRun): number {
  const work = Math.max(...g.cases.map((s) => resolve(s).turns * resolve(s).rules.tests_per_turn));
  return work <= WORK ? TRIALS : Math.max(Math.ceil(TRIALS / 10), Math.floor((TRIALS * WORK) / work));
}

// ---- siegesim's answer ---------------------------------------------------------------------------

/** The setup keys a variant's `set:` writes: every one, a missing one as the documented default. */
function variantSet(s: SurrenderScenario): Record<string, unknown> {
  return {
    structure: s.structure ?? {},
    besieger: s.besieger ?? {},
    besieged: s.besieged ?? {},
    cards: s.cards ?? {},
    rules: s.rules ?? {},
    turns: s.turns ?? 12,
    extra_modifier: s.extra_modifier ?? 0,
  };
}

function scenarioYaml(g: GeneratedRun, trials: number): string {
  const [base, ...rest] = g.cases;
  const doc: Record<string, unknown> = { ...base };
  if (rest.length > 0) doc.variants = [{ name: 'baseline' }, ...rest.map((s, i) => ({ name: `v${i + 1}`, set: variantSet(s) }))];
  const body = Object.keys(doc).length > 0 ? stringify(doc) : '';
  return `name: surrender-reference\nsystem: surrender\nseed: 1\ntrials: ${trials}\n${body}`;
}

/** siegesim's cases, in the order of `g.cases`. */
async function siegesim(g: GeneratedRun, trials: number, seed: string): Promise<CaseResult[]> {
  const v = validateText('surrender-reference.yaml', scenarioYaml(g, trials));
  if (!v.ok) throw new Error(`siegesim refused a generated scenario (the generator is wrong): ${v.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}\n${scenarioYaml(g, trials)}`);
  const r = await runScenario(v.value, { trials, seed });
  expect(r.cases.map((c) => c.variant)).toEqual(g.cases.map((_, i) => (i === 0 ? 'baseline' : `v${i}`)));
  return r.cases;
}

// ---- the comparisons -----------------------------------------------------------------------------

/** The turns at which surrender_by_turn is compared: every one, or CURVE_POINTS spread up to the last. */
function curveTurns(turns: number): number[] {
  if (turns <= CURVE_POINTS) return Array.from({ length: turns }, (_, i) => i + 1);
  return Array.from({ length: CURVE_POINTS }, (_, i) => Math.round(((i + 1) * turns) / CURVE_POINTS));
}

/** Each metric's z, kernel against reference. */
function compare(s: SurrenderScenario, k: CaseResult, r: SurrenderMoments): Record<string, number> {
  const m = k.metrics;
  const z: Record<string, number> = {
    p_test: zProp(m.p_test.k!, m.p_test.n, r.testSucceeded, r.trials),
    p_surrender: zProp(m.p_surrender.k!, m.p_surrender.n, r.surrendered, r.trials),
    mean_turns: zMean(m.mean_turns.n, m.mean_turns.sum ?? 0, m.mean_turns.sumSq ?? 0, r.surrendered, r.turnSum, r.turnSumSq),
  };
  const curve = k.curves.surrender_by_turn;
  for (const t of curveTurns(resolve(s).turns)) {
    const row = curve[t - 1].m;
    z[`surrender_by_turn[${t}]`] = zProp(row.k!, row.n, r.byTurn[t - 1], r.trials);
  }
  return z;
}

/** The exact checks: the curve's shape, the counts behind each metric, and what the rules make certain. */
function exactProblems(s: SurrenderScenario, k: CaseResult, r: SurrenderMoments, trials: number): string[] {
  const bad: string[] = [];
  const m = k.metrics;
  const turns = resolve(s).turns;
  const curve = k.curves.surrender_by_turn;
  if (curve.length !== turns) bad.push(`surrender_by_turn has ${curve.length} rows, not turns = ${turns}`);
  curve.forEach((p, i) => {
    if (p.x.turn !== i + 1 || p.m.n !== trials) bad.push(`surrender_by_turn row ${i}: turn ${String(p.x.turn)}, n ${p.m.n}`);
    if (i > 0 && p.m.k! < curve[i - 1].m.k!) bad.push(`surrender_by_turn falls at turn ${i + 1}`);
  });
  if (curve.length > 0 && curve[curve.length - 1].m.k !== m.p_surrender.k) bad.push('surrender_by_turn\'s last row is not p_surrender');
  if (m.p_test.n !== trials || m.p_surrender.n !== trials) bad.push(`p_test / p_surrender over ${m.p_test.n} / ${m.p_surrender.n} trials, not ${trials}`);
  if (m.mean_turns.n !== m.p_surrender.k) bad.push(`mean_turns over ${m.mean_turns.n} trials, not the ${m.p_surrender.k} that surrendered`);
  for (const name of ['p_test', 'p_surrender'] as const)
    if (Math.abs(m[name].value - m[name].k! / m[name].n) > 1e-12) bad.push(`${name} is ${m[name].value}, not k / n`);
  // "What is reported": Σt / s, its interval clamped to [1, turns], [t, t] for one surrender, none for none
  const mt = m.mean_turns;
  if (mt.n === 0 && !Number.isNaN(mt.value)) bad.push(`mean_turns is ${mt.value} with no surrender`);
  if (mt.n > 0) {
    if (Math.abs(mt.value - mt.sum! / mt.n) > 1e-9 * turns) bad.push(`mean_turns is ${mt.value}, not Σt / s`);
    if (!(mt.ci_low >= 1 && mt.ci_high <= turns)) bad.push(`mean_turns' interval [${mt.ci_low}, ${mt.ci_high}] is not within [1, ${turns}]`);
    if (mt.n === 1 && !(mt.ci_low === mt.value && mt.ci_high === mt.value)) bad.push('one surrender: mean_turns\' interval is not [t, t]');
  }
  const c = certainties(s);
  const who: [string, number, number, number, number, number][] = [
    ['siegesim', m.p_test.k!, m.p_surrender.k!, m.mean_turns.sum ?? 0, trials, m.mean_turns.n],
    ['reference', r.testSucceeded, r.surrendered, r.turnSum, r.trials, r.surrendered],
  ];
  for (const [name, test, surr, turnSum, n, s2] of who) {
    if (c.pTest !== undefined && test !== c.pTest * n) bad.push(`${name}: p_test must be ${c.pTest}, is ${test}/${n}`);
    if (c.pSurrender !== undefined && surr !== c.pSurrender * n) bad.push(`${name}: p_surrender must be ${c.pSurrender}, is ${surr}/${n}`);
    if (c.pSurrender === 1 && turnSum !== s2) bad.push(`${name}: every surrender must come in turn 1 (Σt ${turnSum} over ${s2})`);
  }
  return bad;
}

let worst = 0;
let worstAt = '';
/** Cases and z-comparisons made so far (the Šidák limit is set for COMPARISONS, the most a run can make). */
let casesRun = 0;
let made = 0;

/** Let the test worker answer vitest's RPC (it times out after 60 s of a blocked worker). */
const yieldWorker = () => new Promise<void>((resolve) => setImmediate(resolve));

async function agrees(g: GeneratedRun, key: string, trials = TRIALS, limit = Z_LIMIT): Promise<boolean> {
  await yieldWorker();
  const ks = await siegesim(g, trials, `surrender-reference/${key}`);
  for (let i = 0; i < g.cases.length; i++) {
    await yieldWorker();
    const s = g.cases[i];
    const k = ks[i];
    const ref = runReference(s, `${key}/${i}`, trials);
    const bad = exactProblems(s, k, ref, trials);
    if (bad.length > 0) {
      console.error(`surrender reference: ${k.variant}: ${bad.join('; ')} on\n${scenarioYaml(g, trials)}`);
      return false;
    }
    casesRun++;
    for (const [metric, zv] of Object.entries(compare(s, k, ref))) {
      made++;
      if (Math.abs(zv) > worst) {
        worst = Math.abs(zv);
        worstAt = `${metric} of ${k.variant}`;
      }
      if (!(Math.abs(zv) < limit)) {
        console.error(`surrender reference: ${k.variant}: ${metric} z = ${zv.toFixed(2)} (limit ${limit.toFixed(2)}) on\n${scenarioYaml(g, trials)}`);
        return false;
      }
    }
  }
  return true;
}

// ---- hand-computed answers (seed 002 and the rules file's "Closed form") ------------------------

/** P(T = t) for t = 1..n, T geometric with hazard h truncated at n turns (the rules file's "Closed form"). */
function turnLaw(h: number, n: number): { pSurrender: number; mean: number; variance: number } {
  let p = 0;
  let s1 = 0;
  let s2 = 0;
  for (let t = 1; t <= n; t++) {
    const q = h * Math.pow(1 - h, t - 1);
    p += q;
    s1 += t * q;
    s2 += t * t * q;
  }
  const mean = s1 / p;
  return { pSurrender: p, mean, variance: s2 / p - mean * mean };
}

/** One-sample z of k successes in n against p (exact: 0 when p is 0 or 1 and k agrees). */
function zOne(k: number, n: number, p: number): number {
  const se = Math.sqrt(n * p * (1 - p));
  return se === 0 ? (k === n * p ? 0 : Infinity) : (k - n * p) / se;
}

interface HandAnswer {
  pTest: number;
  pSurrender: number;
  /** mean_turns and the variance of one turn of surrender, where p_surrender > 0. */
  mean?: number;
  variance?: number;
}

const HAND_TRIALS = 20_000;
/** The hand cases below make at most this many comparisons (3 metrics x 2 simulators x 12 cases). */
const HAND_LIMIT = sidak(3 * 2 * 12);

/** z of siegesim's and the reference's p_test, p_surrender and mean_turns against a hand answer. */
async function handZ(s: SurrenderScenario, key: string, a: HandAnswer): Promise<Record<string, number>> {
  const [k] = await siegesim({ cases: [s] }, HAND_TRIALS, `surrender-reference/hand/${key}`);
  await yieldWorker();
  const r = runReference(s, `hand/${key}`, HAND_TRIALS);
  const z: Record<string, number> = {
    'siegesim p_test': zOne(k.metrics.p_test.k!, HAND_TRIALS, a.pTest),
    'siegesim p_surrender': zOne(k.metrics.p_surrender.k!, HAND_TRIALS, a.pSurrender),
    'reference p_test': zOne(r.testSucceeded, HAND_TRIALS, a.pTest),
    'reference p_surrender': zOne(r.surrendered, HAND_TRIALS, a.pSurrender),
  };
  if (a.mean !== undefined && a.variance !== undefined) {
    const mk = k.metrics.mean_turns;
    z['siegesim mean_turns'] = a.variance === 0 ? (mk.sum === a.mean * mk.n ? 0 : Infinity) : (mk.sum! / mk.n - a.mean) / Math.sqrt(a.variance / mk.n);
    z['reference mean_turns'] = a.variance === 0 ? (r.turnSum === a.mean * r.surrendered ? 0 : Infinity) : (r.turnSum / r.surrendered - a.mean) / Math.sqrt(a.variance / r.surrendered);
  }
  return z;
}

function expectWithin(z: Record<string, number>, what: string): void {
  for (const [metric, zv] of Object.entries(z)) expect(Math.abs(zv), `${what}: ${metric} z = ${zv}`).toBeLessThan(HAND_LIMIT);
}

// ---- the tests -----------------------------------------------------------------------------------

describe('surrender: the kernel plays the rules file as the plain reference reads it', () => {
  // the larger sweep runs for minutes: no timeout but one scaled with its size
  it(`${RUNS} generated scenarios x ${TRIALS} trials, every metric within a Šidák limit (family-wise false alarm 0.001)`, { timeout: Math.max(300_000, RUNS * TRIALS * 0.2) }, async () => {
    let n = 0;
    const t0 = process.hrtime.bigint();
    await fc.assert(
      fc.asyncProperty(runArb, (g) => agrees(g, `run-${n++}`, trialsFor(g))),
      { seed: 2, numRuns: RUNS, endOnFailure: false },
    );
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`surrender reference: ${RUNS} runs (${casesRun} cases) x ${TRIALS} trials, ${made} comparisons (limit set for ${COMPARISONS}), |z| < ${Z_LIMIT.toFixed(3)}, worst |z| ${worst.toFixed(2)} (${worstAt}), ${secs.toFixed(1)} s`);
  });

  it('seed 002, a town (L = 3) with no modifier on a d6: a roll below 3 is faces 1-2, p_test = 1/3; 12 turns of h = 1/3', async () => {
    const law = turnLaw(1 / 3, 12);
    const z = await handZ({ besieger: { combat_units: 2 } }, 'town', { pTest: 1 / 3, pSurrender: law.pSurrender, mean: law.mean, variance: law.variance });
    expectWithin(z, 'town');
    // 1 - (2/3)^12 = 0.99229...: by hand, not from the law above
    expect(law.pSurrender).toBeCloseTo(1 - (2 / 3) ** 12, 12);
  });

  it('seed rule 1: one combat unit is no siege (never surrenders) and p_test still rolls; zero at min_besieging_units: 0 is a siege', async () => {
    expectWithin(await handZ({ besieger: { combat_units: 1 } }, 'one-unit', { pTest: 1 / 3, pSurrender: 0 }), 'one unit');
    const law = turnLaw(1 / 3, 12);
    expectWithin(await handZ({ besieger: { combat_units: 0 }, rules: { min_besieging_units: 0 } }, 'zero-min', { pTest: 1 / 3, pSurrender: law.pSurrender, mean: law.mean, variance: law.variance }), 'zero units, min 0');
  });

  it('the rules file\'s worked example: L = 2, one heavy "S" gun, a siege leader, 12 steps inside, a besieged siege leader: Σm = -4, p_test = 5/6; under level 0', async () => {
    // -1 (heavy) -1 (any artillery, (iii)) -2 (besieger's leader) -2 (floor(12 / 5)) +2 (besieged's leader) = -4;
    // roll - 4 < 2 for rolls 1..5 of a d6
    const s: SurrenderScenario = {
      structure: { surrender_level: 2 },
      besieger: { heavy_siege_artillery: 1, siege_leaders: 1 },
      besieged: { steps_inside: 12, siege_leaders: 1 },
      turns: 3,
    };
    const law = turnLaw(5 / 6, 3);
    expectWithin(await handZ(s, 'example', { pTest: 5 / 6, pSurrender: law.pSurrender, mean: law.mean, variance: law.variance }), 'worked example');
    // (i) level: roll < 2 + (-4) = -2: no face
    expectWithin(await handZ({ ...s, rules: { modifiers_apply_to: 'level' } }, 'example-level', { pTest: 0, pSurrender: 0 }), 'worked example, level');
  });

  it('(ii)\'s table: engineers alone give -1, 0, -1, -2 under the four settings (d6, L = 1, so P = -Σm / 6)', async () => {
    // at L = 1 with no other modifier a roll r succeeds iff r + Σm < 1, i.e. r <= -Σm
    const cases: [boolean, boolean, number][] = [
      [true, false, 1],
      [false, false, 0],
      [false, true, 1],
      [true, true, 2],
    ];
    for (const [asArtillery, separate, minus] of cases) {
      const s: SurrenderScenario = { structure: { surrender_level: 1 }, besieger: { engineers: 3 }, turns: 1, rules: { engineers_count_as_artillery: asArtillery, engineers_separate_modifier: separate } };
      const p = minus / 6;
      expectWithin(await handZ(s, `engineers-${asArtillery}-${separate}`, { pTest: p, pSurrender: p, ...(p > 0 ? { mean: 1, variance: 0 } : {}) }), `engineers ${asArtillery} ${separate}`);
    }
  });

  it('the natural rules read the roll itself: a natural 1 takes L = -20 on a d6 (1/6); a natural 6 fails against -100 (5/6), under level too', async () => {
    // no face r has r + 0 < -20: only the natural 1; under level a modifier of +100 makes
    // L + 100 = 103 > every face, but the 6 still fails
    expectWithin(await handZ({ structure: { surrender_level: -20 }, turns: 1, rules: { natural_one_succeeds: true } }, 'natural-one', { pTest: 1 / 6, pSurrender: 1 / 6, mean: 1, variance: 0 }), 'natural one');
    expectWithin(await handZ({ extra_modifier: 100, turns: 1, rules: { natural_max_fails: true, modifiers_apply_to: 'level' } }, 'natural-max', { pTest: 5 / 6, pSurrender: 5 / 6, mean: 1, variance: 0 }), 'natural max');
  });

  it('the rules file\'s port-blockade case: blockade 0.25 and both cards, h = 0.25 x 3.8/6, mean_turns 4.58 over 12 turns', async () => {
    // L = 2; artillery -1, siege leader -2, 10 steps -2, besieged's leader +2: Σm = -3, E = 5.
    // cards: neither (0.7 x 0.5) 4/6, besieger's -1 only (0.3 x 0.5) 5/6, besieged's +1 only
    // (0.7 x 0.5) 3/6, both (0.3 x 0.5) 4/6: 0.35 x 4 + 0.15 x 5 + 0.35 x 3 + 0.15 x 4 = 3.8 sixths
    const h = 0.25 * (3.8 / 6);
    const law = turnLaw(h, 12);
    expect(law.mean).toBeCloseTo(4.58, 2);
    const s: SurrenderScenario = {
      structure: { surrender_level: 2, port: true, blockade_chance: 0.25 },
      besieger: { combat_units: 5, artillery: 2, siege_leaders: 1 },
      besieged: { steps_inside: 10, siege_leaders: 1 },
      cards: { besieger: { chance: 0.3, modifier: -1 }, besieged: { chance: 0.5, modifier: 1 } },
      turns: 12,
    };
    expectWithin(await handZ(s, 'port-blockade', { pTest: 4 / 6, pSurrender: law.pSurrender, mean: law.mean, variance: law.variance }), 'port blockade');
  });
});
