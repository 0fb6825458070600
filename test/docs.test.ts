/**
 * The rules ship with the code: docs/rules/<system>.md documents every scenario option of its
 * system with its default, and every file the code, tests, scenarios, README and docs cite
 * exists. The README is a quick start of at most 200 lines; every relative link of it and of the
 * docs/ pages reaches a file, and a heading where it names one; every relative link of every .md
 * file the package ships reaches a file the package ships (a reader of node_modules/siegesim has
 * nothing else), and what docs/ci.md gives whole instead of linking is what the repository has.
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

/** The README and the pages of docs/ (not docs/rules/, the rules themselves). */
const PAGES = [path.join(ROOT, 'README.md'), ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, 'docs', f))];

describe('citations', () => {
  const files = [
    ...['src', 'test', 'bench', 'workers', 'scenarios'].flatMap((d) => walk(path.join(ROOT, d))),
    ...PAGES,
  ].filter((f) => /\.(ts|mjs|md|yaml|json)$/.test(f) && !f.endsWith('docs.test.ts'));

  it('every docs/ file the code, tests, scenarios, README and docs cite ships; none cites the unshipped rules/*.md or DESIGN.md', () => {
    const missing: string[] = [];
    const stale: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/docs\/[A-Za-z0-9_/.-]+\.md/g)) if (!existsSync(path.join(ROOT, m[0]))) missing.push(`${path.relative(ROOT, f)}: ${m[0]}`);
      // a page in docs/ links the rules as rules/<system>.md, beside it: that is docs/rules/, shipped
      const inDocs = path.dirname(f) === path.join(ROOT, 'docs');
      for (const m of text.matchAll(/(?<![\w/])(rules\/[a-z-]+\.md|DESIGN\.md)/g)) if (!(inDocs && m[1].startsWith('rules/'))) stale.push(`${path.relative(ROOT, f)}: ${m[0]}`);
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

describe('docs/scenarios.md describes every metric a report lists', () => {
  // Cry Havoc's p_first_A … p_first_H are said in words, the keys under rule 1.6's tables (the
  // results chart's legend says them from the same constants), never as bare letters.
  it("says what each of Cry Havoc's p_first_<result> letters is, in the words of rule 1.6's keys", () => {
    const readme = readFileSync(path.join(ROOT, 'docs/scenarios.md'), 'utf8').replace(/\s+/g, ' ');
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
  // a newcomer can take `npm test` (the code's suite) for the balance checks
  it('tells the two "test"s apart: npm test is the code\'s own tests, the balance checks always `siegesim test`', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const npmTest = readme.split('\n').find((l) => l.startsWith('npm test'));
    expect(npmTest).toMatch(/the code's own tests/);
    expect(npmTest).toMatch(/not the balance checks/);
    // the command is never a bare `test` (read as either); printed output such as `test FAILED` is not the command
    expect(readme.match(/`test`/g) ?? []).toEqual([]);
    expect(readme).toMatch(/balance\s+checks of your scenarios' `expect:` blocks are `siegesim test`/);
  });

  it('is a quick start of at most 200 lines: the two commands, the benchmark gate, the workbench, and the test command .ci/run runs', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    const commands = readme.split('\n').filter((l) => /^(npm|npx) /.test(l)).map((l) => l.replace(/\s+#.*$/, '').trim());
    for (const c of ['npm ci && npm start', 'npm test', 'npm run bench -- --check', 'npm run serve']) expect(commands, c).toContain(c);
    // the README's test command is the one CI runs, and each npm script it names exists
    const ci = readFileSync(path.join(ROOT, '.ci/run'), 'utf8').split('\n').map((l) => l.trim());
    expect(ci).toContain('npm test');
    const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    // (but the block of a game's own repository, whose scripts `siegesim init` writes there)
    const own = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((b) => b[1]).find((b) => b.includes('npx siegesim init')) ?? '';
    for (const c of commands.filter((x) => !own.includes(x))) {
      const m = /^npm (?:run (\S+)|(start|test))\b/.exec(c);
      if (m) expect(scripts, c).toHaveProperty(m[1] ?? m[2]);
    }
    // every page the README sends a reader to for reference is linked from it
    for (const page of ['cli', 'scenarios', 'workbench', 'ci', 'performance']) expect(readme).toContain(`](docs/${page}.md`);
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens (github-slugger). */
function slug(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** A page's prose, without its fenced blocks and inline code (a link there is an example, not a link). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((l) => {
    if (l.startsWith('```')) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : l.replace(/`[^`]*`/g, '``');
  });
}

/** The anchors of a page's headings, numbered as GitHub numbers repeats (`x`, `x-1`, ...). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const l of text.split('\n')) {
    if (l.startsWith('```')) fenced = !fenced;
    const h = fenced ? null : /^#{1,6} (.*?)#*\s*$/.exec(l);
    if (!h) continue;
    const base = slug(h[1].trim());
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/**
 * The relative links of a page's prose (markdown links and images, their text over lines and
 * holding brackets, `[0.45, 0.55]`; HTML src and href), each with its line.
 */
function links(text: string): { target: string; line: number }[] {
  const body = prose(text).join('\n');
  const out: { target: string; line: number }[] = [];
  const lineAt = (i: number) => body.slice(0, i).split('\n').length;
  for (const m of body.matchAll(/!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)|\b(?:src|href)="([^"]+)"/g)) {
    const target = m[1] ?? m[2];
    if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
    out.push({ target, line: lineAt(m.index) });
  }
  return out;
}

/**
 * What `npm pack` puts in the tarball of this checkout: the files package.json's "files" names (a
 * folder: everything under it; `*` within a path segment, `**` any folders), and the package.json
 * and README npm always adds.
 */
function packedFiles(): Set<string> {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  const esc = (x: string) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const res = pkg.files.map((g) => {
    const segs = g.replace(/\/$/, '').split('/');
    const re = segs.map((seg, i) => (seg === '**' ? '(?:[^/]+/)*' : esc(seg).replace(/\*/g, '[^/]*') + (i < segs.length - 1 ? '/' : ''))).join('');
    return new RegExp(`^${re}(?:/.*)?$`);
  });
  const all = readdirSync(ROOT)
    .filter((f) => !['node_modules', '.git'].includes(f))
    .flatMap((f) => (statSync(path.join(ROOT, f)).isDirectory() ? walk(path.join(ROOT, f)) : [path.join(ROOT, f)]))
    .map((f) => path.relative(ROOT, f).split(path.sep).join('/'));
  return new Set(all.filter((f) => f === 'package.json' || /^readme(\.[^/]*)?$/i.test(f) || res.some((re) => re.test(f))));
}

describe('links', () => {
  it('reads a heading as GitHub anchors it', () => {
    expect(slug('Results over time: `siegesim history`')).toBe('results-over-time-siegesim-history');
    expect(slug('What siegesim may replace: the manifest')).toBe('what-siegesim-may-replace-the-manifest');
    expect(slug('siegesim in CI — reference')).toBe('siegesim-in-ci--reference');
    expect([...anchors('# a\n```\n# not a heading\n```\n## a\n')]).toEqual(['a', 'a-1']);
  });

  it('reads a link whose text holds brackets or goes over lines, and none in code', () => {
    const page = '![in [0.45, 0.55]: the answer](a.png) and [two\nlines](b.md#x)\n`[not](c.md)`\n```\n[nor](d.md)\n```\n<img src="e.png"> [web](https://x.org)\n';
    expect(links(page)).toEqual([
      { target: 'a.png', line: 1 },
      { target: 'b.md#x', line: 1 },
      { target: 'e.png', line: 7 },
    ]);
  });

  it('every relative link of the README and docs/*.md reaches a file, and a heading of it where it names one', () => {
    const bad: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      const text = readFileSync(page, 'utf8');
      for (const { target, line } of links(text)) {
        const [file, anchor] = target.split('#');
        const to = file === '' ? page : path.resolve(path.dirname(page), decodeURIComponent(file));
        const where = `${path.relative(ROOT, page)}:${line}: ${target}`;
        checked++;
        if (!existsSync(to)) bad.push(`${where} (no such file)`);
        else if (anchor !== undefined && to.endsWith('.md') && !anchors(readFileSync(to, 'utf8')).has(anchor)) bad.push(`${where} (no such heading)`);
      }
    }
    expect(bad).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  // a reader of node_modules/siegesim/docs has the tarball only: a link to a file it lacks is dead there
  it('every relative link of every .md file the package ships reaches a file it ships', () => {
    const packed = packedFiles();
    for (const f of ['README.md', 'docs/cli.md', 'docs/rules/fantasy.md', 'docs/workbench.png', 'templates/balance.yml', 'dist/cli/siegesim.cjs']) expect(packed.has(f) || !existsSync(path.join(ROOT, f)), f).toBe(true);
    for (const f of ['test/fixtures/balance/climbers-dc12.yaml', 'reports/examples/index.html', '.github/workflows/big-run.yml', 'src/api.ts']) expect(packed.has(f), f).toBe(false);
    const pages = [...packed].filter((f) => f.endsWith('.md'));
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/workbench.md', 'docs/rules/cry-havoc.md']));
    const bad: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const { target, line } of links(readFileSync(path.join(ROOT, page), 'utf8'))) {
        const file = decodeURIComponent(target.split('#')[0]);
        if (file === '') continue;
        const to = path.posix.normalize(path.posix.join(path.posix.dirname(page), file)).replace(/\/$/, '');
        checked++;
        if (!packed.has(to) && ![...packed].some((p) => p.startsWith(`${to}/`))) bad.push(`${page}:${line}: ${target} (${to} is not in the package)`);
      }
    }
    expect(bad).toEqual([]);
    expect(checked).toBeGreaterThan(60);
  });
});

describe('what docs/ci.md gives whole (the package ships neither the tests nor .github/)', () => {
  const ci = readFileSync(path.join(ROOT, 'docs/ci.md'), 'utf8');
  const blocks = [...ci.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
  const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');

  it("the balance session's scenario, climbers-dc12.yaml, and what climbers-dc13.yaml changes in it", () => {
    expect(blocks).toContain(read('test/fixtures/balance/climbers-dc12.yaml'));
    const a = read('test/fixtures/balance/climbers-dc12.yaml').split('\n');
    const b = read('test/fixtures/balance/climbers-dc13.yaml').split('\n');
    expect(b.length).toBe(a.length);
    const changed = b.filter((l, i) => l !== a[i] && !l.startsWith('#'));
    expect(changed).toEqual(['wall: { type: stone, dc: 13, breach_threshold: 4 }']);
    expect(ci).toContain(`\`climbers-dc13.yaml\` is the same file with \`${changed[0]}\``);
  });

  it("the chunk sizes docs/ci.md's looks and docs/cli.md's chunks give are each system's chunkTrials", () => {
    const cli = read('docs/cli.md').replace(/\s+/g, ' ');
    const name = (id: string) => ({ fantasy: 'fantasy', surrender: 'surrender', 'crusader-rex': 'Crusader Rex', 'cry-havoc': 'Cry Havoc' })[id];
    expect(SYSTEMS.length).toBe(4);
    for (const sys of SYSTEMS) {
      const n = sys.chunkTrials.toLocaleString('en-US');
      expect(ci, sys.id).toContain(`| ${name(sys.id)} | ${n} |`);
      expect(cli, sys.id).toContain(`${name(sys.id)} ${n}`);
    }
  });

  it('the big-run workflow, and the balance workflow as templates/balance.yml, which ships', () => {
    expect(blocks).toContain(read('.github/workflows/big-run.yml'));
    expect(read('templates/balance.yml')).toBe(read('.github/workflows/balance.yml'));
  });
});
