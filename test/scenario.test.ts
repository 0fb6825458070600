import { describe, expect, it, vi } from 'vitest';
import { loadScenarioText, validateText } from '../src/api.js';
import { COMMON_SHAPE, scenarioSchemaOf, schemaAt } from '../src/scenario/schema.js';
import { systemById } from '../src/systems/registry.js';
import { MSG } from '../src/scenario/messages.js';
import { suggest } from '../src/text/suggest.js';
import { metricKinds } from '../src/scenario/expect.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { loadSome } from '../src/cli/common.js';
import path from 'node:path';

const ROOT_DIR = path.resolve(import.meta.dirname, '..');

const BASE = `name: t
system: surrender
seed: 1
trials: 1000
`;

function issuesOf(text: string) {
  const v = validateText('s.yaml', text);
  if (v.ok) throw new Error('expected problems');
  return v.issues;
}

describe('scenario validation', () => {
  it('fills every DEFAULT of docs/rules/surrender.md', () => {
    const v = validateText('s.yaml', BASE);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    const s = v.value.points[0].variants[0].scenario as any;
    expect(s.rules).toEqual({
      die: 6,
      comparison: 'lt',
      natural_one_succeeds: false,
      natural_max_fails: false,
      heavy_counts_as_artillery: true,
      engineers_count_as_artillery: true,
      engineers_separate_modifier: false,
      leader_bonus: 'once_per_side',
      modifiers_apply_to: 'roll',
      overcrowding_steps: 5,
      min_besieging_units: 2,
      tests_per_turn: 1,
    });
    expect(s.structure).toEqual({ surrender_level: 3, port: false, blockade_chance: 1 });
    expect(s.cards.besieger).toEqual({ chance: 0, modifier: -1 });
    expect(s.cards.besieged).toEqual({ chance: 0, modifier: 1 });
    expect(v.value.variantNames).toEqual(['baseline']);
  });

  it('places a YAML syntax error at its line and column', () => {
    const issues = issuesOf(`${BASE}besieger: { heavy_siege_artillery: 1\nturns: 3\n`);
    expect(issues[0].path).toBe('(yaml)');
    expect(issues[0].line).toBeGreaterThanOrEqual(5);
    expect(issues[0].message).toMatch(/^YAML syntax error/);
  });

  it('rejects an unknown key with a suggestion, at the key', () => {
    const issues = issuesOf(`${BASE}besieger:\n  heavy_siege_artilery: 1\n`);
    expect(issues).toEqual([
      { file: 's.yaml', line: 6, col: 3, path: 'besieger.heavy_siege_artilery', message: MSG.unknownKey('heavy_siege_artilery', 'heavy_siege_artillery') },
    ]);
  });

  it('collects every error at once: wrong type, negative count, bad enum, unknown top-level key', () => {
    const issues = issuesOf(`${BASE}turns: many\nbesieger: { artillery: -1 }\nrules: { comparison: lte }\ntrails: 3\n`);
    const byPath = Object.fromEntries(issues.map((i) => [i.path, i]));
    expect(Object.keys(byPath).sort()).toEqual(['besieger.artillery', 'rules.comparison', 'trails', 'turns']);
    expect(byPath['turns']).toMatchObject({ line: 5, col: 8 });
    expect(byPath['besieger.artillery']).toMatchObject({ line: 6, col: 24 });
    expect(byPath['besieger.artillery'].message).toBe(MSG.tooSmall(0, '-1'));
    expect(byPath['besieger.artillery'].message).toBe('must be at least 0, got -1');
    expect(byPath['trails'].message).toBe(MSG.unknownKey('trails', 'trials'));
    expect(byPath['rules.comparison'].line).toBe(7);
  });

  it('a Crusader Rex file: the roster problem with the schema problems in one pass, all in file order (line, then column)', () => {
    const issues = issuesOf(`name: bad
system: crusader-rex
seed: 1
trials: 100
town: { rating: 3 }
player1: saracens
attacker: saracens
blocks: [{ block: Saladin, steps: 9 }, { block: Templars }, { block: King Guy, at: feild }, { block: Conrad }]
policy: { stromm: never, storm: sometimes }
variants:
  - name: a
  - name: a
sweep:
  turnz: [1, 2]
`);
    const at = issues.map((i) => `${i.line}:${i.col} ${i.path}`);
    expect(at).toEqual([
      '8:35 blocks[0].steps',
      '8:49 blocks[1].block',
      '8:84 blocks[2].at',
      '9:11 policy.stromm',
      '9:33 policy.storm',
      '12:5 variants[1].name', // sets nothing
      '12:11 variants[1].name', // and a duplicate name
      '14:3 sweep.turnz',
    ]);
    expect(issues[1].message).toMatch(/^"Templars" is not in the roster: did you mean "Jerusalem Templars"/);
    // a limit is said as a limit, with the rule behind it where the schema gives one
    expect(issues[0].message).toBe(MSG.tooBig(4, '9', true, 'a block has at most 4 steps'));
    expect(issues[0].message).toBe('must be at most 4 (a block has at most 4 steps), got 9');
    // once the schema passes, the roster problem is still reported once (by refine, not twice)
    const only = issuesOf(`name: bad\nsystem: crusader-rex\nseed: 1\ntrials: 100\ntown: { rating: 3 }\nplayer1: saracens\nattacker: saracens\nblocks: [{ block: Saladin }, { block: Templars }]\n`);
    expect(only.map((i) => i.path)).toEqual(['blocks[1].block']);
  });

  it('checks each variant, sweep entry and expect item on its own: a bad one hides no other\'s problem', () => {
    const text = `${BASE}variants:\n  - name: a\n  - name: b\n    set: 5\n  - name: c\n    set: { rules.dye: 6 }\nsweep:\n  turns: { from: 1, to: 3 }\n  seed: [1, 2]\n  structure.surrender_level: []\nexpect:\n  - { metric: p_surrender, at_least: "0.1" }\n  - { metric: p_surrender, between: [0.9, 0.5] }\n  - { metric: p_surrender, variant: d, at_least: 0 }\n`;
    expect(issuesOf(text).map((i) => `${i.line}:${i.col} ${i.path}`)).toEqual([
      '8:10 variants[1].set', // expected a mapping
      '10:12 variants[2].set.rules.dye', // not a setting (checked although variant b is malformed)
      '12:3 sweep.turns.step', // missing
      '13:3 sweep.seed', // cannot be varied (checked although turns is malformed)
      '14:30 sweep.structure.surrender_level', // needs at least one entry
      '16:38 expect[0].at_least', // quoted
      '17:37 expect[1].between', // reversed (checked although expect[0] is malformed)
      '18:37 expect[2].variant', // unknown variant: b is still a variant's name
    ]);
    // the scenario itself broken too (trials): what needs no metric is still checked in expect:
    const core = issuesOf(text.replace('trials: 1000', 'trials: 0'));
    expect(core.map((i) => i.path)).toEqual(['trials', ...issuesOf(text).map((i) => i.path)]);
    expect(core[0].message).toBe(MSG.tooSmall(1, '0'));
  });

  it('a fractional range step on a whole-number setting is said once, at the step, naming the values', () => {
    const issues = issuesOf(`${BASE}sweep:\n  turns: { from: 10, to: 20, step: 0.5 }\n`);
    expect(issues).toEqual([{ file: 's.yaml', line: 6, col: 36, path: 'sweep.turns.step', message: MSG.sweepNotWhole('step', 0.5, Array.from({ length: 10 }, (_, i) => 10.5 + i)) }]);
    expect(issues[0].message).toBe('the step 0.5 makes values that are not whole numbers (10.5, 11.5, ..., 19.5) for a setting that takes whole numbers: use a whole step');
    const from = issuesOf(`${BASE}sweep:\n  turns: { from: 1.5, to: 3.5, step: 1 }\n`);
    expect(from.map((i) => [i.path, i.col, i.message])).toEqual([['sweep.turns.from', 18, MSG.sweepNotWhole('from', 1.5, [1.5, 2.5, 3.5])]]);
    // a fractional step on a setting that takes any number is fine
    expect(validateText('s.yaml', `${BASE}sweep:\n  structure.blockade_chance: { from: 0, to: 1, step: 0.25 }\n`).ok).toBe(true);
  });

  it('a fractional range: floor((to - from)/step + 1e-9) + 1 values, each from + k*step to 12 significant digits and never above to (docs/scenarios.md)', () => {
    const chances = (range: string) => {
      const v = validateText('s.yaml', `${BASE}structure: { port: true }\nsweep:\n  structure.blockade_chance: ${range}\n`);
      if (!v.ok) throw new Error(JSON.stringify(v.issues));
      return v.value.points.map((p) => p.params['structure.blockade_chance']);
    };
    // (0.3 - 0)/0.1 is 2.9999999999999996 in floating point: the tolerance reaches 0.3, written 0.3
    expect(chances('{ from: 0, to: 0.3, step: 0.1 }')).toEqual([0, 0.1, 0.2, 0.3]);
    expect(chances('{ from: 0, to: 1, step: 0.1 }')[3]).toBe(0.3);
    // within 1e-9 of a step of 0.3: a fourth value, to itself rather than the 0.3 above it
    expect(chances('{ from: 0, to: 0.29999999999, step: 0.1 }')).toEqual([0, 0.1, 0.2, 0.29999999999]);
    // beyond the tolerance: three values
    expect(chances('{ from: 0, to: 0.2999999, step: 0.1 }')).toEqual([0, 0.1, 0.2]);
    expect(chances('{ from: 0.123456789, to: 0.2, step: 0.0333333333333 }')).toEqual([0.123456789, 0.156790122333, 0.190123455667]);
    // a step below the 12th significant digit would give one value twice: refused at the step
    const fine = issuesOf(`${BASE}structure: { port: true }\nsweep:\n  structure.blockade_chance: { from: 0.5, to: 0.5000000000004, step: 1e-13 }\n`);
    expect(fine.map((i) => [i.path, i.message])).toEqual([['sweep.structure.blockade_chance.step', MSG.sweepStepTooFine(1e-13, 0.5)]]);
  });

  it('a sweep list that names a value twice is a problem at the repeat (two cases of one setting, two answers)', () => {
    const issues = issuesOf(`${BASE}sweep:\n  turns: [10, 40, 10, 20, 40]\n`);
    expect(issues.map((i) => [i.line, i.col, i.path, i.message])).toEqual([
      [6, 19, 'sweep.turns[2]', MSG.sweepRepeated(10, 0, 2)],
      [6, 27, 'sweep.turns[4]', MSG.sweepRepeated(40, 1, 4)],
    ]);
    expect(issues[0].message).toBe('10 is listed twice (items 1 and 3): list each value once (the same setting would run as two cases, with two answers)');
    // the same number written two ways is the same setting
    expect(issuesOf(`${BASE}sweep:\n  turns: [10, 1e1]\n`).map((i) => i.path)).toEqual(['sweep.turns[1]']);
    expect(validateText('s.yaml', `${BASE}sweep:\n  turns: [10, 20, 30]\n`).ok).toBe(true);
  });

  it('reports a missing required key', () => {
    const issues = issuesOf('name: t\nsystem: surrender\nseed: 1\n');
    expect(issues).toEqual([{ file: 's.yaml', line: 1, col: 1, path: 'trials', message: MSG.missingKey() }]);
  });

  it('names an unknown system, with a suggestion or the list', () => {
    expect(issuesOf('name: t\nsystem: surender\nseed: 1\ntrials: 5\n')[0].message).toBe(
      MSG.unknownSystem('surender', 'surrender'),
    );
    expect(issuesOf('name: t\nsystem: chess\nseed: 1\ntrials: 5\n')[0].message).toBe(
      MSG.unknownSystem('chess', undefined, ['surrender', 'crusader-rex', 'fantasy', 'cry-havoc']),
    );
    // a mapping, a list or nothing is said as what it is, not as the system "[object Object]"
    for (const [v, got] of [['{ id: x }', 'a mapping'], ['[a]', 'a list'], ['', 'an empty value']]) {
      expect(issuesOf(`name: t\nsystem: ${v}\nseed: 1\ntrials: 5\n`)[0].message, v).toBe(MSG.wrongKind('one of surrender, crusader-rex, fantasy, cry-havoc', got));
    }
  });

  it('checks variant paths and re-validates after applying them', () => {
    const issues = issuesOf(
      `${BASE}variants:\n  - name: a\n  - name: b\n    set: { rules.comparsion: le }\n  - name: c\n    set: { rules.comparison: maybe }\n  - name: a\n`,
    );
    expect(issues.map((i) => [i.path, i.line])).toEqual([
      ['variants[1].set.rules.comparsion', 8],
      ['rules.comparison', 10],
      ['variants[3].name', 11], // sets nothing
      ['variants[3].name', 11], // and a duplicate name
    ]);
    expect(issues[2].message).toBe(MSG.variantSetsNothing('a', 'a'));
    expect(issues[0].message).toBe(MSG.badPath('rules.comparsion', 'rules.comparison'));
    expect(issues[1].message).toMatch(/^in variant "c": /);
  });

  it('refuses to vary the common keys', () => {
    const issues = issuesOf(`${BASE}sweep:\n  trials: [1, 2]\n`);
    expect(issues[0].message).toBe(MSG.reservedPath('trials'));
  });

  it('expands a 2-D sweep x variants into cases, values re-validated', () => {
    const v = validateText(
      's.yaml',
      `${BASE}sweep:\n  structure.surrender_level: [2, 3, 4]\n  besieger.artillery: { from: 0, to: 3, step: 1 }\nvariants:\n  - name: lt\n  - name: le\n    set: { rules.comparison: le }\n`,
    );
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.value.points.length).toBe(12);
    expect(v.value.params).toEqual(['structure.surrender_level', 'besieger.artillery']);
    expect(v.value.points[5].params).toEqual({ 'structure.surrender_level': 3, 'besieger.artillery': 1 });
    const s = v.value.points[5].variants[1].scenario as any;
    expect(s.rules.comparison).toBe('le');
    expect(s.besieger.artillery).toBe(1);
    const bad = issuesOf(`${BASE}sweep:\n  besieger.artillery: [0, -2]\n`);
    expect(bad[0]).toMatchObject({ path: 'sweep.besieger.artillery[1]', line: 6, col: 27 }); // at the -2
    expect(bad[0].message).toMatch(/^with sweep value -2: /);
  });

  it('rejects an empty range and a sweep of a variant-set path', () => {
    expect(issuesOf(`${BASE}sweep:\n  turns: { from: 5, to: 1, step: 1 }\n`)[0].message).toBe(MSG.sweepRange());
    expect(
      issuesOf(`${BASE}sweep:\n  turns: [1, 2]\nvariants:\n  - name: a\n    set: { turns: 3 }\n`)[0].message,
    ).toBe(MSG.sweepDuplicatePath('turns'));
  });

  it('rejects a variant set that holds a swept path (a mapping set would replace the swept value in every case)', () => {
    // set: cards.besieger: {...} replaces the whole mapping, swept chance included: every point would run chance 0
    const holds = issuesOf(`${BASE}sweep:\n  cards.besieger.chance: [0.5, 0.25]\nvariants:\n  - name: a\n  - name: b\n    set: { cards.besieger: { modifier: -2 } }\n`);
    expect(holds).toEqual([{ file: 's.yaml', line: 10, col: 12, path: 'variants[1].set.cards.besieger', message: MSG.sweepDuplicatePath('cards.besieger', 'cards.besieger.chance') }]);
    expect(holds[0].message).toMatch(/holds the swept "cards\.besieger\.chance", which this set would replace/);
    // a path that only shares a prefix of characters is another setting (cards.besieged is not within cards.besieger)
    const ok = validateText('s.yaml', `${BASE}sweep:\n  cards.besieger.chance: [0.5, 0.25]\nvariants:\n  - name: a\n  - name: b\n    set: { cards.besieged: { chance: 1 } }\n`);
    expect(ok.ok).toBe(true);
  });

  it('warns, without refusing, at each place that writes a blockade_chance the cases it is written for never use (port: false)', () => {
    const dead = `changes nothing: structure.port is false`;
    const file = validateText('s.yaml', `${BASE}structure: { blockade_chance: 0.5 }\nvariants:\n  - name: a\n  - name: le\n    set: { rules.comparison: le }\n`);
    if (!file.ok) throw new Error('expected a valid scenario');
    expect(file.value.warnings).toHaveLength(1);
    expect(file.value.warnings![0]).toMatchObject({ line: 5, col: 14, path: 'structure.blockade_chance' });
    expect(file.value.warnings![0].message).toContain(dead);
    expect(file.value.points[0].variants.map((c) => (c.scenario as any).structure.blockade_chance)).toEqual([0.5, 0.5]);
    // the file's chance is used by a variant that makes a port: not dead; a variant's own chance on a non-port is
    const mixed = validateText('s.yaml', `${BASE}structure: { blockade_chance: 0.5 }\nvariants:\n  - name: a\n  - name: port\n    set: { structure.port: true }\n  - name: v3\n    set: { structure.blockade_chance: 0.2 }\n`);
    if (!mixed.ok) throw new Error('expected a valid scenario');
    expect(mixed.value.warnings!.map((w) => [w.path, w.message.startsWith(`in variant "v3": ${dead}`)])).toEqual([['variants[2].set.structure.blockade_chance', true]]);
    // the commands say it on stderr and go on with the file
    const dir = mkdtempSync(path.join(tmpdir(), 'siegesim-dead-'));
    const f = path.join(dir, 'dead.yaml');
    writeFileSync(f, `${BASE}structure: { blockade_chance: 0.5 }\n`);
    const said: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (said.push(String(chunk)), true));
    try {
      expect(loadSome([f]).valid).toHaveLength(1);
    } finally {
      spy.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(said.join('')).toMatch(/^warning: \S*dead\.yaml:5:14 {2}structure\.blockade_chance {2}changes nothing: structure\.port is false/);
    // a port, or a non-port that leaves the chance out: nothing to say
    for (const body of ['structure: { port: true, blockade_chance: 0.5 }\n', 'structure: { surrender_level: 2 }\n', 'sweep:\n  structure.port: [true]\nstructure: { blockade_chance: 0.5 }\n']) {
      const v = validateText('s.yaml', BASE + body);
      if (!v.ok) throw new Error(body);
      expect(v.value.warnings, body).toBeUndefined();
    }
  });

  it('rejects a variant after the baseline that sets nothing (no set:, or set: {}), at its name or its set', () => {
    const issues = issuesOf(`${BASE}variants:\n  - name: as-written\n  - name: forgot\n  - name: empty\n    set: {}\n  - name: le\n    set: { rules.comparison: le }\n`);
    expect(issues).toEqual([
      { file: 's.yaml', line: 7, col: 5, path: 'variants[1].name', message: MSG.variantSetsNothing('forgot', 'as-written') },
      { file: 's.yaml', line: 9, col: 5, path: 'variants[2].set', message: MSG.variantSetsNothing('empty', 'as-written') },
    ]);
    // a baseline with a set: the set-less variant is the file as written, not the baseline again (variants do not inherit its set:)
    const after = issuesOf(`${BASE}variants:\n  - name: le\n    set: { rules.comparison: le }\n  - name: forgot\n`);
    expect(after.map((i) => i.message)).toEqual([MSG.variantSetsNothing('forgot', 'le', true)]);
    expect(after[0].message).toContain('applies to the file as written, not on top of the baseline "le"');
    // the baseline is the file as written: it needs no set (and an empty one is harmless)
    expect(validateText('s.yaml', `${BASE}variants:\n  - name: as-written\n    set: {}\n  - name: le\n    set: { rules.comparison: le }\n`).ok).toBe(true);
  });

  it('says plainly what is wrong with a number: a whole number, not 1.5; .nan; "10" in quotes; past 2^53 once', () => {
    const at = (text: string) => issuesOf(text).map((i) => `${i.line}:${i.col} ${i.path}  ${i.message}`);
    expect(at(`${BASE.replace('trials: 1000', 'trials: 1.5')}`)).toEqual([`4:9 trials  ${MSG.notWholeNumber('1.5')}`]);
    expect(at(`${BASE}besieger: { artillery: 2.5 }\n`)).toEqual([`5:24 besieger.artillery  ${MSG.notWholeNumber('2.5')}`]);
    expect(at(`${BASE}sweep:\n  besieger.artillery: [1, 2.5]\n`)).toEqual([`6:27 sweep.besieger.artillery[1]  ${MSG.inSweep(2.5, MSG.notWholeNumber('2.5'))}`]);
    expect(at(`${BASE.replace('trials: 1000', 'trials: .nan')}`)).toEqual([`4:9 trials  ${MSG.wrongKind('a whole number', '.nan')}`]);
    expect(at(`${BASE.replace('trials: 1000', 'trials: -.inf')}`)).toEqual([`4:9 trials  ${MSG.wrongKind('a whole number', '-.inf')}`]);
    expect(at(`${BASE.replace('trials: 1000', 'trials: "1000"')}`)).toEqual([`4:9 trials  ${MSG.wrongKind('a whole number', 'the text "1000"', true)}`]);
    // said in words that fit what was written (the new-user audit): a tag, not quotes; digits past a number, not ".inf"; a merge key
    expect(at(`${BASE.replace('trials: 1000', 'trials: !!str 1000')}`)[0]).toContain('got the text "1000" (a number read as text: write it without quotes or a tag such as !!str)');
    expect(at(`${BASE.replace('trials: 1000', `trials: ${'9'.repeat(400)}`)}`)[0]).toContain('got .inf (infinite: .inf, or more digits than a number holds)');
    expect(at(`${BASE}besieged: &b { steps_inside: 4 }
besieger: { <<: *b, artillery: 1 }
`)).toContainEqual(expect.stringContaining('unknown key "<<": YAML merge keys are not read in a scenario (anchors and aliases are): write the keys out'));
    // one problem, the file's own limit (not also "expected int to be <=9007199254740991")
    expect(at(`${BASE.replace('trials: 1000', 'trials: 99999999999999999999999999')}`)).toEqual(['4:9 trials  must be at most 10,000,000,000, got 1e+26']);
    expect(issuesOf(`${BASE}structure: { blockade_chance: .nan }\n`)[0].message).toBe(MSG.wrongKind('a number', '.nan'));
    expect(issuesOf(`${BASE}turns: many\n`)[0].message).toBe(MSG.wrongKind('a whole number', 'the text "many"'));
    expect(issuesOf(`${BASE}turns:\n`)[0].message).toBe(MSG.wrongKind('a whole number', 'an empty value'));
    expect(issuesOf(`${BASE}turns: [1]\n`)[0].message).toBe(MSG.wrongKind('a whole number', 'a list'));
    expect(issuesOf(`${BASE}rules: { natural_one_succeeds: 1 }\n`)[0].message).toBe(MSG.wrongKind('true or false', '1'));
    expect(issuesOf(`${BASE}rules: yes please\n`)[0].message).toBe(MSG.wrongKind('a mapping', 'the text "yes please"'));
    // limits in a designer's words, not zod's "Too small: expected number to be >=0"
    expect(issuesOf(`${BASE}besieger: { artillery: -5 }\n`)[0].message).toBe('must be at least 0, got -5');
    expect(issuesOf(`${BASE}structure: { blockade_chance: 1.5 }\n`)[0].message).toBe('must be at most 1, got 1.5');
    expect(issuesOf(`${BASE}sweep:\n  turns: { from: 1, to: 3, step: 0 }\n`)[0].message).toBe('must be more than 0, got 0');
    expect(issuesOf(`${BASE}sweep:\n  turns: []\n`)[0].message).toBe('needs at least one entry');
    // lines ended by a carriage return alone (classic Mac) are lines: the same scenario, and a problem at its own line
    const town = readFileSync(path.join(ROOT_DIR, 'scenarios/surrender/town-basic.yaml'), 'utf8');
    const lf = validateText('lf.yaml', town);
    const cr = validateText('cr.yaml', town.replace(/\r?\n/g, '\r'));
    expect(cr.ok && lf.ok && JSON.stringify(cr.value.points) === JSON.stringify(lf.value.points)).toBe(true);
    expect(issuesOf(`${BASE}turns: many\n`.replace(/\n/g, '\r')).map((i) => `${i.line}:${i.col} ${i.path}`)).toEqual([`${BASE.split('\n').length}:8 turns`]);
    // zod's own words nowhere: an option given a number or nothing, a pair given text, a required option missing
    expect(issuesOf(`${BASE}rules: { comparison: 5 }\n`)[0].message).toBe(MSG.badOption('5', undefined, ['lt', 'le']));
    expect(issuesOf(`${BASE}rules: { comparison: }\n`)[0].message).toBe(MSG.badOption('an empty value', undefined, ['lt', 'le']));
    expect(issuesOf(`${BASE}expect:\n  - { metric: p_test, between: "x" }\n`)[0].message).toBe(MSG.wrongKind('a list', 'the text "x"'));
    const knights = readFileSync(path.join(ROOT_DIR, 'scenarios/crusader-rex/knights-charge.yaml'), 'utf8').replace(/^player1: .*\n/m, '');
    const noPlayer = validateText('k.yaml', knights);
    expect(noPlayer.ok ? [] : noPlayer.issues.map((i) => [i.path, i.message])).toEqual([['player1', MSG.missingKey()]]);
    // a syntax error after a scalar of several lines read as an error token is at its own line
    // (the parser's line counter missed the scalar's line break: `e` on line 6 was said at 5:1)
    const drift = loadScenarioText('d.yaml', '  x\na: 1\nb:\n  c\n  d\ne: 2\n').issues.map((i) => `${i.line}:${i.col}`);
    expect(drift.at(-3)).toBe('6:1');
    expect(drift).toEqual(['1:3', '3:1', '3:2', '4:3', '6:1', '6:2', '6:4']);
    // a key with an invisible character inside (a byte-order mark pasted in) is shown with its code, not as the key it looks like
    expect(issuesOf(`${BASE}rules: { "di\uFEFFe": 6 }\n`)[0].message).toBe('unknown key "di\\uFEFFe" (did you mean "die"?)');
    // a list or mapping key written with nothing after it (null) is a problem at its place, never an internal error
    for (const key of ['variants', 'expect', 'sweep']) {
      const got = issuesOf(`${BASE}${key}:\n`);
      expect(got.map((i) => `${i.line}:${i.col} ${i.path}`), key).toEqual([`${BASE.split('\n').length}:${key.length + 2} ${key}`]);
      expect(got[0].message, key).toBe(MSG.wrongKind(key === 'sweep' ? 'a mapping' : 'a list', 'an empty value'));
    }
  });

  it('suggests the option meant for a misspelt enum value, in the file and in a variant', () => {
    const values = ['lt', 'le'];
    const base = issuesOf(`${BASE}rules: { comparison: lee }\n`);
    expect(base).toEqual([{ file: 's.yaml', line: 5, col: 22, path: 'rules.comparison', message: MSG.badOption('"lee"', 'le', values) }]);
    const v = issuesOf(`${BASE}variants:\n  - name: a\n  - name: b\n    set: { rules.leader_bonus: once_per_sid }\n`);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ line: 8, path: 'rules.leader_bonus' });
    expect(v[0].message).toMatch(/^in variant "b": "once_per_sid" is not an option \(did you mean "once_per_side"\?\): expected one of /);
    // nothing close: the list alone
    expect(issuesOf(`${BASE}rules: { comparison: sometimes }\n`)[0].message).toBe(MSG.badOption('"sometimes"', undefined, values));
    expect(MSG.badOption('"sometimes"', undefined, values)).toBe('"sometimes" is not an option: expected one of "lt"|"le"');
  });

  it('suggests only close names', () => {
    expect(suggest('defence', ['defense', 'attack'])).toBe('defense');
    expect(suggest('zzzzzz', ['defense', 'attack'])).toBeUndefined();
    // a short word is not a typo of one that shares none of its letters (x0 was "did you mean hp?")
    expect(suggest('x0', ['hp', 'dc'])).toBeUndefined();
    expect(suggest('dx', ['hp', 'dc'])).toBe('dc');
    expect(suggest('lee', ['lt', 'le'])).toBe('le');
  });

  it('parses each variant once: its shape once, its case once (the file as written is the baseline case)', () => {
    const variant = schemaAt(COMMON_SHAPE.variants, [0])!;
    const scenario = scenarioSchemaOf(systemById('surrender')!);
    const spies = [vi.spyOn(variant, 'safeParse'), vi.spyOn(variant, 'parse'), vi.spyOn(scenario, 'safeParse'), vi.spyOn(scenario, 'parse')];
    try {
      const v = validateText('s.yaml', BASE + 'variants:\n  - name: a\n  - name: b\n    set: { turns: 3 }\n  - name: c\n    set: { turns: 4 }\n');
      expect(v.ok && v.value.variantNames).toEqual(['a', 'b', 'c']);
      expect(spies.map((s) => s.mock.calls.length)).toEqual([3, 0, 3, 0]); // the file (= a), b, c
    } finally {
      for (const s of spies) s.mockRestore();
    }
  });
});

describe('sloppy input: every problem in one pass', () => {
  const FANTASY = `name: sloppy
system: fantasy
seed: 1
trials: 1000
mode: siege
attacker: { infantry: 8, cavalry: 3 }
defender: { infantry: 8 }
expect:
  - { metric: p_attackers_wins, at_least: 0.5 }
  - { metric: p_breach, at_least: 1.5 }
`;
  const expectProblems = (issues: { path: string; message: string }[]) => issues.filter((i) => i.path.startsWith('expect'));
  const wanted = [
    { path: 'expect[0].metric', message: MSG.unknownMetric('p_attackers_wins', 'p_attacker_wins', []) },
    { path: 'expect[1].at_least', message: MSG.outsideProbability('at_least: 1.5', 'p_breach') },
  ];

  it.each([
    ['a fractional count', FANTASY.replace('infantry: 8, cavalry', 'infantry: 1.5, cavalry'), 'attacker.infantry'],
    ['an unknown top-level key', FANTASY.replace('seed: 1\n', 'seed: 1\ncolour: red\n'), 'colour'],
    ['trials: -5', FANTASY.replace('trials: 1000', 'trials: -5'), 'trials'],
  ])('the expect: problems are reported beside %s', (_name, text, other) => {
    expect(expectProblems(issuesOf(FANTASY))).toMatchObject(wanted.map(({ path }) => ({ path })));
    const issues = issuesOf(text);
    expect(issues.map((i) => i.path)).toEqual([other, 'expect[0].metric', 'expect[1].at_least']);
    expect(issues[2].message).toBe(wanted[1].message);
    expect(issues[1].message).toBe(MSG.unknownMetric('p_attackers_wins', 'p_attacker_wins', []));
    expect(issues[1].message).toMatch(/^unknown metric "p_attackers_wins" \(did you mean "p_attacker_wins"\?\)$/);
  });

  it('a scenario with problems of its own gets no expect: problem that needs its cases (every bundled expect: stays clean)', () => {
    // Cry Havoc names metrics per table letter (p_first_A...): its metricNames of the file as written lists them
    const dir = path.join(ROOT_DIR, 'scenarios');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    let withExpect = 0;
    for (const f of files) {
      const text = readFileSync(path.join(dir, f), 'utf8');
      if (!/^expect:/m.test(text)) continue;
      withExpect++;
      const issues = issuesOf(text.replace(/^trials: .*$/m, 'trials: 0'));
      expect(issues.map((i) => i.path), f).toEqual(['trials']);
    }
    expect(withExpect).toBeGreaterThanOrEqual(5);
    const melee = readFileSync(path.join(dir, 'cry-havoc/melee-two-on-one.yaml'), 'utf8').replace(/^expect:\n/m, 'expect:\n  - { metric: p_first_A, at_most: 1 }\n');
    expect(validateText('m.yaml', melee).ok).toBe(true);
    expect(issuesOf(melee.replace(/^trials: .*$/m, 'trials: 0')).map((i) => i.path)).toEqual(['trials']);
  });

  it("a system's metricNames of a case are its summary's metrics exactly, each of the kind its name says (p_ a probability)", () => {
    const dir = path.join(ROOT_DIR, 'scenarios');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    let n = 0;
    for (const f of files) {
      const v = validateText(f, readFileSync(path.join(dir, f), 'utf8'));
      if (!v.ok) throw new Error(f);
      const sys = v.value.system;
      for (const p of v.value.points) {
        for (const vc of p.variants) {
          const c = sys.compile(vc.scenario);
          const metrics = sys.summarize(c, new Float64Array(sys.kernel.accLength(c))).metrics;
          const named = metricKinds(sys.metricNames(vc.scenario));
          expect([...named.keys()], `${f} ${vc.variant}`).toEqual(Object.keys(metrics));
          for (const [name, m] of Object.entries(metrics)) expect(named.get(name), `${f} ${name}`).toBe(m.kind);
          n += named.size;
        }
      }
    }
    expect(n).toBeGreaterThan(500);
  });

  it('metricNames of a file with problems counts every reading of a key it cannot read, and never throws', () => {
    const ch = systemById('cry-havoc')!;
    const firsts = (names: readonly string[]) => names.filter((x) => x.startsWith('p_first_')).join(' ');
    expect(firsts(ch.metricNames({ kind: 'melee', defender: { defence: 3 } }))).toBe('p_first_none p_first_A p_first_B p_first_C p_first_D p_first_E p_first_F');
    expect(firsts(ch.metricNames({ kind: 'melee', defender: { defence: -3, mounted: true } }))).toMatch(/p_first_H$/);
    expect(firsts(ch.metricNames({ kind: 'melee', defender: { defence: 3, mounted: 'yes' } }))).toMatch(/p_first_H$/);
    expect(ch.metricNames({ kind: 'meele' })).toEqual(expect.arrayContaining(['p_defender_killed', 'p_first_H', 'p_shot_C', 'p_breached', 'p_ever_ignited', 'p_healed']));
    expect(ch.metricNames({ kind: 'missile', target: 7 })).toContain('p_shot_F');
    expect(systemById('fantasy')!.metricNames({})).toContain('p_breach'); // mode's default: a siege
    expect(systemById('fantasy')!.metricNames({})).not.toContain('mean_volley_a_damage');
    for (const sys of ['surrender', 'crusader-rex', 'fantasy', 'cry-havoc']) {
      for (const junk of [{}, { kind: null, mode: [], defender: 'x', target: null }, { defender: null }]) expect(() => systemById(sys)!.metricNames(junk)).not.toThrow();
    }
  });

  it('a key given twice is one problem among the others', () => {
    const text = FANTASY.replace('seed: 1\n', 'seed: 1\nseed: 2\n').replace('trials: 1000', 'trials: -5').replace('mode: siege', 'mode: siege\ncolour: red');
    const issues = issuesOf(text);
    expect(issues.map((i) => `${i.line}:${i.col} ${i.path}`)).toEqual(['4:1 seed', '5:9 trials', '7:1 colour', '11:15 expect[0].metric', '12:35 expect[1].at_least']);
    expect(issues[0].message).toBe(MSG.duplicateKey('seed', 3));
    // alone, it still fails the file
    expect(issuesOf(`${BASE}trials: 5\n`)).toEqual([{ file: 's.yaml', line: 5, col: 1, path: 'trials', message: MSG.duplicateKey('trials', 4) }]);
  });

  it('a key indented out of line is said at that key, with the key it should line up with', () => {
    const fantasy = (body: string) => `name: t\nsystem: fantasy\nseed: 1\nmode: siege\n${body}max_rounds: 12\n`;
    // one space deeper under a key that has its value: yaml says two things at that value, a line early
    for (const extra of [' ', '   ']) {
      const deeper = issuesOf(fantasy(`defender:\n  infantry: 6\n  ${extra}archers: 4\n`));
      expect(deeper).toEqual([{ file: 's.yaml', line: 7, col: 3 + extra.length, path: '(yaml)', message: MSG.keyUnderValue('archers', 'infantry', 6, 2) }]);
    }
    expect(issuesOf('name: t\nsystem: fantasy\n  seed: 1\n').map((i) => [i.line, i.col, i.message])).toEqual([[3, 3, MSG.keyUnderValue('seed', 'system', 2, 0)]]);
    expect(MSG.keyUnderValue('seed', 'system', 2, 0)).toContain('(column 1)');
    // shallower, or deeper under a sibling: yaml said column 1
    const shallower = issuesOf(fantasy('defender:\n  infantry: 6\n archers: 4\n'));
    expect(shallower).toEqual([{ file: 's.yaml', line: 7, col: 2, path: '(yaml)', message: MSG.keyOutOfLine('archers', 2, 'infantry', 6, 3) }]);
    const inList = issuesOf(fantasy('defender: { infantry: 6 }\nvariants:\n  - name: a\n    set: { wall.hp: 10 }\n     description: x\n'));
    expect(inList.map((i) => [i.line, i.col, i.message])).toEqual([[9, 6, MSG.keyOutOfLine('description', 6, 'set', 8, 5)]]);
    // under a parent key (no value on its line) the yaml message stays as it was
    const parent = issuesOf('name: t\nsystem: fantasy\ndefender:\n  infantry:\n archers: 4\n');
    expect(parent.map((i) => i.message).join('\n')).toMatch(/^YAML syntax error: /);
    expect(parent.map((i) => i.message).join('\n')).not.toContain('before it on line');
  });

  it('an empty file, a file of comments, and an unclosed bracket say so, where it opened', () => {
    expect(issuesOf('').map((i) => i.message)).toEqual([MSG.emptyFile()]);
    expect(MSG.emptyFile()).toMatch(/^the file is empty/);
    expect(issuesOf('# just a note\n\n').map((i) => i.message)).toEqual([MSG.onlyComments()]);
    const open = issuesOf(`${BASE}mode: siege\nattacker: { infantry: 8, cavalry: 3\ndefender: { infantry: 8 }\n`.replace('surrender', 'fantasy'));
    expect(open).toEqual([{ file: 's.yaml', line: 6, col: 11, path: '(yaml)', message: MSG.unclosedFlow('{', '}', 7) }]);
    const list = issuesOf(`${BASE}sweep:\n  turns: [1, 2\n`);
    expect(list.map((i) => [i.line, i.col, i.message])).toEqual([[6, 10, MSG.unclosedFlow('[', ']', 7)]]);
  });
});

describe('a variant name given twice, and a tab in the indentation (seen by a new user writing a scenario)', () => {
  const VARIANTS = `${BASE}turns: 3
variants:
  - name: a
  - name: b
    set: { turns: 4 }
  - name: a
    set: { turns: 5 }
expect:
  - { metric: p_test, variant: c, at_least: 0.1 }
`;
  it('says where the first one stands, and lists each name once where it lists them', () => {
    const issues = issuesOf(VARIANTS);
    const twice = issues.find((i) => i.path === 'variants[2].name');
    expect(twice).toMatchObject({ line: 10, message: MSG.duplicateVariant('a', 7) });
    expect(twice?.message).toMatch(/^variant name "a" is used twice \(first on line 7\): give each variant its own name/);
    expect(issues.find((i) => i.path === 'expect[0].variant')?.message).toBe('unknown variant "c" (variants: a, b)');
  });

  it('a line indented with a tab is one problem, not the parser’s knock-on errors on that line too', () => {
    const text = `name: t
system: crusader-rex
seed: 1
trials: 10
blocks:
  - { block: Saladin, at: field }
\t- { block: Richard, at: field }
`;
    const issues = issuesOf(text);
    expect(issues).toEqual([{ file: 's.yaml', line: 7, col: 1, path: '(yaml)', message: MSG.tabIndent() }]);
    expect(issues[0].message).toMatch(/^YAML syntax error: Tabs are not allowed as indentation: .*replace the tab with spaces/);
  });
});

describe('a scenario name two files use', () => {
  it('is said at the second file\'s name: value (not at line 1, a comment), naming where the first file has it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'siegesim-names-'));
    try {
      const head = '# yaml-language-server: $schema=../scenario.schema.json\n';
      writeFileSync(path.join(dir, 'a.yaml'), head + BASE);
      writeFileSync(path.join(dir, 'b.yaml'), `${head}\n# a copy\nname:   t\n${BASE.split('\n').slice(1).join('\n')}`);
      const { valid, issues } = loadSome([dir]);
      const rel = (f: string) => path.relative(process.cwd(), path.join(dir, f));
      expect(valid.map((v) => v.file)).toEqual([rel('a.yaml')]);
      expect(issues).toEqual([{ file: rel('b.yaml'), line: 4, col: 9, path: 'name', message: MSG.duplicateName('t', `${rel('a.yaml')}:2:7`) }]);
      expect(issues[0].message).toBe(`scenario name "t" is also used by ${rel('a.yaml')}:2:7; reports would overwrite each other`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the scenario name (it names the report folder)', () => {
  const RULE = 'must start with a letter or a digit, then hold only letters, digits, ".", "_" and "-" (it names the report folder)';
  const nameIssues = (name: string) => {
    const v = validateText('s.yaml', `name: ${JSON.stringify(name)}\n${BASE.split('\n').slice(1).join('\n')}`);
    return v.ok ? [] : v.issues.map((i) => `${i.line}:${i.col} ${i.path} ${i.message}`);
  };

  it('says the real rule for a name of dots or one starting with a dot (those characters are allowed, not there)', () => {
    for (const name of ['...', '.', '.hidden', '.siegesim-report.json', '_x', '-x']) expect(nameIssues(name), name).toEqual([`1:7 name ${RULE}`]);
  });

  it('refuses index.html in any case: the folder of reports holds its index under that name (audit 53, defect 4)', () => {
    for (const name of ['index.html', 'INDEX.HTML', 'Index.Html']) {
      expect(nameIssues(name), name).toEqual(['1:7 name must not be "index.html": the folder of reports holds its index under that name, beside the report folders']);
    }
  });

  it('accepts names that only look alike', () => {
    for (const name of ['index.htm', 'index.html5', 'my-index.html', 'index', 'a.b', '1...']) expect(nameIssues(name), name).toEqual([]);
  });
});
