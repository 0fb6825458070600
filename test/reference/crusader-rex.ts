/**
 * A plain, per-die reference of the Crusader Rex battle and siege procedure, written from
 * docs/rules/crusader-rex.md (§1-§4, §6.5, §9 "A block's turn", "Metrics", "Curves", §10) and
 * seed 000 alone: no import from src/systems/crusader-rex, no tables. Every block is an object
 * with a place; every die is rolled on its own; every hit picks its target anew (1.4).
 * Slow and obvious on purpose; test/crusader-rex-reference.test.ts holds siegesim's fast
 * kernel to it.
 *
 * Covers every option of §10 with every value: town.rating 0-4, town.fortified_port, player1,
 * situation, besieged, attacker, blocks (roster or given in full; steps, at, arrives), turns,
 * retreat_slots, every policy.* and every rules.* key.
 *
 * Where the document left a choice, this reads it so (the differential test's targeted cases
 * show siegesim reads the first four the same way; the other reading fails them):
 * - §3.2 arrival(): "the besieger has any block at main_road or other_road" is read off `at`,
 *   whatever the block's `arrives` (a besieger road block given `arrives: 1` still counts as moved).
 * - §9 step 1 (withdraw): a field block whose castle is full does not withdraw and goes on to
 *   harry, retreat or fire, as if the test had failed.
 * - §4.5 `sally: when_stronger`: "the besieged side's own field steps" count its blocks already
 *   sallying (1.4: "field steps" count field, sallying and storming blocks).
 * - §9 step 4 (`charge: when_strongest_enemy_block_is_weaker`): the enemy's field blocks include
 *   its sallying ones.
 * - §6.3 step 7 "(attacker := besieger)": a storm round makes the besieger the field attacker
 *   (no metric can see it: a storm ends with an uncontested field).
 * - §4.3 both pass: "the besieged side's reserves" are the castle holder's at that moment.
 * - §2.7: the control change moves the castle to the new defender when "the town has a castle
 *   and it is empty" (the pseudo-code), not "a castle town that is not under siege" (the prose).
 */
import seedrandom from 'seedrandom';

// ---- the scenario, as YAML gives it (§10) ------------------------------------------------------

export type Side = 'franks' | 'saracens';
export type At = 'field' | 'castle' | 'town' | 'main_road' | 'other_road';
export interface RefBlock {
  name: string;
  side: Side;
  max: number;
  /** e.g. "B2": letter = initiative, digit = firepower (1.2). */
  rating: string;
  type: string;
  steps?: number;
  at?: At;
  arrives?: number;
}
export interface RefScenario {
  rating: number;
  fortified_port?: boolean;
  player1: Side;
  situation: 'new_battle' | 'existing_siege';
  /** new_battle: the scenario's attacker; existing_siege: the besieged. */
  attacker?: Side;
  besieged?: Side;
  blocks: RefBlock[];
  turns?: number;
  retreat_slots?: { attacker?: number; defender?: number };
  policy?: {
    deployment?: 'field_first' | 'castle_first' | 'all_castle' | 'all_field';
    storm?: 'never' | 'always' | 'when_stronger';
    storm_ratio?: number;
    stormers?: 'strongest' | 'listed';
    storm_top_up?: 'always' | 'retest';
    sally?: 'never' | 'always' | 'when_stronger';
    sally_ratio?: number;
    charge?: 'never' | 'always' | 'when_strongest_enemy_block_is_weaker';
    harry?: 'never' | 'always';
    retreat?: 'never' | 'when_outnumbered';
    withdraw?: 'never' | 'when_weaker';
    tie_break?: 'first_listed' | 'protect_best' | 'random';
    fire_order?: 'listed' | 'strongest_first';
    besieger_after_r3?: 'stay' | 'retreat';
  };
  rules?: {
    relief_delay_when_besieged_without_attack?: boolean;
    p1_other_road_relief_round?: 2 | 3;
    declined_sally_goes_to_attrition?: boolean;
    control_change_any_round?: boolean;
    winter_campaign?: boolean;
    jihad?: 'none' | 'attacker';
  };
}

// ---- what one run counts (§9 "Metrics" and "Curves") --------------------------------------------

export const PROBS = ['p_attacker_wins', 'p_defender_holds', 'p_castle_falls', 'p_siege_lifted', 'p_siege_continues', 'p_both_gone', 'p_guard'] as const;
export const MEANS = ['mean_rounds', 'mean_steps_lost_franks', 'mean_steps_lost_saracens'] as const;
export const PLACES = ['field', 'castle', 'reserves'] as const;
export const ROUNDS = ['1', '2', '3', 'end'] as const;
export const SIDES: readonly Side[] = ['franks', 'saracens'];

/** Successes (k) of a probability, or Σx and Σx² of a mean, over `trials`. */
export interface Moment {
  k: number;
  sum: number;
  sumSq: number;
}
export interface RefResult {
  trials: number;
  metrics: Record<string, Moment>;
  /** survivors.csv: `${side}/${steps}` -> k. */
  survivors: Record<string, Moment>;
  /** attrition.csv: `${turn}/${round}/${side}/${place}` -> Σ, Σ². */
  attrition: Record<string, Moment>;
}

// ---- a block in play ---------------------------------------------------------------------------

type Place = 'field' | 'castle' | 'storm' | 'sally' | 'road' | 'retreated' | 'dead';
interface Block {
  i: number; // place in `blocks:` (listed order)
  name: string;
  side: Side;
  letter: number; // A = 0, B = 1, C = 2 (1.2)
  fp: number;
  harrier: boolean; // 1.6: turcopoles and nomads
  knight: boolean; // 1.6: any Frank block rated B (6.32)
  start: number;
  steps: number;
  place: Place;
  due: number; // first-turn arrival round of a block on the road (§3.2)
  acted: boolean;
}

const other = (s: Side): Side => (s === 'franks' ? 'saracens' : 'franks');
const d6 = (rng: () => number): number => 1 + Math.floor(rng() * 6);

/** The first-turn arrival round of a road block with no `arrives` (§3.2 "Arrival rounds of the scenario's road blocks"). */
function arrival(s: RefScenario, b: RefBlock, A: Side, D: Side): number {
  const main = b.at === 'main_road';
  const onRoad = (side: Side) => s.blocks.some((x) => x.side === side && (x.at === 'main_road' || x.at === 'other_road'));
  if (s.situation === 'new_battle') {
    if (b.side === A) return main ? 1 : 2; // 6.41
    return main ? 2 : 3; // 6.42
  }
  const besieged = D;
  if (b.side === besieged) {
    // relief, 6.56
    const besiegerMoved = onRoad(A);
    const delay = besieged !== s.player1 && ((s.rules?.relief_delay_when_besieged_without_attack ?? true) || besiegerMoved) ? 1 : 0;
    if (main) return 1 + delay;
    return besieged === s.player1 ? (s.rules?.p1_other_road_relief_round ?? 2) : 2 + delay;
  }
  if (besieged === s.player1 && onRoad(besieged)) return main ? 2 : 3; // they reinforce P1's relief's defender (6.42)
  return 1; // into their own uncontested besieging field (5.3)
}

/** Deployment strength (§2.2): steps, then the earlier letter, then the higher firepower. */
const strength = (b: Block) => b.steps * 100 - b.letter * 10 + b.fp;

/** One trial, die by die. `acc` collects its outcome. */
class Trial {
  readonly bs: Block[];
  readonly A: Side; // the scenario's attacker (the besieger of an existing siege)
  readonly D: Side;
  castleHolder: Side | null;
  fa: Side; // the field attacker
  halfhit: Block | null = null;
  castleFell = false;
  held = false;
  rounds = 0;
  guard = false;
  slots: Record<Side, number> = { franks: -1, saracens: -1 };
  readonly p: Required<NonNullable<RefScenario['policy']>>;
  readonly ru: Required<NonNullable<RefScenario['rules']>>;

  constructor(readonly s: RefScenario, readonly rng: () => number) {
    this.A = s.situation === 'new_battle' ? s.attacker! : other(s.besieged!);
    this.D = other(this.A);
    this.p = {
      deployment: 'field_first', storm: 'when_stronger', storm_ratio: 1, stormers: 'strongest', storm_top_up: 'always',
      sally: 'never', sally_ratio: 1, charge: 'never', harry: 'never', retreat: 'never', withdraw: 'never',
      tie_break: 'first_listed', fire_order: 'listed', besieger_after_r3: 'stay', ...s.policy,
    };
    this.ru = {
      relief_delay_when_besieged_without_attack: true, p1_other_road_relief_round: 2, declined_sally_goes_to_attrition: true,
      control_change_any_round: true, winter_campaign: false, jihad: 'none', ...s.rules,
    };
    // §10 blocks[].at / arrives; §3.2 arrival rounds
    this.bs = s.blocks.map((rb, i) => {
      const at = rb.at ?? 'field';
      const steps = rb.steps ?? rb.max;
      let due = 1;
      if (rb.arrives !== undefined) due = rb.arrives;
      else if (at === 'main_road' || at === 'other_road') due = arrival(s, rb, this.A, this.D);
      let place: Place;
      if (due >= 2) place = 'road';
      else place = at === 'castle' ? 'castle' : 'field'; // `town` blocks are placed below; road blocks arriving in R1 are in the field
      return {
        i, name: rb.name, side: rb.side, letter: 'ABC'.indexOf(rb.rating[0]), fp: Number(rb.rating.slice(1)),
        harrier: rb.type === 'turcopoles' || rb.type === 'nomads', knight: rb.side === 'franks' && rb.rating[0] === 'B',
        start: steps, steps, place, due, acted: false,
      };
    });
    this.castleHolder = s.rating >= 1 ? this.D : null;
    this.deploy();
    // §3.2 "Roles at the start of the battle"
    this.fa = this.A;
    if (s.situation === 'existing_siege' && this.castleHolds() && this.contested()) this.fa = this.D;
  }

  // === 2.2 COMBAT DEPLOYMENT (policy.deployment) ===
  deploy(): void {
    if (this.s.rating < 1) return;
    const town = this.bs.filter((b) => this.s.blocks[b.i].at === 'town');
    // every `castle` block uses up room, even one that arrives later into the field (§10 arrives)
    let room = this.s.rating - this.s.blocks.filter((b) => b.at === 'castle').length;
    const put = (order: Block[]) => {
      for (const b of order) {
        if (room <= 0) break;
        if (b.place === 'road') continue; // on the road: skipped, takes no room
        b.place = 'castle';
        room--;
      }
    };
    const asc = [...town].sort((x, y) => strength(x) - strength(y) || x.i - y.i);
    switch (this.p.deployment) {
      case 'all_field':
        return;
      case 'all_castle':
        return put(town);
      case 'castle_first':
        return put([...town].sort((x, y) => strength(y) - strength(x) || x.i - y.i));
      case 'field_first':
        return put(asc.slice(0, -1)); // the last of `asc` (the strongest, the last listed among equals) stays out
    }
  }

  // ---- where the blocks are -----------------------------------------------------------------

  /** Field blocks in the engine's sense (1.4): in the town, outside the castle, not on the road. */
  inField(b: Block): boolean {
    return b.place === 'field' || b.place === 'storm' || b.place === 'sally';
  }
  hasField(side: Side): boolean {
    for (const b of this.bs) if (b.side === side && this.inField(b)) return true;
    return false;
  }
  fieldSteps(side: Side): number {
    let t = 0;
    for (const b of this.bs) if (b.side === side && this.inField(b)) t += b.steps;
    return t;
  }
  castleBlocks(): Block[] {
    return this.bs.filter((b) => b.place === 'castle');
  }
  castleHolds(): boolean {
    for (const b of this.bs) if (b.place === 'castle') return true;
    return false;
  }
  castleSteps(): number {
    let t = 0;
    for (const b of this.bs) if (b.place === 'castle') t += b.steps;
    return t;
  }
  onRoad(side?: Side): boolean {
    for (const b of this.bs) if (b.place === 'road' && (side === undefined || b.side === side)) return true;
    return false;
  }
  inTown(side: Side): boolean {
    for (const b of this.bs) if (b.side === side && (this.inField(b) || b.place === 'castle')) return true;
    return false;
  }
  contested(): boolean {
    return this.hasField('franks') && this.hasField('saracens');
  }
  /** The side not holding the castle. */
  besieger(): Side {
    return other(this.castleHolder ?? this.D);
  }

  // ---- hits (1.4, 1.5, 6.4) -----------------------------------------------------------------

  /**
   * The block among those `may` allows that takes the next hit: the most steps, ties by
   * policy.tie_break (6.4); null when there is none. `this.bs` is in listed order.
   */
  victim(may: (b: Block) => boolean): Block | null {
    let top = 0;
    let tied = 0;
    for (const b of this.bs) {
      if (!may(b)) continue;
      if (b.steps > top) {
        top = b.steps;
        tied = 1;
      } else if (b.steps === top) tied++;
    }
    if (tied === 0) return null;
    // random: each tied block with the same chance; first_listed: the first of them
    let pick = this.p.tie_break === 'random' ? Math.floor(this.rng() * tied) : 0;
    let best: Block | null = null;
    for (const b of this.bs) {
      if (!may(b) || b.steps !== top) continue;
      if (this.p.tie_break === 'protect_best') {
        // the later letter, then the lower firepower takes it; full ties: the first listed
        if (!best || b.letter > best.letter || (b.letter === best.letter && b.fp < best.fp)) best = b;
      } else if (pick-- === 0) return b;
    }
    return best;
  }
  loseStep(b: Block): void {
    b.steps--;
    if (b.steps === 0) {
      b.place = 'dead';
      if (this.halfhit === b) this.halfhit = null;
    }
  }
  /** h hits on `side`'s field blocks (field and sallies), one at a time; beyond the last block they are lost. */
  hitField(side: Side, h: number): void {
    for (let k = 0; k < h; k++) {
      const v = this.victim((b) => b.side === side && (b.place === 'field' || b.place === 'sally'));
      if (!v) return;
      this.loseStep(v);
    }
  }
  hitStormers(h: number): void {
    for (let k = 0; k < h; k++) {
      const v = this.victim((b) => b.place === 'storm');
      if (!v) return;
      this.loseStep(v);
    }
  }
  /** 1.5 double defense: a half-hit first, the next hit on that same block takes a step. */
  hitCastle(h: number): void {
    for (let k = 0; k < h; k++) {
      if (this.halfhit && this.halfhit.place === 'castle') {
        const b = this.halfhit;
        this.halfhit = null;
        this.loseStep(b);
        continue;
      }
      const v = this.victim((b) => b.place === 'castle');
      if (!v) return;
      this.halfhit = v;
    }
  }
  /** 1.3: one d6 per current step, a hit at or below firepower. */
  roll(b: Block, fp: number): { hits: number; sixes: number } {
    let hits = 0;
    let sixes = 0;
    for (let k = 0; k < b.steps; k++) {
      const d = d6(this.rng);
      if (d <= fp) hits++;
      else if (d === 6) sixes++; // a 6 that misses
    }
    return { hits, sixes };
  }

  useSlot(b: Block): boolean {
    const key: Side = b.side; // slots are per scenario side (§2.5)
    if (this.slots[key] === 0) return false;
    if (this.slots[key] > 0) this.slots[key]--;
    return true;
  }
  hasSlot = (b: Block) => this.slots[b.side] !== 0;

  // === 2.3 FIRING ORDER ===
  /** The next block to act among `groups` (each a side and a letter, in order), or null. */
  next(groups: [Side, number][], eligible: (b: Block) => boolean): Block | null {
    for (const [side, letter] of groups) {
      let pick: Block | null = null;
      for (const b of this.bs) {
        if (b.side !== side || b.letter !== letter || b.acted || !eligible(b)) continue;
        if (this.p.fire_order === 'listed') return b; // the first listed
        if (!pick || b.steps > pick.steps) pick = b; // strongest_first: most steps now, ties listed
      }
      if (pick) return pick;
    }
    return null;
  }
  order(att: Side, def: Side, jihad: boolean): [Side, number][] {
    if (jihad) return [[att, 0], [att, 1], [att, 2], [def, 0], [def, 1], [def, 2]]; // 1.6 Jihad
    return [[def, 0], [att, 0], [def, 1], [att, 1], [def, 2], [att, 2]]; // 6.2
  }
  jihadNow(turn: number, r: number, attacking: Side): boolean {
    return this.ru.jihad === 'attacker' && turn === 1 && r === 1 && attacking === this.A;
  }

  // === 2.7 END OF A FIELD BATTLE (field_end) ===
  /** True when the round must end. */
  fieldEnd(r: number): boolean {
    const fd = other(this.fa);
    const attHas = this.hasField(this.fa);
    const defHas = this.hasField(fd);
    if (attHas && defHas) return false;
    if (!defHas && attHas && this.onRoad(fd)) {
      if (this.ru.control_change_any_round || r === 1) {
        const old = this.fa;
        this.fa = fd;
        if (this.castleHolder !== null && !this.castleHolds()) this.castleHolder = old; // the new defender
      }
    }
    return true;
  }

  // === FIELD_ROUND (§6.5, §9 "A block's turn") ===
  fieldRound(turn: number, r: number): void {
    const eligible = (b: Block) => b.place === 'field' || b.place === 'sally';
    for (let guard = 0; ; guard++) {
      if (guard > 200) {
        this.guard = true;
        return;
      }
      if (this.fieldEnd(r)) return;
      const fd = other(this.fa);
      const b = this.next(this.order(this.fa, fd, this.jihadNow(turn, r, this.fa)), eligible);
      if (!b) return;
      b.acted = true;
      const s = b.side;
      const e = other(s);
      // 1. withdraw (6.62)
      if (this.p.withdraw === 'when_weaker' && this.castleHolder === s && (b.place === 'sally' || this.fa !== s) && this.fieldSteps(s) < this.fieldSteps(e)) {
        if (b.place === 'sally') {
          b.place = 'castle';
          continue;
        }
        const inside = this.bs.filter((x) => x.place === 'castle' || x.place === 'sally').length;
        if (inside < this.s.rating) {
          b.place = 'castle';
          continue;
        }
      }
      // 2. harry (6.33): a plain volley, then the retreat by road
      if (this.p.harry === 'always' && b.harrier && b.place === 'field' && this.hasSlot(b)) {
        const { hits } = this.roll(b, b.fp);
        this.hitField(e, hits);
        this.useSlot(b);
        b.place = 'retreated';
        continue;
      }
      // 3. retreat (6.6)
      if (this.p.retreat === 'when_outnumbered' && b.place === 'field' && this.hasSlot(b) && this.fieldSteps(s) < this.fieldSteps(e)) {
        this.useSlot(b);
        b.place = 'retreated';
        continue;
      }
      // 4. fire, a Frank B block charging by policy (6.32)
      let charge = false;
      if (b.knight) {
        if (this.p.charge === 'always') charge = true;
        else if (this.p.charge === 'when_strongest_enemy_block_is_weaker') {
          const top = Math.max(...this.bs.filter((x) => x.side === e && (x.place === 'field' || x.place === 'sally')).map((x) => x.steps));
          charge = top < b.steps;
        }
      }
      const fp = charge ? Math.min(b.fp + 1, 6) : b.fp;
      const { hits, sixes } = this.roll(b, fp);
      if (charge && fp <= 5) for (let k = 0, n = Math.min(sixes, b.steps); k < n; k++) this.loseStep(b); // self-hits first
      this.hitField(e, hits);
    }
  }

  // === STORM_ROUND (§4.4) ===
  stormRound(turn: number, r: number): void {
    const bes = this.besieger();
    const holder = this.castleHolder!;
    this.fa = bes; // a siege battle: attacker := besieger (§6.3 step 7)
    const inRound = (b: Block) => b.place === 'castle' || b.place === 'storm';
    for (let guard = 0; ; guard++) {
      if (guard > 200) {
        this.guard = true;
        return;
      }
      if (this.bs.every((b) => b.place !== 'storm')) {
        this.halfhit = null; // "Storming repulsed"
        return;
      }
      if (!this.castleHolds()) {
        this.halfhit = null;
        if (this.onRoad(holder)) {
          // control switches (4.4): stormers back to the field, the besieger owns the empty castle
          for (const b of this.bs) if (b.place === 'storm') b.place = 'field';
          this.fa = holder;
          this.castleHolder = bes;
        } else {
          this.castleFell = true;
          for (const b of this.bs) if (b.place === 'storm') b.place = 'field';
        }
        return;
      }
      const groups: [Side, number][] = this.order(bes, holder, this.jihadNow(turn, r, bes));
      const b = this.next(groups, inRound);
      if (!b) return;
      b.acted = true;
      if (b.place === 'castle') {
        this.hitStormers(this.roll(b, b.fp).hits);
        continue;
      }
      const stormSteps = this.bs.filter((x) => x.place === 'storm').reduce((t, x) => t + x.steps, 0);
      if (this.p.withdraw === 'when_weaker' && stormSteps < 2 * this.castleSteps()) {
        b.place = 'field';
        continue;
      }
      this.hitCastle(this.roll(b, b.fp).hits);
    }
  }

  // === 4.3 SIEGE DECLARATION: declare_storm ===
  declareStorm(): boolean {
    const bes = this.besieger();
    const storming = this.bs.filter((b) => b.place === 'storm');
    if (this.p.storm === 'never' && storming.length === 0) return false;
    const pool = this.bs.filter((b) => b.side === bes && b.place === 'field');
    if (this.p.stormers === 'strongest') pool.sort((x, y) => y.steps - x.steps || x.i - y.i);
    const cands = pool.slice(0, Math.max(0, this.s.rating - storming.length));
    const steps = [...storming, ...cands].reduce((t, b) => t + b.steps, 0);
    const test = steps >= this.p.storm_ratio * 2 * this.castleSteps();
    const join = (storming.length > 0 && this.p.storm_top_up === 'always') || this.p.storm === 'always' || test;
    if (join) for (const b of cands) b.place = 'storm';
    return this.bs.some((b) => b.place === 'storm');
  }

  // === 4.5 SALLY (policy.sally: every castle block at once) ===
  sallyWanted(): boolean {
    const holder = this.castleHolder!;
    const cs = this.castleSteps();
    if (cs === 0) return false;
    if (this.p.sally === 'never') return false;
    if (this.p.sally === 'always') return true;
    return cs + this.fieldSteps(holder) >= this.p.sally_ratio * this.fieldSteps(other(holder));
  }
  sally(): void {
    for (const b of this.castleBlocks()) b.place = 'sally';
  }

  // === ROUNDS OF ONE GAME TURN (§6.5 battle(), §9's kernel counts) ===
  /** Plays one game turn's rounds; `row(r)` records attrition.csv's row after round r. */
  playTurn(turn: number, row: (r: number) => void): void {
    let stoppedAfter = 3;
    for (let r = 1; r <= 3; r++) {
      // §3.2 arrivals (first game turn only), and the relief-arrival test
      if (turn === 1 && r >= 2) {
        const before = this.contested();
        for (const b of this.bs) if (b.place === 'road' && b.due === r) b.place = 'field';
        if (!before && this.contested() && this.castleHolds()) {
          for (const b of this.bs) if (b.place === 'storm') b.place = 'field';
          this.halfhit = null;
          this.fa = this.castleHolder!;
        }
      }
      if (this.castleHolds()) this.held = true;
      // skip_r1 (§3.2)
      const bes = this.besieger();
      if (r === 1 && this.castleHolds() && !this.hasField(bes) && this.onRoad(bes)) {
        row(r);
        continue;
      }
      for (const b of this.bs) b.acted = false;
      let stop = false;
      if (this.contested()) {
        this.rounds++;
        const mayS = this.castleHolds() && (r >= 2 || this.s.situation === 'existing_siege' || turn >= 2);
        if (mayS && this.sallyWanted()) this.sally();
        this.fieldRound(turn, r);
      } else if (this.castleHolds() && this.hasField(this.besieger())) {
        if (this.declareStorm()) {
          this.rounds++;
          this.stormRound(turn, r);
        } else if (this.sallyWanted()) {
          this.rounds++;
          this.sally();
          this.fa = this.castleHolder!; // a sally into an uncontested field: the besieged attack
          this.fieldRound(turn, r);
        } else {
          // both pass (4.3)
          const coming = this.ru.declined_sally_goes_to_attrition ? this.onRoad(this.castleHolder!) : this.onRoad();
          if (!coming) stop = true;
        }
      } else if (!this.onRoad()) stop = true; // nothing to fight
      if (this.castleFell) stop = true;
      for (const side of SIDES) if (!this.inTown(side) && !this.onRoad(side)) stop = true;
      row(r);
      if (stop) {
        stoppedAfter = r;
        break;
      }
    }
    // §3.2 "Reserves whose round never comes": round by round, for the rows of the rounds not played
    for (let r = stoppedAfter + 1; r <= 3; r++) {
      if (turn === 1) for (const b of this.bs) if (b.place === 'road' && b.due <= r) b.place = 'field';
      row(r);
    }
  }

  // === 2.8 END OF A GAME TURN'S COMBAT (end_of_turn) ===
  endOfTurn(): void {
    for (const b of this.bs) {
      if (b.place === 'sally') b.place = 'castle';
      else if (b.place === 'storm') b.place = 'field';
      else if (b.place === 'road') b.place = 'field';
    }
    this.halfhit = null;
    const leave = (side: Side) => {
      for (const b of this.bs) {
        if (b.side !== side || b.place !== 'field') continue;
        if (this.useSlot(b)) b.place = 'retreated';
        else {
          b.steps = 0;
          b.place = 'dead';
        }
      }
    };
    if (!this.castleFell && this.contested()) leave(this.fa); // compulsory retreat (6.2)
    if (!this.castleFell && this.castleHolds()) {
      const bes = this.besieger();
      if (this.p.besieger_after_r3 === 'retreat' && this.hasField(bes)) leave(bes);
      if (this.hasField(bes)) this.attrition();
    }
  }

  // === 4.7 SIEGE ATTRITION ===
  attrition(): void {
    const port = this.s.fortified_port ?? false;
    const winter = this.ru.winter_campaign;
    const on = port ? (winter ? 2 : 1) : winter ? 4 : 3;
    for (const b of this.castleBlocks()) if (d6(this.rng) <= on) this.loseStep(b);
    if (!this.castleHolds()) this.castleFell = true;
  }
}

/** Runs `trials` trials of `s` with its own RNG (seedrandom, keyed by `key`). */
export function runReference(s: RefScenario, key: string, trials: number): RefResult {
  const rng = seedrandom.alea(`crusader-rex-reference/${key}`); // its own dice, not siegesim's stream
  const turns = s.turns ?? 1;
  const metrics: Record<string, Moment> = {};
  for (const m of [...PROBS, ...MEANS]) metrics[m] = { k: 0, sum: 0, sumSq: 0 };
  const survivors: Record<string, Moment> = {};
  const maxSteps: Record<Side, number> = { franks: 0, saracens: 0 };
  for (const b of s.blocks) maxSteps[b.side] += b.max;
  for (const side of SIDES) for (let k = 0; k <= maxSteps[side]; k++) survivors[`${side}/${k}`] = { k: 0, sum: 0, sumSq: 0 };
  const attrition: Record<string, Moment> = {};
  const cells: Record<string, Moment[]> = {}; // `${turn}/${round}/${side}` -> its field, castle, reserves
  for (let t = 1; t <= turns; t++)
    for (const r of ROUNDS)
      for (const side of SIDES) cells[`${t}/${r}/${side}`] = PLACES.map((pl) => (attrition[`${t}/${r}/${side}/${pl}`] = { k: 0, sum: 0, sumSq: 0 }));
  const addMean = (m: Moment, x: number) => {
    m.sum += x;
    m.sumSq += x * x;
  };

  for (let n = 0; n < trials; n++) {
    const tr = new Trial(s, rng);
    tr.slots = { franks: 0, saracens: 0 };
    const row = (t: number, r: string) => {
      for (const side of SIDES) {
        let field = 0;
        let castle = 0;
        let road = 0;
        for (const b of tr.bs) {
          if (b.side !== side) continue;
          if (tr.inField(b)) field += b.steps;
          else if (b.place === 'castle') castle += b.steps;
          else if (b.place === 'road') road += b.steps;
        }
        const cell = cells[`${t}/${r}/${side}`];
        addMean(cell[0], field);
        addMean(cell[1], castle);
        addMean(cell[2], road);
      }
    };
    let t = 1;
    for (; t <= turns; t++) {
      // retreat slots per scenario side, afresh every game turn (§2.5)
      tr.slots[tr.A] = s.retreat_slots?.attacker ?? -1;
      tr.slots[tr.D] = s.retreat_slots?.defender ?? -1;
      tr.playTurn(t, (r) => row(t, String(r)));
      tr.endOfTurn();
      row(t, 'end');
      if (tr.castleFell || !tr.inTown('franks') || !tr.inTown('saracens')) break; // play stops (§9)
    }
    // game turns after play stopped repeat the last `end` row
    for (let u = t + 1; u <= turns; u++) for (const r of ROUNDS) row(u, r);

    const a = tr.inTown(tr.A);
    const d = tr.inTown(tr.D);
    if (a && !d) metrics.p_attacker_wins.k++;
    if (d && !a) metrics.p_defender_holds.k++;
    if (a && d) metrics.p_siege_continues.k++;
    if (!a && !d) metrics.p_both_gone.k++;
    if (tr.castleFell) metrics.p_castle_falls.k++;
    if (tr.held && tr.castleHolds() && !tr.hasField(other(tr.castleHolder!))) metrics.p_siege_lifted.k++;
    if (tr.guard) metrics.p_guard.k++;
    addMean(metrics.mean_rounds, tr.rounds);
    for (const side of SIDES) {
      const left = tr.bs.filter((b) => b.side === side && b.place !== 'dead').reduce((x, b) => x + b.steps, 0);
      const start = tr.bs.filter((b) => b.side === side).reduce((x, b) => x + b.start, 0);
      addMean(metrics[`mean_steps_lost_${side}`], start - left);
      survivors[`${side}/${left}`].k++;
    }
  }
  return { trials, metrics, survivors, attrition };
}
