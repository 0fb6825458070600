/**
 * Load phase: parse YAML and keep the line and column of every key and value, so that every
 * later error can point at the exact place in the file.
 */
import { Composer, Lexer, Parser, isAlias, isMap, isScalar, isSeq, type CST, type Document, type Node } from 'yaml';
import { LIMITS, utf8LengthUpTo } from './limits.js';
import { MSG, shortKey } from './messages.js';

/** One problem in a scenario file: printed as `file:line:col  path  message`. */
export interface ScenarioIssue {
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
  /**
   * An `expect:` item that no longer matches the scenario (a metric it does not produce, a
   * variant it does not have, a `where` key or value it does not sweep): refused by `siegesim
   * test` and `validate`, a warning for the commands that run (validateScenario's `staleExpect`).
   */
  stale?: true;
}

/** Path segments: object keys and array indices. */
export type PathSegments = readonly (string | number)[];

interface Pos {
  line: number;
  col: number;
}

/** Where each path's key and value sit in the source. */
export class PositionMap {
  private readonly keys = new Map<string, Pos>();
  private readonly values = new Map<string, Pos>();

  static id(path: PathSegments): string {
    return path.map(String).join('\u0000');
  }

  setKey(path: PathSegments, p: Pos): void {
    this.keys.set(PositionMap.id(path), p);
  }

  setValue(path: PathSegments, p: Pos): void {
    this.values.set(PositionMap.id(path), p);
  }

  /** The key's position (else the value's, else the nearest ancestor's). */
  keyOf(path: PathSegments): Pos {
    for (let n = path.length; n >= 0; n--) {
      const id = PositionMap.id(path.slice(0, n));
      const p = (n === path.length ? this.keys.get(id) : undefined) ?? this.values.get(id) ?? this.keys.get(id);
      if (p) return p;
    }
    return { line: 1, col: 1 };
  }

  /** The value's position (else the key's, else the nearest ancestor's). */
  valueOf(path: PathSegments): Pos {
    for (let n = path.length; n >= 0; n--) {
      const id = PositionMap.id(path.slice(0, n));
      const p = this.values.get(id) ?? this.keys.get(id);
      if (p) return p;
    }
    return { line: 1, col: 1 };
  }
}

/**
 * A parsed scenario file: the plain data, and where everything came from. `data` is undefined
 * when the file could not be read as a scenario (its `issues` say why); with data, `issues` holds
 * the problems that left it usable (a key given twice: its first value is kept).
 */
export interface LoadedFile {
  file: string;
  data: unknown;
  positions: PositionMap;
  issues: ScenarioIssue[];
}

/** `file:line:col  path  message`: a problem as every command and the server say it. */
export function formatIssue(i: ScenarioIssue): string {
  const where = i.line > 0 ? `${i.file}:${i.line}:${i.col}` : i.file;
  return `${where}  ${i.path}  ${i.message}`;
}

/** Display form of a path: `variants[1].set.rules.comparison`. */
export function formatPath(path: PathSegments): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? shortKey(seg) : `.${shortKey(seg)}`;
  }
  return out === '' ? '(root)' : out;
}

/** `text`'s line and column (1-based) at a character offset, for problems found before parsing. */
function lineColAt(text: string, offset: number): Pos {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

/** The offset at which each line of `text` starts (a line feed ends a line; a CR LF's CR is in the line before it). */
function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** C0 controls other than tab, newline and return; DEL; U+FFFE, U+FFFF; lone surrogates. */
const NOT_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first collection nested deeper than `max` levels, by offset, or -1 (an explicit stack: no recursion). */
function tooDeepAt(tokens: readonly CST.Token[], max: number): number {
  const stack: [CST.Token | null | undefined, number][] = [];
  for (const t of tokens) if (t.type === 'document') stack.push([t.value, 1]);
  while (stack.length > 0) {
    const [t, depth] = stack.pop()!;
    if (!t) continue;
    if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') {
      if (depth > max) return t.offset;
      for (const item of t.items as CST.CollectionItem[]) {
        stack.push([item.key, depth + 1]);
        stack.push([item.value, depth + 1]);
      }
    }
  }
  return -1;
}

/**
 * Where the text nests more than `max` collections, as far as its tokens show before any parsing,
 * by offset, or -1: the lexer's tokens are read up to there, and the parser never builds the
 * collections (100 000 nested brackets, a 200 KB file, cost the parser ~4 s and 200 MB to be
 * refused as too deep; `- ` 50 000 times on a line, ~2 s). What the tokens show: the open flow
 * collections (`[`, `{`), and on one line the block indicators (`- `, `? `) outside any flow,
 * each inside the one before it; a line's indentation may nest it deeper still (tooDeepAt, after
 * parsing, counts that). A quoted scalar, a comment or a block scalar is one token, so brackets
 * and dashes inside them do not count. The lexer's markers that are not text ('\x02' a document,
 * '\x18' a flow's end, '\x1f' a scalar) add no offset.
 */
export function lexedTooDeepAt(text: string, max: number): number {
  let flow = 0;
  let line = 0; // block indicators on this line so far
  let offset = 0;
  for (const tok of new Lexer().lex(text)) {
    if (tok === '[' || tok === '{') {
      if (++flow + line > max) return offset;
    } else if (tok === ']' || tok === '}') {
      if (flow > 0) flow--;
    } else if ((tok === '-' || tok === '?') && flow === 0) {
      if (++line > max) return offset;
    } else if (tok === '\n' || tok === '\r\n') line = 0;
    if (tok !== '\x02' && tok !== '\x18' && tok !== '\x1f') offset += tok.length;
  }
  return -1;
}

/** Flow collections (`{` or `[`) the text never closes, by offset, with the bracket each needs. */
function unclosedFlows(tokens: readonly CST.Token[]): { offset: number; close: '}' | ']' }[] {
  const out: { offset: number; close: '}' | ']' }[] = [];
  const stack: (CST.Token | null | undefined)[] = [];
  for (const t of tokens) if (t.type === 'document') stack.push(t.value);
  while (stack.length > 0) {
    const t = stack.pop();
    if (!t) continue;
    if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') {
      if (t.type === 'flow-collection') {
        const close = t.start.source === '{' ? '}' : ']';
        if (!t.end.some((e) => e.type === (close === '}' ? 'flow-map-end' : 'flow-seq-end'))) out.push({ offset: t.offset, close });
      }
      for (const item of t.items as CST.CollectionItem[]) stack.push(item.key, item.value);
    }
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/**
 * Parse one scenario's YAML text. Every problem comes back as an issue with its position, never
 * as an exception, and the work is linear in the size of the text: files over
 * `LIMITS.fileBytes` are refused before parsing, nesting deeper than `LIMITS.depth` before it is
 * composed (the YAML composer recurses), a flood of syntax errors is cut at `LIMITS.yamlErrors`,
 * duplicate keys are found with one set per mapping, and aliases may copy at most
 * `LIMITS.aliasValues` values in all.
 * @example loadScenarioText('a.yaml', 'name: x\n').data // { name: 'x' }
 */
export function loadScenarioText(file: string, text: string): LoadedFile {
  const fail = (p: Pos, message: string): LoadedFile => ({
    file,
    data: undefined,
    positions: new PositionMap(),
    issues: [{ file, line: p.line, col: p.col, path: '(file)', message }],
  });
  if (utf8LengthUpTo(text, LIMITS.fileBytes) > LIMITS.fileBytes) {
    return fail({ line: 0, col: 0 }, MSG.fileTooLarge(utf8LengthUpTo(text, Infinity), LIMITS.fileBytes));
  }
  const bad = NOT_TEXT.exec(text);
  if (bad) return fail(lineColAt(text, bad.index), MSG.controlChar(bad[0].charCodeAt(0)));
  // A byte-order mark is not part of the text: columns on line 1 count from after it, as editors do.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // A carriage return alone ends a line (YAML 1.2's b-break; classic Mac files), though the yaml
  // package reads it as a space: made a line feed, the same length, so every line and column is
  // the one an editor shows.
  if (text.includes('\r')) text = text.replace(/\r(?!\n)/g, '\n');

  // The yaml package makes an Error per syntax error: without stack traces they cost a
  // fraction (130 000 of them took seconds just capturing stacks).
  const stackLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return loadYaml(file, text);
  } finally {
    Error.stackTraceLimit = stackLimit;
  }
}

/** Line n (1-based) of `text` without its line break, or undefined past the end; `starts`: each line's offset. */
function lineReader(text: string, starts: readonly number[]): (n: number) => string | undefined {
  return (n) => (n < 1 || n > starts.length ? undefined : text.slice(starts[n - 1], n < starts.length ? starts[n] : text.length).replace(/\r?\n$/, ''));
}

/** A block mapping's key line: indent, an optional list dash, the key, and the value on the line (if any). */
const KEYED = /^( *)(?:- +)?([^\s#:'"{}[\],&*!|>%@`-][^:#]*?)[ \t]*:(?:[ \t]+(.*))?$/;

/**
 * The commonest indentation slip, `infantry: 6` followed by `   archers: 4` one space deeper:
 * YAML reads the second line as more of the first one's value and says so at that value
 * ("Nested mappings are not allowed in compact mappings", "Implicit keys need to be on a single
 * line"), a line before the mistake. When line `line` is a key with its value on it and the next
 * line with content is a key indented deeper, that key is the mistake: where it is, and the key above.
 */
function keyUnderValue(lineOf: (n: number) => string | undefined, line: number): { line: number; col: number; key: string; above: string; aboveIndent: number } | undefined {
  const text = lineOf(line) ?? '';
  const above = KEYED.exec(text);
  if (!above || !above[3] || above[3].startsWith('#')) return undefined;
  const aboveIndent = indentOf(text) + (/^ *- +/.exec(text)?.[0].trimStart().length ?? 0);
  for (let n = line + 1, next = lineOf(n); next !== undefined; next = lineOf(++n)) {
    const t = next.trim();
    if (t === '' || t.startsWith('#')) continue;
    const key = KEYED.exec(next);
    const indent = indentOf(next);
    if (!key || /^ *- /.test(next) || indent <= aboveIndent) return undefined;
    return { line: n, col: indent + 1, key: key[2], above: above[2], aboveIndent };
  }
  return undefined;
}

/**
 * "All mapping items must start at the same column", said at column 1 of the line: the key on
 * that line, and the key before it (the nearest line above that is a key with its value on it)
 * whose column it misses.
 */
function keyOutOfLine(lineOf: (n: number) => string | undefined, line: number): { line: number; col: number; key: string; before: string; beforeLine: number; beforeCol: number } | undefined {
  const text = lineOf(line) ?? '';
  const here = KEYED.exec(text);
  if (!here || /^ *- /.test(text)) return undefined;
  const col = indentOf(text) + 1;
  for (let n = line - 1; n >= 1; n--) {
    const prev = lineOf(n)!;
    const t = prev.trim();
    if (t === '' || t.startsWith('#')) continue;
    const before = KEYED.exec(prev);
    const beforeCol = indentOf(prev) + 1;
    if (!before || /^ *- /.test(prev) || !before[3] || beforeCol === col) return undefined;
    return { line, col, key: here[2], before: before[2], beforeLine: n, beforeCol };
  }
  return undefined;
}

/** Spaces before a line's content. */
function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Parse, check the depth, compose (errors capped), then build the data. */
function loadYaml(file: string, text: string): LoadedFile {
  const positions = new PositionMap();
  const issues: ScenarioIssue[] = [];
  // Each line's offset, from the text itself: the parser's own LineCounter misses the line breaks
  // inside a scalar it reads as an error token (`  c\n  d` after `b:` in a broken file), and every
  // position after one came out that many lines early.
  const starts = lineStartsOf(text);
  const at = (offset: number): Pos => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo] + 1 };
  };
  const syntax = (offset: number, message: string) => {
    const p = at(offset);
    issues.push({ file, line: p.line, col: p.col, path: '(yaml)', message });
  };
  const failed = (): LoadedFile => ({ file, data: undefined, positions, issues });
  /** The first `LIMITS.yamlErrors` syntax errors, and a line saying reading stopped there. */
  const flood = (errors: readonly { offset: number; message: string }[]): LoadedFile => {
    for (const e of errors.slice(0, LIMITS.yamlErrors)) syntax(e.offset, MSG.yamlSyntax(firstLine(e.message)));
    const last = issues[issues.length - 1];
    issues.push({ ...last, message: MSG.tooManyYamlErrors(LIMITS.yamlErrors) });
    return failed();
  };

  const lexDeep = lexedTooDeepAt(text, LIMITS.depth);
  if (lexDeep >= 0) {
    issues.push({ file, ...lineColAt(text, lexDeep), path: '(yaml)', message: MSG.tooDeep(LIMITS.depth) });
    return failed();
  }
  const tokens = Array.from(new Parser().parse(text));
  const deep = tooDeepAt(tokens, LIMITS.depth);
  if (deep >= 0) {
    syntax(deep, MSG.tooDeep(LIMITS.depth));
    return failed();
  }
  // Syntax errors the parser found (as tokens): a flood of them is cut short before composing.
  const errorTokens = tokens.filter((t): t is CST.ErrorToken => t.type === 'error');
  if (errorTokens.length >= LIMITS.yamlErrors) return flood(errorTokens);
  const composer = stopAfterErrors(new Composer({ uniqueKeys: false }), LIMITS.yamlErrors);
  let docs: Document.Parsed[];
  try {
    docs = Array.from(composer.compose(tokens, true, text.length));
  } catch (e) {
    if (e !== TOO_MANY_ERRORS) throw e;
    return flood(composer.streamInfo().errors.map((err) => ({ offset: err.pos[0], message: err.message })));
  }
  if (docs.length > 1) {
    const second = tokens.filter((t) => t.type === 'document')[1];
    syntax(second ? second.offset : docs[1].range[0], MSG.multipleDocuments());
  }
  // A flow collection left open is found where the parser gave up on it (often the end of the
  // file): said at the bracket that opened it, the place to fix.
  const open = unclosedFlows(tokens);
  const lineOf = lineReader(text, starts);
  const underValue = new Set<number>(); // lines whose key had a deeper-indented key under its value (said once)
  const tabbed = new Set<number>(); // lines indented with a tab: said once, the parser's knock-on errors there not at all
  for (const e of docs[0].errors) {
    const eLine = at(e.pos[0]).line;
    if (tabbed.has(eLine)) continue;
    if (e.code === 'TAB_AS_INDENT') {
      tabbed.add(eLine);
      syntax(e.pos[0], MSG.tabIndent());
      continue;
    }
    if (e.code === 'BLOCK_AS_IMPLICIT_KEY' || e.code === 'MULTILINE_IMPLICIT_KEY') {
      const line = at(e.pos[0]).line;
      const k = keyUnderValue(lineOf, line);
      if (k) {
        if (!underValue.has(line)) issues.push({ file, line: k.line, col: k.col, path: '(yaml)', message: MSG.keyUnderValue(k.key, k.above, line, k.aboveIndent) });
        underValue.add(line);
        continue;
      }
    }
    if (e.code === 'BAD_INDENT' && e.message.startsWith('All mapping items must start at the same column')) {
      const k = keyOutOfLine(lineOf, at(e.pos[0]).line);
      if (k) {
        issues.push({ file, line: k.line, col: k.col, path: '(yaml)', message: MSG.keyOutOfLine(k.key, k.col, k.before, k.beforeLine, k.beforeCol) });
        continue;
      }
    }
    const close = /end with an? ([}\]])/.exec(e.message)?.[1];
    let opener = -1;
    if (close !== undefined) for (let i = 0; i < open.length && open[i].offset <= e.pos[0]; i++) if (open[i].close === close) opener = i;
    if (opener < 0) syntax(e.pos[0], MSG.yamlSyntax(firstLine(e.message)));
    else {
      const [f] = open.splice(opener, 1);
      syntax(f.offset, MSG.unclosedFlow(f.close === '}' ? '{' : '[', f.close, at(e.pos[0]).line));
    }
  }
  if (issues.length > 0) return failed();

  // a key given twice keeps its first value and is one problem among the others (`soft`)
  const soft: ScenarioIssue[] = [];
  const data = buildData(file, docs[0].contents as Node | null, at, positions, issues, soft);
  if (issues.length > 0) {
    for (const i of soft) issues.push(i);
    issues.sort((a, b) => a.line - b.line || a.col - b.col);
    return failed();
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    const message = docs[0].contents !== null ? MSG.notAMapping() : text.trim() === '' ? MSG.emptyFile() : MSG.onlyComments();
    issues.push({ file, line: 1, col: 1, path: '(root)', message });
    return failed();
  }
  return { file, data, positions, issues: soft };
}

/**
 * One walk builds the plain data and the position of every key and value (instead of
 * Document.toJS, whose alias resolution scans the document once per alias): duplicate keys,
 * keys that are not plain names, undefined aliases and alias bombs become issues.
 */
function buildData(file: string, root: Node | null, at: (offset: number) => Pos, positions: PositionMap, issues: ScenarioIssue[], soft: ScenarioIssue[]): unknown {
  const anchors = new Map<string, { value: unknown; size: number }>();
  let aliasBudget: number = LIMITS.aliasValues;
  const issue = (p: Pos, path: PathSegments, message: string) =>
    issues.push({ file, line: p.line, col: p.col, path: formatPath(path), message });
  /** Returns the node's value and how many values it holds. */
  const build = (node: Node | null | undefined, path: (string | number)[]): [unknown, number] => {
    if (!node) return [null, 1];
    const pos = node.range ? at(node.range[0]) : { line: 1, col: 1 };
    positions.setValue(path, pos);
    let value: unknown = null;
    let size = 1;
    if (isAlias(node)) {
      const a = anchors.get(node.source);
      if (!a) issue(pos, path, MSG.undefinedAlias(node.source));
      else if (aliasBudget < 0) {
        // over budget already: reported once
      } else if ((aliasBudget -= a.size) < 0) issue(pos, path, MSG.aliasBomb(LIMITS.aliasValues));
      else [value, size] = [structuredClone(a.value), a.size];
    } else if (isMap(node)) {
      const obj: Record<string, unknown> = {};
      const firstLineOf = new Map<string, number>();
      for (const pair of node.items) {
        const k = pair.key as Node | null;
        const kPos = k?.range ? at(k.range[0]) : pos;
        if (k && !isScalar(k)) {
          issue(kPos, path, MSG.complexKey());
          continue;
        }
        const key = k === null || k.value === null ? '' : String(k.value);
        const child = [...path, key];
        const seenOn = firstLineOf.get(key);
        if (seenOn !== undefined) {
          soft.push({ file, line: kPos.line, col: kPos.col, path: formatPath(child), message: MSG.duplicateKey(key, seenOn) });
          continue;
        }
        firstLineOf.set(key, kPos.line);
        positions.setKey(child, kPos);
        const [v, n] = build(pair.value as Node | null, child);
        // a `__proto__` key stays a plain own key: nothing reaches a prototype
        if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        else obj[key] = v;
        size += n;
      }
      value = obj;
    } else if (isSeq(node)) {
      const arr: unknown[] = [];
      node.items.forEach((item, i) => {
        const [v, n] = build(item as Node, [...path, i]);
        arr.push(v);
        size += n;
      });
      value = arr;
    } else if (isScalar(node)) {
      value = node.value;
    }
    if (node.anchor) anchors.set(node.anchor, { value, size });
    return [value, size];
  };
  return build(root, [])[0];
}

const TOO_MANY_ERRORS = new Error('too many YAML errors');

/** Make the composer stop (throw TOO_MANY_ERRORS) at its n-th error, instead of composing on through a flood of them. */
function stopAfterErrors(composer: Composer, n: number): Composer {
  const c = composer as unknown as { onError?: (...args: unknown[]) => void };
  const collect = c.onError;
  if (typeof collect !== 'function') return composer; // another yaml version: no cap, still linear
  let errors = 0;
  c.onError = (source: unknown, code: unknown, message: unknown, warning?: unknown) => {
    collect(source, code, message, warning);
    if (!warning && ++errors >= n) throw TOO_MANY_ERRORS;
  };
  return composer;
}

function firstLine(s: string): string {
  return s.split('\n')[0].trim();
}
