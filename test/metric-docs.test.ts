/**
 * Every metric has a definition a player can read (RulesSystem.metricDocs, metricDocFor), and
 * the sides the metrics call attacker and defender are named where the scenario has them.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runScenario, validateText } from '../src/api.js';
import { SYSTEMS } from '../src/systems/registry.js';
import { describeMetric, sidesLines } from '../src/systems/metric-docs.js';

const ROOT_DIR = path.resolve(import.meta.dirname, '..');

function valid(file: string, text: string) {
  const v = validateText(file, text);
  if (!v.ok) throw new Error(`${file}: ${v.issues.map((i) => i.message).join('; ')}`);
  return v.value;
}

describe('metric definitions', () => {
  it('every metric a bundled case produces, and every name in a metricOrder, has a one-line definition', () => {
    const dir = path.join(ROOT_DIR, 'scenarios');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    const seen = new Set<string>();
    for (const f of files) {
      const v = valid(f, readFileSync(path.join(dir, f), 'utf8'));
      const sys = v.system;
      for (const p of v.points)
        for (const vc of p.variants) {
          const c = sys.compile(vc.scenario);
          for (const m of Object.keys(sys.summarize(c, new Float64Array(sys.kernel.accLength(c))).metrics)) {
            const d = describeMetric(sys, m);
            expect(d, `${f} ${vc.variant}: ${m} has no definition (metricDocs / metricDocFor of ${sys.id})`).toBeTruthy();
            expect(d, m).not.toMatch(/\n/);
            seen.add(`${sys.id} ${m}`);
          }
        }
    }
    for (const sys of SYSTEMS) for (const m of sys.metricOrder) expect(describeMetric(sys, m), `${sys.id} ${m}`).toBeTruthy();
    // a definition nobody produces is a stale one (a renamed metric)
    for (const sys of SYSTEMS) for (const m of Object.keys(sys.metricDocs)) expect(sys.metricOrder, `${sys.id}: ${m} is defined but not in metricOrder`).toContain(m);
    expect(seen.size).toBeGreaterThan(40);
  });

  it("Cry Havoc's per-letter metrics say what their letter means on each table", () => {
    const ch = SYSTEMS.find((s) => s.id === 'cry-havoc')!;
    expect(describeMetric(ch, 'p_first_F')).toBe(
      'melee: the turn-1 combat roll gave F on the table the defender starts on, over all trials (every p_first_* is 0 when turn 1 allows no attack) (1.6; foot table: defender killed; mounted table: horse killed, rider wounded, dismounted)',
    );
    expect(describeMetric(ch, 'p_first_H')).toMatch(/gave H .*\(1\.6; mounted table: horse and rider killed\)$/);
    expect(describeMetric(ch, 'p_first_none')).toMatch(/gave "-" .*foot table: no effect; mounted table: no effect/);
    expect(describeMetric(ch, 'p_shot_C')).toMatch(/foot table: target killed; mounted table: horse unhurt, rider wounded and dismounted\)$/);
    expect(describeMetric(ch, 'p_first_Z')).toBeUndefined();
  });
});

describe('the sides', () => {
  const relief = `name: acre
system: crusader-rex
seed: 1
trials: 1000
town: { rating: 3 }
player1: saracens
situation: existing_siege
besieged: franks
blocks:
  - { block: Saladin, at: field }
  - { block: Al Adil, at: field }
  - { block: Acre Hospitallers, at: castle }
  - { block: Conrad, at: castle }
  - { block: Richard, at: main_road }
  - { block: Philippe, at: other_road }
`;

  it('Crusader Rex: the metrics\' attacker of an existing siege is the besieger, a relief force counting with the besieged (6.56)', () => {
    const v = valid('r.yaml', relief);
    const sys = v.system;
    expect(sys.sides!(v.points[0].variants[0].scenario)).toBe(
      "attacker = the besieger, saracens: Saladin, Al Adil; defender = the besieged, franks: Acre Hospitallers (castle), Conrad (castle), Richard (main road), Philippe (other road). The besieged side's blocks on the roads are a relief force: it attacks in its battle (6.56) but counts with the defender here, so p_attacker_wins is the besieger's.",
    );
    const battle = valid('b.yaml', relief.replace('situation: existing_siege\nbesieged: franks', 'situation: new_battle\nattacker: saracens').replace(/at: castle/g, 'at: town'));
    expect(sys.sides!(battle.points[0].variants[0].scenario)).toMatch(
      /^attacker = saracens \(attacker:, the first to enter the field\): Saladin, Al Adil; defender = franks: Acre Hospitallers \(town\), Conrad \(town\), Richard \(main road\), Philippe \(other road\)\. The defender's blocks on the roads may arrive as a relief force and attack in the battle \(6\.56\); they still count with the defender here\.$/,
    );
    // an explicit arrival round is said: it overrides the road's timing (a reader took "Richard (main road)" for R1's road rule)
    const timed = valid('t.yaml', relief.replace('{ block: Richard, at: main_road }', '{ block: Richard, at: main_road, arrives: 3 }'));
    expect(sys.sides!(timed.points[0].variants[0].scenario)).toContain('Richard (main road, arrives R3), Philippe (other road)');
  });

  it('each system says how far a trial runs, the cap its probabilities are read at (the answer said seed and trials, not the 6 combat turns)', () => {
    const byId = (id: string) => SYSTEMS.find((s) => s.id === id)!;
    expect(byId('crusader-rex').horizon!({ turns: 1 })).toBe('1 game turn');
    expect(byId('crusader-rex').horizon!({})).toBe('1 game turn');
    expect(byId('surrender').horizon!({ turns: 8 })).toBe('8 game turns');
    expect(byId('fantasy').horizon!({ mode: 'siege' })).toBe('at most 20 rounds');
    expect(byId('fantasy').horizon!({ mode: 'open_field', max_rounds: 12 })).toBe('at most 12 rounds');
    expect(byId('cry-havoc').horizon!({ kind: 'melee', turns: 6 })).toBe('6 combat turns');
    expect(byId('cry-havoc').horizon!({ kind: 'battering' })).toBe('20 siege days');
    expect(byId('cry-havoc').horizon!({ kind: 'healing' })).toBeUndefined();
  });

  it('a run says its horizon when every case runs as far, and not when a sweep moves it', async () => {
    const one = await runScenario(valid('r.yaml', relief), { trials: 200 });
    expect(one.horizon).toBe('1 game turn');
    const swept = await runScenario(valid('s.yaml', `${relief}sweep: { turns: [1, 2] }\n`), { trials: 200 });
    expect(swept.horizon).toBeUndefined();
  }, 60_000);

  it('fantasy names its armies; Cry Havoc a melee\'s characters; surrender no sides', () => {
    const byId = (id: string) => SYSTEMS.find((s) => s.id === id)!;
    // a sentence with each army's units, not the file's keys ("attacker = the attacker: army, ..." says nothing)
    expect(byId('fantasy').sides!({ mode: 'siege', attacker: { infantry: 10, cavalry: 4, archers: 6, mages: 2, clerics: 2, siege_engines: 3, captain_might: 2 }, defender: { infantry: 6, cavalry: 0, archers: 6, mages: 1, clerics: 1, siege_engines: 0, captain_might: 1 } })).toBe(
      "attacker = the army outside the wall (10 infantry, 4 cavalry, 6 archers, 2 mages, 2 clerics, 3 siege engines; captain's Might 2), whose engines batter the wall and whose climbers go over it; defender = the army behind the wall (6 infantry, 6 archers, 1 mage, 1 cleric; captain's Might 1) (4.2)",
    );
    expect(byId('fantasy').sides!({ mode: 'open_field', attacker: { cavalry: 1 }, defender: {} })).toBe(
      'attacker = the army that shoots first (Phase A) and charges with its cavalry (1 cavalry); defender = the army it attacks (no units) (4.1)',
    );
    expect(byId('fantasy').sides!({ mode: 'siege' })).not.toMatch(/attacker:|defender:/);
    expect(byId('cry-havoc').sides!({ kind: 'melee', attackers: [{ attack: 8, mounted: true }, { attack: 4, mounted: false }], defender: { defence: 7, mounted: false } })).toBe(
      'attacker = the 2 attacking characters (attack 8, mounted; attack 4); defender = the defending character (defence 7)',
    );
    expect(byId('cry-havoc').sides!({ kind: 'fire' })).toBeUndefined();
    expect(byId('surrender').sides).toBeUndefined();
  });

  it('one line when every case agrees, else a line per reading led by its variants', () => {
    expect(sidesLines([{ case: 1, variant: 'a', text: 'x' }, { case: 1, variant: 'b', text: 'x' }])).toEqual(['x']);
    expect(sidesLines([{ case: 1, variant: 'a', text: 'x' }, { case: 1, variant: 'b', text: 'y' }, { case: 2, variant: 'a', text: 'x' }, { case: 2, variant: 'b', text: 'y' }])).toEqual(['a: x', 'b: y']);
    expect(sidesLines([{ case: 1, variant: 'a', text: 'x' }, { case: 2, variant: 'a', text: 'y' }])).toEqual(['case 1 a: x', 'case 2 a: y']);
    expect(sidesLines([{ case: 1, variant: 'a', text: undefined }])).toEqual([]);
    // a sweep of the forces: the first case's line, said to be that case's (it read as the file's own)
    const many = [1, 2, 3, 4, 5, 6].map((c) => ({ case: c, variant: 'a', text: `${c} mages` }));
    expect(sidesLines(many)).toEqual(["case 1 a: 1 mages (the sides differ in other cases: 5 other line-ups; each case's swept values are in summary.csv)"]);
  });
});
