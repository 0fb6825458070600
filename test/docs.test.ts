/**
 * The rules ship with the code: docs/rules/<system>.md documents every scenario option of its
 * system with its default, and every file the code, tests, scenarios and README cite exists.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { jsonSchemaOf } from '../src/scenario/schema.js';
import { SYSTEMS } from '../src/systems/registry.js';
import { MELEE_FOOT_MEANING, MELEE_FOOT_RESULTS, MELEE_MOUNTED_MEANING, MELEE_MOUNTED_RESULTS } from '../src/systems/cry-havoc/compile.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const COMMON = new Set(['name', 'system', 'description', 'seed', 'trials', 'variants', 'sweep', 'expect', 'headline']);

type Node = { type?: string; properties?: Record<string, Node>; items?: Node; anyOf?: Node[]; default?: unknown; $ref?: string };

/** Every leaf option of a system's JSON Schema, as a dotted path (`blocks[].steps`), with its default. */
function options(node: Node, at: string, out: Map<string, unknown>): void {
  if (node.anyOf && !node.properties && !node.items) {
    for (const a of node.anyOf) options(a, at, out);
    return;
  }
  if (node.type === 'object' && node.properties) {
    for (const [k, v] of Object.entries(node.properties)) options(v, at ? `${at}.${k}` : k, out);
    return;
  }
  if (node.type === 'array' && node.items && (node.items.properties || node.items.anyOf)) {
    options(node.items, `${at}[]`, out);
    return;
  }
  if (!out.has(at) || out.get(at) === undefined) out.set(at, node.default);
}

/** Files under a folder, recursively. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

describe('docs/rules', () => {
  const schema = jsonSchemaOf(SYSTEMS) as { anyOf: Node[] };
  it.each(SYSTEMS.map((s) => s.id))('docs/rules/%s.md documents every option with its default', (id) => {
    const doc = readFileSync(path.join(ROOT, 'docs/rules', `${id}.md`), 'utf8');
    const sys = schema.anyOf.find((s) => (s.properties!.system as { const?: string }).const === id)!;
    const opts = new Map<string, unknown>();
    for (const [k, v] of Object.entries(sys.properties!)) if (!COMMON.has(k)) options(v, k, opts);
    expect(opts.size).toBeGreaterThan(20);
    const rows = doc.split('\n').filter((l) => l.startsWith('|'));
    for (const [key, def] of opts) {
      const row = rows.find((r) => r.split('|')[1].includes(`\`${key}\``)); // the key's own row: its first cell
      expect(row, `${id}: option ${key} is not in a table of docs/rules/${id}.md`).toBeDefined();
      if (def === undefined || (typeof def === 'object' && !Array.isArray(def))) continue;
      const shown = (typeof def === 'string' ? def : JSON.stringify(def)).replace(/\s/g, '');
      const cells = row!.replace(/\s/g, '');
      expect(cells.includes(`\`${shown}\``) || cells.includes(`\`"${shown}"\``), `${id}: the row of ${key} does not show its default ${shown}`).toBe(true);
    }
  });
});

describe('citations', () => {
  const files = [
    ...['src', 'test', 'bench', 'workers', 'scenarios'].flatMap((d) => walk(path.join(ROOT, d))),
    path.join(ROOT, 'README.md'),
  ].filter((f) => /\.(ts|mjs|md|yaml|json)$/.test(f) && !f.endsWith('docs.test.ts'));

  it('every docs/ file the code, tests, scenarios and README cite ships; none cites the unshipped rules/*.md or DESIGN.md', () => {
    const missing: string[] = [];
    const stale: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/docs\/[A-Za-z0-9_/.-]+\.md/g)) if (!existsSync(path.join(ROOT, m[0]))) missing.push(`${path.relative(ROOT, f)}: ${m[0]}`);
      for (const m of text.matchAll(/(?<![\w/])(rules\/[a-z-]+\.md|DESIGN\.md)/g)) stale.push(`${path.relative(ROOT, f)}: ${m[0]}`);
    }
    expect(missing).toEqual([]);
    expect(stale).toEqual([]);
  });

  it('a section a citation names is in the file it cites', () => {
    const bad: string[] = [];
    let checked = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/docs\/rules\/([a-z-]+)\.md,? (\d+\.\d+|H\d+|O\d+|R\d+)\b/g)) {
        const doc = readFileSync(path.join(ROOT, 'docs/rules', `${m[1]}.md`), 'utf8');
        const label = m[2];
        checked++;
        const found = /^\d/.test(label) ? new RegExp(`^#+ (PART \\d+ — )?${label.replace('.', '\\.')}[ .]`, 'm').test(doc) : new RegExp(`(\\| ${label} \\||\\b${label}\\.|\\b${label}\\b)`).test(doc);
        if (!found) bad.push(`${path.relative(ROOT, f)}: ${m[0]}`);
      }
    }
    expect(bad).toEqual([]);
    expect(checked).toBeGreaterThan(5);
  });
});

describe('test titles', () => {
  // In an `it.each` title vitest replaces %# and %$ with the case's index (0-based, 1-based): a
  // title like "at most %#-bounded lines" then reads as a bound it does not check. Titles say
  // what each case checks, with the numbers it checks.
  it('no test title prints a case index (%# or %$) where it would read as a checked number', () => {
    const tests = walk(path.join(ROOT, 'test')).filter((f) => f.endsWith('.test.ts') && !f.endsWith('docs.test.ts'));
    const bad: string[] = [];
    for (const f of tests) {
      for (const m of readFileSync(f, 'utf8').matchAll(/(['"`])[^'"`\n]*%[#$][^'"`\n]*\1/g)) bad.push(`${path.relative(ROOT, f)}: ${m[0]}`);
    }
    expect(tests.length).toBeGreaterThan(20);
    expect(bad).toEqual([]);
  });
});

describe('the README describes every metric a report lists', () => {
  // Cry Havoc's p_first_A … p_first_H were listed as bare letters; their words are the keys under
  // rule 1.6's tables (the results chart's legend says them from the same constants).
  it("says what each of Cry Havoc's p_first_<result> letters is, in the words of rule 1.6's keys", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const at = readme.indexOf('`p_first_<result>` is the probability');
    expect(at, 'the p_first_<result> paragraph').toBeGreaterThan(0);
    const para = readme.slice(at, readme.indexOf('The results chart', at));
    const said = (letters: string[], meanings: string[], from: number) =>
      letters.slice(from).forEach((l, k) => expect(para, `${l}: ${meanings[from + k]}`).toContain(`\`${l === '-' ? 'none' : l}\` ${meanings[from + k]}`));
    said(MELEE_FOOT_RESULTS, MELEE_FOOT_MEANING, 0);
    expect(MELEE_MOUNTED_MEANING.slice(0, 4)).toEqual(MELEE_FOOT_MEANING.slice(0, 4)); // 'A to C the same'
    said(MELEE_MOUNTED_RESULTS, MELEE_MOUNTED_MEANING, 4);
    // the metric list names the ends of each range: none, A … F on foot, … H mounted
    for (const l of ['none', 'A', MELEE_FOOT_RESULTS.at(-1), MELEE_MOUNTED_RESULTS.at(-1)]) expect(readme).toContain(`\`p_first_${l}\``);
  });
});

describe('README', () => {
  // issue 31 (7): a newcomer took `npm test` (the code's suite) for the balance checks
  it('tells the two "test"s apart: npm test is the code\'s own tests, the balance checks always `siegesim test`', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const npmTest = readme.split('\n').find((l) => l.startsWith('npm test'));
    expect(npmTest).toMatch(/the code's own tests/);
    expect(npmTest).toMatch(/not the balance checks/);
    // the command is never a bare `test` (read as either); printed output such as `test FAILED` is not the command
    expect(readme.match(/`test`/g) ?? []).toEqual([]);
    expect(readme).toMatch(/balance\s+checks of your scenarios' `expect:` blocks are `siegesim test`/);
  });
});
