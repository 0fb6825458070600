/**
 * The workbench's api (src/api/live.ts, src/api/yaml-edit.ts): controls generated from the
 * schemas, values validated with the CLI's messages, the live job's paired variants, sweeps, and
 * the tuned YAML written in place.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { MSG } from '../src/scenario/messages.js';
import { describeControls, liveScenario, runScenario, sweepScenario, tunedYaml, validateText, type ValidScenario } from '../src/api.js';
import * as yamlEdit from '../src/api/yaml-edit.js';
const { editYamlValues } = yamlEdit;
import { contour, sweepChart } from '../src/serve/sweep-chart.js';
import { createRequire } from 'node:module';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
function load(rel: string): { v: ValidScenario; text: string } {
  const text = read(rel);
  const r = validateText(rel, text);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return { v: r.value, text };
}

/** What the CLI says about a value when the file itself holds it (validate of the edited text). */
function cliMessages(rel: string, values: Record<string, unknown>): { path: string; message: string }[] {
  const { text } = load(rel);
  const edited = editYamlValues(
    text,
    Object.entries(values).map(([p, value]) => ({ path: p.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s)), value })),
  );
  const r = validateText(rel, edited);
  return r.ok ? [] : r.issues.map((i) => ({ path: i.path.replace(/\[(\d+)\]/g, '.$1'), message: i.message }));
}

describe('describeControls', () => {
  it('gives every tunable value of the fantasy siege with its schema bounds, grouped as in the file', () => {
    const { v } = load('scenarios/fantasy/stone-wall-siege.yaml');
    const d = describeControls(v);
    if ('issues' in d) throw new Error('issues');
    const by = new Map(d.controls.map((c) => [c.path, c]));
    expect(by.get('wall.hp')).toMatchObject({ kind: 'int', min: 0, max: 100000, value: 30, inFile: true, group: 'wall' });
    expect(by.get('wall.dc')).toMatchObject({ kind: 'int', min: 1, max: 40, value: 12, inFile: true });
    expect(by.get('attacker.infantry')).toMatchObject({ kind: 'int', min: 0, max: 200, value: 10, inFile: true });
    expect(by.get('policy.defender_fire_share')).toMatchObject({ kind: 'number', min: 0, max: 1, value: 0.5, inFile: false });
    expect(by.get('rules.melee_start')).toMatchObject({ kind: 'enum', value: 'next_round', inFile: false });
    expect(by.get('rules.melee_start')!.options).toEqual(['next_round', 'full_battle', 'same_round', 'all_attackers']);
    expect(by.get('rules.cavalry_climb')).toMatchObject({ kind: 'boolean', value: true });
    // common keys are not tunable
    for (const p of ['name', 'seed', 'trials', 'system', 'description']) expect(by.has(p)).toBe(false);
    // groups: top level first, then the file's keys in its order, then the defaults
    expect(d.groups.map((g) => g.path)).toEqual(['', 'attacker', 'defender', 'wall', 'hp', 'values', 'policy', 'rules']);
    expect(d.groups.find((g) => g.path === 'wall')!.inFile).toBe(true);
    expect(d.groups.find((g) => g.path === 'rules')!.inFile).toBe(false);
  });

  it('takes the chosen variant as the loaded values', () => {
    const { v } = load('scenarios/fantasy/stone-wall-siege.yaml');
    const d = describeControls(v, 'melee-same-round');
    if ('issues' in d) throw new Error('issues');
    expect(d.controls.find((c) => c.path === 'rules.melee_start')).toMatchObject({ value: 'same_round', inFile: true });
    expect(describeControls(v, 'nope')).toEqual({ issues: [{ path: 'variant', message: expect.stringContaining('unknown variant "nope"') }] });
  });

  it("gives a setting the file leaves out the value the rules derive for it (a palisade's HP and DC), to start the control from", () => {
    const v = validateText('p.yaml', 'name: p\nsystem: fantasy\nseed: 1\ntrials: 10\nmode: siege\nattacker: { infantry: 4 }\ndefender: { infantry: 2 }\nwall: { type: palisade }\n');
    if (!v.ok) throw new Error('invalid');
    const d = describeControls(v.value);
    if ('issues' in d) throw new Error('issues');
    const by = new Map(d.controls.map((c) => [c.path, c]));
    expect(by.get('wall.hp')).toMatchObject({ value: undefined, auto: 15, inFile: false });
    expect(by.get('wall.dc')).toMatchObject({ value: undefined, auto: 10 });
    expect(by.get('max_rounds')).toMatchObject({ value: undefined, auto: 20 }); // H27: a siege's cap
    expect(by.get('wall.type')).not.toHaveProperty('auto');
  });

  it('reaches into Crusader Rex blocks (a union of roster and custom shapes) and names their groups', () => {
    const { v } = load('scenarios/crusader-rex/reference-field-battle.yaml');
    const d = describeControls(v);
    if ('issues' in d) throw new Error('issues');
    // steps left out ("auto"): the block's full strength, Saladin's roster 4 steps (7.1), as the control's `auto`
    expect(d.controls.find((c) => c.path === 'blocks.0.steps')).toMatchObject({ kind: 'int', min: 1, max: 4, value: undefined, auto: 4 });
    expect(d.controls.find((c) => c.path === 'blocks.6.steps')).toMatchObject({ value: undefined, auto: 3 }); // Jerusalem Templars, 3 steps
    expect(d.controls.find((c) => c.path === 'blocks.4.at')!.auto).toBeUndefined();
    expect(d.controls.find((c) => c.path === 'blocks.4.at')).toMatchObject({ kind: 'enum', value: 'field' });
    expect(d.groups.find((g) => g.path === 'blocks.0')!.label).toBe('blocks 1: Saladin');
    expect(d.controls.some((c) => c.path === 'blocks.0.block')).toBe(false); // a name, not a number
  });

  it('gives controls for every bundled scenario without throwing', () => {
    for (const dir of ['surrender', 'crusader-rex', 'fantasy', 'cry-havoc']) {
      for (const f of readdirOf(`scenarios/${dir}`)) {
        const { v } = load(`scenarios/${dir}/${f}`);
        const d = describeControls(v);
        expect('controls' in d && d.controls.length > 0, `${dir}/${f}`).toBe(true);
      }
    }
  });
});

function readdirOf(rel: string): string[] {
  return readdirSync(path.join(ROOT, rel)).filter((f) => f.endsWith('.yaml'));
}

describe('liveScenario', () => {
  it('runs "as loaded" alone when nothing changed, and "tuned" beside it on the same dice when something did', () => {
    const { v } = load('scenarios/surrender/town-basic.yaml');
    const same = liveScenario(v, { values: { 'structure.surrender_level': 3 } });
    expect(same.ok && same.value.variantNames).toEqual(['as loaded']);
    const r = liveScenario(v, { values: { 'structure.surrender_level': 4 } });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.variantNames).toEqual(['as loaded', 'tuned']);
    expect(r.changed).toEqual({ 'structure.surrender_level': 4 });
    expect(r.value.points).toHaveLength(1);
    expect((r.value.points[0].variants[1].scenario.structure as Record<string, unknown>).surrender_level).toBe(4);
  });

  it('refuses bad values with the message the CLI prints for a file holding them, under the value\'s path', () => {
    const rel = 'scenarios/fantasy/stone-wall-siege.yaml';
    const { v } = load(rel);
    const cases: Record<string, unknown>[] = [
      { 'wall.hp': 100001 },
      { 'wall.dc': 0 },
      { 'attacker.infantry': 2.5 },
      { 'attacker.infantry': 'ten' },
      { 'rules.melee_start': 'sometimes' },
      { 'rules.cavalry_climb': 'yes' },
      { 'policy.defender_fire_share': 1.5 },
    ];
    for (const values of cases) {
      const r = liveScenario(v, { values });
      expect(r.ok, JSON.stringify(values)).toBe(false);
      if (r.ok) continue;
      const [p] = Object.keys(values);
      expect(r.issues).toEqual(cliMessages(rel, values).map((i) => ({ path: p, message: i.message })));
      expect(r.issues[0].message.length).toBeGreaterThan(5);
    }
  });

  it('names unknown and reserved paths as the CLI does for a variant', () => {
    const { v } = load('scenarios/fantasy/stone-wall-siege.yaml');
    const r = liveScenario(v, { values: { 'wall.hpp': 3, seed: 4, 'blocks.0.steps': 2 } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual(
      expect.arrayContaining([
        { path: 'wall.hpp', message: '"wall.hpp" is not a setting of this system (did you mean "wall.hp"?)' },
        { path: 'seed', message: '"seed" cannot be varied: only the system\'s own settings can' },
      ]),
    );
  });

  it('lets a Crusader Rex block\'s steps be tuned (and a variant or sweep set them)', () => {
    const rel = 'scenarios/crusader-rex/reference-field-battle.yaml';
    const { v } = load(rel);
    const r = liveScenario(v, { values: { 'blocks.0.steps': 2 } });
    expect(r.ok).toBe(true);
    const bad = liveScenario(v, { values: { 'blocks.1.steps': 9 } });
    expect(!bad.ok && bad.issues).toEqual([{ path: 'blocks.1.steps', message: cliMessages(rel, { 'blocks.1.steps': 9 })[0].message }]);
  });

  it('gives the tuned case the numbers the saved file gives in a plain run (same dice)', async () => {
    const rel = 'scenarios/surrender/fortress-readings.yaml';
    const { v, text } = load(rel);
    const values = { 'besieger.heavy_siege_artillery': 2 };
    const live = liveScenario(v, { values });
    if (!live.ok) throw new Error('invalid');
    const a = await runScenario(live.value, { trials: 30000 });
    const saved = tunedYaml(text, v, { values });
    if (!saved.ok) throw new Error('invalid');
    const w = validateText('saved.yaml', saved.yaml);
    if (!w.ok) throw new Error(JSON.stringify(w.issues));
    const b = await runScenario(w.value, { trials: 30000 });
    const tuned = a.cases.find((c) => c.variant === 'tuned')!;
    expect(tuned.metrics).toEqual(b.cases[0].metrics);
    expect(a.cases[0].metrics).not.toEqual(b.cases[0].metrics); // the change did change something
    expect(tuned.differences.p_surrender.ci_high - tuned.differences.p_surrender.ci_low).toBeGreaterThan(0);
  });
});

describe('sweepScenario', () => {
  it('sweeps the tuned case over one or two axes and checks them', () => {
    const { v } = load('scenarios/fantasy/stone-wall-siege.yaml');
    const r = sweepScenario(v, { values: { 'wall.dc': 14 }, axes: [{ path: 'wall.hp', from: 10, to: 50, step: 10 }] });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.points.map((p) => p.params['wall.hp'])).toEqual([10, 20, 30, 40, 50]);
    expect(r.value.variantNames).toEqual(['tuned']);
    expect((r.value.points[0].variants[0].scenario.wall as Record<string, unknown>).dc).toBe(14);
    const two = sweepScenario(v, { axes: [{ path: 'wall.hp', from: 10, to: 30, step: 10 }, { path: 'wall.dc', from: 10, to: 12, step: 1 }] });
    expect(two.ok && two.value.points.length).toBe(9);
    const bad = sweepScenario(v, { axes: [{ path: 'wall.dc', from: 0, to: 3, step: 1 }] });
    expect(!bad.ok && bad.issues[0].path).toBe('wall.dc');
    expect(!bad.ok && bad.issues[0].message).toMatch(/^with sweep value 0: /);
    const huge = sweepScenario(v, { axes: [{ path: 'wall.hp', from: 0, to: 100000, step: 1 }] });
    expect(!huge.ok && huge.issues[0].message).toMatch(/at most 441/);
    const empty = sweepScenario(v, { axes: [{ path: 'wall.hp', from: 5, to: 1, step: 1 }] });
    expect(!empty.ok && empty.issues[0].message).toBe('a range needs from <= to and step > 0');
    // the workbench's own list of values: a repeat is refused as in a file
    const twice = sweepScenario(v, { axes: [{ path: 'wall.hp', values: [10, 80, 10] }] });
    expect(!twice.ok && twice.issues.map((i) => i.message)).toEqual([MSG.sweepRepeated(10, 0, 2)]);
  });
});

describe('tuned YAML', () => {
  it('rewrites only the changed values, keeping comments, key order and the folded description', () => {
    const rel = 'scenarios/fantasy/stone-wall-siege.yaml';
    const { v, text } = load(rel);
    const r = tunedYaml(text, v, { values: { 'wall.hp': 40, 'attacker.infantry': 12, 'rules.melee_start': 'full_battle', 'rules.leftover': 'persistent', 'hp.infantry': 5 } });
    if (!r.ok) throw new Error('invalid');
    const before = text.split('\n');
    const after = r.yaml.split('\n');
    expect(after[0]).toBe(before[0]); // the schema comment
    const removed = before.filter((l) => !after.includes(l));
    const added = after.filter((l) => !before.includes(l));
    expect(removed).toEqual([
      'name: fantasy-stone-wall-siege',
      'attacker: { infantry: 10, cavalry: 4, archers: 6, mages: 2, clerics: 2, siege_engines: 3, captain_might: 2 }',
      'wall: { type: stone, hp: 30, dc: 12, upgrades: 0, breach_threshold: 4 }',
    ]);
    expect(added.filter((l) => !/^ {2}\S/.test(l))).toEqual([
      'name: fantasy-stone-wall-siege-tuned',
      'attacker: { infantry: 12, cavalry: 4, archers: 6, mages: 2, clerics: 2, siege_engines: 3, captain_might: 2 }',
      'wall: { type: stone, hp: 40, dc: 12, upgrades: 0, breach_threshold: 4 }',
      'rules: { melee_start: full_battle, leftover: persistent }',
      'hp: { infantry: 5 }',
    ]);
    // new keys go before variants, as the schema lists a system's keys first
    expect(r.yaml.indexOf('rules: {')).toBeLessThan(r.yaml.indexOf('variants:'));
    const data = parse(r.yaml);
    expect(data.wall.hp).toBe(40);
    expect(data.rules).toEqual({ melee_start: 'full_battle', leftover: 'persistent' });
  });

  it('writes a value the chosen variant sets into that variant', () => {
    const { v, text } = load('scenarios/fantasy/stone-wall-siege.yaml');
    const r = tunedYaml(text, v, { variant: 'melee-same-round', values: { 'rules.melee_start': 'all_attackers' } });
    expect(r.ok && r.yaml).toContain('set: { rules.melee_start: all_attackers }');
    const added = r.ok ? r.yaml.split('\n').filter((l) => !text.includes(l)) : [];
    expect(added.filter((l) => !/^ {2}\S/.test(l))).toEqual(['name: fantasy-stone-wall-siege-tuned', '    set: { rules.melee_start: all_attackers }']);
    expect(r.ok && parse(r.yaml).description).toMatch(
      /\nTuned in the workbench from fantasy-stone-wall-siege \(stone-wall-siege\.yaml\) \(variant melee-same-round\): rules\.melee_start same_round -> all_attackers\.\n$/,
    );
  });

  it('a tuned file is a scenario of its own: its name (report folder) and a description line of what changed, the same dice', async () => {
    const rel = 'scenarios/fantasy/stone-wall-siege.yaml';
    const { v, text } = load(rel);
    const values = { 'wall.hp': 40, 'wall.dc': 14 };
    const r = tunedYaml(text, v, { values });
    if (!r.ok) throw new Error('invalid');
    expect(r.name).toBe('fantasy-stone-wall-siege-tuned');
    const data = parse(r.yaml);
    expect(data.name).toBe('fantasy-stone-wall-siege-tuned');
    // the original description kept word for word, then a line of its own
    const original = parse(text).description as string;
    expect(data.description).toBe(`${original}Tuned in the workbench from fantasy-stone-wall-siege (stone-wall-siege.yaml): wall.hp 30 -> 40, wall.dc 12 -> 14.\n`);
    // layout kept: the folded description grows by a blank line and the new line, at its indentation
    const before = text.split('\n');
    const after = r.yaml.split('\n');
    expect(after.slice(0, 7)).toEqual([before[0], 'name: fantasy-stone-wall-siege-tuned', ...before.slice(2, 7)]);
    expect(after.slice(7, 10)).toEqual(['', '  Tuned in the workbench from fantasy-stone-wall-siege (stone-wall-siege.yaml):', '  wall.hp 30 -> 40, wall.dc 12 -> 14.']);
    expect(after.slice(10)).toEqual(before.slice(7).map((l) => l.replace('hp: 30, dc: 12', 'hp: 40, dc: 14')));
    // the name does not feed the dice: the saved file's run is the live tuned case
    const live = liveScenario(v, { values });
    if (!live.ok) throw new Error('invalid');
    const w = validateText('stone-wall-siege.tuned.yaml', r.yaml);
    if (!w.ok) throw new Error(JSON.stringify(w.issues));
    const [a, b] = await Promise.all([runScenario(live.value, { trials: 4096 }), runScenario(w.value, { trials: 4096 })]);
    expect(b.name).toBe('fantasy-stone-wall-siege-tuned');
    expect(a.cases.find((c) => c.variant === 'tuned')!.metrics).toEqual(b.cases[0].metrics);
    // nothing changed: the file as it is (its own name, its own report)
    const same = tunedYaml(text, v, { values: { 'wall.hp': 30 } });
    expect(same.ok && same.yaml).toBe(text);
  });

  it('adds the line to a one-line or missing description, and to a literal block', () => {
    const { appendYamlLine: add } = yamlEdit;
    expect(add('name: a\ndescription: a siege # c\nseed: 1\n', ['description'], 'Tuned: x 1 -> 2.')).toBe('name: a\ndescription: "a siege\\nTuned: x 1 -> 2." # c\nseed: 1\n');
    expect(add('name: a\nseed: 1\nvariants: []\n', ['description'], 'Tuned.')).toBe('name: a\nseed: 1\ndescription: Tuned.\nvariants: []\n');
    expect(add('description: |\n  one\n  two\nseed: 1\n', ['description'], 'Tuned.')).toBe('description: |\n  one\n  two\n  Tuned.\nseed: 1\n');
  });

  it('edits block maps, sequences and flow maps in place', () => {
    const text = '# head\na: 1 # keep\nb:\n  c: 2 # cc\n  d: [1, 2]\nlist:\n  - { x: 1 }\n  - x: 2\n    y: 3\nvariants:\n  - name: q\n';
    expect(editYamlValues(text, [{ path: ['b', 'c'], value: 5 }])).toBe(text.replace('c: 2 # cc', 'c: 5 # cc'));
    expect(editYamlValues(text, [{ path: ['b', 'e'], value: 'z' }])).toBe(text.replace('  d: [1, 2]\n', '  d: [1, 2]\n  e: z\n'));
    expect(editYamlValues(text, [{ path: ['list', 0, 'y'], value: true }])).toBe(text.replace('{ x: 1 }', '{ x: 1, y: true }'));
    expect(editYamlValues(text, [{ path: ['list', 1, 'y'], value: 4 }])).toBe(text.replace('y: 3', 'y: 4'));
    expect(editYamlValues(text, [{ path: ['new', 'deep', 'k'], value: '0' }])).toBe(text.replace('variants:', 'new: { deep: { k: "0" } }\nvariants:'));
    expect(editYamlValues('a: {}\n', [{ path: ['a', 'b'], value: 1 }])).toBe('a: { b: 1 }\n');
    expect(editYamlValues('a: 1', [{ path: ['b'], value: 2 }])).toBe('a: 1\nb: 2\n');
  });
});

describe('sweep contour', () => {
  it('separates the cells below the target from those at or above it', () => {
    const cells = [
      { x: 1, y: 1, value: 0.2 },
      { x: 2, y: 1, value: 0.6 },
      { x: 1, y: 2, value: 0.5 },
      { x: 2, y: 2, value: 0.9 },
    ];
    expect(contour(cells, 0.5)).toEqual([
      { x: 1.5, x2: 1.5, y: 0.5, y2: 1.5 },
      { x: 0.5, x2: 1.5, y: 1.5, y2: 1.5 },
    ]);
  });
});

describe('the sweep chart\'s axis', () => {
  /** The x-axis labels of a drawn spec, as vega draws them (headless SVG). */
  async function xLabels(spec: Record<string, unknown>): Promise<string[]> {
    const require = createRequire(import.meta.url);
    const vega = require('vega') as typeof import('vega');
    const { compile } = require('vega-lite') as typeof import('vega-lite');
    const view = new vega.View(vega.parse(compile({ ...spec, width: 600 } as never).spec), { renderer: 'none', logLevel: vega.Error });
    const svg = await view.toSVG();
    view.finalize();
    const axis = svg.split('aria-label="X-axis')[1] ?? '';
    return [...axis.slice(0, axis.indexOf('aria-label="Y-axis') >>> 0).matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]).filter((t) => t !== 'policy.storm_ratio');
  }
  const cell = (x: number, value: number) => ({ params: { 'policy.storm_ratio': x }, metric: { value, ci_low: value - 0.01, ci_high: value + 0.01, kind: 'probability' } as never });

  it('labels each swept value as written (0.75 was labelled "0.8"), and whole numbers without decimals', async () => {
    const axes = [{ path: 'policy.storm_ratio', values: [0.5, 0.75, 1] }];
    const spec = sweepChart([cell(0.5, 0.75), cell(0.75, 0.75), cell(1, 0)], { axes, metric: 'p_castle_falls', probability: true, target: 0.5 });
    expect(await xLabels(spec)).toEqual(['0.5', '0.75', '1']);
    const fine = [0.1, 0.125, 0.15, 0.175, 0.2];
    expect(await xLabels(sweepChart(fine.map((x) => cell(x, x)), { axes: [{ path: 'policy.storm_ratio', values: fine }], metric: 'p', probability: true }))).toEqual(['0.1', '0.125', '0.15', '0.175', '0.2']);
    expect(await xLabels(sweepChart([1, 2, 3].map((x) => cell(x, 0.2 * x)), { axes: [{ path: 'policy.storm_ratio', values: [1, 2, 3] }], metric: 'p', probability: true }))).toEqual(['1', '2', '3']);
  });
});
