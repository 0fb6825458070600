/**
 * The table path's one-draw tables (round-tables.ts, and 6.57's attrition in table-path.ts)
 * against an independent enumeration, on generated battles (fast-check):
 *  - a round of plain volleys (a storm, a field round) from a start state: the end states the
 *    round table draws, with the chances its alias slots give, against the run-by-run loop
 *    played over every outcome of every run's alias table, hits applied one at a time to the
 *    block with the most steps (the first listed among equals; a castle's half-hit first),
 *    written here from docs/rules/crusader-rex.md 1.4 (the seed's 6.31) and 1.5, without the state tables;
 *  - attrition: each castle mask's subsets of blocks losing a step, against q^k (1 - q)^(n - k).
 * Every chance within 2^-31 (each table rounds to multiples of 2^-32). The kernel with these
 * tables is held to the exact chain by crusader-rex-siege.test.ts and crusader-rex.test.ts.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildOrders } from '../src/systems/crusader-rex/order.js';
import { buildTables, tablePathApplies, type Tables } from '../src/systems/crusader-rex/state-tables.js';
import { roundCacheFor, roundTable, type RoundCache } from '../src/systems/crusader-rex/round-tables.js';
import { _attritionTables } from '../src/systems/crusader-rex/table-path.js';
import { ROSTER } from '../src/systems/crusader-rex/roster.js';
import type { CrusaderRexCompiled } from '../src/systems/crusader-rex/compile.js';
import { compiled, SIEGE } from './crusader-rex.shared.js';

const FRANKS = Object.keys(ROSTER).filter((b) => ROSTER[b].side === 'franks');
const SARACENS = Object.keys(ROSTER).filter((b) => ROSTER[b].side === 'saracens');
const TOL = 2 ** -31;

/** The chances an alias table of 2^log slots at `at` gives its outcomes (slot i keeps i when the low 32 - log bits are below THR). */
function aliasChances(thr: Uint32Array, ali: Uint8Array, at: number, log: number): number[] {
  const cap = 2 ** (32 - log);
  const p = new Array<number>(1 << log).fill(0);
  for (let i = 0; i < 1 << log; i++) {
    const keep = Math.min(thr[at + i], cap);
    p[i] += keep / 2 ** 32;
    p[ali[at + i]] += (cap - keep) / 2 ** 32;
  }
  return p;
}

const digits = (x: number, n: number) => Array.from({ length: n }, (_, p) => Math.floor(x / 5 ** p) % 5);
/** The block with the most steps, the first listed among equals (6.31, first_listed). */
function strongest(x: number, n: number): number {
  const d = digits(x, n);
  let best = -1;
  for (let p = 0; p < n; p++) if (d[p] > 0 && (best < 0 || d[p] > d[best])) best = p;
  return best;
}
function fieldHits(x: number, n: number, h: number): number {
  for (let k = 0; k < h && x !== 0; k++) x -= 5 ** strongest(x, n);
  return x;
}
/** Castle hits (1.5): a half-hit on the strongest, the next hit on the same block. */
function castleHits(x: number, half: number, n: number, h: number): [number, number] {
  for (let k = 0; k < h; k++) {
    if (half >= 0) {
      x -= 5 ** half;
      half = -1;
    } else if (x === 0) break;
    else half = strongest(x, n);
  }
  return [x, half];
}

const sideCount = (c: CrusaderRexCompiled, sd: number) => c.side.filter((s) => s === sd).length;

/** The run-by-run loop over every outcome: end state "a,b,half" -> chance. */
function enumerate(c: CrusaderRexCompiled, t: Tables, storm: boolean, o: number, a0: number, b0: number, half0: number): Map<string, number> {
  const own = o >> 1;
  const nA = storm ? sideCount(c, own) : sideCount(c, 0);
  const nB = storm ? sideCount(c, 1 - own) : sideCount(c, 1);
  let states = new Map<string, [number, number, number, number]>([[`${a0},${b0},${half0}`, [a0, b0, half0, 1]]]);
  for (let k = t.runFrom[o]; k < t.runTo[o]; k++) {
    const next = new Map<string, [number, number, number, number]>();
    const put = (a: number, b: number, hf: number, p: number) => {
      const key = `${a},${b},${hf}`;
      const e = next.get(key);
      if (e) e[3] += p;
      else next.set(key, [a, b, hf, p]);
    };
    const fromA = storm ? t.runSide[k] === own : t.runSide[k] === 0;
    const log = storm ? t.runAltLog[k] : t.runLog[k];
    const base = storm ? t.runAlt[k] : t.runBase[k];
    for (const [a, b, hf, p] of states.values()) {
      const at = base + (fromA ? a : b) * 2 ** log;
      if (a === 0 || b === 0 || t.THR[at] === 0xffffffff) {
        put(a, b, hf, p);
        continue;
      }
      aliasChances(t.THR, t.ALI, at, log).forEach((ph, h) => {
        if (ph === 0) return;
        if (fromA) put(a, fieldHits(b, nB, h), hf, p * ph);
        else if (storm) {
          const [x, nh] = castleHits(a, hf, nA, h);
          put(x, b, nh, p * ph);
        } else put(fieldHits(a, nA, h), b, hf, p * ph);
      });
    }
    states = next;
  }
  return new Map([...states.entries()].map(([k, v]) => [k, v[3]]));
}

/** What the round table of the start draws: end state -> chance. */
function tableChances(t: Tables, storm: boolean, o: number, a: number, b: number, half: number, r: RoundCache = roundCacheFor(t)): Map<string, number> {
  const v = roundTable(r, t, storm ? 1 : 0, o, a, b, half);
  const log = v & 31;
  const e = v >>> 5;
  const out = new Map<string, number>();
  const add = (s: number, p: number) => {
    const key = `${s & 0xfff},${(s >>> 12) & 0xfff},${(s >>> 24) - 1}`;
    out.set(key, (out.get(key) ?? 0) + p);
  };
  if (log === 0) {
    add(r.POOL[e + 1], 1);
    return out;
  }
  // outcomes after the guide: (cumulative count - 1) ^ 2^31, end state; the last count is 2^32
  let before = 0;
  for (let j = e + (1 << log); ; j += 2) {
    const cum = ((r.POOL[j] ^ 0x80000000) >>> 0) + 1;
    add(r.POOL[j + 1], (cum - before) / 2 ** 32);
    before = cum;
    if (cum === 2 ** 32) break;
  }
  return out;
}

function expectSame(table: Map<string, number>, exact: Map<string, number>): void {
  for (const [k, p] of exact) expect(Math.abs((table.get(k) ?? 0) - p), `end state ${k}`).toBeLessThanOrEqual(TOL);
  for (const [k, p] of table) expect(exact.has(k) || p === 0, `end state ${k} drawn but not reachable`).toBe(true);
}

/** The shared storm case (crusader-rex.shared.ts): an existing siege stormed every round. */
const SIEGE_BODY = SIEGE as typeof SIEGE & { blocks: { block: string; at?: string }[] };

/** A random start: a state of n blocks (digits 0-4), not empty. */
const startOf = (n: number) => fc.integer({ min: 1, max: 5 ** n - 1 });

describe('crusader-rex round tables: a round of plain volleys as one draw', () => {
  it('a storm: the table gives every end state (castle, its half-hit, stormers) the run-by-run loop reaches, with its chance', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        (nc, ns, f0, s0, ra, rb, rh) => {
          const castle = Array.from({ length: nc }, (_, i) => FRANKS[(f0 + i * 7) % FRANKS.length]);
          const field = Array.from({ length: ns }, (_, i) => SARACENS[(s0 + i * 5) % SARACENS.length]);
          fc.pre(new Set(castle).size === nc && new Set(field).size === ns);
          const c = compiled({
            town: { rating: 3 },
            player1: 'saracens',
            situation: 'existing_siege',
            besieged: 'franks',
            blocks: [...castle.map((block) => ({ block, at: 'castle' })), ...field.map((block) => ({ block }))],
            policy: { storm: 'always' },
          });
          fc.pre(tablePathApplies(c));
          const t = buildTables(c, buildOrders(c));
          const own = c.castleOwner0;
          const o = own * 2;
          fc.pre(t.plainOrder[o] === 1);
          const a = 1 + (ra % (5 ** nc - 1));
          const b = 1 + (rb % (5 ** ns - 1));
          const present = digits(a, nc).flatMap((d, p) => (d > 0 ? [p] : []));
          const half = rh % (present.length + 1) === present.length ? -1 : present[rh % (present.length + 1)];
          expectSame(tableChances(t, true, o, a, b, half), enumerate(c, t, true, o, a, b, half));
        },
      ),
      { numRuns: 40, seed: 3201 },
    );
  });

  it('a field round: the same for the two sides\' fields, either side attacking', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 1000 }), fc.boolean(), startOf(5), startOf(5), (n0, n1, f0, s0, first, ra, rb) => {
        const sar = Array.from({ length: n0 }, (_, i) => SARACENS[(s0 + i * 5) % SARACENS.length]);
        const fr = Array.from({ length: n1 }, (_, i) => FRANKS[(f0 + i * 7) % FRANKS.length]);
        fc.pre(new Set(sar).size === n0 && new Set(fr).size === n1);
        const c = compiled({ town: { rating: 0 }, player1: 'saracens', attacker: 'saracens', blocks: [...sar, ...fr].map((block) => ({ block })) });
        fc.pre(tablePathApplies(c));
        const t = buildTables(c, buildOrders(c));
        const o = first ? 0 : 2;
        fc.pre(t.plainOrder[o] === 1);
        const a = 1 + ((ra - 1) % (5 ** sideCount(c, 0) - 1));
        const b = 1 + ((rb - 1) % (5 ** sideCount(c, 1) - 1));
        expectSame(tableChances(t, false, o, a, b, -1), enumerate(c, t, false, o, a, b, -1));
      }),
      { numRuns: 40, seed: 3202 },
    );
  });

  it('a table is the same made in a fresh cache or after many others, and cases with the same rounds share a cache (what a start draws depends on the start alone)', () => {
    const c = compiled(SIEGE_BODY);
    const t = buildTables(c, buildOrders(c));
    const fresh = (): RoundCache => ({ H: new Int32Array(2 << 14), used: 0, POOL: new Int32Array(1 << 10), top: 0 });
    const used = fresh();
    const o = c.castleOwner0 * 2;
    for (let b = 1; b < 125; b += 3) tableChances(t, true, o, 24, b, -1, used); // others first (the pool grows past its start)
    expect(used.POOL.length).toBeGreaterThan(1 << 10);
    for (const [a, b, half] of [
      [24, 124, -1],
      [13, 62, 0],
      [3, 7, 1],
    ])
      expect([...tableChances(t, true, o, a, b, half, used)]).toEqual([...tableChances(t, true, o, a, b, half, fresh())]);
    // another case with the same rounds (more game turns) finds the same cache; other blocks do not
    const longer = compiled({ ...SIEGE_BODY, turns: 3 });
    expect(roundCacheFor(buildTables(longer, buildOrders(longer)))).toBe(roundCacheFor(t));
    const other = compiled({ ...SIEGE_BODY, blocks: [...SIEGE_BODY.blocks.slice(0, 4), { block: 'Al Adil' }] });
    expect(roundCacheFor(buildTables(other, buildOrders(other)))).not.toBe(roundCacheFor(t));
  });
});

describe('crusader-rex attrition as one draw (6.57)', () => {
  it('each castle mask: every subset of its blocks loses a step with chance q^k (1 - q)^(n - k)', () => {
    for (const on of [1, 2, 3, 4]) {
      const [thr, ali] = _attritionTables(on);
      const q = on / 6;
      for (let m = 1; m < 32; m++) {
        const p = aliasChances(thr, ali, m << 5, 5);
        for (let sub = 0; sub < 32; sub++) {
          let want = 0;
          if ((sub & ~m) === 0) {
            want = 1;
            for (let b = 0; b < 5; b++) if ((m >> b) & 1) want *= (sub >> b) & 1 ? q : 1 - q;
          }
          expect(Math.abs(p[sub] - want), `on ${on}, mask ${m}, subset ${sub}`).toBeLessThanOrEqual(TOL);
        }
      }
    }
  });
});
