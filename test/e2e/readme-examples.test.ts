/**
 * The README's example sessions are what the commands print today: every `$ npx siegesim ...`
 * line in it (run, sensitivity, tune, test, run and diff; solve has no example session, but its log line is checked against the command the README names) is run in a
 * scratch folder, as a user would from a checkout, and its stdout compared with the lines the
 * README shows under it (or, for a command with none, the fenced block right after: the
 * `diff --markdown` output). The scratch folder links to the checkout's scenarios/ and test/, so
 * every path the README uses is the repository's own (test/fixtures/balance/climbers-dc12.yaml and
 * climbers-dc13.yaml, the same with the DC one higher): a reader can run them from a checkout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, runCli } from '../cli-child.js';

interface Example {
  /** The README line the command starts on (1-based). */
  line: number;
  command: string;
  /** What the README shows it printing (undefined: nothing shown, e.g. `run ... --out before`). */
  output?: string;
}

/** Every `$ npx siegesim` command in the README's fenced blocks, in order, with the output it shows. */
export function readmeExamples(text: string): Example[] {
  const lines = text.split('\n');
  // the fenced blocks, each as its lines with their README line numbers
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
        cur = { ex: { line, command: cmd.replace(/\s+#.*$/, '') }, rest: [] };
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

const dir = mkdtempSync(path.join(tmpdir(), 'siegesim-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the README examples', () => {
  const examples = readmeExamples(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));

  beforeAll(() => {
    symlinkSync(path.join(ROOT, 'scenarios'), path.join(dir, 'scenarios'), 'dir');
    symlinkSync(path.join(ROOT, 'test'), path.join(dir, 'test'), 'dir');
  });

  it('uses only files in the repository, and its DC 13 climbers are the DC 12 ones with the DC one higher', () => {
    const body = (f: string) => readFileSync(path.join(ROOT, 'test/fixtures/balance', f), 'utf8').split('\n').filter((l) => !l.startsWith('#')).join('\n');
    expect(body('climbers-dc13.yaml')).toBe(body('climbers-dc12.yaml').replace('dc: 12,', 'dc: 13,'));
    expect(body('climbers-dc13.yaml')).not.toBe(body('climbers-dc12.yaml'));
    for (const e of examples) {
      for (const w of words(e.command).filter((x) => x.endsWith('.yaml'))) expect(existsSync(path.join(ROOT, w)), `${w} (README line ${e.line})`).toBe(true);
    }
  });

  it('finds the run, sensitivity, tune, test and diff examples', () => {
    expect(examples.map((e) => `${words(e.command)[2]}${e.output === undefined ? ' (nothing shown)' : ''}`)).toEqual([
      'run',
      'sensitivity',
      'tune',
      'test',
      'test',
      'run (nothing shown)',
      'diff',
    ]);
  });

  it("solve's log line is what the command beside it prints on stderr in a log (but the time): it said 51 evaluations (204,864 trials), which no command printed", async () => {
    const text = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const m = /\(`(solve [^`]+)`, the fantasy section's example, prints `([^`]+)`/.exec(text);
    expect(m, 'the README names the command its solve log line comes from').not.toBeNull();
    const [, command, shown] = m!;
    expect(text).toContain(`npx siegesim ${command}`); // the fantasy section's own example
    const r = await runCli(words(command), { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const end = r.stderr.trimEnd().split('\n').at(-1)!;
    const time = / in [\d.]+ s /;
    expect(end.replace(time, ' in T s ')).toBe(shown.replace(time, ' in T s '));
  });

  // in README order: a command that shows nothing makes what the next one reads (`run ... --out before`)
  it.each(examples.map((e) => [`${words(e.command)[2]} (README line ${e.line})`, e] as const))('%s prints what the README shows', async (_, e) => {
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
