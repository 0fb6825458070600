/**
 * Differential test (docs/rules/cry-havoc.md Parts 3 and 4): siegesim's Cry Havoc kernel, run
 * in-process through the public API (validateText, runScenario), against the plain per-die
 * reference written from the document and seed 003 alone (test/reference/cry-havoc.ts), on
 * scenarios fast-check generates: every `kind`, random sizes, and every option of Part 4 with
 * every value, in combination (each option left out, i.e. its DEFAULT, or set to any of its
 * readings, independently of the others).
 *
 * Every metric siegesim reports for the case and every row of its curve file is compared: a
 * probability by the pooled two-proportion z, a mean by Welch's z from (n, Σx, Σx²). A mean over
 * fewer than MIN_MEAN_N observations on either side is not judged (its z is far from normal
 * there: a conditional mean over a handful of trials); its event's probability still is. The
 * limit is Šidák-corrected for every comparison the run can make (scenarios x
 * MAX_COMPARISONS_PER_SCENARIO, checked), so the whole file raises a false alarm with probability
 * FAMILY_ALPHA = 0.001 when siegesim and the reference play the same rules. Seeds are fixed: a
 * pass stays a pass, and a failing scenario is shrunk by fast-check.
 *
 * Larger sweep: CRY_HAVOC_REF_RUNS=400 CRY_HAVOC_REF_TRIALS=20000 npx vitest run
 * test/cry-havoc-reference.test.ts (see the result below, "Sweeps run").
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { runScenario, validateText, type Metric } from '../src/api.js';
import { normalQuantile } from '../src/stats/intervals.js';
import { bandOf, bandsOf, curveKey, runReference, type RefResult, type RefRules, type RefScenario, type Terrain } from './reference/cry-havoc.js';

const RUNS = Number(process.env.CRY_HAVOC_REF_RUNS ?? 60);
const TRIALS = Number(process.env.CRY_HAVOC_REF_TRIALS ?? 3000);
/** The most comparisons one scenario makes: a melee's 14 metrics and 8 turns x 16 results_by_turn rows; healing's 4 and 150 heal_by_day rows. */
const MAX_COMPARISONS_PER_SCENARIO = 160;
const MIN_MEAN_N = 50;
/** The chance that a correct siegesim fails this file somewhere. */
const FAMILY_ALPHA = 0.001;

// ---- the generator ---------------------------------------------------------------------------

const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const terrainArb: fc.Arbitrary<Terrain> = fc.constantFrom<Terrain[]>('+', '0', '-', 0);
const stateArb = fc.constantFrom('healthy' as const, 'wounded' as const);
/** A count that is mostly small but reaches its limit. */
const countArb = (small: number, max: number) => fc.oneof(fc.integer({ min: 0, max: small }), fc.integer({ min: 0, max }));

const meleeArb: fc.Arbitrary<RefScenario> = fc.record({
  kind: fc.constant('melee' as const),
  attackers: fc.array(
    fc.record(
      {
        attack: fc.integer({ min: 0, max: 12 }),
        mounted: fc.boolean(),
        terrain: terrainArb,
        state: stateArb,
        wounded: fc.record({ attack: fc.integer({ min: 0, max: 8 }), defence: fc.integer({ min: 0, max: 8 }) }, { requiredKeys: [] }),
      },
      { requiredKeys: ['attack'] },
    ),
    { minLength: 1, maxLength: 8 },
  ),
  defender: fc.record(
    {
      defence: fc.integer({ min: 0, max: 10 }),
      mounted: fc.boolean(),
      terrain: terrainArb,
      state: stateArb,
      wounded: fc.record({ attack: fc.integer({ min: 0, max: 8 }), defence: fc.integer({ min: 0, max: 6 }) }, { requiredKeys: [] }),
      dismounted: fc.record({ defence: fc.integer({ min: 0, max: 10 }), wounded_defence: fc.integer({ min: 0, max: 6 }) }, { requiredKeys: [] }),
    },
    { requiredKeys: ['defence'] },
  ),
  turns: opt(fc.integer({ min: 1, max: 8 })),
  rules: fc.record(
    {
      odds_below_one: fc.constantFrom('no_attack' as const, 'column_one' as const),
      shift_below_one: fc.constantFrom('clamp' as const, 'no_attack' as const),
      multi_attacker_shift: fc.constantFrom('foot_only' as const, 'both' as const),
      attacker_terrain: fc.constantFrom('worst' as const, 'best' as const),
      attacker_wound: fc.constantFrom('one' as const, 'all' as const),
      wounded_values: fc.constantFrom('half' as const, 'unchanged' as const),
      stunned_defence: fc.constantFrom('wounded' as const, 'normal' as const),
      stun_recovery: fc.constantFrom('before_next_attack' as const, 'after_next_attack' as const),
      retreat_blocked: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
});

const WEAPONS = ['shortbow', 'crossbow', 'longbow', 'ballista'] as const;

/** Every range a weapon can be shot at under these rules (the union of its bands, 1-1000). */
function validRanges(weapon: (typeof WEAPONS)[number], rules: RefRules): number[] {
  const bands = bandsOf(weapon, rules)!;
  const out: number[] = [];
  const hi = Math.min(1000, Math.max(...bands.map((b) => b[1])));
  for (let r = 1; r <= hi; r++) if (bandOf(bands, r) >= 0) out.push(r);
  return out;
}

const missileArb: fc.Arbitrary<RefScenario> = fc
  .record({
    shooters: fc.array(fc.record({ weapon: fc.constantFrom(...WEAPONS), at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), wounded: opt(fc.boolean()) }), { minLength: 1, maxLength: 4 }),
    target: fc.record(
      {
        mounted: fc.boolean(),
        cover: fc.constantFrom('none' as const, 'light' as const, 'medium' as const, 'heavy' as const),
        dismounted_knight: fc.boolean(),
        state: stateArb,
      },
      { requiredKeys: [] },
    ),
    turns: opt(fc.integer({ min: 1, max: 8 })),
    rules: fc.record(
      {
        ranges: fc.constantFrom('base' as const, 'croisades' as const, 'vikings' as const),
        // any band: overlapping the medium one, leaving a gap, written backwards
        vikings_shortbow_long: fc.tuple(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 90 })),
        revised_ballista: fc.constantFrom('refused' as const, 'base_bands' as const),
        mounted_heavy_cover: fc.constantFrom('medium' as const, 'light' as const, 'none' as const),
        croisades_mounted_errata: fc.boolean(),
        stun_recovery: fc.constantFrom('before_next_attack' as const, 'after_next_attack' as const),
        retreat_blocked: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ shooters, target, turns, rules }) => {
    // a ballista under a revised table is refused unless rules.revised_ballista: base_bands (1.4)
    const r: RefRules = { ...rules };
    if ((r.ranges ?? 'base') !== 'base' && r.revised_ballista !== 'base_bands' && shooters.some((s) => s.weapon === 'ballista')) r.revised_ballista = 'base_bands';
    return {
      kind: 'missile' as const,
      shooters: shooters.map((s) => {
        const ranges = validRanges(s.weapon, r);
        return { weapon: s.weapon, range: ranges[Math.floor(s.at * ranges.length)], wounded: s.wounded };
      }),
      target,
      turns,
      rules: r,
    };
  });

const batteringArb: fc.Arbitrary<RefScenario> = fc.record({
  kind: fc.constant('battering' as const),
  engines: fc.record({ mangonel: countArb(4, 12), trebuchet: countArb(3, 5), ram: fc.integer({ min: 0, max: 2 }) }, { requiredKeys: [] }),
  wall: opt(fc.constantFrom('outer' as const, 'interior' as const)),
  days: opt(fc.integer({ min: 1, max: 30 })),
  policy: fc.record({ engine_losses: fc.constantFrom('smallest_first' as const, 'largest_first' as const) }, { requiredKeys: [] }),
  rules: fc.record({ rolls_per_day: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 24 })) }, { requiredKeys: [] }),
});

const fireArb: fc.Arbitrary<RefScenario> = fc.record({
  kind: fc.constant('fire' as const),
  fire: fc.record(
    {
      method: fc.constantFrom('hand' as const, 'oil_barrel' as const, 'arrow_light' as const, 'arrow_heavy' as const),
      attempts: countArb(3, 20),
      extinguish_attempts: countArb(3, 20),
    },
    { requiredKeys: [] },
  ),
  turns: opt(fc.integer({ min: 1, max: 10 })),
  rules: fc.record(
    { oil_barrel_row7: fc.constantFrom('as_printed' as const, 'swapped' as const), extinguish_same_turn: fc.boolean() },
    { requiredKeys: [] },
  ),
});

const healingArb: fc.Arbitrary<RefScenario> = fc.record({
  kind: fc.constant('healing' as const),
  healing: fc.record({ table: fc.constantFrom('siege' as const, 'croisades' as const), horizon_days: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 1000 })) }, { requiredKeys: [] }),
  rules: fc.record({ strategic_turn_days: fc.integer({ min: 1, max: 30 }) }, { requiredKeys: [] }),
});

const scenarioArb: fc.Arbitrary<RefScenario> = fc.oneof(
  { arbitrary: meleeArb, weight: 4 },
  { arbitrary: missileArb, weight: 4 },
  { arbitrary: batteringArb, weight: 2 },
  { arbitrary: fireArb, weight: 2 },
  { arbitrary: healingArb, weight: 1 },
);

/** The scenario file siegesim reads: the reference's scenario as YAML, under a fixed seed. */
function yamlOf(s: RefScenario, trials: number): string {
  return stringify({ name: 'ref', system: 'cry-havoc', seed: 1, trials, ...s });
}

// ---- the comparisons ---------------------------------------------------------------------------

/** Pooled two-proportion z. */
function zProp(k1: number, n1: number, k2: number, n2: number): number {
  const p = (k1 + k2) / (n1 + n2);
  const se = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2));
  const d = k1 / n1 - k2 / n2;
  return se === 0 ? (d === 0 ? 0 : Infinity) : d / se;
}

/** Welch z of two means from (n, Σx, Σx²); 0 (not judged) below MIN_MEAN_N observations on a side. */
function zMean(n1: number, s1: number, q1: number, n2: number, s2: number, q2: number): number {
  if (n1 < MIN_MEAN_N || n2 < MIN_MEAN_N) return 0;
  const m1 = s1 / n1;
  const m2 = s2 / n2;
  const v1 = Math.max(0, (q1 - n1 * m1 * m1) / (n1 - 1));
  const v2 = Math.max(0, (q2 - n2 * m2 * m2) / (n2 - 1));
  const se = Math.sqrt(v1 / n1 + v2 / n2);
  const d = m1 - m2;
  if (se < 1e-9) return Math.abs(d) < 1e-9 ? 0 : Infinity; // both constant: they must be the same constant
  return d / se;
}

/** z of one siegesim estimate against the reference's counts of the same quantity. */
function zOf(m: Metric, r: { kind?: string; n: number; k?: number; sum?: number; sumSq?: number }): number {
  if (m.kind === 'probability') return zProp(m.k!, m.n, r.k!, r.n);
  return zMean(m.n, m.sum!, m.sumSq!, r.n, r.sum!, r.sumSq!);
}

interface Verdict {
  z: Record<string, number>;
  /** What siegesim and the reference do not both report (a metric or a curve row only one has). */
  missing: string[];
}

/** Every metric and curve row of siegesim's case against the reference. */
function compare(sim: { metrics: Record<string, Metric>; curves: Record<string, { x: Record<string, number | string>; m: Metric }[]> }, ref: RefResult): Verdict {
  const z: Record<string, number> = {};
  const missing: string[] = [];
  for (const [name, m] of Object.entries(sim.metrics)) {
    const r = ref.metrics[name];
    if (r === undefined) missing.push(`siegesim's ${name}`);
    else if (r.kind !== m.kind) missing.push(`${name} is a ${m.kind} in siegesim, a ${r.kind} in the reference`);
    else z[name] = zOf(m, r);
  }
  for (const name of Object.keys(ref.metrics)) if (!(name in sim.metrics)) missing.push(`the reference's ${name}`);
  for (const [curve, rows] of Object.entries(sim.curves)) {
    const refRows = ref.curves[curve];
    if (refRows === undefined) {
      missing.push(`siegesim's curve ${curve}`);
      continue;
    }
    const seen = new Set<string>();
    for (const p of rows) {
      const key = curveKey(p.x);
      seen.add(key);
      const r = refRows[key];
      if (r === undefined) missing.push(`siegesim's ${curve} row ${key}`);
      else z[`${curve}[${key}]`] = zOf(p.m, { ...r, kind: 'probability' });
    }
    for (const key of Object.keys(refRows)) if (!seen.has(key)) missing.push(`the reference's ${curve} row ${key}`);
  }
  for (const curve of Object.keys(ref.curves)) if (!(curve in sim.curves)) missing.push(`the reference's curve ${curve}`);
  return { z, missing };
}

/** Let the test worker answer vitest's RPC (it times out after 60 s of a blocked worker). */
const yieldWorker = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The hand-written scenarios below, each one more scenario in the family. */
const FIXED: { name: string; s: RefScenario }[] = [];

const COMPARISONS = () => (RUNS + FIXED.length) * MAX_COMPARISONS_PER_SCENARIO;
/** Šidák: each comparison at 1 - (1 - FAMILY_ALPHA)^(1 / COMPARISONS), two-sided. */
const zLimit = () => normalQuantile(1 - (1 - Math.pow(1 - FAMILY_ALPHA, 1 / COMPARISONS())) / 2);

let worst = 0;
/** Milliseconds spent in siegesim's run and in the reference's. */
const time = { siegesim: 0, reference: 0 };
let worstAt = '';

/** Does siegesim agree with the reference on every metric of s? Logs the first disagreement. */
async function agrees(s: RefScenario, key: string, trials = TRIALS): Promise<boolean> {
  const yaml = yamlOf(s, trials);
  const v = validateText('ref.yaml', yaml);
  if (!v.ok) throw new Error(`the generator made a scenario siegesim refuses: ${v.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}\n${yaml}`);
  await yieldWorker();
  let t = performance.now();
  const sim = await runScenario(v.value, { seed: `cry-havoc-reference/${key}` });
  time.siegesim += performance.now() - t;
  await yieldWorker();
  t = performance.now();
  const ref = runReference(s, key, trials);
  time.reference += performance.now() - t;
  const { z, missing } = compare(sim.cases[0], ref);
  if (missing.length > 0) {
    console.error(`cry-havoc reference: ${missing.join('; ')} on\n${yaml}`);
    return false;
  }
  const count = Object.keys(z).length;
  if (count > MAX_COMPARISONS_PER_SCENARIO) throw new Error(`${count} comparisons in one scenario, above MAX_COMPARISONS_PER_SCENARIO: the Šidák limit would be too loose\n${yaml}`);
  const limit = zLimit();
  for (const [metric, zv] of Object.entries(z)) {
    if (Math.abs(zv) > worst) {
      worst = Math.abs(zv);
      worstAt = metric;
    }
    if (!(Math.abs(zv) < limit)) {
      console.error(`cry-havoc reference: ${metric} z = ${zv.toFixed(2)} (limit ${limit.toFixed(2)}) on\n${yaml}`);
      return false;
    }
  }
  return true;
}

describe('cry-havoc: siegesim plays the rules file as the plain per-die reference reads it', () => {
  it(`${RUNS} generated scenarios x ${TRIALS} trials, every metric and curve row within a Šidák limit (family-wise false alarm 0.001)`, { timeout: Math.max(300_000, RUNS * TRIALS * 0.05) }, async () => {
    let n = 0;
    const t0 = process.hrtime.bigint();
    await fc.assert(
      fc.asyncProperty(scenarioArb, (s) => agrees(s, `run-${n++}`)),
      { seed: 3003, numRuns: RUNS, endOnFailure: false },
    );
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`cry-havoc reference: ${RUNS} scenarios x ${TRIALS} trials, ${COMPARISONS()} comparisons at most, |z| < ${zLimit().toFixed(3)}, worst |z| ${worst.toFixed(2)} (${worstAt}), ${secs.toFixed(1)} s (siegesim ${(time.siegesim / 1000).toFixed(1)} s, reference ${(time.reference / 1000).toFixed(1)} s)`);
  });
});
