/** The firing order of a Crusader Rex round (docs/rules/crusader-rex.md 2.3, 6.2). */
import { CASTLE, PENDING, type CrusaderRexCompiled } from './compile.js';

/**
 * The firing order of 6.2 as four fixed lists of blocks, for first side 0 or 1 and with or
 * without Jihad (list first * 2 + jihad): the side named first (the defender, or the castle in
 * a storm) then the other, letter by letter, each group in listed order; with Jihad the other
 * side's letters all come first. The engine re-picks after every action, which gives the same
 * sequence: no block becomes eligible in the middle of a round.
 */
export function buildOrders(c: CrusaderRexCompiled): Int32Array[] {
  const out: Int32Array[] = [];
  for (let first = 0; first < 2; first++) {
    for (let jihad = 0; jihad < 2; jihad++) {
      const list: number[] = [];
      const groups: [number, number][] = [];
      for (let l = 0; l < 3; l++) {
        if (jihad === 1) groups.push([1 - first, l]);
        else groups.push([first, l], [1 - first, l]);
      }
      if (jihad === 1) for (let l = 0; l < 3; l++) groups.push([first, l]);
      for (const [side, letter] of groups) for (let b = 0; b < c.nb; b++) if (c.side[b] === side && c.letter[b] === letter) list.push(b);
      out.push(Int32Array.from(list));
    }
  }
  return out;
}

/**
 * Whether the strongest-first order (policy.fire_order) can give any outcome a different
 * distribution from the listed order; when not, the listed order's paths (the field and table
 * paths) run the case.
 *
 * The two orders differ only inside one side's letter group (6.2), and within a round such a
 * group's blocks are never hit between their turns (the enemy does not act in between; a
 * charge's self-hits fall on the charger, which has acted). So the strongest-first order is the
 * group's blocks sorted once, at the group's start, by their steps (ties: listed order), and a
 * block's volley is its own steps' dice whenever it comes. Hits go one at a time to the
 * strongest enemy block (6.31, 1.5), so volleys that only fire add up to the same hits in any
 * order, and hits after the enemy's field is empty are lost whichever block scored them. What
 * can tell the orders apart is a block whose turn does something besides firing, or decides on
 * the state the group's earlier turns changed, or takes a first-come resource:
 *  - a knight with a charge policy (6.32): it takes self-hits only if it fires before the enemy
 *    is gone, and the conditional charge looks at the enemy's strongest block now;
 *  - a harrier (6.33): it leaves by road only if it fires before the enemy is gone, and takes a
 *    road slot;
 *  - retreat when outnumbered (6.6) with a limited road (who gets the slots), or in a group
 *    where one block may be sallying (it fires, or withdraws, and so changes the comparison for
 *    a field block that would retreat);
 *  - withdraw when weaker (6.62) with a castle too small for the side's blocks (who gets the
 *    room), or in a group where one block may be sallying and another in the field (a sallying
 *    block may withdraw while a field block of an attacking castle owner must fire).
 * Otherwise every group's turns are all-or-nothing: with retreat and withdraw the comparison
 * (own field steps below the enemy's) holds for all of them or none, since withdrawing and
 * retreating only lower their own side's steps and firing only the enemy's. A stormer's
 * withdrawal (6.62) is all-or-nothing in the same way, and castle blocks only fire, so storms
 * never tell the orders apart. Only blocks that can act in one field round together count: a
 * block that starts in the castle is in the field only when sallying (6.55), and any block may
 * sally once a withdrawal can put it in the castle.
 */
export function fireOrderMatters(c: CrusaderRexCompiled): boolean {
  return fireOrderReason(c) !== null;
}

/** Why the strongest-first order may change the case's outcome (fireOrderMatters), or null. */
export function fireOrderReason(c: CrusaderRexCompiled): string | null {
  if (c.strongestFirst === 0) return null;
  const castle = c.rating > 0;
  // The castle changes hands only when it is empty while its owner has reserves coming (4.4;
  // 6.41, where the new defender holds it), and the new owner's blocks get into it only by
  // withdrawing.
  const ownerReserves = c.loc0.some((l, b) => l === PENDING && c.side[b] === c.castleOwner0);
  const couldOwn = (side: number) => castle && (side === c.castleOwner0 || ownerReserves);
  const couldSally = (b: number) => couldOwn(c.side[b]) && c.sally !== 0 && (c.loc0[b] === CASTLE || c.withdraw === 1);
  const couldField = (b: number) => c.loc0[b] !== CASTLE;
  for (let side = 0; side < 2; side++) {
    const ofSide = (f: (b: number) => boolean) => c.side.filter((x, b) => x === side && f(b)).length;
    // road slots (6.61): none at all means nobody of this side retreats or harries; "few" is some,
    // but not one for each block that may be in the field
    const roads = c.slots[side] !== 0;
    const fewRoads = c.slots[side] > 0 && c.slots[side] < ofSide(couldField);
    // castle room (6.62): short when the side has more blocks than the castle holds
    const fewRooms = couldOwn(side) && ofSide(() => true) > c.rating;
    for (let letter = 0; letter < 3; letter++) {
      const group: number[] = [];
      for (let b = 0; b < c.nb; b++) if (c.side[b] === side && c.letter[b] === letter && (couldField(b) || couldSally(b))) group.push(b);
      if (group.length < 2) continue;
      const fielders = group.filter(couldField).length;
      // one block sallying while another is in the field (two distinct blocks)
      const mixed = group.some((b) => couldSally(b) && group.some((o) => o !== b && couldField(o)));
      if (c.charge !== 0 && group.some((b) => c.knight[b] === 1)) return 'charge';
      if (c.harry !== 0 && roads && group.some((b) => c.harrier[b] === 1 && couldField(b))) return 'harry';
      if (c.retreat !== 0 && roads && mixed) return 'retreat beside a sally';
      if (c.retreat !== 0 && fewRoads && fielders >= 2) return 'retreat with few roads';
      if (c.withdraw !== 0 && mixed) return 'withdraw beside a sally';
      if (c.withdraw !== 0 && fewRooms && fielders >= 2) return 'withdraw with little room';
    }
  }
  return null;
}
