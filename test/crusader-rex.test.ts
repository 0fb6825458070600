import { beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { exactScenario, prepareExact, runScenario, validateText, CHECK_Z_LIMIT } from '../src/api.js';
import { EXACT_LIMITS, ExactTooLarge } from '../src/systems/types.js';
import { MSG } from '../src/scenario/messages.js';
import { CASTLE, FIELD, PENDING } from '../src/systems/crusader-rex/compile.js';
import { _internals as KI, _tables, type CrusaderRexPath } from '../src/systems/crusader-rex/kernel.js';
import { attritionApplies, battleApplies, exactAttrition, exactBattle } from '../src/systems/crusader-rex/exact.js';
import { _closedTest, buildClosedField, exactAliasTableBits } from '../src/systems/crusader-rex/closed-field-path.js';
import { merge, zAll, zDiff, type Tree } from './helpers.js';
import { yieldToEventLoop, agreesWithExact, agreesWithGeneral, att, compiled, down, FIELD_BATTLE, kernelAcc, m, pair, SIEGE, up, valid, withGeneral } from './crusader-rex.shared.js';

// every test here runs synchronously for seconds: let the worker answer vitest between tests
beforeEach(yieldToEventLoop);

const HEAD = 'name: cr\nsystem: crusader-rex\nseed: crusader-tests\n';

describe('crusader-rex: dice tables (1.3)', () => {
  it('one draw per volley has exactly the dice distribution', () => {
    // HITS[f][s] over all 6^s rolls must count hits like s dice at or below f, sixes likewise
    for (let f = 0; f <= 6; f++)
      for (let s = 1; s <= 4; s++) {
        const t = _tables.HITS[f][s];
        let mean = 0;
        for (let d = 0; d < t.length; d++) mean += t[d];
        expect(mean / t.length).toBeCloseTo((s * f) / 6, 12);
      }
    expect(_tables.HITS[2][2].filter((h) => h === 2).length).toBe(4); // 2 dice both <= 2: 4 of 36
    expect(_tables.SIXES[3].reduce((a, b) => a + b, 0) / 216).toBeCloseTo(0.5, 12);
  });
});

describe('crusader-rex: road timing (3.2, 3.3) and deployment (6.1)', () => {
  it('case A, new siege: R1 2 v 3, R2 4 v 4, R3 5 v 4', () => {
    const c = compiled({
      town: { rating: 3 },
      player1: 'saracens',
      attacker: 'saracens',
      blocks: [
        { block: 'King Guy', at: 'town' },
        { block: 'Balian', at: 'town' },
        { block: 'Saladin', at: 'main_road' },
        { block: 'Al Adil', at: 'main_road' },
        { block: 'Keukburi', at: 'main_road' },
        { block: 'Turks 1', at: 'other_road' },
        { block: 'Conrad', at: 'main_road' },
        { block: 'Jerusalem Templars', at: 'main_road' },
        { block: 'Walter', at: 'other_road' },
      ],
      policy: { deployment: 'all_field' },
    });
    expect(c.arrive).toEqual([0, 0, 1, 1, 1, 2, 2, 2, 3]);
    const byRound = (side: number, r: number) => c.side.filter((s, b) => s === side && (c.arrive[b] === 0 || c.arrive[b] <= r)).length;
    expect([1, 2, 3].map((r) => [byRound(0, r), byRound(1, r)])).toEqual([
      [2, 3],
      [4, 4],
      [5, 4],
    ]);
  });
  const oldSiege = (p1: string, besieged: string) => ({
    town: { rating: 3 },
    player1: p1,
    situation: 'existing_siege',
    besieged,
    blocks: [
      { block: 'Balian', at: 'castle' },
      { block: 'Walter', at: 'castle' },
      { block: 'Zangi' },
      { block: 'Sanjar' },
      { block: 'Conrad', at: 'main_road' },
      { block: 'Josselin', at: 'other_road' },
    ],
  });
  it('case B, old siege (P1 besieged): relief R1 and R2 (or R3, the seed figure); P2 reinforcements R2, R3', () => {
    const body = merge(oldSiege('franks', 'franks'), { blocks: [...(oldSiege('franks', 'franks').blocks as Tree[]), { block: 'Turks 1', at: 'main_road' }, { block: 'Kurds 3', at: 'other_road' }] });
    expect(compiled(body).arrive).toEqual([0, 0, 0, 0, 1, 2, 2, 3]);
    expect(compiled(merge(body, { rules: { p1_other_road_relief_round: 3 } })).arrive).toEqual([0, 0, 0, 0, 1, 3, 2, 3]);
  });
  it('case C, old siege #2 (P2 besieged, P1 passes): relief R2, R3 (engine) or R1, R2', () => {
    expect(compiled(oldSiege('saracens', 'franks')).arrive).toEqual([0, 0, 0, 0, 2, 3]);
    expect(compiled(merge(oldSiege('saracens', 'franks'), { rules: { relief_delay_when_besieged_without_attack: false } })).arrive).toEqual([0, 0, 0, 0, 1, 2]);
  });
  it('deployment policies fill the castle up to its rating', () => {
    const body = (d: string) => ({
      town: { rating: 2 },
      player1: 'saracens',
      attacker: 'saracens',
      blocks: [{ block: 'Saladin' }, { block: 'King Guy', at: 'town' }, { block: 'Genoa Pilgrims', at: 'town', steps: 2 }, { block: 'Conrad', at: 'town' }],
      policy: { deployment: d },
    });
    expect(compiled(body('all_castle')).loc0).toEqual([FIELD, CASTLE, CASTLE, FIELD]);
    expect(compiled(body('all_field')).loc0).toEqual([FIELD, FIELD, FIELD, FIELD]);
    expect(compiled(body('castle_first')).loc0).toEqual([FIELD, CASTLE, FIELD, CASTLE]); // the strongest two: King Guy, Conrad
    expect(compiled(body('field_first')).loc0).toEqual([FIELD, CASTLE, CASTLE, FIELD]); // the weakest inside, the strongest (Conrad) out
    expect(compiled(merge(body('all_castle'), { blocks: [{ block: 'Saladin', at: 'other_road' }, { block: 'King Guy', at: 'town' }] })).loc0).toEqual([PENDING, CASTLE]);
  });
  it('bad input names the block', () => {
    const v = validateText('cr.yaml', `${HEAD}trials: 10\n${stringify({ ...FIELD_BATTLE, blocks: [{ block: 'Saladdin' }, { block: 'Tartus Templars', steps: 3 }] })}`);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['blocks[0].block', 'blocks[1].steps']));
  });
  it('only the castle\'s side starts in it or is deployed into it: an attacker or besieger block at `town` or `castle` is refused, the holder\'s kept', () => {
    const issues = (body: object) => {
      const v = validateText('cr.yaml', `${HEAD}trials: 10\n${stringify(body)}`);
      return v.ok ? [] : v.issues.map((i) => `${i.path}: ${i.message}`);
    };
    const battle = { town: { rating: 2 }, player1: 'saracens', attacker: 'saracens' };
    expect(issues({ ...battle, blocks: [{ block: 'Saladin' }, { block: 'Zangi', at: 'town' }, { block: 'King Guy', at: 'town' }] })).toEqual([
      'blocks[1].at: `town` is for the castle\'s side (franks); the attacker\'s blocks are in the field or on a road',
    ]);
    expect(issues({ ...battle, blocks: [{ block: 'Saladin', at: 'castle' }, { block: 'King Guy', at: 'castle' }] })).toEqual([
      'blocks[0].at: `castle` is for the castle\'s side (franks); the attacker\'s blocks are in the field or on a road',
    ]);
    const siege = { town: { rating: 2 }, player1: 'saracens', situation: 'existing_siege', besieged: 'franks' };
    expect(issues({ ...siege, blocks: [{ block: 'Saladin', at: 'castle' }, { block: 'King Guy', at: 'castle' }] })).toEqual([
      'blocks[0].at: `castle` is for the castle\'s side (franks); the besieger\'s blocks are in the field or on a road',
    ]);
    // a custom block names its side; the castle's own blocks at `town`/`castle` are fine
    expect(issues({ ...siege, blocks: [{ name: 'Sappers', side: 'saracens', max: 2, rating: 'C1', type: 'nomads', at: 'town' }, { block: 'King Guy', at: 'castle' }, { block: 'Conrad', at: 'town' }] })).toEqual([
      'blocks[0].at: `town` is for the castle\'s side (franks); the besieger\'s blocks are in the field or on a road',
    ]);
    expect(issues({ ...battle, blocks: [{ block: 'Saladin' }, { block: 'King Guy', at: 'town' }, { block: 'Conrad', at: 'castle' }] })).toEqual([]);
  });
});

describe('crusader-rex: the table path (base-5 places, runs of volleys, one alias draw each)', () => {
  // hit-count distributions for the alias tables of both table paths
  const binom = (n: number, p: number) => Array.from({ length: n + 1 }, (_, k) => {
    let c = 1;
    for (let j = 0; j < k; j++) c = (c * (n - j)) / (j + 1);
    return c * p ** k * (1 - p) ** (n - k);
  });
  const conv = (a: number[], b: number[]) => Array.from({ length: a.length + b.length - 1 }, (_, h) => a.reduce((s, x, i) => s + x * (b[h - i] ?? 0), 0));
  const ALIAS_DISTS = [
    binom(4, 3 / 6), // one block
    conv(conv(binom(4, 3 / 6), binom(4, 2 / 6)), binom(4, 1 / 6)), // Saladin, Al Adil, Turks 3
    [1, 4, 6].reduce((d, _, i) => conv(d, binom(4, (i + 1) / 6)), conv(binom(4, 1 / 6), binom(4, 6 / 6))), // 20 dice, one sure
    [0, 0, 1], // always 2
    binom(20, 1 / 6), // tails far below 2^-32
  ];
  it('alias tables give every hit count its probability to within 2^-32', async () => {
    const { _internals: K_ } = await import('../src/systems/crusader-rex/kernel.js');
    // 2^logK slots, the smallest that hold the outcomes: slot i keeps i below its threshold (of
    // 2^(32 - logK) draws), else gives its alias
    for (const dist of ALIAS_DISTS) {
      for (let logK = Math.ceil(Math.log2(dist.length)); logK <= 5; logK++) {
        const K = 2 ** logK;
        const thr = new Uint32Array(K);
        const ali = new Uint8Array(K);
        K_.aliasTable(dist, thr, ali, 0, logK);
        const mass = new Array<number>(K).fill(0);
        for (let i = 0; i < K; i++) {
          mass[i] += thr[i];
          mass[ali[i]] += 2 ** (32 - logK) - thr[i];
        }
        expect(mass.reduce((a, b) => a + b, 0)).toBe(2 ** 32);
        for (let h = 0; h < K; h++) expect(Math.abs(mass[h] / 2 ** 32 - (dist[h] ?? 0)), `h = ${h}, ${K} slots`).toBeLessThanOrEqual(2 ** -32);
        expect(thr[0]).not.toBe(0xffffffff); // marks "no dice"
      }
    }
    const none = new Uint32Array(32);
    K_.aliasTable([1], none, new Uint8Array(32), 0);
    expect(none[0]).toBe(0xffffffff);
  });
  it('alias tables are the same bits as the plain construction (Vose over the largest remainders, in arrays)', async () => {
    const { _internals: K_ } = await import('../src/systems/crusader-rex/kernel.js');
    // the construction the table path had before its scratch arrays: the dice must not change
    const reference = (dist: number[], thr: Uint32Array, ali: Uint8Array, logK: number) => {
      const K = 1 << logK;
      const cap = 2 ** (32 - logK);
      const exact = Array.from({ length: K }, (_, h) => (dist[h] ?? 0) * 2 ** 32);
      const w = exact.map(Math.floor);
      let left = 2 ** 32 - w.reduce((a, b) => a + b, 0);
      for (const h of exact.map((_, i) => i).sort((i, j) => exact[j] - w[j] - (exact[i] - w[i]) || i - j)) {
        if (left <= 0) break;
        w[h]++;
        left--;
      }
      const small: number[] = [];
      const large: number[] = [];
      for (let i = 0; i < K; i++) (w[i] < cap ? small : large).push(i);
      for (let i = 0; i < K; i++) {
        thr[i] = cap;
        ali[i] = i;
      }
      while (small.length > 0 && large.length > 0) {
        const sI = small.pop()!;
        const lI = large[large.length - 1];
        thr[sI] = w[sI];
        ali[sI] = lI;
        w[lI] -= cap - w[sI];
        if (w[lI] < cap) {
          large.pop();
          small.push(lI);
        }
      }
    };
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const dists = [...ALIAS_DISTS];
    for (let i = 0; i < 300; i++) {
      // sums of binomials like a run's, and uniform ones (equal remainders: ties broken by index)
      let d = [1];
      for (let b = 1 + Math.floor(rand() * 5); b > 0; b--) d = conv(d, binom(Math.floor(rand() * 5), (1 + Math.floor(rand() * 6)) / 6));
      dists.push(d, Array.from({ length: 2 + (i % 20) }, (_, _h, n = 2 + (i % 20)) => 1 / n));
    }
    for (const dist of dists) {
      if (dist.length === 1) continue;
      for (let logK = Math.ceil(Math.log2(dist.length)); logK <= 5; logK++) {
        const got = [new Uint32Array(32), new Uint8Array(32)] as const;
        const want = [new Uint32Array(32), new Uint8Array(32)] as const;
        K_.aliasTable(dist, got[0], got[1], 0, logK);
        reference(dist, want[0], want[1], logK);
        expect([...got[0]], `${dist.length} outcomes, ${2 ** logK} slots`).toEqual([...want[0]]);
        expect([...got[1]]).toEqual([...want[1]]);
      }
    }
  });
  it('tables made through the caches are the tables made with none (every bundled case, tie-breaks, changed firepower and charge)', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const { buildTables, _tableCaches, tablePathApplies } = await import('../src/systems/crusader-rex/state-tables.js');
    const { buildOrders } = await import('../src/systems/crusader-rex/order.js');
    const { compileCrusaderRex } = await import('../src/systems/crusader-rex/compile.js');
    const cases: ReturnType<typeof compileCrusaderRex>[] = [];
    for (const f of readdirSync('scenarios/crusader-rex').sort()) {
      const v = validateText(f, readFileSync(`scenarios/crusader-rex/${f}`, 'utf8'));
      if (!v.ok) throw new Error(f);
      for (const pt of v.value.points)
        for (const va of pt.variants)
          for (const tieBreak of [0, 1, 2]) {
            const c = { ...compileCrusaderRex(va.scenario), tieBreak };
            cases.push(c);
            // the same case with one block's firepower changed, and with the other charge rule:
            // a cache that missed a part of its key would hand these the first one's tables
            if (tieBreak === 0) cases.push({ ...c, fp: c.fp.map((x, b) => (b === c.nb - 1 ? (x % 6) + 1 : x)) }, { ...c, charge: (c.charge + 1) % 3 });
          }
    }
    const made = (c: (typeof cases)[number]) => buildTables(c, buildOrders(c)) as unknown as Record<string, ArrayLike<number>>;
    const usable = cases.filter(tablePathApplies);
    expect(usable.length).toBeGreaterThan(100);
    _tableCaches.use(false);
    const fresh = usable.map(made);
    _tableCaches.use(true);
    _tableCaches.clear();
    let compared = 0;
    usable.forEach((c, i) => {
      const t = made(c);
      for (const [k, want] of Object.entries(fresh[i])) {
        const got = t[k];
        expect(got.constructor, k).toBe(want.constructor);
        expect(got.length, k).toBe(want.length);
        let first = -1;
        for (let j = 0; j < want.length && first < 0; j++) if (got[j] !== want[j]) first = j;
        expect(first, `case ${i}: ${k} differs`).toBe(-1);
        compared++;
      }
    });
    expect(compared).toBe(usable.length * Object.keys(fresh[0]).length);
  });

  // The table path sums a run's volleys and draws the sum from its exact distribution; the
  // general path rolls one volley at a time. Different dice, the same battle: two independent
  // samples that must agree on every metric and curve point.
  const cases: [string, Tree][] = [
    ['reference battle', FIELD_BATTLE],
    ['reserves, control change, Jihad, protect the best, one road slot', merge(FIELD_BATTLE, {
      blocks: [{ block: 'Saladin' }, { block: 'Turks 1' }, { block: 'Al Adil', at: 'other_road' }, { block: 'Genoa Pilgrims', steps: 1 }, { block: 'Conrad', at: 'main_road' }, { block: 'Balian', at: 'other_road' }],
      policy: { tie_break: 'protect_best' },
      rules: { jihad: 'attacker' },
      retreat_slots: { attacker: 1 },
      turns: 2,
    })],
    ['knights charge always (6.32), reserves, Jihad', merge(FIELD_BATTLE, {
      blocks: [{ block: 'Saladin' }, { block: 'Turks 1' }, { block: 'Al Adil', at: 'other_road' }, { block: 'King Guy' }, { block: 'Genoa Pilgrims' }, { block: 'Conrad', at: 'main_road' }, { block: 'Richard', at: 'other_road' }],
      policy: { charge: 'always' },
      rules: { jihad: 'attacker' },
    })],
    ['knights charge when the enemy\'s strongest is weaker, protect the best', merge(FIELD_BATTLE, {
      blocks: [{ block: 'Richard' }, { block: 'Robert' }, { block: 'Jerusalem Hospitallers', steps: 2 }, { block: 'Saladin', steps: 3 }, { block: 'Taqi al Din' }, { block: 'Arabs 3' }],
      attacker: 'franks',
      player1: 'franks',
      policy: { charge: 'when_strongest_enemy_block_is_weaker', tie_break: 'protect_best' },
    })],
    ['five blocks a side, strongest first in hit order ties', merge(FIELD_BATTLE, {
      blocks: ['Saladin', 'Al Adil', 'Turks 3', 'Kurds 1', 'Zangi', 'King Guy', 'Conrad', 'Jerusalem Templars', 'Genoa Pilgrims', 'Balian'].map((block) => ({ block })),
      policy: { tie_break: 'protect_best' },
    })],
    ['harrying, retreat when outnumbered, the random tie-break, road slots (6.33, 6.6, 6.31)', merge(FIELD_BATTLE, {
      blocks: [{ block: 'Saladin' }, { block: 'Turks 1' }, { block: 'Kurds 2' }, { block: 'Arabs 3', at: 'other_road' }, { block: 'King Guy' }, { block: 'Conrad' }, { block: 'Antioch Turcopoles' }, { block: 'Balian', at: 'main_road' }],
      retreat_slots: { attacker: 2, defender: 1 },
      policy: { tie_break: 'random', harry: 'always', retreat: 'when_outnumbered' },
    })],
    ['storms over 3 turns with double defense, stormers withdrawing, Jihad (6.53, 6.54, 6.62, 6.57)', merge(SIEGE, { turns: 3, policy: { storm: 'when_stronger', storm_ratio: 0.75, withdraw: 'when_weaker' }, rules: { jihad: 'attacker' } })],
    ['a relief force arriving while every besieger storms, the castle sallying', {
      town: { rating: 2 },
      player1: 'saracens',
      situation: 'existing_siege',
      besieged: 'franks',
      blocks: [{ block: 'Conrad', at: 'castle' }, { block: 'King Guy', at: 'main_road' }, { block: 'Saladin' }, { block: 'Kurds 1' }],
      turns: 2,
      policy: { storm: 'always', sally: 'always', tie_break: 'random' },
    }],
    ['a storm that empties the castle with relief coming (4.4), the new castle owner withdrawing, charges', {
      town: { rating: 2 },
      player1: 'saracens',
      situation: 'existing_siege',
      besieged: 'franks',
      blocks: [{ block: 'Genoa Pilgrims', at: 'castle', steps: 1 }, { block: 'Yazkuj' }, { block: 'Sulaiman' }, { block: 'Richard', at: 'main_road' }, { block: 'Philippe', at: 'main_road' }],
      turns: 2,
      policy: { storm: 'always', withdraw: 'when_weaker', charge: 'always' },
    }],
    ['new battle, the strongest in the castle, sallies joining the defenders, retreat, protect the best', {
      town: { rating: 2 },
      player1: 'saracens',
      attacker: 'saracens',
      blocks: [{ block: 'King Guy', at: 'town' }, { block: 'Genoa Pilgrims', at: 'town' }, { block: 'Conrad', at: 'town' }, { block: 'Balian', at: 'main_road' }, { block: 'Saladin', at: 'main_road' }, { block: 'Al Adil', at: 'main_road' }, { block: 'Turks 3', at: 'other_road' }],
      retreat_slots: { attacker: 2, defender: 1 },
      policy: { deployment: 'castle_first', storm: 'always', sally: 'always', retreat: 'when_outnumbered', tie_break: 'protect_best', besieger_after_r3: 'retreat' },
    }],
  ];
  it.each(cases)('%s: the table path agrees with the general path (|z| < 4.5 everywhere)', async (_label, body) => {
    const { _internals: K } = await import('../src/systems/crusader-rex/kernel.js');
    expect(K.tablePathApplies(compiled(body))).toBe(true);
    await agreesWithGeneral(body, 'table');
  });
  // The plain field battles (the first five) take the field paths (closed-field-path.ts, field-run-path.ts): held to the
  // general path the same way.
  const fieldCases = cases.slice(0, 5);
  it.each(fieldCases)('%s: the field path agrees with the general path (|z| < 4.5 everywhere)', async (_label, body) => {
    await agreesWithGeneral(body, 'kernel');
  });
  it('the kernel takes the field path exactly for plain field battles (no castle, harry, retreat or random tie-break, an order that cannot matter)', async () => {
    const { _internals: K } = await import('../src/systems/crusader-rex/kernel.js');
    for (const [label, body] of cases) expect(K.fieldPathApplies(compiled(body)), label).toBe(fieldCases.some(([l]) => l === label));
    for (const policy of [{ harry: 'always' }, { retreat: 'when_outnumbered' }, { tie_break: 'random' }, { fire_order: 'strongest_first', charge: 'always' }]) {
      expect(K.fieldPathApplies(compiled(merge(FIELD_BATTLE, { policy }))), JSON.stringify(policy)).toBe(false);
    }
    // strongest first without a charge cannot change a field battle (order.ts fireOrderMatters)
    expect(K.fieldPathApplies(compiled(merge(FIELD_BATTLE, { policy: { fire_order: 'strongest_first' } })))).toBe(true);
    expect(K.fieldPathApplies(compiled(merge(FIELD_BATTLE, { town: { rating: 2 } })))).toBe(false);
    // the kernel's choice runs the field path's dice on a field battle, the table path's on the others
    const acc = (body: Tree, path: CrusaderRexPath) => kernelAcc(compiled(body), path, 5000, 'choice');
    expect(acc(FIELD_BATTLE, 'kernel')).not.toEqual(acc(FIELD_BATTLE, 'table'));
    expect(acc(SIEGE, 'kernel')).toEqual(acc(SIEGE, 'table'));
  });
  it('field path alias tables give every hit count its probability to within 2^-31', async () => {
    const { _internals: K } = await import('../src/systems/crusader-rex/kernel.js');
    // one slot entry = threshold (of 2^27 draws) << 5 | alias
    for (const dist of ALIAS_DISTS) {
      const out = new Int32Array(32);
      K.fieldAliasTable(dist, out, 0);
      const mass = new Array<number>(32).fill(0);
      for (let i = 0; i < 32; i++) {
        const thr = out[i] >>> 5;
        mass[i] += thr;
        mass[out[i] & 31] += 2 ** 27 - thr;
      }
      expect(mass.reduce((a, b) => a + b, 0)).toBe(2 ** 32);
      for (let h = 0; h < 32; h++) expect(Math.abs(mass[h] / 2 ** 32 - (dist[h] ?? 0)), `h = ${h}`).toBeLessThanOrEqual(2 ** -31);
      expect(out[0]).not.toBe(0); // 0 marks "no dice"
    }
    const none = new Int32Array(32).fill(7);
    K.fieldAliasTable([1], none, 0);
    expect(none[0]).toBe(0);
  });
  it('side state tables are the ones the state-by-state construction made (both paths)', async () => {
    const { sideTables } = await import('../src/systems/crusader-rex/state-tables.js');
    // the construction before typed locals and copyWithin: hits applied one at a time
    const reference = (n: number, pref: number[]) => {
      const states = 5 ** n;
      const t = { apply: new Uint16Array(states * 21), nz: new Uint8Array(states), sum: new Uint8Array(states), max: new Uint8Array(states), next: new Int8Array(states).fill(-1), ties: new Uint8Array(states), tied: new Int8Array(states * 5).fill(-1), mask: new Uint8Array(states), digit: new Uint8Array(states * n) };
      const strongest = (e: number[]) => {
        let best = -1;
        for (const j of pref) if (e[j] > 0 && (best < 0 || e[j] > e[best])) best = j;
        return best;
      };
      for (let x = 0; x < states; x++) {
        const d = Array.from({ length: n }, (_, j) => Math.floor(x / 5 ** j) % 5);
        d.forEach((v, j) => {
          t.digit[x * n + j] = v;
          if (v > 0) {
            t.nz[x]++;
            t.sum[x] += v;
            t.mask[x] |= 1 << j;
            t.max[x] = Math.max(t.max[x], v);
          }
        });
        d.forEach((v, j) => {
          if (v > 0 && v === t.max[x]) t.tied[x * 5 + t.ties[x]++] = j;
        });
        t.next[x] = strongest(d);
        const e = d.slice();
        for (let h = 0; h < 21; h++) {
          if (h > 0 && strongest(e) >= 0) e[strongest(e)]--;
          t.apply[x * 21 + h] = e.reduceRight((v, s) => v * 5 + s, 0);
        }
      }
      return t;
    };
    for (const [n, pref] of [[0, []], [1, [0]], [2, [1, 0]], [3, [0, 1, 2]], [4, [2, 0, 3, 1]], [5, [4, 3, 2, 1, 0]], [5, [0, 1, 2, 3, 4]]] as [number, number[]][]) {
      const got = sideTables(n, pref) as unknown as Record<string, ArrayLike<number>>;
      for (const [k, want] of Object.entries(reference(n, pref))) expect(Array.from(got[k]), `${n} blocks, hit order ${pref}: ${k}`).toEqual(Array.from(want));
    }
  });
  it('field path alias tables and run distributions are the same bits as the one-state-at-a-time construction', async () => {
    const { _internals: K } = await import('../src/systems/crusader-rex/kernel.js');
    const { runDists } = await import('../src/systems/crusader-rex/state-tables.js');
    // the constructions the field path had before its scratch arrays and shared walk: the dice must not change
    const plainHits = (fps: number[], steps: number[]) => {
      let dist = [1];
      for (let i = 0; i < fps.length; i++) {
        const p = fps[i] / 6;
        for (let j = steps[i]; j > 0; j--) dist = dist.map((q, h) => q * (1 - p) + (h > 0 ? dist[h - 1] * p : 0)).concat([dist[dist.length - 1] * p]);
      }
      return dist;
    };
    const reference = (dist: number[], out: Int32Array) => {
      const w = new Array<number>(32).fill(0);
      let total = 0;
      let big = 0;
      for (let h = 0; h < dist.length && h < 32; h++) {
        w[h] = Math.round(dist[h] * 4294967296);
        total += w[h];
        if (w[h] > w[big]) big = h;
      }
      w[big] += 4294967296 - total;
      if (dist.length === 1) {
        out[0] = 0;
        for (let i = 1; i < 32; i++) out[i] = 0;
        return;
      }
      const small: number[] = [];
      const large: number[] = [];
      for (let i = 0; i < 32; i++) (w[i] < 2 ** 27 ? small : large).push(i);
      for (let i = 0; i < 32; i++) out[i] = ((2 ** 27 - 1) * 32 + i) | 0;
      while (small.length > 0 && large.length > 0) {
        const sI = small.pop()!;
        const lI = large[large.length - 1];
        out[sI] = (w[sI] * 32 + lI) | 0;
        w[lI] -= 2 ** 27 - w[sI];
        if (w[lI] < 2 ** 27) {
          large.pop();
          small.push(lI);
        }
      }
    };
    let tables = 0;
    for (const fps of [[3], [2, 6], [3, 2, 1], [1, 1, 2, 3], [6, 1, 4, 2, 5]]) {
      const dists = runDists(fps);
      expect(dists.length).toBe(5 ** fps.length);
      dists.forEach((dist, r) => {
        const steps = fps.map((_, i) => Math.floor(r / 5 ** (fps.length - 1 - i)) % 5); // the first block's most significant
        expect(dist, `${fps} ${steps}`).toEqual(plainHits(fps, steps));
        const got = new Int32Array(32).fill(7);
        const want = new Int32Array(32);
        K.fieldAliasTable(dist, got, 0);
        reference(dist, want);
        expect([...got], `${fps} ${steps}`).toEqual([...want]);
        tables++;
      });
    }
    expect(tables).toBe(5 + 25 + 125 + 625 + 3125);
  });

  // Bundled scenarios: the castle ones take the table path; the two field battles the field
  // path, and the table path is held to the general path on them too.
  it.each([
    ['storm-or-starve', 'kernel'],
    ['case-a-new-siege', 'kernel'],
    ['case-b-old-siege', 'kernel'],
    ['case-c-old-siege-2', 'kernel'],
    ['battle-of-jerusalem', 'kernel'],
    ['reference-field-battle', 'kernel'],
    ['knights-charge', 'kernel'],
    ['reference-field-battle', 'table'],
    ['knights-charge', 'table'],
  ] as [string, CrusaderRexPath][])('bundled %s (%s path): agrees with the general path on every case and variant', async (name, path) => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(`scenarios/crusader-rex/${name}.yaml`, 'utf8').replace(/^trials: .*$/m, 'trials: 30000');
    const v = validateText(name, text);
    if (!v.ok) throw new Error(name);
    const { fast: table, general } = await withGeneral(v.value, path);
    let n = 0;
    table.cases.forEach((tc, i) => {
      const one = (r: typeof table) => ({ ...r, cases: [r.cases[i]] });
      for (const [label, z] of zAll(one(table), one(general))) {
        n++;
        expect(Math.abs(z), `${tc.variant} ${label}`).toBeLessThan(CHECK_Z_LIMIT);
      }
    });
    expect(n).toBeGreaterThan(100);
  });

  it('six blocks a side is too many for the tables: the general path runs (identical accumulators)', async () => {
    const { _internals: K } = await import('../src/systems/crusader-rex/kernel.js');
    const c = compiled(merge(FIELD_BATTLE, {
      blocks: ['Saladin', 'Al Adil', 'Turks 3', 'Kurds 1', 'Zangi', 'Sanjar', 'King Guy', 'Conrad', 'Jerusalem Templars', 'Genoa Pilgrims', 'Balian', 'Walter'].map((block) => ({ block })),
    }));
    expect(K.tablePathApplies(c)).toBe(false);
    expect(K.fieldPathApplies(c)).toBe(false);
    expect(kernelAcc(c, 'kernel', 20000, 'six')).toEqual(kernelAcc(c, 'general', 20000, 'six'));
  });
});

describe('crusader-rex: the kernel agrees with the exact chain (|z| < 4.5)', () => {
  const cases: [string, Tree][] = [
    ['reference field battle', FIELD_BATTLE],
    ['with reserves on both sides (R2, R3) and a control change', merge(FIELD_BATTLE, {
      blocks: [{ block: 'Saladin' }, { block: 'Turks 1' }, { block: 'Al Adil', at: 'other_road' }, { block: 'Genoa Pilgrims', steps: 1 }, { block: 'Conrad', at: 'main_road' }, { block: 'Balian', at: 'other_road' }],
    })],
    ['knights charge, protect the best, Jihad', merge(FIELD_BATTLE, { policy: { charge: 'always', tie_break: 'protect_best' }, rules: { jihad: 'attacker' } })],
    ['charge when the enemy is weaker, strongest first, no control change after R1', merge(FIELD_BATTLE, {
      blocks: [{ block: 'Richard' }, { block: 'Robert', at: 'other_road' }, { block: 'Saladin' }, { block: 'Arabs 3', at: 'main_road' }],
      attacker: 'franks',
      player1: 'franks',
      policy: { charge: 'when_strongest_enemy_block_is_weaker', fire_order: 'strongest_first' },
      rules: { control_change_any_round: false },
    })],
    ['attacker retreats with one road slot', merge(FIELD_BATTLE, { retreat_slots: { attacker: 1 } })],
    ['the attacker is wiped out before the defender\'s R3 reserve arrives (the timeline of rounds not fought)', merge(FIELD_BATTLE, {
      blocks: [{ block: 'Kurds 1', steps: 1 }, { block: 'Turks 3', steps: 1, at: 'other_road' }, { block: 'King Guy' }, { block: 'Balian', at: 'other_road' }],
    })],
    ['attrition over 3 turns', merge(SIEGE, { policy: { storm: 'never' }, turns: 3 })],
    ['attrition, fortified port in winter', merge(SIEGE, { policy: { storm: 'never' }, turns: 5, town: { fortified_port: true }, rules: { winter_campaign: true } })],
    // storms (6.53, 6.54): the siege chain, with its round-by-round attrition curve
    ['storm always, one turn', SIEGE],
    ['storm when stronger, stormers withdraw when weaker, protect the best, 3 turns', merge(SIEGE, {
      turns: 3,
      policy: { storm: 'when_stronger', storm_ratio: 0.75, withdraw: 'when_weaker', tie_break: 'protect_best' },
    })],
    ['besieger reserves in R2 and R3 join the storm, Jihad, strongest first, waiting for reserves', merge(SIEGE, {
      town: { rating: 3 },
      turns: 2,
      blocks: [{ block: 'Raymond (Tiberias)', at: 'castle' }, { block: 'Walter', at: 'castle' }, { block: 'Jerusalem Templars', at: 'castle' }, { block: 'Saladin', arrives: 2 }, { block: 'Al Mashtub' }, { block: 'Tuman', arrives: 3 }],
      policy: { fire_order: 'strongest_first' },
      rules: { jihad: 'attacker', declined_sally_goes_to_attrition: false },
    })],
    ['new battle, all in the castle, the besieger retreats after R3 with one road slot', {
      town: { rating: 2 },
      player1: 'saracens',
      attacker: 'saracens',
      blocks: [{ block: 'King Guy', at: 'town' }, { block: 'Genoa Pilgrims', at: 'town', steps: 2 }, { block: 'Saladin', at: 'main_road' }, { block: 'Kurds 1', at: 'main_road' }, { block: 'Turks 3', at: 'other_road' }],
      retreat_slots: { attacker: 1 },
      policy: { deployment: 'all_castle', storm: 'always', besieger_after_r3: 'retreat' },
    }],
  ];
  it.each(cases)('%s', async (_label, body) => {
    await agreesWithExact(body);
  });
  // the plain field battles take the field path (above); the table path on them too
  const fieldCases = cases.filter(([, body]) => KI.fieldPathApplies(compiled(body)));
  it('five of them are field-path battles', () => expect(fieldCases.length).toBe(5));
  it.each(fieldCases)('%s, table path', async (_label, body) => {
    await agreesWithExact(body, 60000, 'table');
  });
});

describe('crusader-rex: the two exact forms of a siege agree', () => {
  it('with no storm, the siege chain gives the closed binomial attrition form', () => {
    for (const body of [merge(SIEGE, { policy: { storm: 'never' }, turns: 4 }), merge(SIEGE, { policy: { storm: 'never' }, turns: 3, town: { fortified_port: true }, rules: { winter_campaign: true } })]) {
      const c = compiled(body);
      expect(attritionApplies(c) && battleApplies(c)).toBe(true);
      const a = exactAttrition(c);
      const b = exactBattle(c);
      for (const [k, v] of Object.entries(a.metrics)) {
        expect(b.metrics[k].value, k).toBeCloseTo(v.value, 12);
        if (v.variance !== undefined) expect(b.metrics[k].variance!, k).toBeCloseTo(v.variance, 12);
      }
    }
  });
  it('the siege chain covers the storm cases the issue asks for (at least 3 blocks a side, 3 rounds, reserves)', () => {
    const c = compiled(merge(SIEGE, {
      town: { rating: 3 },
      blocks: [{ block: 'Raymond (Tiberias)', at: 'castle' }, { block: 'Walter', at: 'castle' }, { block: 'Jerusalem Templars', at: 'castle' }, { block: 'Saladin', arrives: 2 }, { block: 'Al Mashtub' }, { block: 'Tuman', arrives: 3 }],
    }));
    expect(battleApplies(c)).toBe(true);
    const e = exactBattle(c);
    const total = ['p_attacker_wins', 'p_defender_holds', 'p_siege_continues', 'p_both_gone'].reduce((n, k) => n + e.metrics[k].value, 0);
    expect(total).toBeCloseTo(1, 12);
    expect(e.metrics.mean_rounds.value).toBeGreaterThan(1); // the storm goes on past R1
    // the reserves: none on the road after R3, all of Tuman's steps on the road after R2
    const pt = (round: string, place: string) => e.curves.attrition.find((q) => q.x.turn === 1 && q.x.round === round && q.x.side === 'saracens' && q.x.place === place)!.value;
    expect(pt('2', 'reserves')).toBeCloseTo(c.steps0[5], 12);
    expect(pt('3', 'reserves')).toBe(0);
  });
});

describe('crusader-rex: the exact chain is bounded (EXACT_LIMITS.exactStates held at once, EXACT_LIMITS.exactWork advanced by a file)', () => {
  // Without the bounds, 10 blocks over 3 game turns ran out of heap after minutes (found by the
  // fuzzing helper). Lowered here so that a small battle meets them.
  it('a case past either bound has no exact answer, and says why; exact, check and test say it', () => {
    const body = merge(SIEGE, { policy: { storm: 'when_stronger' }, turns: 2 });
    const c = compiled(body);
    const full = exactBattle(c, { work: Infinity });
    const budget = { work: 50 };
    expect(() => exactBattle(c, budget)).toThrow(ExactTooLarge);
    expect(() => exactBattle(c, budget)).toThrow(/^the file's exact chains advance more than 4,000,000 states in all \(they grow with the blocks and the game turns\): too large to solve here; siegesim run estimates it$/);
    const kept = EXACT_LIMITS.exactStates;
    try {
      EXACT_LIMITS.exactStates = 20;
      expect(() => exactBattle(c, { work: Infinity })).toThrow(/^its exact chain holds more than 20 states at once/);
      // the file's cases: each without an answer, with why; test's exact: true is a problem naming it
      const v = valid({ ...body, expect: [{ metric: 'p_castle_falls', exact: true }] });
      const ex = exactScenario(v);
      expect(ex.map((e) => [e.exact, e.unsolved?.slice(0, 40)])).toEqual([[null, 'its exact chain holds more than 20 state']]);
      expect(prepareExact(v).issues.map((i) => i.message)).toEqual([MSG.exactUnavailable('p_castle_falls', 'this case', ex[0].unsolved)]);
    } finally {
      EXACT_LIMITS.exactStates = kept;
    }
    // within the bounds the answer is the unbounded chain's
    expect(exactBattle(c).metrics).toEqual(full.metrics);
  });
});

describe('crusader-rex: every rule and policy changes what it should', () => {
  it('double defense (6.54): a garrison of S steps takes exactly 2 S hits, a half-hit carried on one block', async () => {
    const { _internals: K } = await import('../src/systems/crusader-rex/kernel.js');
    const c = compiled(SIEGE); // Raymond 3 steps, Walter 3 steps in the castle
    const rng = new Int32Array([1, 2, 3, 4]);
    K.start(c);
    K.hitCastle(c, rng, 1);
    expect([K.steps()[0], K.steps()[1]]).toEqual([3, 3]); // a half-hit: no step lost
    K.hitCastle(c, rng, 1);
    expect([K.steps()[0], K.steps()[1]]).toEqual([2, 3]); // the second hit on the same block
    K.hitCastle(c, rng, 9);
    expect(K.steps()[0] + K.steps()[1]).toBe(1); // 11 hits: 5 steps and a half-hit pending
    K.hitCastle(c, rng, 1);
    expect(K.steps()[0] + K.steps()[1]).toBe(0); // 12 = 2 x 6
    // and a storm costs the garrison less than a field battle against the same besiegers
    const storm = await runScenario(valid(SIEGE, 20000));
    const open = await runScenario(valid(merge(SIEGE, { situation: 'new_battle', attacker: 'saracens', town: { rating: 0 }, blocks: [{ block: 'Raymond (Tiberias)' }, { block: 'Walter' }, { block: 'Saladin' }, { block: 'Al Mashtub' }] }), 20000));
    expect(m(storm, 0, 'mean_steps_lost_franks')).toBeLessThan(m(open, 0, 'mean_steps_lost_franks'));
  });
  it('the firing order of 6.2 (the rulebook example: Turcopole, Zangi, Conrad, Kurd)', async () => {
    const { _internals: K } = await import('../src/systems/crusader-rex/kernel.js');
    const c = compiled({ town: { rating: 0 }, player1: 'franks', attacker: 'franks', blocks: [{ block: 'Conrad' }, { block: 'Antioch Turcopoles' }, { block: 'Zangi' }, { block: 'Kurds 3' }] });
    const names = (list: Int32Array) => Array.from(list, (b) => c.names[b]);
    // orders[first * 2 + jihad], first = the defender (Saracens = 1)
    expect(names(K.buildOrders(c)[1 * 2 + 0])).toEqual(['Antioch Turcopoles', 'Zangi', 'Conrad', 'Kurds 3']);
    expect(names(K.buildOrders(c)[1 * 2 + 1])).toEqual(['Antioch Turcopoles', 'Conrad', 'Zangi', 'Kurds 3']); // Jihad: attacker's letters first
  });
  it('a reserve does not fire or take hits before its round', async () => {
    const body = merge(FIELD_BATTLE, { blocks: [{ block: 'Saladin' }, { block: 'Al Adil', at: 'other_road' }, { block: 'King Guy' }] });
    const r = await runScenario(valid(body, 5000));
    expect(att(r, 0, { turn: 1, round: '1', side: 'saracens', place: 'reserves' }).value).toBe(4); // Al Adil untouched in R1
    expect(att(r, 0, { turn: 1, round: '2', side: 'saracens', place: 'reserves' }).value).toBe(0);
  });
  it('storm policies: storming takes castles; never storming leaves them to attrition', async () => {
    const r = await pair(merge(SIEGE, { turns: 1 }), 'policy.storm', 'never');
    down(zDiff(r, 'p_castle_falls'));
    const ratio = await pair(merge(SIEGE, { policy: { storm: 'when_stronger', storm_ratio: 0.5 } }), 'policy.storm_ratio', 10);
    down(zDiff(ratio, 'p_castle_falls'));
  });
  it('sally policies: a strong garrison that sallies can break the siege', async () => {
    const body = { town: { rating: 3 }, player1: 'franks', situation: 'existing_siege', besieged: 'franks', blocks: [{ block: 'Richard', at: 'castle' }, { block: 'Philippe', at: 'castle' }, { block: 'Conrad', at: 'castle' }, { block: 'Yazkuj' }, { block: 'Sulaiman' }], policy: { storm: 'never', sally: 'never' } };
    up(zDiff(await pair(body, 'policy.sally', 'always'), 'p_siege_lifted'));
    up(zDiff(await pair(body, 'policy.sally', 'when_stronger'), 'p_siege_lifted'));
  });
  it('charge (6.32) and harrying (6.33)', async () => {
    const charge = await pair(merge(FIELD_BATTLE, { blocks: [{ block: 'Richard' }, { block: 'Robert' }, { block: 'Saladin' }, { block: 'Taqi al Din' }], attacker: 'franks' }), 'policy.charge', 'always');
    up(zDiff(charge, 'p_attacker_wins'));
    const harry = await pair(merge(FIELD_BATTLE, { blocks: [{ block: 'Turks 1' }, { block: 'Turks 2' }, { block: 'Saladin' }, { block: 'King Guy' }, { block: 'Conrad' }] }), 'policy.harry', 'always');
    expect(Math.abs(zDiff(harry, 'p_attacker_wins')) + Math.abs(zDiff(harry, 'p_defender_holds'))).toBeGreaterThan(4);
    const r = await runScenario(valid(merge(FIELD_BATTLE, { blocks: [{ block: 'Turks 1' }, { block: 'King Guy' }], policy: { harry: 'always' } }), 2000));
    expect(m(r, 0, 'mean_rounds')).toBe(1); // the Turks fire and leave in R1
  });
  it('retreat in battle (6.6): an outnumbered side leaves the field instead of fighting on', async () => {
    const body = merge(FIELD_BATTLE, { blocks: [{ block: 'Kurds 1', steps: 2 }, { block: 'Saladin' }, { block: 'Conrad' }, { block: 'King Guy' }, { block: 'Walter' }] });
    const r = await pair(body, 'policy.retreat', 'when_outnumbered');
    expect(m(r, 1, 'mean_rounds')).toBeLessThan(m(r, 0, 'mean_rounds') - 0.5); // they leave early
    down(zDiff(r, 'mean_steps_lost_saracens'));
  });
  it('withdraw (6.62): a weaker castle owner pulls its field blocks inside', async () => {
    const body = { town: { rating: 2 }, player1: 'saracens', attacker: 'saracens', blocks: [{ block: 'Saladin' }, { block: 'Al Adil' }, { block: 'Taqi al Din' }, { block: 'Genoa Pilgrims', at: 'town' }, { block: 'Walter', at: 'town' }], policy: { deployment: 'all_field', storm: 'never' } };
    const r = await pair(body, 'policy.withdraw', 'when_weaker');
    expect(att(r, 1, { turn: 1, round: '1', side: 'franks', place: 'castle' }).value).toBeGreaterThan(att(r, 0, { turn: 1, round: '1', side: 'franks', place: 'castle' }).value + 0.5);
  });
  it('tie-break and fire order policies change the battle', async () => {
    up(zDiff(await pair(FIELD_BATTLE, 'policy.tie_break', 'protect_best'), 'p_attacker_wins'));
    const rnd = await pair(FIELD_BATTLE, 'policy.tie_break', 'random');
    expect(Math.abs(zDiff(rnd, 'p_attacker_wins'))).toBeGreaterThan(2);
    // fire_order: hits always go to the strongest enemy block, so the order inside one side's
    // letter group only matters through what a block does besides firing (charge, harry,
    // retreat, withdraw: test/crusader-rex-order.test.ts shows each); the exact-chain case
    // "strongest first" above holds the kernel to it.
  });
  it('the besieger may retreat after R3 (rule 6.2) instead of staying (engine)', async () => {
    const weak = merge(SIEGE, { policy: { storm: 'never' }, turns: 3, blocks: [{ block: 'Raymond (Tiberias)', at: 'castle', steps: 1 }, { block: 'Walter', at: 'castle', steps: 1 }, { block: 'Saladin' }] });
    const r = await pair(weak, 'policy.besieger_after_r3', 'retreat');
    expect(m(r, 1, 'p_siege_lifted')).toBe(1);
    down(zDiff(r, 'p_castle_falls'));
  });
  it('retreat slots: blocks with no road are eliminated after R3', async () => {
    const body = merge(FIELD_BATTLE, { blocks: [{ block: 'Kurds 1' }, { block: 'Kurds 2' }, { block: 'Conrad' }, { block: 'King Guy' }] });
    const r = await pair(body, 'retreat_slots.attacker', 0);
    up(zDiff(r, 'mean_steps_lost_saracens'));
    expect(m(r, 1, 'p_both_gone') + m(r, 1, 'p_defender_holds')).toBeCloseTo(m(r, 0, 'p_both_gone') + m(r, 0, 'p_defender_holds'), 12);
  });
  it('6.56 timing readings move relief outcomes (cases B and C)', async () => {
    const c = { town: { rating: 3 }, player1: 'saracens', situation: 'existing_siege', besieged: 'franks', blocks: [{ block: 'Zangi' }, { block: 'Sanjar' }, { block: 'Balian', at: 'castle' }, { block: 'Walter', at: 'castle' }, { block: 'Conrad', at: 'main_road' }, { block: 'Josselin', at: 'other_road' }], policy: { storm: 'when_stronger', sally: 'when_stronger' } };
    up(zDiff(await pair(c, 'rules.relief_delay_when_besieged_without_attack', false), 'p_siege_lifted'));
    const b = { town: { rating: 3 }, player1: 'franks', situation: 'existing_siege', besieged: 'franks', blocks: [{ block: 'Balian', at: 'castle' }, { block: 'Zangi' }, { block: 'Sanjar' }, { block: 'Yuzpah' }, { block: 'Conrad', at: 'main_road', steps: 1 }, { block: 'Josselin', at: 'other_road' }], policy: { storm: 'always', sally: 'never' } };
    // every besieger storms: the later second-road relief lets the storm go on a round longer
    up(zDiff(await pair(b, 'rules.p1_other_road_relief_round', 3), 'p_attacker_wins'));
  });
  it('declined sally: the engine goes to attrition; the alternative lets the besieger wait for its reserves', async () => {
    const body = { town: { rating: 2 }, player1: 'saracens', situation: 'existing_siege', besieged: 'franks', blocks: [{ block: 'Walter', at: 'castle' }, { block: 'Zangi' }, { block: 'Saladin', at: 'main_road', arrives: 2 }, { block: 'Al Adil', at: 'main_road', arrives: 2 }], policy: { storm: 'when_stronger' } };
    up(zDiff(await pair(body, 'rules.declined_sally_goes_to_attrition', false), 'p_castle_falls'));
  });
  it('control change (6.41) in any round, or only in R1', async () => {
    const body = merge(FIELD_BATTLE, { blocks: [{ block: 'Saladin' }, { block: 'Al Adil' }, { block: 'Genoa Pilgrims', steps: 1 }, { block: 'Conrad', at: 'other_road' }] });
    const r = await pair(body, 'rules.control_change_any_round', false);
    expect(Math.abs(zDiff(r, 'p_attacker_wins')) + Math.abs(zDiff(r, 'p_defender_holds'))).toBeGreaterThan(4);
  });
  it('winter campaign attrition and Jihad', async () => {
    const weak = merge(SIEGE, { policy: { storm: 'never' }, turns: 2, blocks: [{ block: 'Raymond (Tiberias)', at: 'castle', steps: 2 }, { block: 'Walter', at: 'castle', steps: 1 }, { block: 'Saladin' }] });
    up(zDiff(await pair(weak, 'rules.winter_campaign', true), 'p_castle_falls'));
    up(zDiff(await pair(FIELD_BATTLE, 'rules.jihad', 'attacker', 60000), 'p_attacker_wins'));
  });
});

describe('crusader-rex: the closed field path (every block in the field from the start, no charge)', () => {
  // Closed field battles: the reference battle and others the path takes (Jihad, protect the
  // best, five blocks, a road slot, a side often wiped out, two game turns, the Franks attacking).
  const closed: [string, Tree][] = [
    ['reference battle', FIELD_BATTLE],
    ['five blocks a side, protect the best', merge(FIELD_BATTLE, {
      blocks: ['Saladin', 'Al Adil', 'Turks 3', 'Kurds 1', 'Zangi', 'King Guy', 'Conrad', 'Jerusalem Templars', 'Genoa Pilgrims', 'Balian'].map((block) => ({ block })),
      policy: { tie_break: 'protect_best' },
    })],
    ['Jihad, one road slot, two turns, the Franks attacking', merge(FIELD_BATTLE, {
      blocks: [{ block: 'Saladin', steps: 2 }, { block: 'Turks 1' }, { block: 'Genoa Pilgrims', steps: 2 }, { block: 'Conrad', steps: 3 }, { block: 'Jerusalem Templars' }],
      attacker: 'franks',
      player1: 'franks',
      retreat_slots: { attacker: 1 },
      turns: 2,
      rules: { jihad: 'attacker' },
    })],
    ['a small side often wiped out in round 1, strongest first', merge(FIELD_BATTLE, {
      blocks: [{ block: 'Kurds 1', steps: 1 }, { block: 'Turks 3', steps: 2 }, { block: 'King Guy' }, { block: 'Conrad' }],
      policy: { fire_order: 'strongest_first' },
    })],
    // round 1 (Jihad) ends with all the Franks' blocks and round 2 starts with their A block: 22
    // dice, too many for one draw of the pair, so a draw of the Saracens that scores nothing goes between
    ['Jihad, the Franks fire last in round 1 and first in round 2', merge(FIELD_BATTLE, {
      blocks: [...(FIELD_BATTLE.blocks as Tree[]), { block: 'Crossbows' }],
      rules: { jihad: 'attacker' },
    })],
  ];
  it('the kernel takes it exactly for closed field battles', () => {
    for (const [label, body] of closed) expect(KI.closedFieldApplies(compiled(body)), label).toBe(true);
    // reserves on the road, a knight that charges, a castle: not closed
    expect(KI.closedFieldApplies(compiled(merge(FIELD_BATTLE, { blocks: [{ block: 'Saladin' }, { block: 'Conrad', at: 'main_road' }, { block: 'King Guy' }] })))).toBe(false);
    expect(KI.closedFieldApplies(compiled(merge(FIELD_BATTLE, { policy: { charge: 'always' } })))).toBe(false);
    expect(KI.closedFieldApplies(compiled(merge(FIELD_BATTLE, { town: { rating: 2 } })))).toBe(false);
    expect(KI.closedFieldApplies(compiled(merge(FIELD_BATTLE, { policy: { harry: 'always' } })))).toBe(false);
  });
  it('its draws: alternate sides, pairs of runs across a round\'s end where they fit, a draw that scores nothing where they do not', () => {
    const steps = (body: Tree) => {
      const c = compiled(body);
      const f = buildClosedField(c, KI.buildOrders(c));
      return { fire: Array.from(f.sFire), bits2: Array.from(f.sBits2), rec: Array.from(f.sRec) };
    };
    for (const [label, body] of closed) {
      const s = steps(body);
      for (let k = 1; k < s.fire.length; k++) expect(s.fire[k], label).toBe(1 - s.fire[k - 1]);
      expect(s.rec.filter((r) => r === 1).length, label).toBe(3); // three rounds end
    }
    // the reference battle: A, B+C, then the Saracens' C with the next round's A as one draw (twice), B+C, C
    expect(steps(FIELD_BATTLE)).toEqual({ fire: [1, 0, 1, 0, 1, 0, 1], bits2: [0, 0, 4, 0, 4, 0, 0], rec: [0, 0, 1, 0, 1, 0, 1] });
    // Jihad: the Saracens, then the Franks (round 1); the Franks' 19 dice and their next 3 are no
    // pair, so an empty Saracen draw (the third) goes before round 2's four runs; round 3's four
    const jihad = steps(closed[closed.length - 1][1]);
    expect(jihad).toEqual({ fire: [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1], bits2: Array(11).fill(0), rec: [0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1] });
  });
  it('a trial played again from its stream (how a draw on a threshold is decided) plays as the loop does', async () => {
    const { crusaderRexKernel } = await import('../src/systems/crusader-rex/kernel.js');
    const { deriveState } = await import('../src/engine/rng.js');
    for (const [label, body] of closed) {
      const c = compiled(body);
      const L = crusaderRexKernel.accLength(c);
      const accs = [false, true].map((replayAll) => {
        _closedTest.replayAll = replayAll;
        try {
          const acc = new Float64Array(L);
          crusaderRexKernel.run(c, deriveState('replay', label, 0), 3001, acc);
          return Array.from(acc);
        } finally {
          _closedTest.replayAll = false;
        }
      });
      expect(accs[1], label).toEqual(accs[0]);
    }
  });
  it('exact alias tables of pairs of totals over 2^7 slots: every pair has exactly its share', () => {
    for (const [fps1, fps2] of [[[1, 1, 1, 1], [3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1]], [[6, 5], [1]], [[2, 2, 2], []]]) {
      const c1 = KI.hitCounts(fps1);
      const c2 = KI.hitCounts(fps2);
      const bits2 = 4;
      const counts = new Array<number>(128).fill(0);
      for (let h1 = 0; h1 < c1.length; h1++) for (let h2 = 0; h2 < c2.length; h2++) counts[h1 * 2 ** bits2 + h2] = c1[h1] * c2[h2];
      const n = BigInt(6) ** BigInt(fps1.length + fps2.length);
      const alias = new Int32Array(128);
      const rem = new Float64Array(128);
      exactAliasTableBits(counts, 7, alias, rem, 0);
      const mass = new Array<bigint>(128).fill(0n);
      for (let s = 0; s < 128; s++) {
        const keep = BigInt(alias[s] >>> 7) * n + BigInt(rem[s]);
        mass[s] += keep;
        mass[alias[s] & 127] += n * 2n ** 25n - keep;
      }
      for (let o = 0; o < 128; o++) expect(mass[o], `${fps1}|${fps2}: ${o}`).toBe(BigInt(counts[o]) * 128n * 2n ** 25n);
    }
  });
  it('exact alias tables: every hit count has exactly its share of the 6^n faces', () => {
    for (const fps of [[3, 3, 3, 3], [3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1], [], [6, 6], Array(20).fill(1), [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 2, 2]]) {
      const counts = KI.hitCounts(fps);
      const n = BigInt(6) ** BigInt(fps.length);
      expect(counts.reduce((s, x) => s + BigInt(x), 0n)).toBe(n);
      const alias = new Int32Array(32);
      const rem = new Float64Array(32);
      KI.exactAliasTable(counts, alias, rem, 0);
      // slot s keeps s with weight (threshold * n + rem) of n * 2^27, gives its alias the rest
      const mass = new Array<bigint>(32).fill(0n);
      for (let s = 0; s < 32; s++) {
        const thr = BigInt(alias[s] >>> 5);
        expect(BigInt(rem[s]) < n || rem[s] === 0).toBe(true);
        const keep = thr * n + BigInt(rem[s]);
        mass[s] += keep;
        mass[alias[s] & 31] += n * 2n ** 27n - keep;
      }
      for (let h = 0; h < 32; h++) expect(mass[h], `${fps.join(',')}: h = ${h}`).toBe(BigInt(h < counts.length ? counts[h] : 0) * 32n * 2n ** 27n);
    }
  });
  it.each(closed)('%s: agrees with the general path (|z| < 4.5 everywhere)', async (_label, body) => {
    await agreesWithGeneral(body, 'kernel');
  });
  it.each(closed)('%s: the field path forced agrees with the general path', async (_label, body) => {
    await agreesWithGeneral(body, 'field');
  });
  it.each(closed.filter(([, body]) => exactBattleApplies(body)))('%s: agrees with the exact chain', async (_label, body) => {
    await agreesWithExact(body);
  });
  it('an odd count of trials: one call is its trials one call at a time; a trace gives each trial\'s accumulator', async () => {
    const { crusaderRexKernel } = await import('../src/systems/crusader-rex/kernel.js');
    const { deriveState, nextI32 } = await import('../src/engine/rng.js');
    for (const [label, body] of closed) {
      const c = compiled(body);
      const n = 41;
      const L = crusaderRexKernel.accLength(c);
      const one = deriveState('closed', label, 0);
      const accOne = new Float64Array(L);
      crusaderRexKernel.run(c, one, n, accOne);
      const many = deriveState('closed', label, 0);
      const accMany = new Float64Array(L);
      const slots = Int32Array.from({ length: L }, (_, i) => i);
      const want = new Float64Array(n * L);
      for (let i = 0; i < n; i++) {
        crusaderRexKernel.run(c, many, 1, accMany);
        want.set(accMany, i * L);
      }
      expect(Array.from(accOne), label).toEqual(Array.from(accMany));
      const ref = deriveState('closed', label, 0);
      for (let i = 0; i < 4 * n; i++) nextI32(ref);
      expect(Array.from(one)).toEqual(Array.from(ref));
      // traced: the same accumulator, and after each trial the accumulator one call at a time gave
      const traced = deriveState('closed', label, 0);
      const accTraced = new Float64Array(L);
      const out = new Float64Array(n * L);
      crusaderRexKernel.run(c, traced, n, accTraced, { slots, out });
      expect(Array.from(accTraced), label).toEqual(Array.from(accOne));
      expect(Array.from(out), label).toEqual(Array.from(want));
    }
  });
});

function exactBattleApplies(body: Tree): boolean {
  return battleApplies(compiled(body));
}
