/**
 * Sight lines between levels (seed 004 R3-R5): the Thales test and the dead-zone distances.
 * A plain calculation: exact, no simulation.
 *
 * N = level difference between shooter and target, D = hexes between them, D1 = hexes from the
 * lower character to the foot of the obstruction, H = the obstruction's height above the lower
 * character. The shot is possible iff N x D1 >= D x H (R4).
 * From N·D1 ≥ (D1 + D2)·H: D1 ≥ D2·H / (N − H) is a minimum (round up) and D2 ≤ D1·(N − H) / H
 * is a maximum (round down): the DEFAULT. The source says to round both up (R5).
 * Levels (N, H) may be half levels: seed 003's Siege table (1.10) has embankments at 0.5 and
 * siege-tower tops at 2.5 (1.5 under the Siege expansion), and the test holds for any heights.
 */
export interface LosInput {
  n: number;
  d: number;
  d1: number;
  h: number;
  rounding?: 'default' | 'source';
}

export interface LosResult {
  possible: boolean;
  /** N x D1 and D x H, the two sides of the test. */
  lhs: number;
  rhs: number;
  /** D2 = D - D1: the upper character's distance from the obstruction. */
  d2: number;
  /**
   * Smallest whole D1 at which R4 holds with this D2: D1 >= D2·H / (N − H) rounded up when
   * N > H; 0 when H = 0, and when N <= H with D2 = 0; null when no D1 does (N <= H, D2 > 0).
   */
  minD1: number | null;
  /**
   * Largest whole D2 at which R4 holds with this D1: D2 <= D1·(N − H) / H rounded down by
   * DEFAULT (up under `rounding: source`), which is 0 when N = H (only the upper character at
   * the obstruction sees over it); null when H = 0 (any D2) or when no D2 does (N < H, D1 > 0).
   */
  maxD2: number | null;
  rounding: 'default' | 'source';
  /**
   * How much the obstruction hides: `none` when H = 0 (no higher than the lower character: the
   * test holds at every distance); `total` when N < H (no position with D > 0 passes R4: only
   * D = D1 = 0, where both sides are 0); else `partial` (N >= H > 0: with N = H only D2 = 0).
   */
  deadZone: 'none' | 'partial' | 'total';
}

/**
 * R4 rearranged (R5): N·D1 ≥ (D1 + D2)·H ⇔ D1·(N − H) ≥ D2·H. The dead-zone distances are the
 * whole hexes at which exactly that holds, so `possible` and the dead zone never disagree.
 * H = 0 is decided first (N = H = 0 is `none`: the test holds everywhere).
 * @example los({ n: 2, d: 10, d1: 6, h: 1 }) // possible: 2*6 = 12 >= 10*1
 */
export function los(i: LosInput): LosResult {
  const rounding = i.rounding ?? 'default';
  const d2 = i.d - i.d1;
  const lhs = i.n * i.d1;
  const rhs = i.d * i.h;
  const possible = lhs >= rhs;
  if (i.h === 0) return { possible, lhs, rhs, d2, minD1: 0, maxD2: null, rounding, deadZone: 'none' };
  if (i.n <= i.h) {
    // D1·(N − H) ≤ 0 ≤ D2·H: the test holds only where both are 0 (D2 = 0, and D1 = 0 unless N = H)
    const minD1 = d2 === 0 ? 0 : null;
    const maxD2 = i.n === i.h || i.d1 === 0 ? 0 : null;
    return { possible, lhs, rhs, d2, minD1, maxD2, rounding, deadZone: i.n === i.h ? 'partial' : 'total' };
  }
  const minD1 = Math.ceil((d2 * i.h) / (i.n - i.h) - 1e-12) + 0; // + 0: never -0 (D2 = 0)
  const raw = (i.d1 * (i.n - i.h)) / i.h;
  const maxD2 = rounding === 'source' ? Math.ceil(raw - 1e-12) : Math.floor(raw + 1e-12);
  return { possible, lhs, rhs, d2, minD1, maxD2, rounding, deadZone: 'partial' };
}
