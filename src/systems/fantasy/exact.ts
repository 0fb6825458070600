/**
 * Exact answers for the fantasy system where the state space is small:
 *  (a) siege engines alone against a wall: the round the wall falls, by a DP over wall HP;
 *  (b) climbs alone: the breach-by-round distribution, a Markov chain over (infantry left,
 *      cavalry left, breach pool);
 *  (c) one open-field ranged volley: the damage that gets through the cleric shields under the
 *      no-waste policy (H9 (b)), by enumeration of the volley and the shield pool.
 * Each returns only the metrics it determines; `check` compares those.
 */
import type { ExactSummary } from '../types.js';
import { ARC, CAV, CLE, ENG, INF, MAG, NT, type FantasyCompiled } from './compile.js';

/** Distribution of the sum of n dice of `faces` faces (index = total). */
export function diceSum(n: number, faces: number): number[] {
  let dist = [1];
  for (let i = 0; i < n; i++) {
    const next = new Array<number>(dist.length + faces).fill(0);
    for (let s = 0; s < dist.length; s++) {
      if (dist[s] === 0) continue;
      for (let f = 1; f <= faces; f++) next[s + f] += dist[s] / faces;
    }
    dist = next;
  }
  return dist;
}

function convolve(a: number[], b: number[]): number[] {
  const out = new Array<number>(a.length + b.length - 1).fill(0);
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) for (let j = 0; j < b.length; j++) out[i + j] += a[i] * b[j];
  return out;
}

function binom(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** Breach metrics from P(first breach in round r), r = 1..R. */
function breachSummary(c: FantasyCompiled, byRound: number[]): ExactSummary {
  let cum = 0;
  let m1 = 0;
  let m2 = 0;
  const curve: { x: Record<string, number>; value: number }[] = [];
  for (let r = 1; r <= c.maxRounds; r++) {
    const p = byRound[r - 1] ?? 0;
    cum += p;
    m1 += r * p;
    m2 += r * r * p;
    curve.push({ x: { round: r }, value: cum });
  }
  const mu = cum > 0 ? m1 / cum : NaN;
  return {
    metrics: { p_breach: { value: cum }, mean_breach_round: { value: mu, variance: cum > 0 ? m2 / cum - mu * mu : NaN } },
    curves: { breach_by_round: curve },
  };
}

const att = (c: FantasyCompiled, t: number) => c.units[t];
const def = (c: FantasyCompiled, t: number) => c.units[NT + t];
/** A siege with no defenders ends before round 1: no breach to compute. */
const hasDefenders = (c: FantasyCompiled) => c.units.slice(NT).some((n) => n > 0);

/** (a) Only siege engines attack, and nothing can harm them or shield the wall. */
export function enginesAloneApplies(c: FantasyCompiled): boolean {
  if (c.siege !== 1 || att(c, ENG) === 0 || !hasDefenders(c)) return false;
  for (let t = 0; t < NT; t++) if (t !== ENG && att(c, t) > 0) return false;
  const defenderFire = def(c, MAG) + def(c, ARC) > 0 || c.tower !== 2;
  if (c.enginesTargetable === 1 && defenderFire) return false;
  if (c.shieldsVsWall === 1 && def(c, CLE) > 0) return false;
  return true;
}

export function exactEnginesAlone(c: FantasyCompiled): ExactSummary {
  const perRound = diceSum(2 * att(c, ENG), 6);
  // alive[w] = P(wall has w HP left and still stands at the start of the round)
  let alive = new Array<number>(c.wallHp + 1).fill(0);
  const byRound: number[] = [];
  if (c.wallHp <= 0) return breachSummary(c, [1]);
  alive[c.wallHp] = 1;
  for (let r = 1; r <= c.maxRounds; r++) {
    const next = new Array<number>(c.wallHp + 1).fill(0);
    let fell = 0;
    for (let w = 1; w <= c.wallHp; w++) {
      if (alive[w] === 0) continue;
      for (let d = 0; d < perRound.length; d++) {
        const p = alive[w] * perRound[d];
        if (p === 0) continue;
        if (d >= w) fell += p;
        else next[w - d] += p;
      }
    }
    byRound.push(fell);
    alive = next;
  }
  return breachSummary(c, byRound);
}

/** (b) Only climbers attack, nobody shoots them, nothing hits the wall. */
export function climbsAloneApplies(c: FantasyCompiled): boolean {
  if (c.siege !== 1 || c.climbers === 0 || !hasDefenders(c)) return false;
  for (const t of [ARC, MAG, ENG]) if (att(c, t) > 0) return false;
  if (def(c, MAG) + def(c, ARC) > 0 || c.tower !== 2) return false;
  if (c.failedClimb === 1 || c.withdrawUnits > 0 || c.wallHp <= 0) return false;
  return att(c, INF) + att(c, CAV) > 0;
}

export function exactClimbsAlone(c: FantasyCompiled): ExactSummary {
  const pS = Math.min(1, Math.max(0, (c.climbGt ? 20 - c.dc : 21 - c.dc) / 20)); // H16
  const twoD3 = diceSum(2, 3);
  const pKill = (hp: number) => twoD3.reduce((a, p, d) => a + (d >= hp ? p : 0), 0);
  const climbCav = c.climbers === 2 && c.cavalryClimb === 1;
  const nI0 = att(c, INF);
  const nC0 = climbCav ? att(c, CAV) : 0;
  const T = c.breachThreshold;
  const noRetry = c.failedClimb === 2;
  // Outcome distribution of n climbers of one type: [success, dead, out (no retry)] counts.
  const outcomes = (n: number, kill: number) => {
    const res: { s: number; d: number; o: number; p: number }[] = [];
    const pd = (1 - pS) * kill;
    const pf = (1 - pS) * (1 - kill);
    for (let s = 0; s <= n; s++)
      for (let d = 0; d + s <= n; d++) {
        const f = n - s - d;
        const p = binom(n, s) * binom(n - s, d) * pS ** s * pd ** d * pf ** f;
        if (p > 0) res.push({ s, d, o: noRetry ? f : 0, p });
      }
    return res;
  };
  const kI = pKill(c.hp[INF]);
  const kC = pKill(c.hp[CAV]);
  const key = (i: number, k: number, pool: number) => (i * (nC0 + 1) + k) * (T + 1) + pool;
  let states = new Map<number, number>([[key(nI0, nC0, 0), 1]]);
  const byRound: number[] = [];
  const cacheI = new Map<number, ReturnType<typeof outcomes>>();
  const cacheC = new Map<number, ReturnType<typeof outcomes>>();
  for (let r = 1; r <= c.maxRounds; r++) {
    const next = new Map<number, number>();
    let breached = 0;
    for (const [k, p] of states) {
      const pool = k % (T + 1);
      const ic = (k - pool) / (T + 1);
      const kc = ic % (nC0 + 1);
      const ii = (ic - kc) / (nC0 + 1);
      if (!cacheI.has(ii)) cacheI.set(ii, outcomes(ii, kI));
      if (!cacheC.has(kc)) cacheC.set(kc, outcomes(kc, kC));
      for (const oi of cacheI.get(ii)!)
        for (const oc of cacheC.get(kc)!) {
          const q = p * oi.p * oc.p;
          const np = pool + oi.s + oc.s;
          if (np >= T) {
            breached += q;
            continue;
          }
          const nk = key(ii - oi.s - oi.d - oi.o, kc - oc.s - oc.d - oc.o, np);
          next.set(nk, (next.get(nk) ?? 0) + q);
        }
    }
    byRound.push(breached);
    states = next;
  }
  return breachSummary(c, byRound);
}

/** (c) Open field, no-waste shields over the whole volley. */
export function volleyApplies(c: FantasyCompiled): boolean {
  return c.siege === 0 && c.shield === 1 && c.shieldPerComponent === 0;
}

/** Points cancelled by the no-waste policy (H9 (b)) from damage D with pool (c1, c2, c3). */
export function noWasteCancel(D: number, c1: number, c2: number, c3: number): number {
  let rem = D;
  for (;;) {
    if (rem >= 3 && c3 > 0) {
      c3--;
      rem -= 3;
    } else if (rem >= 2 && c2 > 0) {
      c2--;
      rem -= 2;
    } else if (rem >= 1 && c1 > 0) {
      c1--;
      rem -= 1;
    } else return D - rem;
  }
}

export function exactVolley(c: FantasyCompiled): ExactSummary {
  if (!hasDefenders(c) || c.units.slice(0, NT).every((n) => n === 0)) {
    // a side is out at the start: no Phase A, its damage 0 in every trial (4.1, the metrics)
    const none = new Array<number>(c.maxVolley + 1).fill(0);
    none[0] = 1;
    return { metrics: { mean_volley_a_damage: { value: 0, variance: 0 } }, curves: { volley_damage: none.map((p, d) => ({ x: { damage: d }, value: p })) } };
  }
  const dmg = convolve(diceSum(att(c, MAG), 3), diceSum(att(c, ARC), 2));
  const k = def(c, CLE);
  const out = new Array<number>(c.maxVolley + 1).fill(0);
  // pool: multinomial over faces 1..3
  for (let c1 = 0; c1 <= k; c1++)
    for (let c2 = 0; c1 + c2 <= k; c2++) {
      const c3 = k - c1 - c2;
      const pp = binom(k, c1) * binom(k - c1, c2) * (1 / 3) ** k;
      for (let D = 0; D < dmg.length; D++) {
        if (dmg[D] === 0) continue;
        out[D - noWasteCancel(D, c1, c2, c3)] += pp * dmg[D];
      }
    }
  let m1 = 0;
  let m2 = 0;
  out.forEach((p, d) => {
    m1 += d * p;
    m2 += d * d * p;
  });
  return {
    metrics: { mean_volley_a_damage: { value: m1, variance: m2 - m1 * m1 } },
    curves: { volley_damage: out.map((p, d) => ({ x: { damage: d }, value: p })) },
  };
}

export function exactFantasy(c: FantasyCompiled): ExactSummary | null {
  if (enginesAloneApplies(c)) return exactEnginesAlone(c);
  if (climbsAloneApplies(c)) return exactClimbsAlone(c);
  if (volleyApplies(c)) return exactVolley(c);
  return null;
}
