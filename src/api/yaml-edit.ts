/**
 * Write values into a YAML file's text and change nothing else: a value already written is
 * replaced where it stands; a key not yet written is added in the style of its map (`, k: v`
 * inside a flow map, a new line at the map's indentation in a block map, before `variants:` and
 * `sweep:` at the top level). Comments, key order, folded descriptions and flow style are kept
 * byte for byte. Each edit is checked by parsing the result; if the text cannot be edited in place
 * the yaml package's Document API writes the value instead (comments and key order kept, long
 * lines possibly re-folded).
 */
import { isMap, isScalar, isSeq, parseDocument, stringify, type Document, type Node } from 'yaml';

export type DocPath = (string | number)[];

/** `text` with every (path, value) written; paths are key/index segments. */
export function editYamlValues(text: string, edits: { path: DocPath; value: unknown }[]): string {
  let out = text;
  for (const e of edits) out = editOne(out, e.path, e.value);
  return out;
}

/**
 * `text` with `line` added as a new last line of the text value at `path` (a description): a
 * block scalar (`>` or `|`) grows by that line at its own indentation (a folded one wrapped to its
 * width, after a blank line so that it stays a line of its own); a one-line value is rewritten as
 * a double-quoted text with the line after a line break; a missing value is added.
 */
export function appendYamlLine(text: string, path: DocPath, line: string): string {
  const doc = parseDocument(text);
  const node = doc.getIn(path, true);
  if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return editOne(text, path, line);
  const old = node.value;
  const want = `${old.replace(/\n+$/, '')}\n${line}${old.endsWith('\n') ? '\n' : ''}`;
  let spliced: string | undefined;
  if (node.type === 'BLOCK_FOLDED' || node.type === 'BLOCK_LITERAL') {
    const body = text.slice(node.range[0], node.range[1]).split('\n');
    const content = body.slice(1).filter((l) => l.trim() !== '');
    const indent = /^ */.exec(content[0] ?? '')?.[0] ?? '';
    if (content.length > 0 && indent.length > 0) {
      const lastLine = content[content.length - 1];
      const end = node.range[0] + body.slice(0, body.lastIndexOf(lastLine) + 1).join('\n').length;
      const folded = node.type === 'BLOCK_FOLDED';
      const width = Math.max(60, ...content.map((l) => l.length));
      const lines = folded ? wrapWords(line, width - indent.length) : [line];
      spliced = `${text.slice(0, end)}\n${folded ? '\n' : ''}${lines.map((l) => indent + l).join('\n')}${text.slice(end)}`;
    }
  } else spliced = text.slice(0, node.range[0]) + JSON.stringify(want) + text.slice(node.range[1]);
  if (spliced !== undefined) {
    const check = parseDocument(spliced);
    if (check.errors.length === 0 && check.getIn(path) === want) return spliced;
  }
  return editOne(text, path, want);
}

/** Words on lines of at most `width` characters (a longer word has a line of its own); `path a -> b` stays together. */
function wrapWords(text: string, width: number): string[] {
  const out: string[] = [];
  for (const w of text.split(/(?<!->) (?!->|\S+ ->)/)) {
    const last = out.length - 1;
    if (last >= 0 && out[last].length + 1 + w.length <= width) out[last] += ` ${w}`;
    else out.push(w);
  }
  return out;
}

function editOne(text: string, path: DocPath, value: unknown): string {
  const doc = parseDocument(text);
  const expected = parseDocument(text);
  expected.setIn(path, value);
  const want = canonical(expected.toJS());
  const spliced = splice(doc, text, path, value);
  if (spliced !== undefined) {
    const check = parseDocument(spliced);
    if (check.errors.length === 0 && canonical(check.toJS()) === want) return spliced;
  }
  // Long flow maps stay on one line (lineWidth 0), as designers write them.
  return expected.toString({ lineWidth: 0 });
}

/** JSON with object keys sorted: equal data, whatever the key order. */
function canonical(x: unknown): string {
  return JSON.stringify(x, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** The text with the value spliced in, or undefined when the shape is not one handled in place. */
function splice(doc: Document, text: string, path: DocPath, value: unknown): string | undefined {
  let node: Node | null | undefined = doc.contents as Node | null;
  for (let i = 0; i < path.length; i++) {
    if (!node) return undefined;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(path[i]));
      if (!pair) return insertInMap(text, node, path.slice(i), value, i === 0);
      node = pair.value as Node | null;
    } else if (isSeq(node)) {
      const item = typeof path[i] === 'number' ? node.items[path[i] as number] : undefined;
      if (item === undefined) return undefined;
      node = item as Node;
    } else return undefined;
  }
  if (!node || !node.range) return undefined;
  // a flow list or map (a sweep's `[8, 12, 16]` or `{ from, to, step }`) is rewritten as a flow value in its place
  if ((isSeq(node) || isMap(node)) && node.flow) return text.slice(0, node.range[0]) + valueText(value) + text.slice(node.range[1]);
  if (!isScalar(node)) return undefined;
  return text.slice(0, node.range[0]) + scalarText(value) + text.slice(node.range[1]);
}

/** Add `rest[0]: <rest[1..] as flow maps around value>` to a map that lacks the key. */
function insertInMap(text: string, map: Node, rest: DocPath, value: unknown, root: boolean): string | undefined {
  if (!isMap(map) || !map.range) return undefined;
  let v: unknown = value;
  for (let i = rest.length - 1; i >= 1; i--) {
    if (typeof rest[i] === 'number') return undefined;
    v = { [rest[i]]: v };
  }
  const entry = `${keyText(String(rest[0]))}: ${valueText(v)}`;
  if (map.flow) {
    const close = text.lastIndexOf('}', map.range[1]);
    if (close < map.range[0]) return undefined;
    const before = text.slice(map.range[0] + 1, close);
    const sep = before.trim() === '' ? ' ' : before.trimEnd().endsWith(',') ? ' ' : ', ';
    const head = text.slice(0, close).trimEnd();
    return `${head}${sep}${entry} ${text.slice(close)}`;
  }
  const first = map.items[0];
  if (!first || !isScalar(first.key) || !first.key.range) return undefined;
  const lineStart = text.lastIndexOf('\n', first.key.range[0] - 1) + 1;
  const indent = text.slice(lineStart, first.key.range[0]);
  if (!/^ *$/.test(indent)) return undefined;
  if (root) {
    // The system's keys go before the file's variants and sweep, as the schema lists them.
    const tail = map.items.find((p) => isScalar(p.key) && (p.key.value === 'variants' || p.key.value === 'sweep'));
    if (tail && isScalar(tail.key) && tail.key.range) {
      const at = text.lastIndexOf('\n', tail.key.range[0] - 1) + 1;
      return `${text.slice(0, at)}${entry}\n${text.slice(at)}`;
    }
  }
  const last = map.items[map.items.length - 1];
  const end = (last.value as Node | null)?.range?.[1] ?? (isScalar(last.key) ? last.key.range?.[1] : undefined);
  if (end === undefined) return undefined;
  const eol = text.indexOf('\n', end);
  if (eol < 0) return `${text}\n${indent}${entry}\n`;
  return `${text.slice(0, eol)}\n${indent}${entry}${text.slice(eol)}`;
}

function scalarText(value: unknown): string {
  return stringify(value).trimEnd();
}

function keyText(key: string): string {
  return stringify(key).trimEnd();
}

/** A value as one line of flow YAML. */
function valueText(value: unknown): string {
  // `[8, 12, 16]` as designers write lists, `{ hp: 40 }` as they write maps
  return stringify(value, { collectionStyle: 'flow', lineWidth: 0, flowCollectionPadding: !Array.isArray(value) }).trimEnd();
}

/**
 * `text` with the items `indices` of the block sequence at `path` turned into comments, each
 * under a comment line of its own note (`# <note>`), every other byte kept; when every item goes,
 * the key goes with them (`expect:` commented out too). Undefined when that cannot be done in
 * place (a flow sequence `[...]`, an item sharing a line with another).
 */
export function commentOutItems(text: string, path: DocPath, indices: number[], note: (i: number) => string): string | undefined {
  const doc = parseDocument(text);
  const seq = doc.getIn(path, true);
  if (!isSeq(seq) || seq.flow || !seq.range) return undefined;
  const lineStart = (at: number) => text.lastIndexOf('\n', at - 1) + 1;
  const lineEnd = (at: number) => {
    const eol = text.indexOf('\n', at);
    return eol < 0 ? text.length : eol;
  };
  // each item's lines: from its "- " line to the end of the line its value ends on (a trailing comment kept with it)
  const spans: { i: number; from: number; to: number }[] = [];
  for (const i of [...new Set(indices)].sort((a, b) => a - b)) {
    const item = seq.items[i] as Node | undefined;
    if (!item?.range) return undefined;
    const from = lineStart(item.range[0]);
    if (!/^ *- *$/.test(text.slice(from, item.range[0]))) return undefined;
    spans.push({ i, from, to: lineEnd(Math.max(item.range[0], item.range[1] - 1)) });
  }
  const all = spans.length === seq.items.length;
  let out = text;
  for (const s of spans.reverse()) {
    const lines = text.slice(s.from, s.to).split('\n');
    const indent = /^ */.exec(lines[0])![0];
    const body = lines.map((l) => (l.startsWith(indent) ? `${indent}# ${l.slice(indent.length)}` : `# ${l}`)).join('\n');
    out = `${out.slice(0, s.from)}${indent}# ${note(s.i)}\n${body}${out.slice(s.to)}`;
  }
  if (all) {
    // nothing left under the key: comment the key out too (an empty `expect:` is null, not a list)
    const parent = doc.getIn(path.slice(0, -1), true);
    const pair = isMap(parent) ? parent.items.find((p) => isScalar(p.key) && p.key.value === path[path.length - 1]) : undefined;
    const key = pair && isScalar(pair.key) ? pair.key : undefined;
    if (!key?.range) return undefined;
    const at = lineStart(key.range[0]);
    out = `${out.slice(0, at)}# ${out.slice(at)}`;
  }
  return out;
}
