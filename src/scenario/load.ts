/**
 * Load phase: parse YAML and keep the line and column of every key and value, so that every
 * later error can point at the exact place in the file.
 */
import { LineCounter, parseDocument, isMap, isSeq, isScalar, type Node } from 'yaml';
import { MSG } from './messages.js';

/** One problem in a scenario file: printed as `file:line:col  path  message`. */
export interface ScenarioIssue {
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
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

/** A parsed scenario file: the plain data, and where everything came from. */
export interface LoadedFile {
  file: string;
  data: unknown;
  positions: PositionMap;
  issues: ScenarioIssue[];
}

/** Display form of a path: `variants[1].set.rules.comparison`. */
export function formatPath(path: PathSegments): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out === '' ? '(root)' : out;
}

/**
 * Parse one scenario's YAML text. Syntax errors come back as issues, never as exceptions.
 * @example loadScenarioText('a.yaml', 'name: x\n').data // { name: 'x' }
 */
export function loadScenarioText(file: string, text: string): LoadedFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const positions = new PositionMap();
  const issues: ScenarioIssue[] = [];
  for (const e of doc.errors) {
    const lp = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
    issues.push({ file, line: lp.line, col: lp.col, path: '(yaml)', message: MSG.yamlSyntax(firstLine(e.message)) });
  }
  if (issues.length > 0) return { file, data: undefined, positions, issues };

  const at = (offset: number): Pos => lineCounter.linePos(offset);
  const walk = (node: Node | null | undefined, path: (string | number)[]): void => {
    if (!node) return;
    if (node.range) positions.setValue(path, at(node.range[0]));
    if (isMap(node)) {
      for (const pair of node.items) {
        const k = pair.key as Node | null;
        const key = isScalar(k) ? String(k.value) : String(k);
        const child = [...path, key];
        if (k && k.range) positions.setKey(child, at(k.range[0]));
        walk(pair.value as Node | null, child);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item as Node, [...path, i]));
    }
  };
  walk(doc.contents as Node | null, []);
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    issues.push({ file, line: 1, col: 1, path: '(root)', message: MSG.notAMapping() });
  }
  return { file, data, positions, issues };
}

function firstLine(s: string): string {
  return s.split('\n')[0].trim();
}
