/**
 * `siegesim init`: what a game's own repository starts with — one commented scenario per chosen
 * rules system (a bundled one, with its expect: assertions), package.json scripts, the balance
 * workflow (templates/balance.yml, the same file siegesim's own repository runs) and a
 * .gitignore. This module plans the files and merges the scripts; the command line writes them,
 * never over an existing file. Touches no files: the bundled texts are read through `read`.
 */

import { showCount } from '../text/count.js';

/** The rules systems init knows, each with the bundled scenario it starts from. */
export const STARTERS: Readonly<Record<string, { bundled: string; file: string; rules: string }>> = {
  fantasy: { bundled: 'scenarios/fantasy/climbers-dc.yaml', file: 'scenarios/fantasy-climbers-dc.yaml', rules: 'docs/rules/fantasy.md' },
  'crusader-rex': { bundled: 'scenarios/crusader-rex/knights-charge.yaml', file: 'scenarios/crusader-rex-knights-charge.yaml', rules: 'docs/rules/crusader-rex.md' },
  surrender: { bundled: 'scenarios/surrender/town-basic.yaml', file: 'scenarios/surrender-town-basic.yaml', rules: 'docs/rules/surrender.md' },
  'cry-havoc': { bundled: 'scenarios/cry-havoc/melee-two-on-one.yaml', file: 'scenarios/cry-havoc-melee-two-on-one.yaml', rules: 'docs/rules/cry-havoc.md' },
};

/** The package's name in a game's node_modules (where `$schema` and the rules documents resolve). */
const PACKAGE = 'node_modules/siegesim';

/** The scripts init adds to package.json (a script of the same name already there is kept). */
export const INIT_SCRIPTS: Readonly<Record<string, string>> = {
  balance: 'siegesim test scenarios --junit test-results/balance.xml',
  'balance:serve': 'siegesim serve scenarios --open',
};

/** What init's .gitignore ignores: what npm and siegesim write (`history add`'s default store included). */
export const GITIGNORE_LINES = ['node_modules/', 'reports/', 'test-results/', 'siegesim-history/'];
const GITIGNORE = [...GITIGNORE_LINES, ''].join('\n');

export interface InitFile {
  /** Path from the repository's root, with forward slashes. */
  path: string;
  text: string;
  /** What the file is for, as the command line says it. */
  what: string;
  /** A starter scenario (in scenarios/, which `siegesim test scenarios` reads). */
  scenario?: boolean;
}

export interface InitPlan {
  files: InitFile[];
  systems: string[];
}

/** A user error in init's arguments (exit 2). */
export class InitInputError extends Error {}

/** The systems asked for: every one init knows when none is named; an unknown name refused with the list. */
export function initSystems(asked: readonly string[] | undefined): string[] {
  if (!asked || asked.length === 0) return Object.keys(STARTERS);
  const names = asked.flatMap((a) => a.split(',')).map((a) => a.trim()).filter((a) => a !== '');
  const unknown = names.filter((n) => !Object.hasOwn(STARTERS, n));
  if (unknown.length > 0) throw new InitInputError(`unknown rules system ${unknown.map((n) => `"${n}"`).join(', ')}: choose from ${Object.keys(STARTERS).join(', ')}`);
  return [...new Set(names)];
}

/**
 * A bundled scenario as a game's starter: its `$schema` line pointing into node_modules (so an
 * editor checks it from the repository's scenarios/ folder), and a head that says where it came
 * from and what to do next.
 */
export function starterScenario(system: string, bundledText: string, ownBalance = false): string {
  const s = STARTERS[system];
  const lines = bundledText.split('\n');
  const schema = `# yaml-language-server: $schema=../${PACKAGE}/scenarios/scenario.schema.json`;
  const body = lines[0].startsWith('# yaml-language-server:') ? lines.slice(1) : lines;
  const head = [
    schema,
    `# A starter scenario written by \`siegesim init\` from siegesim's ${s.bundled}.`,
    `# The rules it plays, every key and its default: ${PACKAGE}/${s.rules}.`,
    ...(ownBalance
      ? // the repository's own "balance" script was kept: siegesim's command itself
        [`# Change a number, then \`npx ${INIT_SCRIPTS.balance}\` judges the expect:`, '# assertions at the end (CI runs the same).']
      : ['# Change a number, then `npm run balance` judges the expect: assertions at the end (CI runs the', '# same), and `npm run balance:serve` opens the workbench on this folder.']),
  ];
  return [...head, ...body].join('\n');
}

/**
 * Every file init would write, for these systems; `read` gives a bundled file's text by its path
 * in the package; `ownBalance`: package.json keeps a "balance" script of its own (the starters then
 * name siegesim's command, not npm run balance).
 */
export function initPlan(systems: readonly string[], read: (rel: string) => string, ownBalance = false): InitPlan {
  const files: InitFile[] = systems.map((system) => ({
    path: STARTERS[system].file,
    text: starterScenario(system, read(STARTERS[system].bundled), ownBalance),
    what: `a ${system} scenario with expect: assertions`,
    scenario: true,
  }));
  files.push({ path: '.github/workflows/balance.yml', text: read('templates/balance.yml'), what: 'the balance workflow (siegesim test, bench, diff on pull requests)' });
  files.push({ path: '.gitignore', text: GITIGNORE, what: 'what siegesim and npm write' });
  return { files, systems: [...systems] };
}

export interface ScriptsMerge {
  /** package.json with the scripts added, in its own indentation; undefined when nothing was added. */
  text: string | undefined;
  added: string[];
  /** Scripts of init's names that package.json already has (kept as they are). */
  kept: string[];
}

/** package.json's text with init's scripts added where their names are free; a package.json that is not a JSON object is refused. */
export function mergeScripts(packageJson: string, file = 'package.json'): ScriptsMerge {
  // a byte-order mark (npm reads such a file): kept, in front of the text written back
  const bom = packageJson.startsWith('\uFEFF') ? '\uFEFF' : '';
  packageJson = packageJson.slice(bom.length);
  // every refusal names the place (file:line:col, as a scenario's problems are) and the scripts to add by hand
  const add = `add the scripts yourself: ${JSON.stringify(INIT_SCRIPTS)}`;
  const at = (offset: number) => ((p) => `${file}:${p.line}:${p.col}`)(placeOf(packageJson, offset));
  let doc: unknown;
  try {
    doc = JSON.parse(packageJson);
  } catch {
    // the place and the reason from init's own scan: the parser's message quotes the raw text
    // (a carriage return in it hid the whole line on a terminal) and names no line and column
    const offset = jsonErrorOffset(packageJson);
    throw new InitInputError(`${at(offset)}: not valid JSON (${jsonFault(packageJson, offset)}): fix it, or ${add}`);
  }
  const first = packageJson.search(/\S/);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new InitInputError(`${at(first)}: not a JSON object (${Array.isArray(doc) ? 'a list' : doc === null ? 'null' : `a ${typeof doc}`}): fix it, or ${add}`);
  const pkg = doc as Record<string, unknown>;
  // a "scripts" that is null is refused as a string is: npm reads no scripts from it, and the file written back would not say so
  const scripts = Object.hasOwn(pkg, 'scripts') ? pkg.scripts : {};
  if (typeof scripts !== 'object' || scripts === null || Array.isArray(scripts))
    throw new InitInputError(`${at(topKeyOffset(packageJson, 'scripts') ?? first)}: "scripts" is not an object (${Array.isArray(scripts) ? 'a list' : scripts === null ? 'null' : `a ${typeof scripts}`}): fix it, or ${add}`);
  const have = scripts as Record<string, unknown>;
  const added: string[] = [];
  const kept: string[] = [];
  for (const [name, command] of Object.entries(INIT_SCRIPTS)) {
    if (Object.hasOwn(have, name)) kept.push(name);
    else {
      have[name] = command;
      added.push(name);
    }
  }
  if (added.length === 0) return { text: undefined, added, kept };
  // JSON.parse keeps the last of a key given twice; written back, the first would be lost
  const twice = duplicateKey(packageJson);
  if (twice) {
    // on one line (a minified file), the columns tell the two apart
    const both = twice.first === twice.line ? `columns ${twice.firstCol} and ${twice.col} of line ${twice.line}` : `lines ${twice.first} and ${twice.line}`;
    throw new InitInputError(`${at(twice.offset)}: the key ${JSON.stringify(twice.key)} twice in one object (${both}): npm reads the last, and writing the file back would drop the first: merge them, or ${add}`);
  }
  pkg.scripts = have;
  const indent = /^[ \t]+(?=")/m.exec(packageJson)?.[0] ?? '  ';
  const eol = packageJson.includes('\r\n') ? '\r\n' : '\n';
  let text: string;
  try {
    text = JSON.stringify(pkg, null, indent);
  } catch (e) {
    // nested deeper than the stack (JSON.parse reads it; writing it back recurses): placed at the deepest bracket
    const deep = deepestOpen(packageJson);
    throw new InitInputError(`${at(deep.offset)}: nested too deeply to write back (${showCount(deep.depth)} levels there; ${(e as Error).message}): ${add}`);
  }
  return { text: bom + text.replace(/\n/g, eol) + eol, added, kept };
}

/** The first bracket that opens the deepest level of a valid JSON text, and that depth (1: the top level); a loop, no recursion. */
export function deepestOpen(json: string): { offset: number; depth: number } {
  let best = { offset: 0, depth: 0 };
  for (const e of jsonStructure(json)) if (e.kind === 'open' && e.depth > best.depth) best = { offset: e.offset, depth: e.depth };
  return best;
}

/**
 * A valid JSON text's brackets that open (their offset and the depth they open: 1 for the top
 * level) and its objects' keys (unescaped, the offset of the opening quote, the object they are
 * in, numbered as they open, and its depth), in text order. A loop over the text, no recursion (a
 * file nested deeper than the stack is read too); jsonKeys and deepestOpen read it.
 */
function* jsonStructure(json: string): Generator<{ kind: 'open'; offset: number; depth: number } | { kind: 'key'; key: string; offset: number; object: number; depth: number }> {
  const open: number[] = []; // each open object's number, or -1 for an open array
  let objects = 0;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (ch === '{' || ch === '[') {
      open.push(ch === '{' ? objects++ : -1);
      yield { kind: 'open', offset: i, depth: open.length };
    } else if (ch === '}' || ch === ']') open.pop();
    else if (ch === '"') {
      let j = i + 1;
      while (json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      const object = open.at(-1) ?? -1;
      if (object >= 0) {
        let k = j + 1;
        while (k < json.length && (json[k] === ' ' || json[k] === '\t' || json[k] === '\r' || json[k] === '\n')) k++;
        if (json[k] === ':') yield { kind: 'key', key: JSON.parse(json.slice(i, j + 1)) as string, offset: i, object, depth: open.length };
      }
      i = j;
    }
  }
}

/** Each key of a valid JSON text's objects, in text order (jsonStructure); duplicateKey and topKeyOffset read it. */
function* jsonKeys(json: string): Generator<{ key: string; offset: number; object: number; depth: number }> {
  for (const e of jsonStructure(json)) if (e.kind === 'key') yield e;
}

/**
 * The first key given twice in one object of a JSON text (valid JSON), with the lines and columns
 * of its first and second times and the offset of the second; undefined when none is.
 */
export function duplicateKey(json: string): { key: string; first: number; firstCol: number; line: number; col: number; offset: number } | undefined {
  const seen = new Map<number, Map<string, number>>(); // each object's keys, with their offsets
  for (const { key, offset, object } of jsonKeys(json)) {
    let keys = seen.get(object);
    if (!keys) seen.set(object, (keys = new Map()));
    const first = keys.get(key);
    if (first !== undefined) {
      const a = placeOf(json, first);
      const b = placeOf(json, offset);
      return { key, first: a.line, firstCol: a.col, line: b.line, col: b.col, offset };
    }
    keys.set(key, offset);
  }
  return undefined;
}

/** The offset of a key of a JSON text's top-level object (valid JSON), its first time; undefined when the object has none. */
export function topKeyOffset(json: string, key: string): number | undefined {
  for (const k of jsonKeys(json)) if (k.depth === 1 && k.key === key) return k.offset;
  return undefined;
}

/**
 * Where a text JSON.parse refuses first goes wrong: the offset of the first character that
 * cannot continue a JSON text (its length when the text ends too soon); -1 for valid JSON.
 * Node 20's JSON.parse names no line and column (at most an offset, and not always), so init
 * finds the place for its file:line:col. A loop with a
 * stack of open containers, no recursion.
 * @example jsonErrorOffset('{"a": tru}') // 6
 */
export function jsonErrorOffset(text: string): number {
  const n = text.length;
  let i = 0;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  /** A string at i (its opening quote): true with i after it, false with i at the fault. */
  const str = (): boolean => {
    if (text[i] !== '"') return false;
    i++;
    while (i < n && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) return false;
      if (text[i] === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return ((i += 1), false);
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return ((i += 1), false);
      } else i++;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const stack: string[] = [];
  let want: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    ws();
    if (want === 'value') {
      const c = text[i];
      if (c === '{' || c === '[') {
        stack.push(c);
        i++;
        ws();
        if (text[i] === (c === '{' ? '}' : ']')) {
          stack.pop();
          i++;
          want = 'after';
        } else want = c === '{' ? 'key' : 'value';
      } else if (c === '"') {
        if (!str()) return i;
        want = 'after';
      } else {
        const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
        if (!m || /[\w.+-]/.test(text[i + m[0].length] ?? '')) return m ? i + m[0].length : i;
        i += m[0].length;
        want = 'after';
      }
    } else if (want === 'key') {
      if (!str()) return i;
      ws();
      if (text[i] !== ':') return i;
      i++;
      want = 'value';
    } else {
      const top = stack.at(-1);
      if (top === undefined) return i < n ? i : -1;
      if (text[i] === ',') {
        i++;
        want = top === '{' ? 'key' : 'value';
      } else if (text[i] === (top === '{' ? '}' : ']')) {
        stack.pop();
        i++;
      } else return i;
    }
  }
}

/**
 * What a JSON text has at the offset jsonErrorOffset found, in words without a control
 * character: the token there (`unexpected "nul"`), a control character by its code point, or the
 * text's end.
 * @example jsonFault('{"a": nul}', 6) // 'unexpected "nul"'
 */
export function jsonFault(text: string, offset: number): string {
  if (offset < 0) return 'no fault found';
  if (offset >= text.length) return 'the text ends before the JSON does';
  const c = text.charCodeAt(offset);
  if (c < 0x20 || c === 0x7f || c === 0xfeff) return `unexpected ${c === 0xfeff ? 'byte-order mark' : 'control character'} U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  const token = /^[\w.+-]{1,20}/.exec(text.slice(offset, offset + 20))?.[0] ?? text[offset];
  return `unexpected ${JSON.stringify(token)}`;
}

/** The line and column (1-based; a tab is one column; CRLF, LF and a lone CR each end a line) of an offset in a text. */
function placeOf(text: string, offset: number): { line: number; col: number } {
  const lines = text.slice(0, Math.max(0, offset)).split(/\r\n|\r|\n/);
  return { line: lines.length, col: lines[lines.length - 1].length + 1 };
}

/** A package.json for a folder that has none: private, with init's scripts. */
export function newPackageJson(name: string): string {
  const clean = name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '') || 'game-balance';
  return JSON.stringify({ name: clean, private: true, scripts: { ...INIT_SCRIPTS } }, null, 2) + '\n';
}
