/** The firing order of a Crusader Rex round (docs/rules/crusader-rex.md 2.3, 6.2). */
import type { CrusaderRexCompiled } from './compile.js';

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
