/**
 * A generated corpus of hostile scenarios, for all four systems: every setting of a
 * bundled scenario of each system (and of each Cry Havoc kind) given hostile values, and the
 * structural attacks — YAML alias bombs, undefined aliases, deep nesting, oversized files,
 * thousands of keys, binary, BOM, several documents, prototype keys, traversal names, hostile
 * variants and sweeps. Each is validated in-process (fast) and must come back as problems with
 * file, line, column and path, never an exception, within a time limit and without touching
 * Object.prototype. A representative subset goes through the built CLI: exit 2, one
 * `file:line:col` line per problem (at most LIMITS.problemsShown), no stack trace, nothing
 * written, within a time and a memory limit (--max-old-space-size).
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { validateText, type ScenarioIssue } from '../src/api.js';
import { LIMITS } from '../src/scenario/limits.js';
import { MSG } from '../src/scenario/messages.js';
import { MAX_CASES, withPath } from '../src/scenario/validate.js';
import { lexedTooDeepAt } from '../src/scenario/load.js';
import { ROOT, runCli, STACK_FRAME, tempDirs } from './cli-child.js';
import { runCliBatch } from './cli-batch.js';

/** Bundled scenarios whose settings are mutated: each system, each Cry Havoc kind, both crusader-rex situations. */
const BASES = [
  'surrender/port-blockade.yaml',
  'crusader-rex/case-a-new-siege.yaml',
  'crusader-rex/case-b-old-siege.yaml',
  'fantasy/stone-wall-siege.yaml',
  'cry-havoc/melee-two-on-one.yaml',
  'cry-havoc/missile-range-tables.yaml',
  'cry-havoc/battering-ram.yaml',
  'cry-havoc/fire-siege-tower.yaml',
  'cry-havoc/healing-tables.yaml',
].map((f) => ({ file: f, text: readFileSync(path.join(ROOT, 'scenarios', f), 'utf8') }));

interface Case {
  name: string;
  text: string;
  /** A problem with this path (formatPath form) must be among those reported. */
  path?: string;
  /** ... and this message (exact string, or a pattern). */
  message?: string | RegExp;
  /** ... at this line (and column). */
  line?: number;
  col?: number;
  /** Time limit for this case (ms); generous, for a loaded 2-core machine: the defects took 10-100 s. */
  ms?: number;
}

const COMMON = new Set(['name', 'system', 'seed', 'trials', 'description', 'variants', 'sweep']);

/** Leaf paths of a plain tree. */
function leaves(o: unknown, p: (string | number)[] = []): (string | number)[][] {
  if (o !== null && typeof o === 'object') return Object.entries(o).flatMap(([k, v]) => leaves(v, [...p, Array.isArray(o) ? Number(k) : k]));
  return [p];
}

const display = (p: readonly (string | number)[]) => p.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');

/** A key named __proto__ as an own property (what a YAML `__proto__:` key is). */
const protoKey = () => Object.defineProperty({}, '__proto__', { value: { polluted: 1 }, enumerable: true });

/** Every setting of every base, given values no setting accepts. */
function settingCases(): Case[] {
  const out: Case[] = [];
  for (const base of BASES) {
    const v = validateText(base.file, base.text);
    if (!v.ok) throw new Error(`${base.file} must be valid`);
    const full = v.value.points[0].variants[0].scenario;
    for (const leaf of leaves(full).filter((l) => !COMMON.has(String(l[0])))) {
      for (const [label, hostile] of [
        ['NaN', NaN],
        ['-Infinity', -Infinity],
        ['a __proto__ mapping', protoKey()],
      ] as [string, unknown][]) {
        // An element of a list is replaced inside the whole list (the list may be a default, absent from the file).
        let i = leaf.length - 1;
        while (i >= 0 && typeof leaf[i] !== 'number') i--;
        const listPath = i >= 0 ? leaf.slice(0, i) : undefined;
        let raw: Record<string, unknown>;
        if (listPath) {
          const list = structuredClone(listPath.reduce<any>((o, s) => o[s], full)) as unknown[];
          const el = leaf.slice(i + 1).length === 0 ? hostile : withPath(list[leaf[i] as number] as Record<string, unknown>, leaf.slice(i + 1).join('.'), hostile);
          list[leaf[i] as number] = el;
          raw = withPath(v.value.raw, listPath.join('.'), list);
        } else raw = withPath(v.value.raw, leaf.join('.'), hostile);
        out.push({ name: `${base.file} ${display(leaf)} = ${label}`, text: stringify(raw), path: display(leaf) });
      }
    }
  }
  return out;
}

const SURRENDER = 'name: t\nsystem: surrender\nseed: 1\ntrials: 1000\n';

/** `n` nested alias levels of `width` each: width^n values (billion laughs). */
function aliasBomb(width: number, levels: number, merge = false): string {
  let s = '';
  const items = (name: string) => Array.from({ length: width }, () => `*${name}`).join(', ');
  s += `l0: &l0 [${Array.from({ length: width }, (_, i) => `v${i}`).join(', ')}]\n`;
  for (let l = 1; l < levels; l++) {
    s += merge ? `m${l}: &l${l} { <<: [${items(`l${l - 1}`)}], k${l}: 1 }\n` : `l${l}: &l${l} [${items(`l${l - 1}`)}]\n`;
  }
  return s;
}

/** The structural attacks, on each system's base. */
function structuralCases(): Case[] {
  const out: Case[] = [];
  for (const base of BASES.filter((b, i) => BASES.findIndex((x) => x.file.split('/')[0] === b.file.split('/')[0]) === i)) {
    const sys = base.file.split('/')[0];
    const v = validateText(base.file, base.text);
    if (!v.ok) throw new Error(`${base.file} must be valid`);
    // the base without its variants and sweep (cases add their own), and one numeric setting to sweep
    const { variants: _v, sweep: _s, ...raw } = v.value.raw;
    const B = stringify(raw);
    const full = v.value.points[0].variants[0].scenario;
    const num = display(leaves(full).find((l) => !COMMON.has(String(l[0])) && typeof l.reduce<any>((o, k) => o[k], full) === 'number' && !l.some((k) => typeof k === 'number'))!);
    const lines = B.split('\n').length; // the first line after B
    const seedLine = B.split('\n').findIndex((l) => l.startsWith('seed:')) + 1;
    const add = (c: Omit<Case, 'name'> & { name: string }) => out.push({ ...c, name: `${sys}: ${c.name}` });

    add({ name: 'alias bomb (billion laughs)', text: B + aliasBomb(9, 9), message: MSG.aliasBomb(LIMITS.aliasValues) });
    add({ name: 'alias bomb through merge keys', text: '%YAML 1.1\n---\n' + B + aliasBomb(9, 9, true), message: MSG.aliasBomb(LIMITS.aliasValues) });
    add({ name: 'undefined alias', text: B.replace(/^seed: .*$/m, 'seed: *nowhere'), path: 'seed', message: MSG.undefinedAlias('nowhere'), line: seedLine, col: 7 });
    add({ name: 'alias before its anchor', text: B.replace(/^seed: .*$/m, 'seed: *later') + 'later: &later 5\n', message: MSG.undefinedAlias('later'), line: seedLine });
    add({ name: 'alias inside its own anchor', text: B + 'loop: &r [1, *r]\n', message: MSG.undefinedAlias('r'), line: lines });
    add({ name: '10 000-deep flow lists', text: B + 'deep: ' + '['.repeat(10_000) + ']'.repeat(10_000) + '\n', message: MSG.tooDeep(LIMITS.depth), line: lines });
    add({ name: '5 000-deep flow maps', text: B + 'deep: ' + '{a: '.repeat(5000) + '1' + '}'.repeat(5000) + '\n', message: MSG.tooDeep(LIMITS.depth), line: lines });
    add({ name: '50 000-deep block lists', text: B + 'deep:\n' + '- '.repeat(50_000) + '1\n', message: MSG.tooDeep(LIMITS.depth), line: lines + 1 });
    add({ name: '300-deep block maps', text: B + 'deep:\n' + Array.from({ length: 300 }, (_, i) => ' '.repeat(i + 1) + 'a:\n').join(''), message: MSG.tooDeep(LIMITS.depth) });
    // parser-level floods cost the same whatever the system: one system is enough (they are slow on a loaded machine)
    if (sys === 'surrender') {
    add({ name: 'unclosed flow lists up to the size limit', text: B + 'x: [\n' + '[a, b\n'.repeat(Math.floor((LIMITS.fileBytes - B.length - 10) / 6)), message: /YAML syntax error|nested more than/, ms: 15_000 });
    add({ name: 'unclosed brackets up to the size limit', text: B + 'x: ' + '[\n'.repeat(Math.floor((LIMITS.fileBytes - B.length - 10) / 2)), message: /YAML syntax error|nested more than/, ms: 15_000 });
    add({ name: 'a flood of syntax errors', text: B + 'x:\n' + '  - [\n- ]\n'.repeat(Math.floor((LIMITS.fileBytes - B.length - 10) / 10)), message: MSG.tooManyYamlErrors(LIMITS.yamlErrors), ms: 15_000 });
    }
    // the flood of unknown keys up to the size limit once (its cost is the parser's and the
    // validator's, the same whatever the system: 1.5-2 s of CPU each); 2 000 of them for the others
    const keys = sys === 'surrender' ? Math.floor((LIMITS.fileBytes - B.length) / 12) : 2000;
    add({
      name: `${keys} unknown keys`,
      text: B + Array.from({ length: keys }, (_, i) => `k${String(i).padStart(6, '0')}: 1\n`).join(''),
      path: 'k000000',
      message: MSG.unknownKey('k000000'),
      line: lines,
      col: 1,
      ms: 15_000,
    });
    add({ name: 'a key given twice', text: B + 'dup: 1\ndup: 2\n', path: 'dup', message: MSG.duplicateKey('dup', lines), line: lines + 1 });
    add({ name: 'over the size limit', text: B + '#'.repeat(LIMITS.fileBytes) + '\n', message: /scenario files are limited to/ });
    add({ name: 'a NUL byte', text: B.replace('\n', '\u0000\n'), message: MSG.controlChar(0), line: 1 });
    add({ name: 'an escape character', text: B + 'description: "a\u001b[31mred"\n', message: MSG.controlChar(0x1b), line: lines, col: 16 });
    add({ name: 'a lone surrogate', text: B + 'description: "\ud800"\n', message: MSG.controlChar(0xd800), line: lines });
    add({ name: 'two documents', text: B + '---\n' + B, message: MSG.multipleDocuments(), line: lines });
    add({ name: 'a __proto__ key', text: B + '__proto__: { polluted: 1, system: fantasy }\n', path: '__proto__', message: MSG.unknownKey('__proto__'), line: lines, col: 1 });
    add({ name: 'constructor and prototype keys', text: B + 'constructor: { prototype: { polluted: 1 } }\n', path: 'constructor', message: MSG.unknownKey('constructor') });
    add({ name: 'a list as a key', text: B + '? [a, b]\n: 1\n', message: MSG.complexKey(), line: lines });
    add({ name: 'a 100 000-character key', text: B + '? ' + 'k'.repeat(100_000) + '\n: 1\n', message: MSG.unknownKey('k'.repeat(100_000)) });
    add({ name: 'tabs as indentation', text: B + 'nested:\n\t- 1\n', message: /YAML syntax error/ });
    add({ name: 'a variant setting __proto__', text: B + 'variants:\n  - name: a\n  - name: b\n    set: { __proto__.polluted: 1 }\n', message: MSG.badPath('__proto__.polluted') });
    add({ name: 'a variant setting constructor.prototype', text: B + 'variants:\n  - name: a\n  - name: b\n    set: { constructor.prototype.polluted: 1 }\n', message: MSG.badPath('constructor.prototype.polluted') });
    add({ name: 'a variant set of __proto__', text: B + 'variants:\n  - name: a\n  - name: b\n    set: { __proto__: { polluted: 1 } }\n', path: 'variants[1].set.__proto__', message: MSG.unknownKey('__proto__'), line: lines + 3 });
    add({ name: 'a sweep of 10^300 values', text: B + `sweep:\n  ${num}: { from: 0, to: 1.0e300, step: 1 }\n`, path: 'sweep', message: /^the sweep would make about 1\.0 x 10\^300 cases; at most 10,000 are allowed: list fewer values, or use a coarser step/ });
    add({ name: 'a sweep range of NaN', text: B + `sweep:\n  ${num}: { from: .nan, to: 3, step: 1 }\n`, path: `sweep.${num}.from`, line: lines + 1 });
    add({ name: 'a sweep step of 1e-300', text: B + `sweep:\n  ${num}: { from: 0, to: 1, step: 1.0e-300 }\n`, message: /^the sweep would make about 1\.0 x 10\^300 cases; at most 10,000 are allowed/ });
    add({ name: 'a sweep list of 10 001 values', text: B + `sweep:\n  ${num}: [${Array.from({ length: MAX_CASES + 1 }, (_, i) => i).join(', ')}]\n`, message: MSG.sweepTooLarge(MAX_CASES + 1, MAX_CASES) });
    add({ name: 'a sweep of a __proto__ path', text: B + 'sweep:\n  __proto__: [1, 2]\n', path: 'sweep.__proto__', message: MSG.unknownKey('__proto__'), line: lines + 1, col: 3 });
  }
  return out;
}

/** Common keys, for every system. */
function commonCases(): Case[] {
  const C: Case[] = [];
  const add = (name: string, text: string, more: Omit<Case, 'name' | 'text'> = {}) => C.push({ name, text, ...more });
  add('empty file', '', { message: MSG.emptyFile() });
  add('only blank lines', '\n  \n', { message: MSG.emptyFile() });
  add('only a comment', '# nothing\n', { message: MSG.onlyComments() });
  add('a null at the root', '~\n', { message: MSG.notAMapping() });
  add('a list at the root', '- 1\n- 2\n', { message: MSG.notAMapping() });
  add('a number at the root', '42\n', { message: MSG.notAMapping() });
  add('no system', 'name: t\nseed: 1\ntrials: 5\n', { path: 'system', message: MSG.missingKey() });
  add('system is NaN', 'name: t\nsystem: .nan\nseed: 1\ntrials: 5\n', { path: 'system', line: 2, col: 9 });
  add('system is a mapping', 'name: t\nsystem: { a: 1 }\nseed: 1\ntrials: 5\n', { path: 'system' });
  add('no seed', 'name: t\nsystem: surrender\ntrials: 5\n', { path: 'seed', message: MSG.missingKey() });
  add('an empty seed', 'name: t\nsystem: surrender\nseed: ""\ntrials: 5\n', { path: 'seed', line: 3, col: 7 });
  add('a fractional seed', 'name: t\nsystem: surrender\nseed: 1.5\ntrials: 5\n', { path: 'seed', message: /a seed is a string of at least one character, or an integer/ });
  add('a seed past 2^53', 'name: t\nsystem: surrender\nseed: 99999999999999999999\ntrials: 5\n', { path: 'seed' });
  add('trials 1e999 (infinite)', 'name: t\nsystem: surrender\nseed: 1\ntrials: 1e999\n', { path: 'trials', line: 4, col: 9 });
  add('trials 2e10', 'name: t\nsystem: surrender\nseed: 1\ntrials: 20000000000\n', { path: 'trials', message: /^must be at most 10,000,000,000, got 20000000000$/ });
  add('trials -0', 'name: t\nsystem: surrender\nseed: 1\ntrials: -0\n', { path: 'trials' });
  add('trials NaN', 'name: t\nsystem: surrender\nseed: 1\ntrials: .nan\n', { path: 'trials' });
  for (const name of ['../../etc/passwd', '/abs', '..', '.hidden', 'a/b', 'a\\\\b', 'x'.repeat(121), '', 'con:']) {
    add(`name ${JSON.stringify(name).slice(0, 20)}`, `name: ${JSON.stringify(name)}\nsystem: surrender\nseed: 1\ntrials: 5\n`, { path: 'name', line: 1, col: 7 });
  }
  for (const name of ['a\\nb', 'a,b', 'a\\"b', '']) {
    add(`variant name ${name || '(empty)'}`, `${SURRENDER}variants:\n  - name: "${name}"\n`, { path: 'variants[0].name', line: 6 });
  }
  add('a variant path with an empty segment', `${SURRENDER}variants:\n  - name: a\n  - name: b\n    set: { rules..die: 1 }\n`, { message: MSG.badPath('rules..die') });
  add(`${MAX_CASES + 1} variants`, `${SURRENDER}variants:\n` + Array.from({ length: MAX_CASES + 1 }, (_, i) => `  - name: v${i}\n`).join(''), { path: 'sweep', message: MSG.sweepTooLarge(MAX_CASES + 1, MAX_CASES, ['10,001 variants'], false, MAX_CASES + 1) });
  // sweep and variant problems are reported together with the base's
  add(
    'base, variant and sweep problems at once',
    `${SURRENDER}turns: many\nvariants:\n  - name: a\n  - name: b\n    set: { rules.comparison: sometimes }\nsweep:\n  besieger.artillery: [0, -2]\n`,
    { path: 'turns', line: 5, col: 8 },
  );
  return C;
}

const CORPUS = [...settingCases(), ...structuralCases(), ...commonCases()];

/** Validate one case; `ms` is the CPU time it took (wall time would measure the machine's load, not the validator). */
function check(c: Case): { issues: ScenarioIssue[]; ms: number } {
  const c0 = process.cpuUsage();
  const v = validateText('s.yaml', c.text);
  const cpu = process.cpuUsage(c0);
  const ms = (cpu.user + cpu.system) / 1000;
  if (v.ok) throw new Error(`${c.name}: accepted`);
  return { issues: v.issues, ms };
}

describe(`hostile scenarios: a generated corpus of ${CORPUS.length} across the four systems`, () => {
  it('every one is refused with file, line, column and path, in time, and Object.prototype stays clean', { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    for (const c of CORPUS) {
      // let this worker answer vitest's RPC between cases: the corpus takes a while on a loaded machine
      await new Promise((r) => setImmediate(r));
      let r;
      try {
        r = check(c);
      } catch (e) {
        failures.push(`${c.name}: ${(e as Error).message.split('\n')[0]}`);
        continue;
      }
      const { issues, ms } = r;
      if (ms > (c.ms ?? 5000)) failures.push(`${c.name}: took ${ms.toFixed(0)} ms of CPU`);
      for (const i of issues) {
        const fileLevel = i.path === '(file)' && i.line === 0; // too large: no position to give
        if (i.file !== 's.yaml' || (!fileLevel && !(i.line >= 1 && i.col >= 1)) || !i.path || !i.message) {
          failures.push(`${c.name}: a problem without file, position or path: ${JSON.stringify(i).slice(0, 200)}`);
          break;
        }
        if (i.message.length > 300) failures.push(`${c.name}: a message of ${i.message.length} characters`);
      }
      const hit = issues.find(
        (i) =>
          (c.path === undefined || i.path === c.path || i.path.startsWith(c.path + '.') || i.path.startsWith(c.path + '[')) &&
          (c.message === undefined || (typeof c.message === 'string' ? i.message === c.message : c.message.test(i.message))) &&
          (c.line === undefined || i.line === c.line) &&
          (c.col === undefined || i.col === c.col),
      );
      if (!hit) failures.push(`${c.name}: expected ${JSON.stringify({ path: c.path, message: String(c.message), line: c.line, col: c.col })}, got ${JSON.stringify(issues.slice(0, 3))}`);
      if (({} as Record<string, unknown>).polluted !== undefined) failures.push(`${c.name}: polluted Object.prototype`);
    }
    expect(failures).toEqual([]);
  });

  it('the settings part covers every system and many settings', () => {
    const systems = new Set(CORPUS.map((c) => c.name.split('/')[0].split(':')[0]));
    expect([...systems]).toEqual(expect.arrayContaining(['surrender', 'crusader-rex', 'fantasy', 'cry-havoc']));
    expect(CORPUS.length).toBeGreaterThan(900);
  });

  it('a missing seed says the key is missing; sweep and variant problems come with the base problems', () => {
    const { issues } = check({ name: 'no seed', text: 'name: t\nsystem: surrender\ntrials: 5\n' });
    expect(issues).toEqual([{ file: 's.yaml', line: 1, col: 1, path: 'seed', message: MSG.missingKey() }]);
    const all = check({
      name: 'all',
      text: `${SURRENDER}turns: many\nvariants:\n  - name: a\n  - name: b\n    set: { rules.comparison: sometimes, rules.dye: 6 }\nsweep:\n  besieger.artillery: [0, -2]\n  structure.surrender_levl: [1]\n`,
    }).issues;
    const at = (p: string) => all.filter((i) => i.path === p).map((i) => [i.line, i.col, i.message.split(':')[0]]);
    expect(at('turns')).toEqual([[5, 8, MSG.wrongKind('a whole number', 'the text "many"')]]);
    expect(at('rules.comparison')).toEqual([[9, 30, 'in variant "b"']]);
    expect(at('variants[1].set.rules.dye')).toEqual([[9, 41, MSG.badPath('rules.dye', 'rules.die')]]);
    expect(at('sweep.besieger.artillery[1]')).toEqual([[11, 27, 'with sweep value -2']]); // under sweep., as every sweep problem
    expect(at('sweep.structure.surrender_levl')).toEqual([[12, 3, MSG.badPath('structure.surrender_levl', 'structure.surrender_level')]]);
    // the same variant and sweep problems, worded and placed the same, when the base is fine
    const alone = check({
      name: 'alone',
      text: `${SURRENDER}turns: 5   \nvariants:\n  - name: a\n  - name: b\n    set: { rules.comparison: sometimes, rules.dye: 6 }\nsweep:\n  besieger.artillery: [0, -2]\n  structure.surrender_levl: [1]\n`,
    }).issues;
    expect(alone.map((i) => [i.path, i.line, i.col, i.message]).sort()).toEqual(all.filter((i) => i.path !== 'turns').map((i) => [i.path, i.line, i.col, i.message]).sort());
  });

  it('a crusader-rex block that fits neither form names the closest one, not "Invalid input"', () => {
    const base = BASES.find((b) => b.file.startsWith('crusader-rex'))!.text;
    const { issues } = check({ name: 'block', text: base.replace(/block: Saladin/, 'block: .nan') });
    expect(issues.some((i) => /^blocks\[\d+\]\.block$/.test(i.path) && i.message === MSG.wrongKind('text', '.nan'))).toBe(true);
  });
});

describe('nesting is counted off the lexer before parsing where the tokens show it (lexedTooDeepAt)', () => {
  it('finds the first bracket past the limit, by offset; brackets in quotes, comments and block scalars do not count', () => {
    expect(lexedTooDeepAt('x: ' + '['.repeat(5) + ']'.repeat(5) + '\n', 4)).toBe(3 + 4);
    expect(lexedTooDeepAt('x: ' + '['.repeat(4) + ']'.repeat(4) + '\n', 4)).toBe(-1);
    expect(lexedTooDeepAt('a: [[1], [2]]\nb: {c: [{d: 1}]}\n', 3)).toBe(-1);
    expect(lexedTooDeepAt('a: {c: [{d: [1]}]}\n', 3)).toBe(12);
    // closed brackets free their level: siblings never add up
    expect(lexedTooDeepAt('x: [' + '[1], '.repeat(100) + '1]\n', 2)).toBe(-1);
    const inert = [`q: "${'['.repeat(50)}"`, `r: '${'{'.repeat(50)}'`, `# ${'['.repeat(50)}`, 's: |\n  ' + '['.repeat(50), 't: [a, "[[[[[[", b]'].join('\n') + '\n';
    expect(lexedTooDeepAt(inert, 2)).toBe(-1);
    // after such text the offset is still the text's (the lexer's markers add none)
    expect(lexedTooDeepAt(inert + 'u: [[[1]]]\n', 2)).toBe(inert.length + 'u: [['.length);
    // a document marker and a quoted key before it
    const doc = '---\n"k": v\nw: [[[x]]]\n';
    expect(lexedTooDeepAt(doc, 2)).toBe(doc.indexOf('[[[') + 2);
  });
  it('block indicators on one line nest too (each `- ` or `? ` inside the one before), with the flows they open; a new line starts again', () => {
    expect(lexedTooDeepAt('x:\n- - - 1\n', 2)).toBe('x:\n- - '.length);
    expect(lexedTooDeepAt('x:\n- - 1\n- - 2\n- - 3\n', 2)).toBe(-1);
    expect(lexedTooDeepAt('x:\n- ? - a\n', 2)).toBe('x:\n- ? '.length);
    expect(lexedTooDeepAt('x:\n- - [1]\n', 2)).toBe('x:\n- - '.length);
    // a dash inside a flow, in a scalar or in quotes is no indicator
    expect(lexedTooDeepAt('x: [-1, -2, "- - -"]\ny: a - b - c\n', 1)).toBe(-1);
  });
  it('a file past the limit is refused at that bracket, with its line and column (the `- ` and 31 brackets hold 32)', () => {
    const text = 'name: deep\nsystem: surrender\nseed: 1\nx:\n  - ' + '['.repeat(LIMITS.depth + 5) + '\n';
    const r = validateText('deep.yaml', text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toEqual([{ file: 'deep.yaml', line: 5, col: 5 + LIMITS.depth - 1, path: '(yaml)', message: MSG.tooDeep(LIMITS.depth) }]);
  });
});

describe('hostile scenarios through the built CLI', () => {
  const dir = tempDirs('siegesim-hostile-')();
  const put = (name: string, content: string | Buffer) => {
    writeFileSync(path.join(dir, name), content);
    return name;
  };
  const B = BASES[0].text;
  const files: [string, string, RegExp][] = [
    ['alias bomb', put('bomb.yaml', B + aliasBomb(9, 9)), /^bomb\.yaml:\d+:\d+ {2}\S+ {2}aliases expand to more than/],
    ['undefined alias', put('alias.yaml', B.replace(/^seed: .*$/m, 'seed: *nowhere')), /^alias\.yaml:\d+:7 {2}seed {2}alias \*nowhere refers to no anchor/],
    ['deep nesting', put('deep.yaml', B + 'x: ' + '['.repeat(100_000) + '\n'), /^deep\.yaml:\d+:\d+ {2}\(yaml\) {2}nested more than 32 levels deep/],
    ['unknown keys up to the limit', put('keys.yaml', B + Array.from({ length: 20_000 }, (_, i) => `k${i}: 1\n`).join('')), /^keys\.yaml:\d+:1 {2}k0 {2}unknown key "k0"/],
    ['a 10 MB file', put('big.yaml', B + '#'.repeat(10_000_000) + '\n'), /^big\.yaml {2}\(file\) {2}the file is 10,00\d,\d{3} bytes; scenario files are limited to 262,144 bytes/],
    ['binary', put('binary.yaml', Buffer.from(Array.from({ length: 65536 }, (_, i) => (i * 7919 + 13) % 256))), /^binary\.yaml:\d+:\d+ {2}\(file\) {2}(the file is not valid UTF-8|control character)/],
    ['UTF-16', put('utf16.yaml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(B, 'utf16le')])), /^utf16\.yaml:1:1 {2}\(file\) {2}the file is UTF-16 text; save it as UTF-8/],
    ['two documents', put('docs.yaml', B + '---\n' + B), /^docs\.yaml:\d+:1 {2}\(yaml\) {2}a scenario file holds one YAML document/],
    ['a __proto__ key', put('proto.yaml', B + '__proto__: { system: fantasy }\n'), /^proto\.yaml:\d+:1 {2}__proto__ {2}unknown key "__proto__"/],
    ['no seed', put('noseed.yaml', B.replace(/^seed: .*\n/m, '')), /^noseed\.yaml:\d+:1 {2}seed {2}required key is missing/],
  ];
  try {
    execFileSync('mkfifo', [path.join(dir, 'fifo.yaml')]);
    files.push(['a named pipe', 'fifo.yaml', /^fifo\.yaml {2}\(file\) {2}not a file/]);
  } catch {
    // no mkfifo: the pipe case is covered where it exists
  }
  const before = new Set(readdirSync(dir));

  const maxLines = LIMITS.problemsShown + 2; // the problems shown, "... and K more problems", the summary line
  // The first in a process of its own, the others through one child (test/cli-batch.ts) under the
  // same memory limit, one after another in its one heap: refusals all, none ends another's
  // writing; a hang or a crash (out of memory) fails the batch, and so every test of it.
  const memory = ['--max-old-space-size=160'];
  const job = (file: string) => ['run', file, '--out', 'out', '--no-progress'];
  let batch: ReturnType<typeof runCliBatch> | undefined;
  it.each(files)(`%s: exit 2, file:line:col, at most ${maxLines} lines of stderr, no stack trace, nothing written`, async (name, file, first) => {
    const i = files.findIndex(([n]) => n === name);
    const r = i === 0 ? await runCli(job(file), { cwd: dir, nodeArgs: memory }) : { timedOut: false, ...(await (batch ??= runCliBatch(files.slice(1).map(([, f]) => job(f)), dir, memory)))[i - 1] };
    expect(r.timedOut).toBe(false);
    expect(r.code, r.stderr.slice(0, 500)).toBe(2);
    expect(r.stderr).toMatch(first);
    expect(r.stderr).not.toMatch(STACK_FRAME);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(maxLines);
    expect(lines.at(-1)).toMatch(/^siegesim: \d+ problems? found; nothing was run or written$/);
    expect(new Set(readdirSync(dir))).toEqual(before);
  });

  it('20 000 unknown keys: the first 50 problems, then how many more', async () => {
    const r = await runCli(['validate', 'keys.yaml'], { cwd: dir });
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(LIMITS.problemsShown + 2);
    expect(lines[LIMITS.problemsShown]).toBe(MSG.moreProblems(20_000 - LIMITS.problemsShown, LIMITS.problemsShown));
    expect(lines.at(-1)).toBe('siegesim: 20000 problems found; nothing was run or written');
  });

  const scen = path.join(ROOT, 'test/fixtures/good-small.yaml');
  const flags: [string, string[], RegExp][] = [
    ['--trials 1e99', ['--trials', '1e99'], /--trials must be at most 10,000,000,000, got 1e\+99 \(as in a scenario file\)/],
    ['--trials 2e10', ['--trials', '20000000000'], /--trials must be at most 10,000,000,000, got 20000000000/],
    ['--max-trials 0', ['--precision', '0.01', '--max-trials', '0'], /--max-trials must be at least 1, got 0/],
    ['--threads 2000', ['--threads', '2000'], /--threads must be at most \d+ \(4 per core, \d+ cores? here\)/],
    ["--seed ''", ['--seed', ''], /--seed must not be empty/],
    ["--out ''", ['--out', ''], /--out must not be empty/],
    ['--precision 0', ['--precision', '0'], /--precision must be a positive number/],
    ['--threads 0', ['--threads', '0'], /--threads must be a positive integer/],
    ['--trials abc', ['--trials', 'abc'], /--trials must be a whole number, e.g. 100000 or 1e6/],
  ];
  // the first in a process of its own, the others through one child (test/cli-batch.ts): refusals all
  let flagBatch: ReturnType<typeof runCliBatch> | undefined;
  it.each(flags)('%s: exit 2 before anything runs, with the same limit as a file', async (name, args, message) => {
    const i = flags.findIndex(([n]) => n === name);
    const r = i === 0 ? await runCli(['run', scen, ...args], { cwd: dir }) : (await (flagBatch ??= runCliBatch(flags.slice(1).map(([, a]) => ['run', scen, ...a]), dir)))[i - 1];
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/is invalid\. --[a-z-]+ must /); // one form for every flag: "--flag must ..."
    expect(r.stderr).not.toMatch(STACK_FRAME);
    expect(new Set(readdirSync(dir))).toEqual(before);
  });

  it('--threads help gives its default once', async () => {
    const r = await runCli(['run', '--help']);
    const line = r.stdout.split('\n').find((l) => l.includes('--threads'))!;
    expect(line.match(/default/g)).toHaveLength(1);
  });
});

describe('a scenario file named twice on the command line', () => {
  const dir = tempDirs('siegesim-twice-')();
  it('is validated once (as a file, ./file, and inside a folder given too)', async () => {
    mkdirSync(path.join(dir, 'd'));
    writeFileSync(path.join(dir, 'd/keep.yaml'), readFileSync(path.join(ROOT, 'test/fixtures/good-small.yaml')));
    const r = await runCli(['validate', 'd/keep.yaml', 'd/keep.yaml', './d/keep.yaml', 'd'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(/^ok {2}d\/keep\.yaml {2}/)]);
  });
});
