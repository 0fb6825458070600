/**
 * Dice tables for the fantasy kernel (its table mode): the sum of n identical dice, a binomial
 * count, and two counts or totals at once (a volley's mage and archer totals, a pool's faces, a
 * class of climbers' outcome: "joint outcomes" below), each drawn with one 32-bit draw through an
 * alias table (Walker; Vose's construction in integers) instead of rolling every die. A table depends only on the die (or
 * the chance) and n; each prepared case (state.ts) owns one `AliasTables` with the tables it
 * needs, so the kernel holds no tables of its own between cases.
 *
 * A table of m outcomes has K = 2^bits >= m slots; a draw's top `bits` bits pick a slot and
 * its other 32 - bits bits are compared with the slot's threshold (keep the slot's outcome, or
 * take its alias). Outcome probabilities are rounded to multiples of 2^-32 (largest remainders
 * first, so they sum to 1 exactly), so every outcome is drawn with its exact probability to
 * within 2^-32; an outcome less likely than that may never be drawn.
 * test/fantasy-tables.test.ts holds the tables to the exact distributions and the kernel's
 * table mode to its per-die mode.
 */
import { nextI32, type RngState } from '../../engine/rng.js';

const TWO32 = 4294967296;

/**
 * A set of alias tables, one after another in `al`: at a table's base, al[base] = bits, then K
 * slots of three ints (threshold, outcome kept, outcome of the alias). A full slot has threshold
 * 0 and its own outcome twice. Tables only grow; a table's base never changes.
 */
export class AliasTables {
  al = new Int32Array(1 << 10);
  top = 0;
  /** sumBases[die][n]: the table of the sum of n dice of `die` faces. */
  readonly sumBases: Int32Array[] = [];
  readonly sumDist: number[][] = [];
  readonly binBases = new Map<string, Int32Array>();
}

/** Add an alias table for outcomes `codes` with probabilities `probs` (summing to 1); returns its base. */
export function aliasBuild(tables: AliasTables, codes: readonly number[], probs: readonly number[]): number {
  const m = codes.length;
  let bits = 0;
  while (1 << bits < m) bits++;
  const K = 1 << bits;
  const cap = TWO32 / K; // one slot's share of 2^32
  const w = new Array<number>(K).fill(0);
  let total = 0;
  for (let i = 0; i < m; i++) {
    w[i] = Math.floor(probs[i] * TWO32);
    total += w[i];
  }
  // the units the floors left out go to the largest remainders (each outcome stays within 1 unit)
  const byRemainder = Array.from({ length: m }, (_, i) => i).sort((a, b) => probs[b] * TWO32 - w[b] - (probs[a] * TWO32 - w[a]) || a - b);
  for (let j = 0; total < TWO32; j = (j + 1) % m, total++) w[byRemainder[j]]++;
  const size = 1 + 3 * K;
  if (tables.top + size > tables.al.length) {
    let n = tables.al.length * 2;
    while (tables.top + size > n) n *= 2;
    const grown = new Int32Array(n);
    grown.set(tables.al);
    tables.al = grown;
  }
  const AL = tables.al;
  const base = tables.top;
  tables.top += size;
  AL[base] = bits;
  const code = (i: number) => (i < m ? codes[i] : codes[0]); // empty slots are never kept
  for (let i = 0; i < K; i++) {
    AL[base + 1 + 3 * i] = 0;
    AL[base + 2 + 3 * i] = code(i);
    AL[base + 3 + 3 * i] = code(i);
  }
  const small: number[] = [];
  const large: number[] = [];
  for (let i = 0; i < K; i++) (w[i] < cap ? small : large).push(i);
  while (small.length > 0 && large.length > 0) {
    const s = small.pop()!;
    const l = large[large.length - 1];
    AL[base + 1 + 3 * s] = w[s]; // keep s when the low bits are below w[s], else take l
    AL[base + 3 + 3 * s] = code(l);
    w[l] -= cap - w[s];
    if (w[l] < cap) {
      large.pop();
      small.push(l);
    }
  }
  return base;
}

/** The probability the table at `base` of `AL` (an AliasTables' `al`) gives each outcome code (for tests). */
export function aliasMass(AL: Int32Array, base: number): Map<number, number> {
  const bits = AL[base];
  const K = 1 << bits;
  const cap = TWO32 / K;
  const mass = new Map<number, number>();
  const add = (code: number, w: number) => mass.set(code, (mass.get(code) ?? 0) + w / TWO32);
  for (let i = 0; i < K; i++) {
    const e = base + 1 + 3 * i;
    const thr = bits === 0 ? cap : AL[e];
    add(AL[e + 1], thr);
    add(AL[e + 2], cap - thr);
  }
  return mass;
}

/** One draw from the table at `base` of `AL` (an AliasTables' `al`): an outcome code (no draw when there is one outcome). */
export function aliasDraw(rng: RngState, AL: Int32Array, base: number): number {
  const bits = AL[base];
  if (bits === 0) return AL[base + 2];
  const u = nextI32(rng);
  const e = base + 1 + (u >>> (32 - bits)) * 3;
  return (u & (-1 >>> bits)) < AL[e] ? AL[e + 1] : AL[e + 2];
}

// === sums of n dice =========================================================================

/** Make the tables of the sum of n dice of `die` faces for every n up to nMax. */
export function ensureSums(tables: AliasTables, die: number, nMax: number): Int32Array {
  const { sumBases, sumDist } = tables;
  let bases = sumBases[die];
  if (!bases) {
    bases = new Int32Array(0);
    sumDist[die] = [1];
  }
  if (bases.length > nMax) return bases;
  const grown = new Int32Array(nMax + 1).fill(-1);
  grown.set(bases);
  let n = bases.length;
  let dist = sumDist[die]; // the sum of n - 1 dice (or of none)
  if (n === 0) {
    grown[0] = aliasBuild(tables, [0], [1]);
    n = 1;
  }
  for (; n <= nMax; n++) {
    dist = addDie(dist, die);
    const codes: number[] = [];
    const probs: number[] = [];
    for (let s = n; s <= n * die; s++) {
      codes.push(s);
      probs.push(dist[s]);
    }
    grown[n] = aliasBuild(tables, codes, probs);
  }
  sumDist[die] = dist;
  sumBases[die] = grown;
  return grown;
}

/** The exact distribution of the sum of n dice of `die` faces (index = total), for tests. */
export function sumDistribution(die: number, n: number): number[] {
  let dist = [1];
  for (let i = 0; i < n; i++) dist = addDie(dist, die);
  return dist;
}

/** The distribution of a total (index = total) with one more die of `die` faces added. */
function addDie(dist: readonly number[], die: number): number[] {
  const next = new Array<number>(dist.length + die).fill(0);
  for (let s = 0; s < dist.length; s++) if (dist[s] !== 0) for (let f = 1; f <= die; f++) next[s + f] += dist[s] / die;
  return next;
}

// === binomial counts ========================================================================

/** Binomial(n, p) probabilities, k = 0..n (logs, so large n neither overflows nor underflows). */
export function binomialDistribution(n: number, p: number): number[] {
  if (p <= 0) return [1, ...new Array<number>(n).fill(0)];
  if (p >= 1) return [...new Array<number>(n).fill(0), 1];
  const out: number[] = [];
  let logC = 0; // log C(n, k)
  for (let k = 0; k <= n; k++) {
    if (k > 0) logC += Math.log((n - k + 1) / k);
    out.push(Math.exp(logC + k * Math.log(p) + (n - k) * Math.log1p(-p)));
  }
  return out;
}

/**
 * The tables of Binomial(n, p) for every n up to nMax; `key` names p exactly (two keys never
 * share a table). Outcome code = the count.
 */
export function ensureBinomials(tables: AliasTables, key: string, p: number, nMax: number): Int32Array {
  return growKeyed(tables, key, nMax, (n, codes, probs) => {
    const dist = binomialDistribution(n, p);
    for (let k = 0; k <= n; k++) {
      if (dist[k] === 0) continue;
      codes.push(k);
      probs.push(dist[k]);
    }
  });
}

/**
 * The tables kept under `key` for n = 0..nMax, grown from those made before: `outcomes(n,
 * codes, probs)` lists table n's outcome codes and their probabilities.
 */
function growKeyed(tables: AliasTables, key: string, nMax: number, outcomes: (n: number, codes: number[], probs: number[]) => void): Int32Array {
  const bases = tables.binBases.get(key) ?? new Int32Array(0);
  if (bases.length > nMax) return bases;
  const grown = new Int32Array(nMax + 1).fill(-1);
  grown.set(bases);
  for (let n = bases.length; n <= nMax; n++) {
    const codes: number[] = [];
    const probs: number[] = [];
    outcomes(n, codes, probs);
    grown[n] = aliasBuild(tables, codes, probs);
  }
  tables.binBases.set(key, grown);
  return grown;
}

// === joint outcomes: several counts in one draw ==============================================

/**
 * The most units a joint table takes (a pool's clerics, a class of climbers): its outcomes are
 * pairs of counts, (n + 1)(n + 2) / 2 of them, and each count fits a byte of the code. Larger
 * groups are drawn as two binomials, the same distribution.
 */
export const JOINT_MAX = 20;

/**
 * The tables of the faces of n d3 (a cleric pool, H10) for every n up to nMax (at most
 * JOINT_MAX): outcome code ones | twos << 8 (the threes are the rest), with probability
 * n! / (ones! twos! threes!) / 3^n.
 */
export function ensurePoolFaces(tables: AliasTables, nMax: number): Int32Array {
  return ensureJoint(tables, 'pool-faces', 1 / 3, 1 / 2, nMax);
}

/**
 * The tables of a class of n climbers (4.2 step 4, H16, H17) for every n up to nMax (at most
 * JOINT_MAX): outcome code ok | lost << 8, ok ~ Binomial(n, p) the climbs that succeed, lost ~
 * Binomial(n - ok, q) the failed climbers the 2d3 kills. `key` names p and q exactly.
 */
export function ensureClimbOutcomes(tables: AliasTables, key: string, p: number, q: number, nMax: number): Int32Array {
  return ensureJoint(tables, `climb ${key}`, p, q, nMax);
}

/**
 * A count a ~ Binomial(n, p) and b ~ Binomial(n - a, q), as one code a | b << 8, for n =
 * 0..nMax: P(a, b) = Binomial(n, p)[a] × Binomial(n - a, q)[b].
 */
function ensureJoint(tables: AliasTables, key: string, p: number, q: number, nMax: number): Int32Array {
  if (nMax > JOINT_MAX) throw new Error(`internal: a joint table of ${nMax} units (at most ${JOINT_MAX})`);
  const second: number[][] = []; // second[m]: Binomial(m, q), made as the tables grown need it
  return growKeyed(tables, key, nMax, (n, codes, probs) => {
    const first = binomialDistribution(n, p);
    for (let a = 0; a <= n; a++) {
      if (first[a] === 0) continue;
      const rest = (second[n - a] ??= binomialDistribution(n - a, q));
      for (let b = 0; b <= n - a; b++) {
        if (rest[b] === 0) continue;
        codes.push(a | (b << 8));
        probs.push(first[a] * rest[b]);
      }
    }
  });
}

/**
 * The tables of the total of n3 d3 and n2 d2 (an archer volley with the 2d3 tower bonus, H15; a
 * melee's archers, mages and clerics) for n3 = 0..N3 and n2 = 0..N2, at index n3 * (N2 + 1) + n2
 * of the result. Made only while every table together has at most JOINT_OUTCOMES_MAX outcomes:
 * the kernel otherwise draws the two sums apart (the same distribution).
 */
export function ensureSums32(tables: AliasTables, N3: number, N2: number): Int32Array {
  if (sums32Outcomes(N3, N2) > JOINT_OUTCOMES_MAX) throw new Error('internal: d3 and d2 tables too large');
  const out = new Int32Array((N3 + 1) * (N2 + 1));
  let d3 = [1];
  for (let n3 = 0; n3 <= N3; n3++) {
    if (n3 > 0) d3 = addDie(d3, 3);
    let dist = d3;
    for (let n2 = 0; n2 <= N2; n2++) {
      if (n2 > 0) dist = addDie(dist, 2);
      const codes: number[] = [];
      const probs: number[] = [];
      for (let s = 0; s < dist.length; s++) {
        if (dist[s] === 0) continue;
        codes.push(s);
        probs.push(dist[s]);
      }
      out[n3 * (N2 + 1) + n2] = aliasBuild(tables, codes, probs);
    }
  }
  return out;
}

/**
 * The most outcomes a family of joint tables (ensureSums32, ensureVolleys, ensurePoolPairs) may
 * have together in one case: each outcome is a slot or two of 3 ints, and building them is a
 * case's set-up (about a microsecond an outcome).
 */
export const JOINT_OUTCOMES_MAX = 1 << 13;

/** How many outcomes ensureSums32 would make. */
export function sums32Outcomes(N3: number, N2: number): number {
  let n = 0;
  for (let n3 = 0; n3 <= N3; n3++) for (let n2 = 0; n2 <= N2; n2++) n += 2 * n3 + n2 + 1;
  return n;
}

/** The exact distribution of n3 d3 plus n2 d2 (index = total), for tests. */
export function sum32Distribution(n3: number, n2: number): number[] {
  let dist = [1];
  for (let i = 0; i < n3; i++) dist = addDie(dist, 3);
  for (let i = 0; i < n2; i++) dist = addDie(dist, 2);
  return dist;
}

/**
 * The tables of a volley's two totals in one draw: m d3 (the mages, M) and a d2 plus, with
 * `tower`, 2d3 (the archers and the tower bonus, A), for m = 0..NM and a = 0..NA, at index
 * m * (NA + 1) + a of the result: outcome code M | A << 16. Made only while every table together
 * has at most JOINT_OUTCOMES_MAX outcomes (the kernel otherwise draws the two totals apart).
 */
export function ensureVolleys(tables: AliasTables, NM: number, NA: number, tower: boolean): Int32Array {
  if (volleyOutcomes(NM, NA, tower) > JOINT_OUTCOMES_MAX) throw new Error('internal: volley tables too large');
  const out = new Int32Array((NM + 1) * (NA + 1));
  let mages = [1];
  for (let m = 0; m <= NM; m++) {
    if (m > 0) mages = addDie(mages, 3);
    let archers = tower ? addDie(addDie([1], 3), 3) : [1];
    for (let a = 0; a <= NA; a++) {
      if (a > 0) archers = addDie(archers, 2);
      const codes: number[] = [];
      const probs: number[] = [];
      for (let M = 0; M < mages.length; M++) {
        if (mages[M] === 0) continue;
        for (let A = 0; A < archers.length; A++) {
          if (archers[A] === 0) continue;
          codes.push(M | (A << 16));
          probs.push(mages[M] * archers[A]);
        }
      }
      out[m * (NA + 1) + a] = aliasBuild(tables, codes, probs);
    }
  }
  return out;
}

/** How many outcomes ensureVolleys would make. */
export function volleyOutcomes(NM: number, NA: number, tower: boolean): number {
  let n = 0;
  for (let m = 0; m <= NM; m++) for (let a = 0; a <= NA; a++) n += (2 * m + 1) * (a + (tower ? 5 : 1));
  return n;
}

/**
 * The tables of both sides' cleric pools in one draw: the attacker's na d3 and the defender's nd
 * d3, for na = 0..NA and nd = 0..ND (at most JOINT_MAX each), at index na * (ND + 1) + nd:
 * outcome code a1 | a2 << 8 | d1 << 16 | d2 << 24 (each side's ones and twos). Made only while
 * every table together has at most JOINT_OUTCOMES_MAX outcomes.
 */
export function ensurePoolPairs(tables: AliasTables, NA: number, ND: number): Int32Array {
  if (poolPairOutcomes(NA, ND) > JOINT_OUTCOMES_MAX || NA > JOINT_MAX || ND > JOINT_MAX) throw new Error('internal: pool tables too large');
  const faces = (n: number) => {
    const list: { code: number; p: number }[] = [];
    const first = binomialDistribution(n, 1 / 3);
    for (let a = 0; a <= n; a++) {
      const rest = binomialDistribution(n - a, 1 / 2);
      for (let b = 0; b <= n - a; b++) list.push({ code: a | (b << 8), p: first[a] * rest[b] });
    }
    return list;
  };
  const out = new Int32Array((NA + 1) * (ND + 1));
  for (let na = 0; na <= NA; na++) {
    const att = faces(na);
    for (let nd = 0; nd <= ND; nd++) {
      const def = faces(nd);
      const codes: number[] = [];
      const probs: number[] = [];
      for (const x of att)
        for (const y of def) {
          codes.push(x.code | (y.code << 16));
          probs.push(x.p * y.p);
        }
      out[na * (ND + 1) + nd] = aliasBuild(tables, codes, probs);
    }
  }
  return out;
}

/** How many outcomes ensurePoolPairs would make. */
export function poolPairOutcomes(NA: number, ND: number): number {
  let a = 0;
  let d = 0;
  for (let n = 0; n <= NA; n++) a += ((n + 1) * (n + 2)) / 2;
  for (let n = 0; n <= ND; n++) d += ((n + 1) * (n + 2)) / 2;
  return a * d;
}
