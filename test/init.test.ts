/** `siegesim init`'s plan (src/api/init.ts): the starter files, the scripts merged into package.json, the systems asked for. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { initPlan, initSystems, InitInputError, INIT_SCRIPTS, mergeScripts, newPackageJson, STARTERS, starterScenario, validateText } from '../src/api.js';
import { deepestOpen, duplicateKey, jsonErrorOffset, topKeyOffset } from '../src/api/init.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');

describe('siegesim init (the plan)', () => {
  it('every system by default; named ones once each, comma lists too; an unknown one refused with the list', () => {
    expect(initSystems(undefined)).toEqual(['fantasy', 'crusader-rex', 'surrender', 'cry-havoc']);
    expect(initSystems(['surrender,fantasy', 'surrender'])).toEqual(['surrender', 'fantasy']);
    expect(() => initSystems(['fantasy', 'constructor'])).toThrow(InitInputError);
    expect(() => initSystems(['crusader'])).toThrow('unknown rules system "crusader": choose from fantasy, crusader-rex, surrender, cry-havoc');
  });

  it('each starter is its bundled scenario, valid, with expect: assertions, a $schema into node_modules and a head saying where it came from', () => {
    for (const [system, s] of Object.entries(STARTERS)) {
      const text = starterScenario(system, read(s.bundled));
      const lines = text.split('\n');
      expect(lines[0]).toBe('# yaml-language-server: $schema=../node_modules/siegesim/scenarios/scenario.schema.json');
      expect(lines.filter((l) => l.startsWith('# yaml-language-server:')).length).toBe(1);
      expect(text).toContain(`from siegesim's ${s.bundled}`);
      expect(text).toContain(`node_modules/siegesim/${s.rules}`);
      expect(text).toMatch(/^expect:/m);
      const v = validateText(s.file, text);
      expect(v.ok, JSON.stringify(v)).toBe(true);
    }
  });

  it('with a "balance" script of the repository\'s own, each starter names siegesim test itself, and is still valid', () => {
    for (const [system, s] of Object.entries(STARTERS)) {
      const text = starterScenario(system, read(s.bundled), true);
      expect(text).toContain(`\`npx ${INIT_SCRIPTS.balance}\` judges the expect:`);
      expect(text).not.toContain('npm run balance');
      expect(validateText(s.file, text).ok).toBe(true);
    }
    expect(initPlan(['surrender'], read, true).files[0].text).toBe(starterScenario('surrender', read(STARTERS.surrender.bundled), true));
    expect(initPlan(['surrender'], read).files[0].text).toContain('`npm run balance` judges');
  });

  it('plans the scenarios asked for, the workflow (the project\'s own file) and a .gitignore', () => {
    const plan = initPlan(['surrender'], read);
    expect(plan.files.map((f) => f.path)).toEqual(['scenarios/surrender-town-basic.yaml', '.github/workflows/balance.yml', '.gitignore']);
    expect(plan.files[1].text).toBe(read('.github/workflows/balance.yml'));
    expect(plan.files[2].text.split('\n')).toEqual(['node_modules/', 'reports/', 'test-results/', 'siegesim-history/', '']);
  });

  it('adds only the scripts package.json lacks, in its own indentation and line ends; keeps the others', () => {
    const four = '{\n    "name": "g",\n    "scripts": {\n        "balance": "mine"\n    }\n}\n';
    const m = mergeScripts(four);
    expect(m.added).toEqual(['balance:serve']);
    expect(m.kept).toEqual(['balance']);
    expect(m.text).toBe('{\n    "name": "g",\n    "scripts": {\n        "balance": "mine",\n        "balance:serve": "siegesim serve scenarios --open"\n    }\n}\n');
    const crlf = mergeScripts('{\r\n  "name": "g"\r\n}\r\n');
    expect(crlf.text).toBe(`{\r\n  "name": "g",\r\n  "scripts": {\r\n    "balance": "${INIT_SCRIPTS.balance}",\r\n    "balance:serve": "${INIT_SCRIPTS['balance:serve']}"\r\n  }\r\n}\r\n`);
    const full = mergeScripts(JSON.stringify({ scripts: { ...INIT_SCRIPTS } }));
    expect(full).toEqual({ text: undefined, added: [], kept: ['balance', 'balance:serve'] });
  });

  it('refuses a package.json it cannot read as an object, saying where (file:line:col) and the scripts to add by hand', () => {
    const add = `add the scripts yourself: ${JSON.stringify(INIT_SCRIPTS)}`;
    expect(() => mergeScripts('{\n  "name": "g",\n  "private": tru\n}\n', 'game/package.json')).toThrow(/^game\/package\.json:3:14: not valid JSON \(unexpected "tru"\): fix it/);
    // the reason never carries the raw text: a carriage return in it hid the whole line on a terminal; CR and CRLF end lines
    for (const [text, says] of [
      ['{\r\n  "name": "x",\r\n  "v": nul\r\n}\r\n', 'package.json:3:8: not valid JSON (unexpected "nul")'],
      ['{\r  "name": "x",\r  "v": nul\r}\r', 'package.json:3:8: not valid JSON (unexpected "nul")'],
      ['{\n  "v": \n}\n', 'package.json:3:1: not valid JSON (unexpected "}")'],
      ['{"v": "a\rb"}', 'package.json:1:9: not valid JSON (unexpected control character U+000D)'],
      ['\uFEFF{"v": 1}', 'package.json:1:1: not valid JSON (unexpected byte-order mark U+FEFF)'],
      ['{"v": [1, 2', 'package.json:1:12: not valid JSON (the text ends before the JSON does)'],
    ] as const) {
      expect(() => mergeScripts(`\uFEFF${text}`), JSON.stringify(text)).toThrow(`${says}: fix it, or ${add}`);
      expect(() => mergeScripts(`\uFEFF${text}`)).not.toThrow(/[\r\u0000-\u0008\u000b-\u001f\uFEFF]/);
    }
    expect(() => mergeScripts('{ "name": ', 'game/package.json')).toThrow(new RegExp(`^game/package\\.json:1:11: not valid JSON \\(.*\\): fix it, or ${add.replace(/[{}()[\]"]/g, '\\$&')}$`));
    expect(() => mergeScripts('\n  [1]')).toThrow(`package.json:2:3: not a JSON object (a list): fix it, or ${add}`);
    expect(() => mergeScripts('"x"')).toThrow('package.json:1:1: not a JSON object (a string)');
    expect(() => mergeScripts('{"name": "g",\n "scripts": "npm test"}')).toThrow(`package.json:2:2: "scripts" is not an object (a string): fix it, or ${add}`);
    // null is no object either (it was taken as no scripts and replaced, silently: fresh-eyes helper)
    expect(() => mergeScripts('{"name": "g",\n  "scripts": null}')).toThrow(`package.json:2:3: "scripts" is not an object (null): fix it, or ${add}`);
    // nested past the stack: placed at the deepest bracket
    expect(() => mergeScripts(`{"a":\n ${'['.repeat(200_000)}${']'.repeat(200_000)}}`)).toThrow(/^package\.json:2:200001: nested too deeply to write back \(200,001 levels there; Maximum call stack size exceeded\): add the scripts yourself/);
    expect(deepestOpen('{"a": "[[[", "b": [{"c": []}, [[1]]]}')).toEqual({ offset: 25, depth: 4 });
    // where JSON.parse stops, found by init (Node 20's JSON.parse names no position)
    for (const [text, at] of [['{"a": tru}', 6], ['{"a": 1,}', 8], ['[1 2]', 3], ['{"a" 1}', 5], ['{"a": "x\u0001"}', 8], ['{"a": "\\q"}', 8], ['{"a": 01}', 7], ['{} x', 3], ['{"a": [1, 2}', 11], ['', 0], ['{"a": {"b": [true, null, -1.5e3, "\\u00e9"]}}', -1]] as const) expect(jsonErrorOffset(text), text).toBe(at);
    // a key "scripts" inside another object is not the top-level one
    expect(topKeyOffset('{"a": {"scripts": 1}, "b": "scripts", "scripts": []}', 'scripts')).toBe(38);
    expect(topKeyOffset('{"a": {"scripts": 1}}', 'scripts')).toBeUndefined();
    expect(topKeyOffset(`{"scripts"${' '.repeat(60)}: 1}`, 'scripts')).toBe(1); // any whitespace before its colon
  });

  it('refuses a package.json with a key given twice in one object (written back, the first would be lost), naming the key and its line; the same key in two objects is fine', () => {
    const twice = '{\n  "name": "g",\n  "scripts": { "test": "vitest" },\n  "private": true,\n  "scripts": { "lint": "eslint ." }\n}\n';
    expect(() => mergeScripts(twice, 'game/package.json')).toThrow(/^game\/package\.json:5:3: the key "scripts" twice in one object \(lines 3 and 5\): npm reads the last/);
    // nested, the same key after unescaping, past strings holding quotes, colons and braces
    // on one line (a minified file): the columns of both
    expect(() => mergeScripts('{"a": {"b": "x\\" : {", "\\u0062": 2}}')).toThrow(/^package\.json:1:24: the key "b" twice in one object \(columns 8 and 24 of line 1\)/);
    expect(duplicateKey('{"x": [{"k": 1}, {"k": 2}], "y": {"k": ":"}, "k": ["k", ":", "k"]}')).toBeUndefined();
    expect(duplicateKey('[{"k": 1, "j": {"k": 1}, "k": 2}]')).toEqual({ key: 'k', first: 1, firstCol: 3, line: 1, col: 26, offset: 25 });
    // a file that adds nothing is not written, so not refused
    expect(mergeScripts(JSON.stringify({ scripts: INIT_SCRIPTS }).replace('{', '{"n": 1, "n": 2, ')).text).toBeUndefined();
  });

  it('a new package.json is private, named after the folder, with the scripts', () => {
    expect(JSON.parse(newPackageJson('My Castle!'))).toEqual({ name: 'my-castle-', private: true, scripts: INIT_SCRIPTS });
    expect(JSON.parse(newPackageJson('...')).name).toBe('game-balance');
  });
});
