/**
 * The Crusader Rex kernel: one battle location over one or more game turns, following the
 * v2.0 rules as the Rally the Troops engine resolves them (docs/rules/crusader-rex.md 2-4, 6.5).
 * Four paths run the same rules: the closed field path (closed-field-path.ts) for a field
 * battle whose blocks are all in the field from the start, with no charge (the reference
 * battle); the field run path (field-run-path.ts) for the other plain field battles (no castle,
 * no harry or retreat choices, a fixed tie-break, at most 5 blocks a side); the table path
 * (table-path.ts, its tables built in state-tables.ts) for
 * every other battle with at most 5 blocks a side (but the first-listed stormers of
 * policy.stormers: listed, which it cannot pick); and the volley path (volley-path.ts), block by
 * block, for the rest. The fast paths fire in listed order, so they take the strongest-first
 * order only where it cannot change the outcome (order.ts fireOrderMatters). The accumulator's
 * layout is in layout.ts.
 */
import type { RngState } from '../../engine/rng.js';
import type { Kernel, Trace } from '../types.js';
import type { CrusaderRexCompiled } from './compile.js';
import { buildClosedField, closedFieldApplies, exactAliasTable, hitCounts, runClosedField, type ClosedField } from './closed-field-path.js';
import { _general, runGeneral, useGeneral } from './volley-path.js';
import { buildFieldTables, fieldAliasTable, fieldPathApplies, runField, useFieldTables, type FieldTables } from './field-run-path.js';
import { accLengthCrusaderRex } from './layout.js';
import { buildOrders, fireOrderReason } from './order.js';
import { aliasTable, buildTables, tablePathApplies, type Tables } from './state-tables.js';
import { _plainCase, _setPlainOff as setPlainOff, runTable, useTables, walkPlays } from './table-path.js';

export { A_ATT_WINS, A_BOTH_GONE, A_CONTINUES, A_DEF_HOLDS, A_FALLS, A_GUARD, A_LIFTED, A_LOST, A_ROUNDS, SURV, accLengthCrusaderRex, attrBase, maxAll } from './layout.js';

/** The current trial's generator state, drawn from the chunk's stream at each trial's start. */
const TRIAL: RngState = new Int32Array(4);

/**
 * Everything derived from one compiled case (orders, each side's blocks, the field or table
 * path's tables), made once and kept: with paired variants the engine calls the kernel block by
 * block, alternating cases, so switching must only swap references (rebuilding the tables on
 * every call would cost milliseconds each time).
 */
interface Prepared {
  orders: Int32Array[];
  sideBlocks: Int32Array[];
  field: FieldTables | null;
  /** The closed field path's tables (closedFieldApplies), or null. */
  closed: ClosedField | null;
  /** The table path's tables; undefined until needed (a field battle uses them only when tests force the table path). */
  tables: Tables | null | undefined;
}
const prepared = new WeakMap<CrusaderRexCompiled, Prepared>();
const NO_ORDER = new Int32Array(0);
/**
 * The same, by content: a worker receives a fresh copy of the compiled case with every chunk,
 * and building the tables (milliseconds) would cost more than the chunk's 16 384 battles. The
 * most recent cases are kept (a sweep visits its points in order).
 */
const preparedByContent = new Map<string, Prepared>();
const PREPARED_KEEP = 64;

function preparedFor(c: CrusaderRexCompiled): Prepared {
  let p = prepared.get(c);
  if (p) return p;
  const key = JSON.stringify(c);
  p = preparedByContent.get(key);
  if (p) preparedByContent.delete(key); // re-inserted below as the most recent
  else {
    // The Jihad orders (odd indices: the attacker's letters first, 6.2) are played only when
    // the scenario's attacker declares a Jihad (rules.jihad), so only then are their run tables
    // made: a 4-block side's run of all its blocks was a third of the reference battle's
    // tables (prep 12 -> 8 ms a worker).
    const orders = buildOrders(c).map((o, i) => (i % 2 === 1 && c.jihad !== 1 ? NO_ORDER : o));
    p = {
      orders,
      sideBlocks: [0, 1].map((side) => Int32Array.from(c.side.map((sd, b) => (sd === side ? b : -1)).filter((b) => b >= 0))),
      field: null,
      closed: closedFieldApplies(c) ? buildClosedField(c, orders) : null,
      tables: undefined,
    };
  }
  preparedByContent.set(key, p);
  if (preparedByContent.size > PREPARED_KEEP) preparedByContent.delete(preparedByContent.keys().next().value!);
  prepared.set(c, p);
  return p;
}

/**
 * Which path runs: the kernel's choice, or one forced by the tests ('field': the field path for
 * a closed field battle too, 'table': the table path for a field battle too, 'table-rounds': the
 * table path playing a plain case round by round instead of as a walk (playWalk), 'general').
 */
export type CrusaderRexPath = 'kernel' | 'field' | 'table' | 'table-rounds' | 'general';
let forced: CrusaderRexPath = 'kernel';

const FIELD = 0;
const TABLE = 1;
const GENERAL = 2;
const CLOSED = 3;
let current: CrusaderRexCompiled | null = null;
let path = GENERAL;
let closed: ClosedField | null = null;

function ensure(c: CrusaderRexCompiled): void {
  if (current === c) return;
  current = c;
  const p = preparedFor(c);
  useGeneral(c, p.orders, p.sideBlocks);
  if (forced === 'general') path = GENERAL;
  else if (p.closed && forced === 'kernel') {
    path = CLOSED;
    closed = p.closed;
  } else if (forced !== 'table' && forced !== 'table-rounds' && fieldPathApplies(c)) {
    if (p.field === null) p.field = buildFieldTables(c, p.orders);
    path = FIELD;
    useFieldTables(p.field);
  } else {
    if (p.tables === undefined) p.tables = tablePathApplies(c) ? buildTables(c, p.orders) : null;
    path = p.tables ? TABLE : GENERAL;
    if (p.tables) useTables(p.tables);
  }
}

/** `hold` (the Kernel contract): the table path's walk keeps its edge counts for the next call on `c` (the other paths add every call's sums at once). */
export function runCrusaderRex(c: CrusaderRexCompiled, stream: RngState, trials: number, acc: Float64Array, trace?: Trace, hold?: boolean): void {
  ensure(c);
  if (path === CLOSED) runClosedField(closed!, stream, trials, acc, trace);
  else if (path === FIELD) runField(c, TRIAL, stream, trials, acc, trace);
  else if (path === TABLE) runTable(c, TRIAL, stream, trials, acc, trace, hold === true);
  else runGeneral(c, TRIAL, stream, trials, acc, trace);
}

/**
 * Whether the case's calls can write outcome codes (the Kernel contract's `outcomes`): the table
 * path's walk, whose trial ends on an outcome that fixes every paired slot's change (OUTV), and
 * the closed and field paths, whose trials end on their outcome, rounds and steps lost.
 */
function outcomesCrusaderRex(c: CrusaderRexCompiled): boolean {
  ensure(c);
  return path === CLOSED || path === FIELD || (path === TABLE && walkPlays(c));
}

export const crusaderRexKernel: Kernel<CrusaderRexCompiled> = {
  run: runCrusaderRex,
  accLength: accLengthCrusaderRex,
  outcomes: outcomesCrusaderRex,
  release: (c) => void prepared.delete(c),
};

/** The dice tables of the general path (tests check them die by die). */
export const _tables = _general.tables;

/** Test hooks: one trial's starting state, single rules steps on it, the path switch. */
export const _internals = {
  start(c: CrusaderRexCompiled): void {
    ensure(c);
    _general.startTrial(c);
  },
  steps: _general.steps,
  hitCastle: _general.hitCastle,
  buildOrders,
  aliasTable,
  fieldAliasTable,
  tablePathApplies,
  fieldPathApplies,
  closedFieldApplies,
  exactAliasTable,
  hitCounts,
  fireOrderReason,
  /** Whether the case the kernel last ran on the table path is plain (played as a walk, playWalk, unless 'table-rounds'). */
  plainCase: _plainCase,
  /** The path the kernel runs next (tests compare the paths with each other). */
  setPath(p: CrusaderRexPath): void {
    forced = p;
    current = null;
    setPlainOff(p === 'table-rounds');
  },
};
