/**
 * Exact answers for Crusader Rex (issue #3):
 *  - a field battle at a town without a castle (all 3 rounds, with reserves, fixed policies,
 *    deterministic tie-break): a forward Markov chain over (round, blocks' steps and places,
 *    roles, who has acted), each volley branching on its exact dice distribution;
 *  - a siege left to attrition (no storm, no sally): each castle block loses a step per game
 *    turn with probability q (6.57), independently, so the garrison's fate is binomial.
 * Written from the rules, separately from the kernel, so `check` compares two implementations.
 */
import type { ExactSummary } from '../types.js';
import { FIELD, GONE, LEFT, PENDING, SIDE_NAMES, type CrusaderRexCompiled } from './compile.js';

interface State {
  steps: number[];
  loc: number[];
  attacker: number;
  r: number;
  phase: number; // 0 round start, 1 acting, 2 after the rounds
  acted: number; // bitmask
  rounds: number;
  slotsUsed: number[];
}

const key = (s: State) => `${s.steps.join('')}|${s.loc.join('')}|${s.attacker}|${s.r}|${s.phase}|${s.acted}|${s.rounds}|${s.slotsUsed.join(',')}`;
const clone = (s: State): State => ({ ...s, steps: s.steps.slice(), loc: s.loc.slice(), slotsUsed: s.slotsUsed.slice() });

/** (hits, sixes) distribution of s dice at firepower f: exact enumeration of 6^s rolls. */
function volleyOutcomes(s: number, f: number): Map<string, number> {
  const out = new Map<string, number>();
  const total = 6 ** s;
  const dice = new Array<number>(s).fill(1);
  for (let n = 0; n < total; n++) {
    let x = n;
    for (let k = 0; k < s; k++) {
      dice[k] = (x % 6) + 1;
      x = Math.floor(x / 6);
    }
    const hits = dice.filter((d) => d <= f).length;
    const sixes = dice.filter((d) => d === 6).length;
    const k = `${hits},${sixes}`;
    out.set(k, (out.get(k) ?? 0) + 1 / total);
  }
  return out;
}

export function fieldBattleApplies(c: CrusaderRexCompiled): boolean {
  return c.rating === 0 && c.tieBreak !== 2 && c.harry === 0 && c.retreat === 0 && c.nb <= 8 && c.existing === 0;
}

export function exactFieldBattle(c: CrusaderRexCompiled): ExactSummary {
  const inField = (s: State, b: number) => s.loc[b] === FIELD;
  const fieldCount = (s: State, side: number) => s.loc.filter((l, b) => l === FIELD && c.side[b] === side).length;
  const pending = (s: State, side: number) => s.loc.filter((l, b) => l === PENDING && c.side[b] === side).length;
  const contested = (s: State) => fieldCount(s, 0) > 0 && fieldCount(s, 1) > 0;

  /** 6.31: one hit at a time on the strongest field block; ties by the policy. */
  const hitSide = (s: State, side: number, hits: number) => {
    for (let h = 0; h < hits; h++) {
      let best = -1;
      for (let b = 0; b < c.nb; b++) {
        if (c.side[b] !== side || !inField(s, b)) continue;
        if (best < 0 || s.steps[b] > s.steps[best]) best = b;
        else if (s.steps[b] === s.steps[best] && c.tieBreak === 1) {
          if (c.letter[b] > c.letter[best] || (c.letter[b] === c.letter[best] && c.fp[b] < c.fp[best])) best = b;
        }
      }
      if (best < 0) return;
      s.steps[best]--;
      if (s.steps[best] === 0) s.loc[best] = GONE;
    }
  };

  /** The next block to act (6.2): defender then attacker per letter, or Jihad R1. */
  const nextActor = (s: State): number => {
    const first = 1 - s.attacker;
    const pick = (side: number, letter: number) => {
      let best = -1;
      for (let b = 0; b < c.nb; b++) {
        if (s.acted & (1 << b) || c.side[b] !== side || c.letter[b] !== letter || !inField(s, b)) continue;
        if (best < 0 || (c.strongestFirst === 1 && s.steps[b] > s.steps[best])) best = b;
      }
      return best;
    };
    const jihad = c.jihad === 1 && s.r === 1 && s.attacker === c.attacker0;
    const sides = jihad ? [s.attacker, s.attacker, s.attacker, first, first, first] : [first, s.attacker, first, s.attacker, first, s.attacker];
    const letters = jihad ? [0, 1, 2, 0, 1, 2] : [0, 0, 1, 1, 2, 2];
    for (let k = 0; k < 6; k++) {
      const b = pick(sides[k], letters[k]);
      if (b >= 0) return b;
    }
    return -1;
  };

  const endOfRound = (s: State) => {
    const gone = (side: number) => fieldCount(s, side) === 0 && pending(s, side) === 0;
    if (gone(0) || gone(1) || s.r === 3) s.phase = 2;
    else {
      s.r++;
      s.phase = 0;
    }
  };

  const terminal = new Map<string, { s: State; p: number }>();
  let live = new Map<string, { s: State; p: number }>();
  const start: State = {
    steps: c.steps0.slice(),
    loc: c.loc0.slice(),
    attacker: c.attacker0,
    r: 1,
    phase: 0,
    acted: 0,
    rounds: 0,
    slotsUsed: [0, 0],
  };
  live.set(key(start), { s: start, p: 1 });
  const add = (m: Map<string, { s: State; p: number }>, s: State, p: number) => {
    const k = key(s);
    const e = m.get(k);
    if (e) e.p += p;
    else m.set(k, { s, p });
  };
  for (let step = 0; live.size > 0 && step < 10_000; step++) {
    const next = new Map<string, { s: State; p: number }>();
    for (const { s: s0, p } of live.values()) {
      const s = clone(s0);
      if (s.phase === 0) {
        if (s.r > 1) for (let b = 0; b < c.nb; b++) if (s.loc[b] === PENDING && c.arrive[b] === s.r) s.loc[b] = FIELD;
        if (contested(s)) {
          s.rounds++;
          s.acted = 0;
          s.phase = 1;
        } else if (pending(s, 0) + pending(s, 1) === 0) s.phase = 2;
        else if (s.r === 3) s.phase = 2;
        else s.r++;
        add(next, s, p);
        continue;
      }
      if (s.phase === 2) {
        for (let b = 0; b < c.nb; b++) if (s.loc[b] === PENDING) s.loc[b] = FIELD;
        if (contested(s)) {
          // 2.8: the attacker retreats every field block; beyond the road slots, eliminated
          for (let b = 0; b < c.nb; b++) {
            if (c.side[b] !== s.attacker || s.loc[b] !== FIELD) continue;
            const side = c.side[b];
            if (c.slots[side] < 0 || s.slotsUsed[side] < c.slots[side]) {
              s.slotsUsed[side]++;
              s.loc[b] = LEFT;
            } else {
              s.steps[b] = 0;
              s.loc[b] = GONE;
            }
          }
        }
        add(terminal, s, p);
        continue;
      }
      // phase 1: the end checks of 2.7, then the next block acts
      if (!contested(s)) {
        const def = 1 - s.attacker;
        if (fieldCount(s, def) === 0 && fieldCount(s, s.attacker) > 0 && pending(s, def) > 0 && (c.controlChangeAnyRound === 1 || s.r === 1)) {
          s.attacker = def; // 6.41 control change
        }
        endOfRound(s);
        add(next, s, p);
        continue;
      }
      const b = nextActor(s);
      if (b < 0) {
        endOfRound(s);
        add(next, s, p);
        continue;
      }
      s.acted |= 1 << b;
      const enemy = 1 - c.side[b];
      let charge = false;
      if (c.knight[b] === 1 && c.charge === 1) charge = true;
      if (c.knight[b] === 1 && c.charge === 2) {
        let strongestEnemy = -1;
        for (let e = 0; e < c.nb; e++) if (c.side[e] === enemy && inField(s, e) && (strongestEnemy < 0 || s.steps[e] > strongestEnemy)) strongestEnemy = s.steps[e];
        charge = strongestEnemy >= 0 && strongestEnemy < s.steps[b];
      }
      const f = Math.min(6, c.fp[b] + (charge ? 1 : 0));
      for (const [k, q] of volleyOutcomes(s.steps[b], f)) {
        const [hits, sixes] = k.split(',').map(Number);
        const t = clone(s);
        if (charge && f < 6) {
          // 6.32: each 6 is a self-hit on the charging block, before the enemy takes the hits
          for (let x = 0; x < sixes && t.loc[b] !== GONE; x++) {
            t.steps[b]--;
            if (t.steps[b] === 0) t.loc[b] = GONE;
          }
        }
        hitSide(t, enemy, hits);
        add(next, t, p * q);
      }
    }
    live = next;
  }
  // --- metrics from the terminal distribution ---
  const m = { attWins: 0, defHolds: 0, continues: 0, bothGone: 0, r1: 0, r2: 0, l: [0, 0], l2: [0, 0] };
  const surv = [new Array<number>(c.maxTotal[0] + 1).fill(0), new Array<number>(c.maxTotal[1] + 1).fill(0)];
  for (const { s, p } of terminal.values()) {
    const inTown = (side: number) => s.loc.some((l, b) => l === FIELD && c.side[b] === side);
    const a = inTown(c.attacker0);
    const d = inTown(1 - c.attacker0);
    if (a && !d) m.attWins += p;
    else if (d && !a) m.defHolds += p;
    else if (a && d) m.continues += p;
    else m.bothGone += p;
    m.r1 += s.rounds * p;
    m.r2 += s.rounds * s.rounds * p;
    for (let side = 0; side < 2; side++) {
      let lost = 0;
      let left = 0;
      for (let b = 0; b < c.nb; b++) {
        if (c.side[b] !== side) continue;
        lost += c.steps0[b] - s.steps[b];
        left += s.steps[b];
      }
      m.l[side] += lost * p;
      m.l2[side] += lost * lost * p;
      surv[side][left] += p;
    }
  }
  return {
    metrics: {
      p_attacker_wins: { value: m.attWins },
      p_defender_holds: { value: m.defHolds },
      p_siege_continues: { value: m.continues },
      p_both_gone: { value: m.bothGone },
      p_castle_falls: { value: 0 },
      mean_rounds: { value: m.r1, variance: m.r2 - m.r1 * m.r1 },
      mean_steps_lost_franks: { value: m.l[0], variance: m.l2[0] - m.l[0] ** 2 },
      mean_steps_lost_saracens: { value: m.l[1], variance: m.l2[1] - m.l[1] ** 2 },
    },
    curves: {
      survivors: [0, 1].flatMap((side) => surv[side].map((p, steps) => ({ x: { side: SIDE_NAMES[side], steps }, value: p }))),
    },
  };
}

// --- siege attrition alone (6.57) ---

export function attritionApplies(c: CrusaderRexCompiled): boolean {
  if (c.existing === 0 || c.storm !== 0 || c.sally !== 0 || c.besiegerRetreats === 1) return false;
  if (c.loc0.some((l) => l === PENDING)) return false;
  const besieged = c.castleOwner0;
  const besiegerThere = c.loc0.some((l, b) => l === FIELD && c.side[b] === 1 - besieged);
  // every besieged block in the castle; nothing of theirs in the field
  return besiegerThere && !c.loc0.some((l, b) => l === FIELD && c.side[b] === besieged);
}

function binom(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

export function exactAttrition(c: CrusaderRexCompiled): ExactSummary {
  const q = c.attritionOn / 6;
  const T = c.turns;
  const besieged = c.castleOwner0;
  const castle = c.loc0.map((l, b) => (l !== FIELD && c.side[b] === besieged ? b : -1)).filter((b) => b >= 0);
  // Each block loses min(Bin(T, q), steps) steps; the castle falls when every block is gone.
  let pFalls = 1;
  let lost = 0;
  let lostVar = 0;
  for (const b of castle) {
    const s = c.steps0[b];
    let pGone = 0;
    let e1 = 0;
    let e2 = 0;
    for (let k = 0; k <= T; k++) {
      const pk = binom(T, k) * q ** k * (1 - q) ** (T - k);
      const l = Math.min(k, s);
      if (k >= s) pGone += pk;
      e1 += l * pk;
      e2 += l * l * pk;
    }
    pFalls *= pGone;
    lost += e1;
    lostVar += e2 - e1 * e1;
  }
  const lostKey = besieged === 0 ? 'mean_steps_lost_franks' : 'mean_steps_lost_saracens';
  const otherKey = besieged === 0 ? 'mean_steps_lost_saracens' : 'mean_steps_lost_franks';
  return {
    metrics: {
      p_castle_falls: { value: pFalls },
      p_attacker_wins: { value: pFalls },
      p_siege_continues: { value: 1 - pFalls },
      p_siege_lifted: { value: 0 },
      mean_rounds: { value: 0, variance: 0 },
      [lostKey]: { value: lost, variance: lostVar },
      [otherKey]: { value: 0, variance: 0 },
    },
    curves: {},
  };
}

export function exactCrusaderRex(c: CrusaderRexCompiled): ExactSummary | null {
  if (fieldBattleApplies(c)) return exactFieldBattle(c);
  if (attritionApplies(c)) return exactAttrition(c);
  return null;
}
