/**
 * Crusader Rex input checks that need more than one key, and the readings of
 * docs/rules/crusader-rex.md that an implementation written from the document alone must share:
 * `attacker:`/`besieged:` against the situation (§10), the roster block given a key only a block
 * given in full takes, a charge's self-hits at firepower 6 (§1.6), what survivors.csv counts (§9)
 * and the field attacker of R1 in an existing siege (§3.2 "Roles at the start of the battle").
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { validateText } from '../src/api.js';
import { CASTLE_ONLY_SETTINGS, compileCrusaderRex, contradictionMessage, type CrusaderRexCompiled } from '../src/systems/crusader-rex/compile.js';
import { exactBattle } from '../src/systems/crusader-rex/exact.js';
import { MSG } from '../src/scenario/messages.js';
import { compiled, kernelAcc } from './crusader-rex.shared.js';
import type { Tree } from './helpers.js';

const HEAD = 'name: cr\nsystem: crusader-rex\nseed: 1\ntrials: 10\n';
const check = (body: Tree) => validateText('cr.yaml', HEAD + stringify(body));
const at = (v: ReturnType<typeof check>, path: string) => {
  const list = v.ok ? (v.value.warnings ?? []) : v.issues;
  return list.filter((i) => i.path === path).map((i) => `${i.line}:${i.col} ${i.message}`);
};
const SIEGE: Tree = { town: { rating: 2 }, player1: 'saracens', situation: 'existing_siege', besieged: 'franks', blocks: [{ block: 'Saladin' }, { block: 'King Guy', at: 'castle' }] };
const BATTLE: Tree = { town: { rating: 2 }, player1: 'saracens', attacker: 'saracens', blocks: [{ block: 'Saladin' }, { block: 'King Guy', at: 'town' }] };
/** The line of a top-level key in the file `check` validates (1-based; the key starts in column 1). */
const lineOf = (body: Tree, key: string) => (HEAD + stringify(body)).split('\n').findIndex((l) => l.startsWith(`${key}:`)) + 1;

describe('crusader-rex: attacker and besieged against the situation (§10)', () => {
  it('an existing siege naming the besieged as `attacker` is refused at the key', () => {
    const body = { ...SIEGE, attacker: 'franks' };
    const v = check(body);
    expect(v.ok).toBe(false);
    expect(at(v, 'attacker')).toEqual([`${lineOf(body, 'attacker')}:11 ${contradictionMessage('attacker', 'franks', 'franks')}`]);
    expect(contradictionMessage('attacker', 'franks', 'franks')).toContain('the besieger (saracens)');
  });
  it('a new battle naming the attacker as `besieged` is refused at the key', () => {
    const body = { ...BATTLE, besieged: 'saracens' };
    const v = check(body);
    expect(v.ok).toBe(false);
    expect(at(v, 'besieged')).toEqual([`${lineOf(body, 'besieged')}:11 ${contradictionMessage('besieged', 'saracens', 'saracens')}`]);
  });
  it('the agreeing key is a warning at the key that changes nothing: the case compiles as without it', () => {
    for (const [body, key] of [[{ ...SIEGE, attacker: 'saracens' }, 'attacker'], [{ ...BATTLE, besieged: 'franks' }, 'besieged']] as [Tree, string][]) {
      const v = check(body);
      expect(v.ok, key).toBe(true);
      if (!v.ok) continue;
      expect(v.value.warnings?.map((w) => `${w.path} ${w.line}:${w.col}`)).toEqual([`${key} ${lineOf(body, key)}:1`]);
      expect(v.value.warnings![0].message).toMatch(/^changes nothing: /);
      const without = { ...body };
      delete without[key];
      expect(check(without).ok).toBe(true);
      const c = (b: Tree) => compileCrusaderRex((check(b) as { ok: true; value: { points: { variants: { scenario: Record<string, unknown> }[] }[] } }).value.points[0].variants[0].scenario);
      expect(c(body)).toEqual(c(without));
    }
  });
  it('no warning when a variant makes the key read: `besieged` in a new battle whose variant is an existing siege', () => {
    const body = { ...BATTLE, besieged: 'franks', blocks: [{ block: 'Saladin' }, { block: 'King Guy', at: 'castle' }], variants: [{ name: 'battle' }, { name: 'siege', set: { situation: 'existing_siege' } }] };
    const v = check(body);
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.value.warnings?.filter((w) => w.path === 'besieged') ?? []).toEqual([]);
  });
});

describe('crusader-rex: a roster block given a key only a block given in full takes', () => {
  it('says why, at the key, for name, side, max, rating and type', () => {
    for (const key of ['name', 'side', 'max', 'rating', 'type']) {
      const value = { name: 'X', side: 'franks', max: 3, rating: 'C1', type: 'emir' }[key];
      const v = check({ ...BATTLE, blocks: [{ block: 'Saladin', [key]: value }, { block: 'King Guy' }] });
      expect(v.ok).toBe(false);
      if (v.ok) continue;
      expect(v.issues.map((i) => i.path)).toEqual([`blocks[0].${key}`]);
      expect(v.issues[0].message).toMatch(new RegExp(`^${MSG.unknownKey(key)}: a roster block \\(\`block:\`\\) takes its side, maximum steps, rating and type from the roster`));
    }
  });
  it('any other unknown key keeps its plain message', () => {
    const v = check({ ...BATTLE, blocks: [{ block: 'Saladin', step: 2 }, { block: 'King Guy' }] });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.issues.map((i) => i.message)).toEqual([MSG.unknownKey('step')]);
  });
  it('a block given in full takes them', () => {
    expect(check({ ...BATTLE, blocks: [{ block: 'Saladin' }, { name: 'Militia', side: 'franks', max: 3, rating: 'C2', type: 'infantry' }] }).ok).toBe(true);
  });
});

describe('crusader-rex: the readings the rules file states (exact chain)', () => {
  const exact = (body: Tree) => exactBattle(compiled(body) as CrusaderRexCompiled);
  it('§1.6: a charge at firepower 5 or 6 takes no self-hits (a 6 is a self-hit only when it misses)', () => {
    for (const rating of ['B4', 'B5', 'B6']) {
      const e = exact({ town: { rating: 0 }, player1: 'franks', attacker: 'franks', blocks: [{ name: 'K', side: 'franks', max: 4, rating, type: 'crusader' }, { name: 'S', side: 'saracens', max: 4, rating: 'C1', type: 'emir' }], policy: { charge: 'always' } });
      const lost = e.metrics.mean_steps_lost_franks.value;
      // B4 charges at 5: every 6 misses and is a self-hit; at 6 a 6 hits
      if (rating === 'B4') expect(lost).toBeGreaterThan(0.3);
      else expect(lost).toBe(0);
    }
  });
  it('§9: survivors.csv counts a retreated block with its steps; the metrics do not count it in the town', () => {
    // a 1-step attacker that cannot eliminate 4 defending steps in 3 rounds: when it survives R3 it must retreat (2.8)
    const e = exact({ town: { rating: 0 }, player1: 'saracens', attacker: 'saracens', blocks: [{ name: 'A', side: 'saracens', max: 1, rating: 'C1', type: 'emir' }, { name: 'D', side: 'franks', max: 4, rating: 'C1', type: 'infantry' }] });
    const survivors = e.curves.survivors.filter((p) => p.x.side === 'saracens');
    const p1 = survivors.find((p) => p.x.steps === 1)!.value;
    expect(p1).toBeGreaterThan(0.05); // the attacker survived R3 and retreated: its step counts
    expect(e.metrics.p_attacker_wins.value).toBe(0); // yet it is not in the town at the end
    expect(p1 + e.metrics.mean_steps_lost_saracens.value).toBeCloseTo(1, 12); // survivors = start − lost, per trial
  });
  it('§3.2: in an existing siege a relief present from R1 is the field attacker only while the castle holds blocks', () => {
    // the Jihad bonus goes to the scenario's attacker (the besieger) only in a round it attacks: it tells who attacks in R1
    const body = (castle: boolean, jihad: string): Tree => ({
      town: { rating: 2 },
      player1: 'franks',
      situation: 'existing_siege',
      besieged: 'franks',
      blocks: [...(castle ? [{ block: 'Walter', at: 'castle' }] : []), { block: 'Balian', at: 'main_road' }, { block: 'Zangi' }],
      rules: { jihad },
    });
    const lost = (castle: boolean, jihad: string) => exact(body(castle, jihad)).metrics.mean_steps_lost_franks.value;
    expect(lost(true, 'attacker')).toBeCloseTo(lost(true, 'none'), 12); // the relief attacks in R1: no Jihad
    expect(lost(false, 'attacker')).toBeGreaterThan(lost(false, 'none') + 0.01); // empty castle: the besieger attacks in R1, with the Jihad
  });
});

describe('crusader-rex: what a town rated 0 never reads (no castle: §2.2)', () => {
  /** A field battle with reserves, charges, harries, retreats by road and three game turns. */
  const FIELD: Tree = {
    town: { rating: 0 },
    player1: 'saracens',
    attacker: 'saracens',
    turns: 3,
    blocks: [{ block: 'Saladin' }, { block: 'Al Adil', steps: 2 }, { block: 'Kurds 1', at: 'main_road' }, { block: 'King Guy' }, { block: 'Jerusalem Templars', steps: 2 }, { block: 'Genoa Pilgrims', at: 'other_road' }],
    policy: { retreat: 'when_outnumbered', charge: 'always', harry: 'always' },
    retreat_slots: { attacker: 1, defender: 1 },
  };
  /** A value other than the default for each castle-only setting. */
  const OTHER: Record<string, unknown> = {
    'policy.storm': 'never',
    'policy.stormers': 'listed',
    'policy.storm_top_up': 'retest',
    'policy.storm_ratio': 0.3,
    'policy.sally': 'always',
    'policy.sally_ratio': 0.2,
    'policy.deployment': 'all_field',
    'policy.withdraw': 'when_weaker',
    'policy.besieger_after_r3': 'retreat',
    'town.fortified_port': true,
    'rules.winter_campaign': true,
    'rules.declined_sally_goes_to_attrition': false,
  };
  const withSetting = (key: string, value: unknown): Tree => {
    const [group, name] = key.split('.');
    return { ...FIELD, [group]: { ...((FIELD[group] as Tree | undefined) ?? {}), [name]: value } };
  };
  it('each is warned at its key as changing nothing, and the battle plays the same with it', () => {
    expect(CASTLE_ONLY_SETTINGS.map(([g, k]) => `${g}.${k}`).sort()).toEqual(Object.keys(OTHER).sort());
    const plain = kernelAcc(compiled(FIELD), 'kernel', 4000, 'rating-0');
    for (const [key, value] of Object.entries(OTHER)) {
      const body = withSetting(key, value);
      const v = check(body);
      expect(v.ok, key).toBe(true);
      if (!v.ok) continue;
      expect(v.value.warnings?.map((w) => `${w.path} ${w.message.slice(0, 40)}`), key).toEqual([`${key} changes nothing: a town rated 0 has no c`]);
      expect(kernelAcc(compiled(body), 'kernel', 4000, 'rating-0'), key).toEqual(plain);
    }
  });
  it('a setting a field battle reads is not warned (rules.control_change_any_round), nor a castle setting where some case has a castle', () => {
    const v = check(withSetting('rules.control_change_any_round', false));
    expect(v.ok && (v.value.warnings ?? []).length).toBe(0);
    const swept = check({ ...withSetting('policy.storm', 'never'), sweep: { 'town.rating': [0, 2] } });
    expect(swept.ok && (swept.value.warnings ?? []).length).toBe(0);
    expect(kernelAcc(compiled(withSetting('rules.control_change_any_round', false)), 'kernel', 4000, 'rating-0')).not.toEqual(kernelAcc(compiled(FIELD), 'kernel', 4000, 'rating-0'));
  });
});
