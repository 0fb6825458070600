/**
 * The "what matters" tab's command lines, checked as a person would use them: read the line the
 * page prints under its ranking (or its search), run it with the built CLI where its file is, and
 * hold the CLI's ranking (or answer) to the one on screen (for the browser tests of `serve` and of
 * the static site).
 */
import path from 'node:path';
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { runCli } from './cli-child.js';
import { fmtDiff, fmtDiffInterval } from '../src/serve/page/format.js';
import type { SensitivityDone, TuneDone } from '../src/api/protocol.js';

/** A command line's words as a POSIX shell splits them (plain words and '...' quoting, as the page writes them). */
export function shellSplit(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/(?:'[^']*'|\\'|[^\s'\\])+/g)) out.push(m[0].replace(/'([^']*)'|\\(')/g, (_, q: string | undefined, e: string | undefined) => q ?? e ?? ''));
  return out;
}

interface CliRow {
  param: string;
  from: unknown;
  to: unknown;
  effect: number;
  ci_low: number;
  ci_high: number;
  rank: number;
}

/**
 * Run the ranking's line (`#sens-command`) in `cwd` (`--json`, its report to `out`, one thread)
 * and expect the CLI's ranking to be the page's: the settings of the table in the CLI's order,
 * each turned value's change and interval as the page writes the CLI's numbers, every row the page
 * was sent to 12 digits (the JSON's rounding), and the case (`where`) the page says it holds for.
 * Returns the line and the settings ranked.
 */
export async function expectRankingOfLine(page: Page, cwd: string, out: string): Promise<{ line: string; settings: number }> {
  const line = (await page.locator('#sens-command').textContent())!;
  const words = shellSplit(line);
  expect(words.slice(0, 3), line).toEqual(['npx', 'siegesim', 'sensitivity']);
  const r = await runCli([...words.slice(2), '--json', '--no-progress', '--threads', '1', '--out', path.resolve(out)], { cwd });
  expect(r.code, `${line}\n${r.stderr}`).toBe(0);
  const cli = JSON.parse(r.stdout) as { metric: string; trials: number; where: Record<string, unknown>; ranking: { param: string }[]; rows: CliRow[] };
  const done = await page.evaluate(() => (globalThis as unknown as { __siegesim: { answers: { sensitivity: SensitivityDone } } }).__siegesim.answers.sensitivity);
  expect([cli.metric, cli.trials], line).toEqual([done.metric, done.trials]);
  if (done.reproduce.command === null) throw new Error(`the page gives no command line: ${done.reproduce.reason}`);
  expect(cli.where, line).toEqual(done.reproduce.where);
  // as a person sees it: the table's settings, in order, with each turned value's change as the page writes it
  const prob = done.metricKind !== 'mean';
  const shown = await page.locator('#sens-table tr:has(td code)').evaluateAll((trs) =>
    trs.map((tr) => ({ param: tr.querySelector('code')!.textContent!, turns: [...tr.querySelectorAll('.turn')].map((t) => t.textContent!) })),
  );
  expect(shown.length).toBeGreaterThan(0);
  const written = shown.map((s) => ({
    param: s.param,
    turns: cli.rows
      .filter((x) => x.param === s.param)
      .map((x) => {
        const d = { value: x.effect, ci_low: x.ci_low, ci_high: x.ci_high };
        return `${String(x.from)} → ${String(x.to)}: ${fmtDiff(d, prob)} [${fmtDiffInterval(d, prob)}]`;
      }),
  }));
  expect(shown.map((s) => s.param), line).toEqual(cli.ranking.slice(0, shown.length).map((x) => x.param));
  expect(shown, line).toEqual(written);
  // and every number the page was sent, to the JSON's 12 digits
  const round = (x: number) => Number(x.toPrecision(12));
  const key = (x: CliRow) => [x.param, x.from, x.to, round(x.effect), round(x.ci_low), round(x.ci_high), x.rank];
  expect(done.rows.map(key), line).toEqual(cli.rows.filter((x) => x.rank <= done.ranking.length).map(key));
  expect(done.settings).toBe(cli.ranking.length);
  return { line, settings: cli.ranking.length };
}

/** A target's check in `siegesim tune --json` (best.checks, each evaluation's checks). */
export interface CliCheck {
  metric: string;
  value: number;
  ci_low: number;
  ci_high: number;
  met: boolean;
}

/**
 * Run the search's line (`#tune-command`) in `cwd` (`--json`, its report to `out`, one thread)
 * and expect the CLI's search to be the page's: the answer the page writes (`found: wall.dc = 14
 * ...`) from the CLI's best, the same ranges, candidates and trials, and the answer's numbers to
 * 12 digits (the JSON's rounding). Returns the line.
 */
export async function expectSearchOfLine(page: Page, cwd: string, out: string): Promise<{ line: string }> {
  const line = (await page.locator('#tune-command').textContent())!;
  const words = shellSplit(line);
  expect(words.slice(0, 3), line).toEqual(['npx', 'siegesim', 'tune']);
  const r = await runCli([...words.slice(2), '--json', '--no-progress', '--threads', '1', '--out', path.resolve(out)], { cwd });
  expect(r.code === 0 || r.code === 3, `${line}\n${r.stderr}`).toBe(true); // 3: no candidate meets every target
  const cli = JSON.parse(r.stdout) as { found: boolean; params: TuneDone['params']; trials_used: number; budget: number; best: { values: Record<string, number>; trials: number; checks: CliCheck[] }; evaluations: unknown[] };
  const done = await page.evaluate(() => (globalThis as unknown as { __siegesim: { answers: { tune: TuneDone } } }).__siegesim.answers.tune);
  if (done.reproduce.command === null) throw new Error(`the page gives no command line: ${done.reproduce.reason}`);
  // as a person sees it: the verdict's settings are the CLI's answer
  const settings = cli.params.map((p) => `${p.path} = ${cli.best.values[p.path]}`).join(', ');
  expect(await page.locator('#tune-answer > div').first().textContent(), line).toMatch(new RegExp(`^(found: |no candidate meets .*; closest: )${settings.replace(/[.]/g, '\\.')}\\b`));
  const round = (x: number) => Number(x.toPrecision(12));
  const check = (c: CliCheck) => [c.metric, round(c.value), round(c.ci_low), round(c.ci_high), c.met];
  expect([cli.found, cli.params, cli.trials_used, cli.budget, cli.evaluations.length], line).toEqual([done.found, done.params, done.trialsUsed, done.budget, done.evaluated]);
  expect([cli.best.values, cli.best.trials, cli.best.checks.map(check)], line).toEqual([done.best.values, done.best.trials, done.best.checks!.map(check)]);
  return { line };
}
