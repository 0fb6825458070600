/**
 * Exact answers for Crusader Rex (issue #3):
 *  - a field battle at a town without a castle (all 3 rounds, with reserves, fixed policies,
 *    deterministic tie-break): a forward Markov chain over (round, blocks' steps and places,
 *    roles, who has acted), each volley branching on its exact dice distribution;
 *  - a siege left to attrition (no storm, no sally): each castle block loses a step per game
 *    turn with probability q (6.57), independently, so the garrison's fate is binomial;
 *  - a siege with storms over game turns (6.53, 6.54, 6.57): a chain over steps, places, the
 *    half-hit, round and turn (see `exactSiege`).
 * Written from the rules, separately from the kernel, so `check` compares two implementations.
 */
import type { ExactSummary } from '../types.js';
import { CASTLE, FIELD, GONE, LEFT, PENDING, SIDE_NAMES, STORM, type CrusaderRexCompiled } from './compile.js';

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

/** The block of `side` at `at` that takes the next hit: most steps, ties by the policy (6.31). */
function victim(c: CrusaderRexCompiled, s: { steps: number[]; loc: number[] }, side: number, at: number): number {
  let t = -1;
  for (let b = 0; b < c.nb; b++) {
    if (c.side[b] !== side || s.loc[b] !== at) continue;
    if (t < 0 || s.steps[b] > s.steps[t]) t = b;
    else if (s.steps[b] === s.steps[t] && c.tieBreak === 1 && (c.letter[b] > c.letter[t] || (c.letter[b] === c.letter[t] && c.fp[b] < c.fp[t]))) t = b;
  }
  return t;
}

/**
 * The next block to act (6.2): the side that fires first (defender, or the castle in a storm),
 * then the other, letter by letter; with Jihad the other side's letters all come first. A block
 * of `side` is eligible at place at[side] and not yet in `acted`; within a letter the first
 * listed, or the strongest with the strongest-first order.
 */
function nextToAct(c: CrusaderRexCompiled, s: { steps: number[]; loc: number[]; acted: number }, first: number, jihad: boolean, at: number[]): number {
  const other = 1 - first;
  const sides = jihad ? [other, other, other, first, first, first] : [first, other, first, other, first, other];
  const letters = jihad ? [0, 1, 2, 0, 1, 2] : [0, 0, 1, 1, 2, 2];
  for (let k = 0; k < 6; k++) {
    let best = -1;
    for (let b = 0; b < c.nb; b++) {
      if (s.acted & (1 << b) || c.side[b] !== sides[k] || c.letter[b] !== letters[k] || s.loc[b] !== at[sides[k]]) continue;
      if (best < 0 || (c.strongestFirst === 1 && s.steps[b] > s.steps[best])) best = b;
    }
    if (best >= 0) return best;
  }
  return -1;
}

/** Add probability p of state s (under its key) to a chain's next step. */
function addState<S>(m: Map<string, { s: S; p: number }>, k: string, s: S, p: number): void {
  if (p === 0) return;
  const e = m.get(k);
  if (e) e.p += p;
  else m.set(k, { s, p });
}

/**
 * The attrition curve of a chain: Σp·x and Σp·x² of each side's steps in the field (storming
 * included), in the castle and on the road, at the end of each round of each game turn (slot
 * 0-2) and after the turn's retreat and attrition (slot 3), listed as summarize.ts lists them.
 */
function timeline(c: CrusaderRexCompiled) {
  const N = c.turns * 4 * 6;
  const m1 = new Array<number>(N).fill(0);
  const m2 = new Array<number>(N).fill(0);
  return {
    record(s: { steps: number[]; loc: number[] }, turn: number, slot: number, p: number): void {
      for (let side = 0; side < 2; side++) {
        const v = [0, 0, 0];
        for (let b = 0; b < c.nb; b++) {
          if (c.side[b] !== side) continue;
          const l = s.loc[b];
          if (l === FIELD || l === STORM) v[0] += s.steps[b];
          else if (l === CASTLE) v[1] += s.steps[b];
          else if (l === PENDING) v[2] += s.steps[b];
        }
        for (let place = 0; place < 3; place++) {
          const k = ((turn - 1) * 4 + slot) * 6 + side * 3 + place;
          m1[k] += p * v[place];
          m2[k] += p * v[place] * v[place];
        }
      }
    },
    curve(): ExactSummary['curves'][string] {
      const PLACE = ['field', 'castle', 'reserves'];
      const ROUND = ['1', '2', '3', 'end'];
      const out: ExactSummary['curves'][string] = [];
      for (let turn = 1; turn <= c.turns; turn++)
        for (let slot = 0; slot < 4; slot++)
          for (let side = 0; side < 2; side++)
            for (let place = 0; place < 3; place++) {
              const k = ((turn - 1) * 4 + slot) * 6 + side * 3 + place;
              out.push({ x: { turn, round: ROUND[slot], side: SIDE_NAMES[side], place: PLACE[place] }, value: m1[k], variance: m2[k] - m1[k] * m1[k] });
            }
      return out;
    },
  };
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
      const best = victim(c, s, side, FIELD);
      if (best < 0) return;
      s.steps[best]--;
      if (s.steps[best] === 0) s.loc[best] = GONE;
    }
  };

  /** The next block to act (6.2): defender then attacker per letter, or Jihad R1. */
  const nextActor = (s: State): number => nextToAct(c, s, 1 - s.attacker, c.jihad === 1 && s.r === 1 && s.attacker === c.attacker0, [FIELD, FIELD]);

  const tl = timeline(c);
  /** The rounds not fought after the battle ends early: reserves still arrive on time, for the record. */
  const fillFrom = (s: State, slot: number, p: number) => {
    for (; slot < 3; slot++) {
      for (let b = 0; b < c.nb; b++) if (s.loc[b] === PENDING && c.arrive[b] <= slot + 1) s.loc[b] = FIELD;
      tl.record(s, 1, slot, p);
    }
  };
  const endOfRound = (s: State, p: number) => {
    tl.record(s, 1, s.r - 1, p);
    const gone = (side: number) => fieldCount(s, side) === 0 && pending(s, side) === 0;
    if (gone(0) || gone(1) || s.r === 3) {
      fillFrom(s, s.r, p);
      s.phase = 2;
    } else {
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
  const add = (m: Map<string, { s: State; p: number }>, s: State, p: number) => addState(m, key(s), s, p);
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
        } else {
          // nobody to fight this round: it passes (recorded), and the battle ends if nobody is coming
          tl.record(s, 1, s.r - 1, p);
          if (pending(s, 0) + pending(s, 1) === 0 || s.r === 3) {
            fillFrom(s, s.r, p);
            s.phase = 2;
          } else s.r++;
        }
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
        tl.record(s, 1, 3, p);
        for (let turn = 2; turn <= c.turns; turn++) for (let slot = 0; slot < 4; slot++) tl.record(s, turn, slot, p);
        add(terminal, s, p);
        continue;
      }
      // phase 1: the end checks of 2.7, then the next block acts
      if (!contested(s)) {
        const def = 1 - s.attacker;
        if (fieldCount(s, def) === 0 && fieldCount(s, s.attacker) > 0 && pending(s, def) > 0 && (c.controlChangeAnyRound === 1 || s.r === 1)) {
          s.attacker = def; // 6.41 control change
        }
        endOfRound(s, p);
        add(next, s, p);
        continue;
      }
      const b = nextActor(s);
      if (b < 0) {
        endOfRound(s, p);
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
  const endings: Ending[] = [];
  for (const { s, p } of terminal.values()) {
    const inTown = (side: number) => s.loc.some((l, b) => l === FIELD && c.side[b] === side);
    endings.push({ steps: s.steps, p, attIn: inTown(c.attacker0), defIn: inTown(1 - c.attacker0), rounds: s.rounds, fell: false, lifted: false });
  }
  const result = outcome(c, endings);
  result.curves.attrition = tl.curve();
  return result;
}

/** How one path of a chain ends, with its probability. */
interface Ending {
  steps: number[];
  p: number;
  attIn: boolean;
  defIn: boolean;
  rounds: number;
  fell: boolean;
  lifted: boolean;
}

/** The metrics and survivor curve of a distribution of endings (summarize.ts's names). */
function outcome(c: CrusaderRexCompiled, endings: Ending[]): ExactSummary {
  const m = { att: 0, def: 0, cont: 0, both: 0, falls: 0, lifted: 0, r1: 0, r2: 0, l: [0, 0], l2: [0, 0] };
  const surv = [new Array<number>(c.maxTotal[0] + 1).fill(0), new Array<number>(c.maxTotal[1] + 1).fill(0)];
  for (const { steps, p, attIn, defIn, rounds, fell, lifted } of endings) {
    if (attIn && !defIn) m.att += p;
    else if (defIn && !attIn) m.def += p;
    else if (attIn && defIn) m.cont += p;
    else m.both += p;
    if (fell) m.falls += p;
    if (lifted) m.lifted += p;
    m.r1 += rounds * p;
    m.r2 += rounds * rounds * p;
    for (let side = 0; side < 2; side++) {
      let lost = 0;
      let left = 0;
      for (let b = 0; b < c.nb; b++) {
        if (c.side[b] !== side) continue;
        lost += c.steps0[b] - steps[b];
        left += steps[b];
      }
      m.l[side] += lost * p;
      m.l2[side] += lost * lost * p;
      surv[side][left] += p;
    }
  }
  return {
    metrics: {
      p_attacker_wins: { value: m.att },
      p_defender_holds: { value: m.def },
      p_siege_continues: { value: m.cont },
      p_both_gone: { value: m.both },
      p_castle_falls: { value: m.falls },
      p_siege_lifted: { value: m.lifted },
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
  if (siegeApplies(c)) return exactSiege(c); // with the round-by-round attrition curve
  if (attritionApplies(c)) return exactAttrition(c);
  return null;
}

// --- storming a castle over game turns (6.53, 6.54, 6.57) ---
//
// A siege in which the besieged are all inside the castle with nobody coming to relieve them and
// never sally, so the field is never contested: each round the besieger storms by its policy or
// both pass, and each game turn ends in attrition. The chain's state is every block's steps and
// place, the half-hit (1.5), the round and game turn, who has fired this round and the rounds
// fought; each volley branches on Binomial(steps, fp/6), each turn's attrition on every castle
// block's roll. It also yields the attrition curve (mean steps per side and place at the end of
// each round of each turn), so `check` holds the kernel's timeline to it point by point.

/** The siege chain applies: a castle, its holders all inside, none coming, no sally, fixed ties. */
export function siegeApplies(c: CrusaderRexCompiled): boolean {
  const own = c.castleOwner0;
  if (own < 0 || c.sally !== 0 || c.tieBreak === 2 || c.nb > 10) return false;
  for (let b = 0; b < c.nb; b++) if (c.side[b] === own && c.loc0[b] !== CASTLE) return false;
  if (!c.loc0.some((l, b) => c.side[b] === own && l === CASTLE)) return false;
  return c.loc0.some((l, b) => c.side[b] !== own && (l === FIELD || l === PENDING));
}

interface SiegeState {
  steps: number[];
  loc: number[];
  half: number; // the castle block carrying a half-hit, or -1
  turn: number;
  r: number;
  phase: number; // 0 round start, 1 storming, 2 end of the game turn, 3 over
  acted: number;
  rounds: number;
  fell: boolean;
}

function binomialPmf(n: number, p: number): number[] {
  const out: number[] = [];
  for (let k = 0; k <= n; k++) out.push(binom(n, k) * p ** k * (1 - p) ** (n - k));
  return out;
}

export function exactSiege(c: CrusaderRexCompiled): ExactSummary {
  const own = c.castleOwner0;
  const bes = 1 - own;
  const T = c.turns;
  const sKey = (s: SiegeState) => `${s.steps.join('')}|${s.loc.join('')}|${s.half}|${s.turn}|${s.r}|${s.phase}|${s.acted}|${s.rounds}|${s.fell ? 1 : 0}`;
  const copy = (s: SiegeState): SiegeState => ({ ...s, steps: s.steps.slice(), loc: s.loc.slice() });
  const blocksAt = (s: SiegeState, side: number, at: number) => s.loc.filter((l, b) => l === at && c.side[b] === side).length;
  const stepsAt = (s: SiegeState, side: number, at: number) => s.loc.reduce((n, l, b) => n + (l === at && c.side[b] === side ? s.steps[b] : 0), 0);
  const inTown = (s: SiegeState, side: number) => s.loc.some((l, b) => c.side[b] === side && (l === FIELD || l === CASTLE || l === STORM));
  const kill = (s: SiegeState, b: number) => {
    s.steps[b]--;
    if (s.steps[b] === 0) {
      s.loc[b] = GONE;
      if (s.half === b) s.half = -1;
    }
  };

  const tl = timeline(c);
  const record = tl.record;
  const terminal: { s: SiegeState; p: number }[] = [];
  let live = new Map<string, { s: SiegeState; p: number }>();
  const add = (m: Map<string, { s: SiegeState; p: number }>, s: SiegeState, p: number) => addState(m, sKey(s), s, p);

  /** The round is over: record it; go on to the next round, or end the game turn early. */
  const roundOver = (s: SiegeState, p: number, toAttrition: boolean, next: Map<string, { s: SiegeState; p: number }>) => {
    record(s, s.turn, s.r - 1, p);
    const pendingOf = (side: number) => blocksAt(s, side, PENDING);
    const early = toAttrition || s.fell || (!inTown(s, 0) && pendingOf(0) === 0) || (!inTown(s, 1) && pendingOf(1) === 0);
    if (early) {
      // the rounds not fought: reserves still arrive on time (first game turn), for the record
      for (let slot = s.r; slot < 3; slot++) {
        if (s.turn === 1) for (let b = 0; b < c.nb; b++) if (s.loc[b] === PENDING && c.arrive[b] <= slot + 1) s.loc[b] = FIELD;
        record(s, s.turn, slot, p);
      }
      s.phase = 2;
    } else if (s.r === 3) s.phase = 2;
    else {
      s.r++;
      s.phase = 0;
    }
    add(next, s, p);
  };

  const start: SiegeState = { steps: c.steps0.slice(), loc: c.loc0.slice(), half: -1, turn: 1, r: 1, phase: 0, acted: 0, rounds: 0, fell: false };
  live.set(sKey(start), { s: start, p: 1 });
  for (let guard = 0; live.size > 0; guard++) {
    if (guard > 100_000) throw new Error('siege chain did not finish');
    const next = new Map<string, { s: SiegeState; p: number }>();
    for (const { s: s0, p } of live.values()) {
      const s = copy(s0);
      if (s.phase === 0) {
        // 6.41/6.42: reserves reach the field at the start of their round (first game turn only)
        if (s.turn === 1 && s.r > 1) for (let b = 0; b < c.nb; b++) if (s.loc[b] === PENDING && c.arrive[b] === s.r) s.loc[b] = FIELD;
        const besField = blocksAt(s, bes, FIELD);
        const besPending = blocksAt(s, bes, PENDING);
        if (s.r === 1 && besField === 0 && besPending > 0) {
          // R1 is skipped: the besieger's main force is still on the road
          record(s, s.turn, 0, p);
          s.r = 2;
          add(next, s, p);
          continue;
        }
        if (besField + blocksAt(s, bes, STORM) === 0) {
          roundOver(s, p, false, next); // nobody to storm with; reserves may still come
          continue;
        }
        // 6.53/6.54: declare the storm; blocks already storming keep storming, new ones join up
        // to the castle limit, strongest first
        const storming = blocksAt(s, bes, STORM);
        if (c.storm !== 0 || storming > 0) {
          const joining: number[] = [];
          for (let k = 0; k < c.rating - storming; k++) {
            let pick = -1;
            for (let b = 0; b < c.nb; b++) {
              if (c.side[b] !== bes || s.loc[b] !== FIELD || joining.includes(b)) continue;
              if (pick < 0 || s.steps[b] > s.steps[pick]) pick = b;
            }
            if (pick < 0) break;
            joining.push(pick);
          }
          const strength = stepsAt(s, bes, STORM) + joining.reduce((n, b) => n + s.steps[b], 0);
          const go = storming > 0 || c.storm === 1 || strength >= c.stormRatio * 2 * stepsAt(s, own, CASTLE);
          if (go) for (const b of joining) s.loc[b] = STORM;
        }
        if (blocksAt(s, bes, STORM) > 0) {
          s.rounds++;
          s.acted = 0;
          s.phase = 1;
          add(next, s, p);
        } else if (c.declinedSallyAttrition === 0 && besPending > 0) roundOver(s, p, false, next); // both pass; the besieger waits for its reserves
        else roundOver(s, p, true, next); // both pass: attrition (6.53)
        continue;
      }
      if (s.phase === 1) {
        // a storm ends when the castle is empty (it falls) or no stormer is left (repulsed)
        if (blocksAt(s, own, CASTLE) === 0 || blocksAt(s, bes, STORM) === 0) {
          if (blocksAt(s, own, CASTLE) === 0) {
            s.fell = true;
            for (let b = 0; b < c.nb; b++) if (s.loc[b] === STORM) s.loc[b] = FIELD;
          }
          s.half = -1;
          roundOver(s, p, false, next);
          continue;
        }
        // 6.2 in a storm: castle A, stormers A, castle B, ...; Jihad R1: the besieger's letters first
        const jihad = c.jihad === 1 && s.turn === 1 && s.r === 1 && bes === c.attacker0;
        const a = nextToAct(c, s, own, jihad, own === 0 ? [CASTLE, STORM] : [STORM, CASTLE]);
        if (a < 0) {
          roundOver(s, p, false, next);
          continue;
        }
        s.acted |= 1 << a;
        if (c.side[a] === bes && c.withdraw === 1 && stepsAt(s, bes, STORM) < 2 * stepsAt(s, own, CASTLE)) {
          s.loc[a] = FIELD; // 6.62: a weaker storm withdraws block by block
          add(next, s, p);
          continue;
        }
        binomialPmf(s.steps[a], c.fp[a] / 6).forEach((q, hits) => {
          const t = copy(s);
          for (let h = 0; h < hits; h++) {
            if (c.side[a] === own) {
              const v = victim(c, t, bes, STORM); // stormers take full hits
              if (v < 0) break;
              kill(t, v);
            } else if (t.half >= 0) {
              kill(t, t.half); // 1.5: the hit after a half-hit must go on the same block
              t.half = -1;
            } else {
              const v = victim(c, t, own, CASTLE);
              if (v < 0) break;
              t.half = v;
            }
          }
          add(next, t, p * q);
        });
        continue;
      }
      if (s.phase === 2) {
        // end of the game turn: stormers come out, reserves join, the half-hit is lost (1.5)
        for (let b = 0; b < c.nb; b++) if (s.loc[b] === STORM || s.loc[b] === PENDING) s.loc[b] = FIELD;
        s.half = -1;
        const finish = (t: SiegeState, q: number) => {
          record(t, t.turn, 3, q);
          if (t.fell || !inTown(t, 0) || !inTown(t, 1) || t.turn === T) {
            for (let turn = t.turn + 1; turn <= T; turn++) for (let slot = 0; slot < 4; slot++) record(t, turn, slot, q);
            t.phase = 3;
            terminal.push({ s: t, p: q });
            return;
          }
          t.turn++;
          t.r = 1;
          t.phase = 0;
          add(next, t, q);
        };
        if (s.fell || blocksAt(s, own, CASTLE) === 0) {
          finish(s, p);
          continue;
        }
        if (c.besiegerRetreats === 1) {
          let used = 0; // 2.8: by road, as many as the slots allow; the rest are eliminated
          for (let b = 0; b < c.nb; b++) {
            if (c.side[b] !== bes || s.loc[b] !== FIELD) continue;
            if (c.slots[bes] < 0 || used < c.slots[bes]) {
              used++;
              s.loc[b] = LEFT;
            } else {
              s.steps[b] = 0;
              s.loc[b] = GONE;
            }
          }
        }
        if (blocksAt(s, bes, FIELD) === 0) {
          finish(s, p);
          continue;
        }
        // 6.57: every castle block rolls; each loses a step with probability attritionOn/6
        const inside = s.loc.map((l, b) => (l === CASTLE ? b : -1)).filter((b) => b >= 0);
        const q = c.attritionOn / 6;
        for (let mask = 0; mask < 1 << inside.length; mask++) {
          const t = copy(s);
          let pr = p;
          inside.forEach((b, i) => {
            if (mask & (1 << i)) {
              pr *= q;
              kill(t, b);
            } else pr *= 1 - q;
          });
          if (pr === 0) continue;
          if (blocksAt(t, own, CASTLE) === 0) t.fell = true;
          finish(t, pr);
        }
        continue;
      }
    }
    live = next;
  }

  const result = outcome(
    c,
    terminal.map(({ s, p }) => ({
      steps: s.steps,
      p,
      attIn: inTown(s, c.attacker0),
      defIn: inTown(s, 1 - c.attacker0),
      rounds: s.rounds,
      fell: s.fell,
      lifted: blocksAt(s, own, CASTLE) > 0 && blocksAt(s, bes, FIELD) === 0,
    })),
  );
  result.curves.attrition = tl.curve();
  return result;
}
