/**
 * Exact answers for Crusader Rex:
 *  - any battle or siege of up to BATTLE_MAX_BLOCKS blocks (`exactBattle`): a forward Markov
 *    chain over every block's steps and place, the roles, the castle's owner and half-hit, the
 *    round and game turn, each volley branching on its exact dice distribution. It follows the
 *    whole procedure of docs/rules/crusader-rex.md 2-4 and 6.5: field rounds (6.2, 6.31), reserves
 *    (6.41, 6.42), control change (6.41), storms with double defense (6.53, 6.54), sallies
 *    (6.55), relief forces cancelling a storm and the role swaps (6.56, 4.4), charge, harry,
 *    retreat and withdrawal (6.32, 6.33, 6.6, 6.62), the attacker's retreat after R3 (2.8) and
 *    siege attrition each game turn (6.57);
 *  - a siege left to attrition (no storm, no sally): each castle block loses a step per game
 *    turn with probability q, independently, so the garrison's fate is binomial (a closed form
 *    the tests hold the chain to; `check` uses it when the chain does not apply).
 * Written from the rules, separately from the kernel, so `check` compares two implementations.
 */
import { EXACT_LIMITS, ExactTooLarge, type ExactBudget, type ExactSummary } from '../types.js';
import { CASTLE, FIELD, GONE, LEFT, PENDING, SALLY, SIDE_NAMES, STORM, type CrusaderRexCompiled } from './compile.js';

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

/** A set of places as a bit mask over the location codes (compile.ts): (mask >> loc) & 1. */
const at = (...places: number[]) => places.reduce((m, l) => m | (1 << l), 0);
const M_FIELD = at(FIELD, SALLY, STORM); // the field: outside the castle, not on the road (1.4, 3.2)
const M_TOWN = at(FIELD, SALLY, STORM, CASTLE);
const M_CASTLE = at(CASTLE);
const M_STORM = at(STORM);
const M_PENDING = at(PENDING);

/**
 * The blocks of `side` at the places of `mask` that may take the next hit: those with the most
 * steps (6.31), narrowed by the tie-break policy to one (first listed; protect the best: the
 * worse initiative, then the lower firepower) or, with the random policy, all of them.
 */
function victims(c: CrusaderRexCompiled, s: { steps: number[]; loc: number[] }, side: number, mask: number): number[] {
  let t = -1;
  let ties = 0;
  for (let b = 0; b < c.nb; b++) {
    if (c.side[b] !== side || !((mask >> s.loc[b]) & 1)) continue;
    if (t < 0 || s.steps[b] > s.steps[t]) {
      t = b;
      ties = 1;
    } else if (s.steps[b] === s.steps[t]) {
      ties++;
      if (c.tieBreak === 1 && (c.letter[b] > c.letter[t] || (c.letter[b] === c.letter[t] && c.fp[b] < c.fp[t]))) t = b;
    }
  }
  if (t < 0) return [];
  if (c.tieBreak !== 2 || ties === 1) return [t];
  const most = s.steps[t];
  const tied: number[] = [];
  for (let b = 0; b < c.nb; b++) if (c.side[b] === side && (mask >> s.loc[b]) & 1 && s.steps[b] === most) tied.push(b);
  return tied;
}

/**
 * The next block to act (6.2): the side that fires first (defender, or the castle in a storm),
 * then the other, letter by letter; with Jihad the other side's letters all come first. A block
 * of side x is eligible at the places of masks[x] and not yet in `acted`; within a letter the
 * first listed, or the strongest with the strongest-first order.
 */
function nextToAct(c: CrusaderRexCompiled, s: { steps: number[]; loc: number[]; acted: number }, first: number, jihad: boolean, masks: number[]): number {
  const other = 1 - first;
  const sides = jihad ? [other, other, other, first, first, first] : [first, other, first, other, first, other];
  const letters = jihad ? [0, 1, 2, 0, 1, 2] : [0, 0, 1, 1, 2, 2];
  for (let k = 0; k < 6; k++) {
    let best = -1;
    for (let b = 0; b < c.nb; b++) {
      if (s.acted & (1 << b) || c.side[b] !== sides[k] || c.letter[b] !== letters[k] || !((masks[sides[k]] >> s.loc[b]) & 1)) continue;
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
 * and sallying included), in the castle and on the road, at the end of each round of each game
 * turn (slot 0-2) and after the turn's retreat and attrition (slot 3), listed as summarize.ts
 * lists them.
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
          if (l === FIELD || l === STORM || l === SALLY) v[0] += s.steps[b];
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

export function exactCrusaderRex(c: CrusaderRexCompiled, budget: ExactBudget = { work: EXACT_LIMITS.exactWork }): ExactSummary | null {
  if (battleApplies(c)) return exactBattle(c, budget); // with the round-by-round attrition curve
  if (attritionApplies(c)) return exactAttrition(c);
  return null;
}

// --- the whole battle: field, storm, sally, relief, over game turns ---
//
// A state is every block's steps and place, who attacks in the field and who owns the castle,
// the half-hit (1.5), the game turn and round, the phase of the round, who has acted, the rounds
// fought, the road slots used, and whether the castle fell, was ever besieged or went to
// attrition early. Each step of the chain advances every live state by one action; identical
// states merge. The procedure, with the section of docs/rules/crusader-rex.md each part follows:
//
//  round start   (3.2, 6.5 pseudo-code) reserves arrive in R2/R3 of the first turn; if that makes
//                the field contested while the castle is occupied, a relief force has arrived: the
//                storm is cancelled (stormers back to the field, half-hit lost) and the besieged
//                attack (6.56). "Field" is every block outside the castle and not on the road:
//                stormers and sallying blocks count. R1 is skipped when the besieger's main force
//                is still on the road. Then: a contested field is a field round, the besieged
//                first declaring a sally in R2+ or in an existing siege (6.55); else, with the
//                castle occupied, the besieger declares a storm (6.53, 6.54), else the besieged a
//                sally (they attack an uncontested field), else both pass: on to the next round
//                if the besieged have reserves coming, otherwise attrition at once (4.3).
//  field round   (2.3, 2.7) end checks before every action: a side with no field blocks ends the
//                round, and a defender whose main force is gone with reserves coming loses control
//                of the field (6.41); then defender A, attacker A, ... each block withdraws,
//                harries, retreats, charges or fires by its policy; hits one at a time on the
//                strongest field block (6.31).
//  storm round   (4.4) castle A, stormers A, ...; stormers take full hits, the castle half-hits
//                (1.5); an empty castle falls, unless the besieged have reserves coming: then they
//                attack and the besieger holds the empty castle; no stormer left ends the storm.
//  after R3      (2.8, 6.57) sallies go back in, stormers come out, the half-hit is lost; the
//                attacker retreats from a contested field (a relief force is the attacker); the
//                besieger stays (or retreats, by policy); the castle rolls attrition if besiegers
//                remain; an emptied castle falls.

/** Most blocks the whole-battle chain takes (its state space grows with every block). */
export const BATTLE_MAX_BLOCKS = 10;

export function battleApplies(c: CrusaderRexCompiled): boolean {
  return c.nb <= BATTLE_MAX_BLOCKS;
}

const START = 0; // a round begins
const FIELD_ROUND = 1;
const STORM_ROUND = 2;
const AFTER = 3; // after the rounds of a game turn

/** Battle.key's character codes, reused (a battle has at most BATTLE_MAX_BLOCKS blocks: 21 codes). */
const KEY_CODES: number[] = [];

class Battle {
  constructor(
    public steps: number[],
    public loc: number[],
    public att: number, // the field attacker
    public own: number, // the castle's owner, -1 without a castle
    public half: number, // the castle block carrying a half-hit, or -1
    public turn: number,
    public r: number,
    public phase: number,
    public acted: number, // bitmask of blocks that have acted this round
    public rounds: number,
    public used0: number, // road slots used per side in this game turn's battle
    public used1: number,
    public fell: boolean,
    public ever: boolean, // the castle was occupied at the start of some round
    public early: boolean, // the turn ends before R3 (attrition after both passed, or nobody left)
  ) {}
  copy(): Battle {
    return new Battle(this.steps.slice(), this.loc.slice(), this.att, this.own, this.half, this.turn, this.r, this.phase, this.acted, this.rounds, this.used0, this.used1, this.fell, this.ever, this.early);
  }
  /**
   * The state as a string, one character a field (a block: its steps and place; then the
   * scalars, each offset to be non-negative and all below 2^16): one flat string made at once,
   * which a Map hashes without flattening the joins a template of 12 parts made. Injective for
   * a battle's fixed block count; the maps keep insertion order, so no order depends on it.
   */
  key(): string {
    const n = this.steps.length;
    const a = KEY_CODES;
    a.length = n + 11;
    for (let b = 0; b < n; b++) a[b] = 48 + this.steps[b] * 8 + this.loc[b];
    a[n] = this.att + 2;
    a[n + 1] = this.own + 2;
    a[n + 2] = this.half + 2;
    a[n + 3] = this.turn;
    a[n + 4] = this.r;
    a[n + 5] = this.phase;
    a[n + 6] = this.acted;
    a[n + 7] = this.rounds;
    a[n + 8] = this.used0;
    a[n + 9] = this.used1;
    a[n + 10] = (this.fell ? 1 : 0) | (this.ever ? 2 : 0) | (this.early ? 4 : 0);
    return String.fromCharCode.apply(null, a);
  }
}

function binomialPmf(n: number, p: number): number[] {
  const out: number[] = [];
  for (let k = 0; k <= n; k++) out.push(binom(n, k) * p ** k * (1 - p) ** (n - k));
  return out;
}

export function exactBattle(c: CrusaderRexCompiled, budget: ExactBudget = { work: EXACT_LIMITS.exactWork }): ExactSummary {
  const T = c.turns;
  /** Blocks (or steps) of `side` at the places of `mask`. */
  const count = (s: Battle, side: number, mask: number) => {
    let n = 0;
    for (let b = 0; b < c.nb; b++) if (c.side[b] === side && (mask >> s.loc[b]) & 1) n++;
    return n;
  };
  const stepsOf = (s: Battle, side: number, mask: number) => {
    let n = 0;
    for (let b = 0; b < c.nb; b++) if (c.side[b] === side && (mask >> s.loc[b]) & 1) n += s.steps[b];
    return n;
  };
  const field = (s: Battle, side: number) => count(s, side, M_FIELD);
  const pending = (s: Battle, side: number) => count(s, side, M_PENDING);
  const contested = (s: Battle) => field(s, 0) > 0 && field(s, 1) > 0;
  const castleBlocks = (s: Battle) => (s.own < 0 ? 0 : count(s, s.own, M_CASTLE));
  const inTown = (s: Battle, side: number) => count(s, side, M_TOWN) > 0;
  const moveAll = (s: Battle, from: number, to: number) => s.loc.forEach((l, b) => l === from && (s.loc[b] = to));
  const lose = (s: Battle, b: number) => {
    s.steps[b]--;
    if (s.steps[b] === 0) {
      s.loc[b] = GONE;
      if (s.half === b) s.half = -1;
    }
  };
  /** A block leaves by road if its side has a slot left (6.6, 6.61); otherwise it is eliminated. */
  const canRetreat = (s: Battle, side: number) => c.slots[side] < 0 || (side === 0 ? s.used0 : s.used1) < c.slots[side];
  const leave = (s: Battle, b: number) => {
    const side = c.side[b];
    if (canRetreat(s, side)) {
      if (side === 0) s.used0++;
      else s.used1++;
      s.loc[b] = LEFT;
    } else {
      s.steps[b] = 0;
      s.loc[b] = GONE;
    }
  };

  /**
   * `hits` applied one at a time to the side's blocks at `at`: full hits to the strongest
   * (6.31), or with double defense (1.5) a half-hit first and the next hit on the same block.
   * Each way it can end (several only with the random tie-break), with its probability.
   */
  const applyHits = (s: Battle, side: number, mask: number, hits: number, double: boolean, p: number, out: (t: Battle, q: number) => void): void => {
    const targets = (t: Battle) => (double && t.half >= 0 ? [t.half] : victims(c, t, side, mask));
    const strike = (t: Battle, b: number) => {
      if (!double) lose(t, b);
      else if (t.half === b) {
        t.half = -1;
        lose(t, b);
      } else t.half = b;
    };
    if (c.tieBreak !== 2) {
      // one victim at a time: a single way
      for (let h = 0; h < hits; h++) {
        const vs = targets(s);
        if (vs.length === 0) break; // hits beyond the last block are lost
        strike(s, vs[0]);
      }
      return out(s, p);
    }
    // the random tie-break: every tied block with equal chance, ways merged hit by hit
    let ways = [{ s, p }];
    for (let h = 0; h < hits; h++) {
      const merged = new Map<string, { s: Battle; p: number }>();
      for (const w of ways) {
        const vs = targets(w.s);
        if (vs.length === 0) addState(merged, w.s.key(), w.s, w.p);
        for (const b of vs) {
          const t = vs.length === 1 ? w.s : w.s.copy();
          strike(t, b);
          addState(merged, t.key(), t, w.p / vs.length);
        }
      }
      ways = [...merged.values()];
    }
    for (const w of ways) out(w.s, w.p);
  };

  const tl = timeline(c);
  // finished states, merged as the live ones are (the same state reached by several paths is one)
  const terminal = new Map<string, { s: Battle; p: number }>();
  let live = new Map<string, { s: Battle; p: number }>();
  let next = new Map<string, { s: Battle; p: number }>();
  /** The states held: the next step's and the finished ones (those of the step being advanced are dropped one by one). */
  const held = () => next.size + terminal.size;
  const add = (s: Battle, p: number) => {
    addState(next, s.key(), s, p);
    if (held() > EXACT_LIMITS.exactStates) throw new ExactTooLarge(held(), EXACT_LIMITS.exactStates, true);
  };

  /** The round is over: record it, then the next round, or the end of the turn (early: fill the rounds not fought). */
  const endRound = (s: Battle, p: number) => {
    tl.record(s, s.turn, s.r - 1, p);
    const gone = (side: number) => !inTown(s, side) && pending(s, side) === 0;
    if (s.early || s.fell || gone(0) || gone(1)) {
      for (let slot = s.r; slot < 3; slot++) {
        // the rounds not fought: the reserves still arrive on time (first turn), for the record
        if (s.turn === 1) s.loc.forEach((l, b) => l === PENDING && c.arrive[b] <= slot + 1 && (s.loc[b] = FIELD));
        tl.record(s, s.turn, slot, p);
      }
      s.phase = AFTER;
    } else if (s.r === 3) s.phase = AFTER;
    else {
      s.r++;
      s.phase = START;
    }
    add(s, p);
  };

  /** 6.55: the castle's blocks all sally, by the policy; true if they did. */
  const sally = (s: Battle): boolean => {
    if (c.sally === 0 || s.own < 0) return false;
    const inside = stepsOf(s, s.own, M_CASTLE);
    if (inside === 0) return false;
    if (c.sally === 2 && inside + stepsOf(s, s.own, M_FIELD) < c.sallyRatio * stepsOf(s, 1 - s.own, M_FIELD)) return false;
    moveAll(s, CASTLE, SALLY);
    return true;
  };

  /** 6.53, 6.54: stormers keep storming; the strongest field blocks join up to the castle limit, by the policy. True if anyone storms. */
  const storm = (s: Battle): boolean => {
    const bes = 1 - s.own;
    const already = count(s, bes, M_STORM);
    if (c.storm !== 0 || already > 0) {
      const joining: number[] = [];
      for (let k = already; k < c.rating; k++) {
        let pick = -1;
        // policy.stormers: the most steps, ties in listed order (strongest), or the first listed (listed)
        for (let b = 0; b < c.nb; b++) if (c.side[b] === bes && s.loc[b] === FIELD && !joining.includes(b) && (pick < 0 || (c.stormersListed === 0 && s.steps[b] > s.steps[pick]))) pick = b;
        if (pick < 0) break;
        joining.push(pick);
      }
      const strength = stepsOf(s, bes, M_STORM) + joining.reduce((n, b) => n + s.steps[b], 0);
      // policy.storm_top_up: a storm under way takes them untested (always) or by the test (retest)
      if ((already > 0 && c.stormTopUpRetest === 0) || c.storm === 1 || strength >= c.stormRatio * 2 * stepsOf(s, s.own, M_CASTLE)) for (const b of joining) s.loc[b] = STORM;
    }
    return count(s, bes, M_STORM) > 0;
  };

  const roundStart = (s: Battle, p: number) => {
    const wasContested = contested(s);
    if (s.turn === 1 && s.r > 1) s.loc.forEach((l, b) => l === PENDING && c.arrive[b] === s.r && (s.loc[b] = FIELD));
    if (!wasContested && contested(s) && castleBlocks(s) > 0) {
      // 3.2, 6.56: a relief force arrives: the storm is cancelled and the besieged attack
      moveAll(s, STORM, FIELD);
      s.half = -1;
      s.att = s.own;
    }
    const occupied = castleBlocks(s) > 0;
    if (occupied) s.ever = true;
    const bes = occupied ? 1 - s.own : -1;
    s.acted = 0;
    if (s.r === 1 && occupied && !contested(s) && field(s, bes) === 0 && pending(s, bes) > 0) {
      tl.record(s, s.turn, 0, p); // R1 skipped: the besieger's main force is still on the road
      s.r = 2;
      return add(s, p);
    }
    if (contested(s)) {
      s.rounds++;
      if (occupied && (s.r > 1 || s.turn > 1 || c.existing === 1)) sally(s);
      s.phase = FIELD_ROUND;
      return add(s, p);
    }
    if (occupied && field(s, bes) > 0) {
      if (storm(s)) {
        s.rounds++;
        s.att = bes; // 4.4: the besieger attacks in a storm
        s.phase = STORM_ROUND;
        return add(s, p);
      }
      if (sally(s)) {
        s.rounds++;
        s.att = s.own; // a sally into an uncontested field attacks
        s.phase = FIELD_ROUND;
        return add(s, p);
      }
      // both pass (4.3): the next round if the besieged have reserves coming (or, with the
      // toggle, the besieger), otherwise attrition now
      if (!(pending(s, s.own) > 0 || (c.declinedSallyAttrition === 0 && pending(s, bes) > 0))) s.early = true;
      return endRound(s, p);
    }
    if (pending(s, 0) + pending(s, 1) === 0) s.early = true; // nobody to fight and nobody coming
    endRound(s, p);
  };

  const jihadNow = (s: Battle) => c.jihad === 1 && s.turn === 1 && s.r === 1 && s.att === c.attacker0;

  /** One block's volley: its (hits, self-hits) and their probabilities (made once per steps, firepower, charge). */
  const volleys = new Map<number, [number, number, number][]>();
  const volley = (steps: number, fp: number, charge: boolean): [number, number, number][] => {
    const k = (steps * 8 + fp) * 2 + (charge ? 1 : 0);
    let out = volleys.get(k);
    if (out) return out;
    if (!charge) out = binomialPmf(steps, fp / 6).map((q, h) => [h, 0, q]);
    else {
      const f = Math.min(6, fp + 1);
      out = [...volleyOutcomes(steps, f)].map(([key, q]) => {
        const [h, six] = key.split(',').map(Number);
        return [h, f < 6 ? six : 0, q];
      });
    }
    volleys.set(k, out);
    return out;
  };

  const fieldStep = (s: Battle, p: number) => {
    if (!contested(s)) {
      // 2.7: the round ends; 6.41: a defending main force gone with reserves coming hands the field over
      const def = 1 - s.att;
      if (field(s, def) === 0 && field(s, s.att) > 0 && pending(s, def) > 0 && (c.controlChangeAnyRound === 1 || s.r === 1)) {
        s.att = def;
        if (s.own >= 0 && castleBlocks(s) === 0) s.own = 1 - s.att; // the new defender holds the empty castle
      }
      return endRound(s, p);
    }
    const b = nextToAct(c, s, 1 - s.att, jihadNow(s), [M_FIELD, M_FIELD]);
    if (b < 0) return endRound(s, p);
    s.acted |= 1 << b;
    const side = c.side[b];
    const enemy = 1 - side;
    const weaker = stepsOf(s, side, M_FIELD) < stepsOf(s, enemy, M_FIELD);
    // 6.62: the castle owner's field block (when defending) or a sallying block withdraws inside
    if (c.withdraw === 1 && side === s.own && (s.loc[b] === SALLY || side !== s.att) && weaker) {
      if (s.loc[b] === SALLY || count(s, side, at(CASTLE, SALLY)) < c.rating) {
        s.loc[b] = CASTLE;
        return add(s, p);
      }
    }
    const harry = c.harry === 1 && c.harrier[b] === 1 && s.loc[b] === FIELD && canRetreat(s, side); // 6.33
    if (!harry && c.retreat === 1 && s.loc[b] === FIELD && canRetreat(s, side) && weaker) {
      leave(s, b); // 6.6: retreat instead of firing
      return add(s, p);
    }
    let charge = false; // 6.32
    if (!harry && c.knight[b] === 1 && c.charge === 1) charge = true;
    if (!harry && c.knight[b] === 1 && c.charge === 2) {
      const t = victims(c, s, enemy, M_FIELD)[0];
      charge = t !== undefined && s.steps[t] < s.steps[b];
    }
    for (const [hits, self, q] of volley(s.steps[b], c.fp[b], charge)) {
      const t = s.copy();
      for (let k = 0; k < self && t.loc[b] !== GONE; k++) lose(t, b); // self-hits first, on the charger
      applyHits(t, enemy, M_FIELD, hits, false, p * q, (u, pu) => {
        if (harry) leave(u, b); // the harrier fired; now it leaves by road
        add(u, pu);
      });
    }
  };

  const stormStep = (s: Battle, p: number) => {
    const bes = 1 - s.own;
    if (castleBlocks(s) === 0) {
      if (pending(s, s.own) > 0) {
        // 4.4: the castle is empty, but the besieged have reserves coming: they will attack,
        // and the besieger holds the empty castle
        s.att = s.own;
        s.own = bes;
      } else s.fell = true;
      moveAll(s, STORM, FIELD);
      s.half = -1;
      return endRound(s, p);
    }
    if (count(s, bes, M_STORM) === 0) {
      s.half = -1; // storming repulsed: the half-hit is lost
      return endRound(s, p);
    }
    const a = nextToAct(c, s, s.own, jihadNow(s), s.own === 0 ? [M_CASTLE, M_STORM] : [M_STORM, M_CASTLE]);
    if (a < 0) return endRound(s, p);
    s.acted |= 1 << a;
    if (c.side[a] === bes && c.withdraw === 1 && stepsOf(s, bes, M_STORM) < 2 * stepsOf(s, s.own, M_CASTLE)) {
      s.loc[a] = FIELD; // 6.62: a stormer withdraws to the field
      return add(s, p);
    }
    const toCastle = c.side[a] === bes;
    for (const [hits, , q] of volley(s.steps[a], c.fp[a], false)) {
      const t = s.copy();
      applyHits(t, toCastle ? s.own : bes, toCastle ? M_CASTLE : M_STORM, hits, toCastle, p * q, add);
    }
  };

  const afterRounds = (s: Battle, p: number) => {
    // 2.8: sallies go back in, stormers come out, the half-hit is lost; late reserves join
    moveAll(s, SALLY, CASTLE);
    moveAll(s, STORM, FIELD);
    moveAll(s, PENDING, FIELD);
    s.half = -1;
    if (!s.fell && contested(s)) for (let b = 0; b < c.nb; b++) if (c.side[b] === s.att && s.loc[b] === FIELD) leave(s, b);
    const finish = (t: Battle, q: number) => {
      tl.record(t, t.turn, 3, q);
      if (t.fell || !inTown(t, 0) || !inTown(t, 1) || t.turn === T) {
        for (let turn = t.turn + 1; turn <= T; turn++) for (let slot = 0; slot < 4; slot++) tl.record(t, turn, slot, q);
        addState(terminal, t.key(), t, q);
        if (held() > EXACT_LIMITS.exactStates) throw new ExactTooLarge(held(), EXACT_LIMITS.exactStates, true);
        return;
      }
      t.turn++;
      t.r = 1;
      t.phase = START;
      t.used0 = 0;
      t.used1 = 0;
      t.early = false;
      add(t, q);
    };
    if (s.fell || castleBlocks(s) === 0) return finish(s, p);
    const bes = 1 - s.own;
    if (c.besiegerRetreats === 1) for (let b = 0; b < c.nb; b++) if (c.side[b] === bes && s.loc[b] === FIELD) leave(s, b);
    if (field(s, bes) === 0) return finish(s, p);
    // 6.57: each castle block loses a step with probability attritionOn / 6
    const inside = s.loc.map((l, b) => (l === CASTLE ? b : -1)).filter((b) => b >= 0);
    const q = c.attritionOn / 6;
    for (let mask = 0; mask < 1 << inside.length; mask++) {
      const t = s.copy();
      let pr = p;
      inside.forEach((b, i) => {
        if (mask & (1 << i)) {
          pr *= q;
          lose(t, b);
        } else pr *= 1 - q;
      });
      if (pr === 0) continue;
      if (castleBlocks(t) === 0 && inTown(t, bes)) t.fell = true;
      finish(t, pr);
    }
  };

  const start = new Battle(c.steps0.slice(), c.loc0.slice(), c.attacker0, c.castleOwner0, -1, 1, 1, START, 0, 0, 0, 0, false, false, false);
  // 6.56: a relief force already in the field in R1 of an existing siege attacks the besiegers
  if (c.existing === 1 && castleBlocks(start) > 0 && contested(start)) start.att = start.own;
  live.set(start.key(), { s: start, p: 1 });
  for (let guard = 0; live.size > 0; guard++) {
    if (guard > 100_000) throw new Error('battle chain did not finish');
    budget.work -= live.size;
    if (budget.work < 0) throw new ExactTooLarge(EXACT_LIMITS.exactWork - budget.work, EXACT_LIMITS.exactWork, false);
    next = new Map();
    for (const { s, p } of live.values()) {
      // (each live state is advanced once and dropped: it is changed in place)
      if (s.phase === START) roundStart(s, p);
      else if (s.phase === FIELD_ROUND) fieldStep(s, p);
      else if (s.phase === STORM_ROUND) stormStep(s, p);
      else afterRounds(s, p);
    }
    live = next;
  }
  const result = outcome(
    c,
    [...terminal.values()].map(({ s, p }) => ({
      steps: s.steps,
      p,
      attIn: inTown(s, c.attacker0),
      defIn: inTown(s, 1 - c.attacker0),
      rounds: s.rounds,
      fell: s.fell,
      lifted: s.ever && castleBlocks(s) > 0 && field(s, 1 - s.own) === 0,
    })),
  );
  result.curves.attrition = tl.curve();
  return result;
}
