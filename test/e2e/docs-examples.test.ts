/**
 * The example sessions of the README and the docs are what the commands print today: every
 * `$ npx siegesim ...` line in them (docs/cli.md: run, sensitivity, tune; docs/ci.md: test, test,
 * run and diff; solve has no example session, but docs/cli.md's solve log line is checked against
 * the command it names, docs/scenarios.md's fantasy example) is run in a scratch folder, as a user
 * would from a checkout, and its stdout compared with the lines the page shows under it (or, for a
 * command with none, the fenced block right after: the `diff --markdown` output). The scratch
 * folder links to the checkout's scenarios/ and test/, so every path the pages use is the
 * repository's own (test/fixtures/balance/climbers-dc12.yaml and climbers-dc13.yaml, the same with
 * the DC one higher): a reader can run them from a checkout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, runCli } from '../cli-child.js';

interface Example {
  /** The page the example is on (a path from the repository's root). */
  page: string;
  /** The page's line the command starts on (1-based). */
  line: number;
  command: string;
  /** What the README shows it printing (undefined: nothing shown, e.g. `run ... --out before`). */
  output?: string;
}

/** Every `$ npx siegesim` command in a page's fenced blocks, in order, with the output it shows. */
export function pageExamples(page: string, text: string): Example[] {
  const lines = text.split('\n');
  // the fenced blocks, each as its lines with their page's line numbers
  const blocks: { at: number; lines: string[] }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('```')) continue;
    const at = i + 2;
    const body: string[] = [];
    while (++i < lines.length && !lines[i].startsWith('```')) body.push(lines[i]);
    blocks.push({ at, lines: body });
  }
  const out: Example[] = [];
  blocks.forEach((b, bi) => {
    let cur: { ex: Example; rest: string[] } | undefined;
    const close = () => {
      if (!cur) return;
      const shown = cur.rest.join('\n').trim();
      out.push(shown === '' ? cur.ex : { ...cur.ex, output: cur.rest.join('\n').trimEnd() });
      cur = undefined;
    };
    for (let j = 0; j < b.lines.length; j++) {
      const l = b.lines[j];
      if (l.startsWith('$ ')) {
        close();
        if (!l.startsWith('$ npx siegesim ')) continue;
        const line = b.at + j;
        let cmd = l.slice(2);
        while (cmd.endsWith('\\')) cmd = cmd.slice(0, -1).trimEnd() + ' ' + b.lines[++j].trim();
        cur = { ex: { page, line, command: cmd.replace(/\s+#.*$/, '') }, rest: [] };
      } else if (cur) cur.rest.push(l);
    }
    close();
    // a block of commands showing nothing, followed by a block of output: the last command's
    const last = out[out.length - 1];
    const next = blocks[bi + 1];
    if (last && last.output === undefined && last.line >= b.at && next && !next.lines.some((l) => l.startsWith('$ '))) {
      last.output = next.lines.join('\n').trimEnd();
    }
  });
  return out;
}

/** Shell-like words: spaces split, double quotes group. */
function words(s: string): string[] {
  return [...s.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

const dir = mkdtempSync(path.join(tmpdir(), 'siegesim-docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The README and every page of docs/ (not the rules: they hold no sessions), in this order. */
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const read = (page: string) => readFileSync(path.join(ROOT, page), 'utf8');

describe('the example sessions of the README and docs/', () => {
  const examples = PAGES.flatMap((p) => pageExamples(p, read(p)));

  beforeAll(() => {
    symlinkSync(path.join(ROOT, 'scenarios'), path.join(dir, 'scenarios'), 'dir');
    symlinkSync(path.join(ROOT, 'test'), path.join(dir, 'test'), 'dir');
  });

  it('uses only files in the repository, and its DC 13 climbers are the DC 12 ones with the DC one higher', () => {
    const body = (f: string) => readFileSync(path.join(ROOT, 'test/fixtures/balance', f), 'utf8').split('\n').filter((l) => !l.startsWith('#')).join('\n');
    expect(body('climbers-dc13.yaml')).toBe(body('climbers-dc12.yaml').replace('dc: 12,', 'dc: 13,'));
    expect(body('climbers-dc13.yaml')).not.toBe(body('climbers-dc12.yaml'));
    for (const e of examples) {
      for (const w of words(e.command).filter((x) => x.endsWith('.yaml'))) expect(existsSync(path.join(ROOT, w)), `${w} (${e.page} line ${e.line})`).toBe(true);
    }
  });

  it('finds the run, sensitivity, tune, test and diff examples, each on its page', () => {
    expect(examples.map((e) => `${e.page}: ${words(e.command)[2]}${e.output === undefined ? ' (nothing shown)' : ''}`)).toEqual([
      'docs/ci.md: test',
      'docs/ci.md: test',
      'docs/ci.md: run (nothing shown)',
      'docs/ci.md: diff',
      'docs/cli.md: run',
      'docs/cli.md: sensitivity',
      'docs/cli.md: tune',
    ]);
  });

  it("solve's log line is what the command it names prints on stderr in a log (but the time), evaluations and trials included", async () => {
    const flat = (page: string) => read(page).replace(/\s+/g, ' ');
    const m = /\(`(solve [^`]+)`, the example of docs\/scenarios\.md's fantasy section, prints `([^`]+)`/.exec(flat('docs/cli.md'));
    expect(m, 'docs/cli.md names the command its solve log line comes from').not.toBeNull();
    const [, command, shown] = m!;
    expect(flat('docs/scenarios.md')).toContain(`npx siegesim ${command}`); // the fantasy section's own example
    const r = await runCli(words(command), { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const end = r.stderr.trimEnd().split('\n').at(-1)!;
    const time = / in [\d.]+ s /;
    expect(end.replace(time, ' in T s ')).toBe(shown.replace(time, ' in T s '));
  });

  // in page order: a command that shows nothing makes what the next one reads (`run ... --out before`)
  it.each(examples.map((e) => [`${words(e.command)[2]} (${e.page} line ${e.line})`, e] as const))('%s prints what its page shows', async (_, e) => {
    let last = '';
    for (const part of e.command.split('&&')) {
      const argv = words(part);
      expect(argv.slice(0, 2)).toEqual(['npx', 'siegesim']);
      const r = await runCli(argv.slice(2), { cwd: dir });
      expect(r.code === 0 || (argv[2] === 'test' && r.code === 1), r.stderr).toBe(true); // `test` exits 1 on a FAIL it shows
      last = r.stdout;
    }
    if (e.output !== undefined) expect(last.trimEnd()).toBe(e.output);
  });
});
