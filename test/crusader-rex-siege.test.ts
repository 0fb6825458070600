/**
 * Crusader Rex relief forces, sallies and role swaps: where storming blocks,
 * sallying blocks and the field are counted, one test per rule, each holding the kernel to the
 * exact chain on a battle where that rule decides the outcome, plus what the rule says can be
 * seen directly (a curve point that must not move, or must).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { exactScenario, runScenario } from '../src/api.js';
import { merge, zDiff, type Tree } from './helpers.js';
import { yieldToEventLoop, agreesWithExact, att, m, pair, up, valid } from './crusader-rex.shared.js';

// every test here runs synchronously for seconds: let the worker answer vitest between tests
beforeEach(yieldToEventLoop);
import { battleApplies } from '../src/systems/crusader-rex/exact.js';
import type { CrusaderRexCompiled } from '../src/systems/crusader-rex/compile.js';

/** An existing siege of the Franks (P2) by the Saracens (P1), castle limit 2. */
const FRANKS_BESIEGED: Tree = { town: { rating: 2 }, player1: 'saracens', situation: 'existing_siege', besieged: 'franks' };
/**
 * A relief force arriving while every besieger storms: an existing siege (castle limit 2), Conrad in the castle; Saladin and
 * Kurds 1 besiege and always storm, so every besieger is storming when King Guy's relief arrives
 * in R2 (P2's main road, 6.56); Conrad always sallies.
 */
const ISSUE_17: Tree = {
  town: { rating: 2, fortified_port: false },
  player1: 'saracens',
  situation: 'existing_siege',
  besieged: 'franks',
  blocks: [{ block: 'Conrad', at: 'castle' }, { block: 'King Guy', at: 'main_road' }, { block: 'Saladin', at: 'field' }, { block: 'Kurds 1', at: 'field' }],
  turns: 1,
  retreat_slots: { attacker: -1, defender: -1 },
  policy: { storm: 'always', sally: 'always', tie_break: 'first_listed', fire_order: 'listed', charge: 'never', harry: 'never', retreat: 'never', withdraw: 'never', besieger_after_r3: 'stay' },
};
/**
 * What the independent implementation (Rally the Troops' crusader-rex engine, driven through the
 * same battle with the same policies) gave over 50 000 battles. A kernel that let the storm go
 * on with the relief unhit gives 0.00004, 5.278 and 4.548: far outside these.
 */
const ENGINE = { n: 50000, p_attacker_wins: 0.2479, surviving: { franks: 3.633, saracens: 2.637 } };

const z = (a: number, b: number, se: number) => (a - b) / se;
const curve = (r: Awaited<ReturnType<typeof runScenario>>, turn: number, round: string, side: string, place: string) => att(r, 0, { turn, round, side, place }).value;

describe('crusader-rex: a relief force arriving while every besieger storms', () => {
  it('the battle agrees with the independent engine, and the kernel with the exact chain', async () => {
    const { result, exact } = await agreesWithExact(ISSUE_17, 200000);
    // the engine's 50 000 battles against the exact answer, and against the kernel's 200 000
    const p = exact.metrics.p_attacker_wins.value;
    const pk = m(result, 0, 'p_attacker_wins');
    expect(Math.abs(z(ENGINE.p_attacker_wins, p, Math.sqrt((p * (1 - p)) / ENGINE.n)))).toBeLessThan(4.5);
    expect(Math.abs(z(ENGINE.p_attacker_wins, pk, Math.sqrt(p * (1 - p) * (1 / ENGINE.n + 1 / 200000))))).toBeLessThan(4.5);
    for (const side of ['franks', 'saracens'] as const) {
      const lost = exact.metrics[`mean_steps_lost_${side}`];
      const surviving = 8 - lost.value; // 4 + 4 steps a side
      const kernel = 8 - m(result, 0, `mean_steps_lost_${side}`);
      expect(Math.abs(z(ENGINE.surviving[side], surviving, Math.sqrt(lost.variance! / ENGINE.n))), side).toBeLessThan(4.5);
      expect(Math.abs(z(ENGINE.surviving[side], kernel, Math.sqrt(lost.variance! * (1 / ENGINE.n + 1 / 200000)))), side).toBeLessThan(4.5);
    }
  });

  it('the general path agrees with the exact chain on the battle too', async () => {
    await agreesWithExact(ISSUE_17, 100000, 'general');
  });

  it('6.56: the arriving relief cancels the storm (castle untouched in R2), and as the attacker it is the one to retreat after R3 (2.8); attrition follows (4.6)', async () => {
    const { result: r } = await agreesWithExact(merge(ISSUE_17, { policy: { sally: 'never' } }), 60000);
    const castle = (round: string) => curve(r, 1, round, 'franks', 'castle');
    expect(castle('1')).toBeLessThan(4); // R1 was stormed
    expect(castle('2')).toBe(castle('1')); // the storm is over: no hit reaches the castle in R2
    // (a new storm may follow in R3 where the relief fell in R2)
    // after R3 the besiegers (now the defenders) stay in the field; the relief leaves it
    expect(curve(r, 1, 'end', 'saracens', 'field')).toBe(curve(r, 1, '3', 'saracens', 'field'));
    // (King Guy stays only where he drove the besiegers off)
    expect(curve(r, 1, 'end', 'franks', 'field')).toBeLessThan(0.2 * curve(r, 1, '3', 'franks', 'field'));
    // and siege attrition is still rolled that turn: a step per castle block on 1-3
    expect(castle('end')).toBeLessThan(castle('3') - 0.3);
  });

  it('6.56, 1.5: the cancelled storm sends its stormers back to the field and loses its half-hit; the storm after the relief falls starts afresh', async () => {
    // R1: Saladin and Al Adil storm; the 1-step relief falls in R2; in R3 the strongest blocks
    // (the Kurds, untouched) storm anew, with no half-hit carried from R1
    await agreesWithExact({
      ...ISSUE_17,
      blocks: [{ block: 'Conrad', at: 'castle' }, { block: 'Saladin' }, { block: 'Al Adil' }, { block: 'Kurds 1' }, { block: 'Kurds 2' }, { block: 'Genoa Pilgrims', at: 'main_road', steps: 1 }],
      policy: { storm: 'always', sally: 'never' },
    });
  });

  it('2.7 and 6.55: sallying blocks hold the field for the besieged after the relief has left it (a harrier)', async () => {
    // R1: 8 castle steps against 10 do not sally; R2: the Turcopoles' relief arrives (11 against 10),
    // Richard and Philippe sally, the Turcopoles fire and leave (6.33), the sally fights on alone
    const body: Tree = {
      ...FRANKS_BESIEGED,
      blocks: [{ block: 'Richard', at: 'castle' }, { block: 'Philippe', at: 'castle' }, { block: 'Zangi' }, { block: 'Sanjar' }, { block: 'Al Mashtub' }, { block: 'Antioch Turcopoles', at: 'main_road' }],
      retreat_slots: { defender: 1 },
      policy: { storm: 'when_stronger', sally: 'when_stronger', harry: 'always' },
    };
    const { result: r } = await agreesWithExact(body);
    expect(curve(r, 1, '1', 'franks', 'castle')).toBe(8); // no sally in R1
    // after the Turcopoles' one volley (about 1 hit) the sally fights on: R2 costs the Saracens over 3 steps
    expect(curve(r, 1, '2', 'saracens', 'field')).toBeLessThan(10 - 2.5);
  });

  it('4.4: a storm that empties the castle while the besieged have reserves coming hands them the attack and the besieger the castle', async () => {
    // a 1-step garrison; the relief (8 steps, R2) outnumbers the besiegers, who withdraw into
    // the castle they now hold (6.62)
    const body: Tree = {
      ...FRANKS_BESIEGED,
      blocks: [{ block: 'Genoa Pilgrims', at: 'castle', steps: 1 }, { block: 'Yazkuj' }, { block: 'Sulaiman' }, { block: 'Richard', at: 'main_road' }, { block: 'Philippe', at: 'main_road' }],
      turns: 2,
      policy: { storm: 'always', withdraw: 'when_weaker' },
    };
    const { result: r } = await agreesWithExact(body);
    expect(curve(r, 1, '1', 'franks', 'castle')).toBeLessThan(0.8); // often emptied in R1
    expect(curve(r, 1, '2', 'saracens', 'castle')).toBeGreaterThan(1); // the Saracens inside it in R2
  });

  it('2.8: sallying blocks go back into the castle before the relief retreats; a relief block with no road left is eliminated', async () => {
    const noRoad = merge(ISSUE_17, { retreat_slots: { defender: 0 } }); // the Franks are the scenario's defender
    const { result: r } = await agreesWithExact(noRoad, 60000);
    expect(curve(r, 1, 'end', 'franks', 'castle')).toBeGreaterThan(0.5); // Conrad back inside, not eliminated
    up(zDiff(await pair(ISSUE_17, 'retreat_slots.defender', 0), 'mean_steps_lost_franks')); // King Guy eliminated
  });

  it('4.5: a sally into an uncontested field makes the besieged the attacker: the besiegers fire first', async () => {
    // the same letters on both sides (A2, 3 steps): the defender's A group fires first (6.2)
    const body: Tree = {
      town: { rating: 2 },
      player1: 'franks',
      situation: 'existing_siege',
      besieged: 'franks',
      blocks: [{ block: 'Antioch Turcopoles', at: 'castle' }, { block: 'Crossbows', at: 'castle' }, { block: 'Turks 1' }, { block: 'Turks 2' }],
      turns: 2,
      policy: { storm: 'never', sally: 'always' },
    };
    const { result: r } = await agreesWithExact(body);
    expect(m(r, 0, 'p_attacker_wins')).toBeGreaterThan(m(r, 0, 'p_defender_holds') + 0.1); // the besiegers (scenario attacker) fire first
  });
});

describe('crusader-rex: the whole-battle chain on relief, sally, role swaps, harry, retreat and random ties', () => {
  const cases: [string, Tree][] = [
    ['relief, then storms over a second game turn (6.56, 6.53, 6.57)', merge(ISSUE_17, { turns: 2, policy: { storm: 'when_stronger', storm_ratio: 0.5, sally: 'never' } })],
    ['old siege with P1 relief from R1, sally in R1, besieger reserves R2/R3 (6.41 control change, then the relief arrival), harry, one road slot a side, besieger leaves after R3', {
      town: { rating: 2 },
      player1: 'franks',
      situation: 'existing_siege',
      besieged: 'franks',
      blocks: [{ block: 'Balian', at: 'castle' }, { block: 'Walter', at: 'castle' }, { block: 'Zangi', steps: 2 }, { block: 'Turks 2', steps: 1 }, { block: 'Conrad', at: 'main_road' }, { block: 'Josselin', at: 'other_road' }, { block: 'Turks 1', at: 'main_road' }, { block: 'Kurds 3', at: 'other_road' }],
      turns: 2,
      retreat_slots: { attacker: 1, defender: 1 },
      policy: { storm: 'when_stronger', sally: 'always', harry: 'always', besieger_after_r3: 'retreat' },
    }],
    ['new battle, the strongest in the castle, the sally joins its own defenders in R2; retreat when outnumbered, strongest first, Jihad', {
      town: { rating: 2 },
      player1: 'saracens',
      attacker: 'saracens',
      blocks: [{ block: 'King Guy', at: 'town' }, { block: 'Genoa Pilgrims', at: 'town' }, { block: 'Conrad', at: 'town' }, { block: 'Balian', at: 'main_road' }, { block: 'Saladin', at: 'main_road' }, { block: 'Al Adil', at: 'main_road' }, { block: 'Turks 3', at: 'other_road' }],
      retreat_slots: { attacker: 2, defender: 1 },
      rules: { jihad: 'attacker' },
      policy: { deployment: 'castle_first', storm: 'always', sally: 'always', retreat: 'when_outnumbered', fire_order: 'strongest_first', tie_break: 'protect_best' },
    }],
    ['sallies over three turns with withdrawals, a conditional charge and the random tie-break', {
      town: { rating: 3 },
      player1: 'franks',
      situation: 'existing_siege',
      besieged: 'franks',
      blocks: [{ block: 'Richard', at: 'castle' }, { block: 'Robert', at: 'castle' }, { block: 'Conrad', at: 'castle', steps: 2 }, { block: 'Yazkuj' }, { block: 'Sulaiman' }, { block: 'Turks 1' }],
      turns: 3,
      policy: { storm: 'never', sally: 'when_stronger', sally_ratio: 1.2, withdraw: 'when_weaker', charge: 'when_strongest_enemy_block_is_weaker', tie_break: 'random' },
    }],
    ['field battle with the random tie-break, harrying and retreat (6.31, 6.33, 6.6)', {
      town: { rating: 0 },
      player1: 'saracens',
      attacker: 'saracens',
      blocks: [{ block: 'Saladin' }, { block: 'Turks 1' }, { block: 'Kurds 2' }, { block: 'Arabs 3', at: 'other_road' }, { block: 'King Guy' }, { block: 'Conrad' }, { block: 'Antioch Turcopoles' }, { block: 'Balian', at: 'main_road' }],
      retreat_slots: { attacker: 2, defender: 1 },
      policy: { tie_break: 'random', harry: 'always', retreat: 'when_outnumbered' },
    }],
  ];
  // each battle on both kernel paths: the table path (at most 5 blocks a side) and the general path
  it.each(cases.flatMap(([label, body]) => (['kernel', 'general'] as const).map((path) => [label, path, body] as const)))('%s (%s path)', async (_label, path, body) => {
    await agreesWithExact(body, 60000, path);
  });

  it('the bundled 6.56 cases and the Battle of Jerusalem are in the chain\'s reach (check covers them)', async () => {
    const { readFileSync } = await import('node:fs');
    const { validateText, compilePoints } = await import('../src/api/run.js');
    for (const f of ['case-a-new-siege', 'case-b-old-siege', 'case-c-old-siege-2', 'battle-of-jerusalem']) {
      const v = validateText(f, readFileSync(`scenarios/crusader-rex/${f}.yaml`, 'utf8'));
      if (!v.ok) throw new Error(f);
      for (const p of compilePoints(v.value)) for (const c of p.compiled) expect(battleApplies(c as CrusaderRexCompiled), f).toBe(true);
    }
  });
});

/**
 * 6.53 "the besieger names its storming blocks" and 6.54's top-up of a storm under way,
 * as policies (policy.stormers, policy.storm_top_up; docs/rules/crusader-rex.md 4.3). Each reading
 * changes the exact answer, and every kernel path agrees with the exact chain under it.
 */
describe('crusader-rex: who storms, and whether a storm under way is topped up (6.53, 6.54)', () => {
  /** Castle limit 2; a 1-step Tuman listed first among the besiegers: strongest storms with Saladin and Al Mashtub, listed with Tuman and Saladin. */
  const WEAK_FIRST: Tree = merge(FRANKS_BESIEGED, {
    blocks: [{ block: 'Raymond (Tiberias)', at: 'castle' }, { block: 'Walter', at: 'castle' }, { block: 'Tuman', steps: 1 }, { block: 'Saladin' }, { block: 'Al Mashtub' }],
    turns: 2,
    policy: { storm: 'always' },
  });
  /** Castle limit 3, 6 castle steps: Saladin and Al Adil (8 steps) just pass storm_ratio 0.66 in R1; Al Mashtub (1 step) arrives in R2, two game turns. */
  const LATE_BLOCK: Tree = merge(FRANKS_BESIEGED, {
    town: { rating: 3 },
    turns: 2,
    blocks: [{ block: 'Raymond (Tiberias)', at: 'castle' }, { block: 'Walter', at: 'castle' }, { block: 'Saladin' }, { block: 'Al Adil' }, { block: 'Al Mashtub', steps: 1, at: 'main_road', arrives: 2 }],
    policy: { storm: 'when_stronger', storm_ratio: 0.66 },
  });
  const exactOf = (body: Tree) => exactScenario(valid(body, 10))[0].exact!.metrics;

  it.each([
    ['policy.stormers: listed', WEAK_FIRST, { stormers: 'listed' }],
    ['policy.storm_top_up: retest', LATE_BLOCK, { storm_top_up: 'retest' }],
  ])('%s changes the exact answer', (_, body, policy) => {
    const a = exactOf(body as Tree).p_castle_falls.value;
    const b = exactOf(merge(body as Tree, { policy })).p_castle_falls.value;
    expect(Math.abs(a - b)).toBeGreaterThan(0.01);
  });
  it.each([
    ['listed stormers, the kernel\'s path (the general path: the tables pick by strength)', merge(WEAK_FIRST, { policy: { stormers: 'listed' } }), 'kernel'],
    ['a storm under way re-tested, the table path', merge(LATE_BLOCK, { policy: { storm_top_up: 'retest' } }), 'kernel'],
    ['a storm under way re-tested, the general path', merge(LATE_BLOCK, { policy: { storm_top_up: 'retest' } }), 'general'],
    ['strongest stormers (DEFAULT), the general path', WEAK_FIRST, 'general'],
  ] as const)('%s agrees with the exact chain', async (_, body, path) => {
    await agreesWithExact(body, 60000, path);
  });
});
