/** What `siegesim diff` prints: a console table, or Markdown fit for a pull-request comment. Pure. */
import type { DiffResult, DiffRow, DiffScenario } from '../api/diff.js';
import { MSG } from '../scenario/messages.js';
import { fmtTest } from '../api/test.js';
import { fixedSide, overDifferentTrialsText, pText, showCount } from './format.js';

/**
 * `-0.0304 [-0.0349, -0.0259]`: as many decimals as give the interval's half-width two digits, and
 * more at an end that would otherwise read 0 (fixedSide: which side of 0 it lies on shows).
 */
function changeText(r: DiffRow): string {
  const half = (r.change.ci_high - r.change.ci_low) / 2;
  const decimals = half > 0 && Number.isFinite(half) ? Math.min(12, Math.max(0, 1 - Math.floor(Math.log10(half)))) : undefined;
  const signed = (x: number) => {
    const s = decimals === undefined ? fmtTest(x) : fixedSide(x, decimals);
    return x > 0 ? `+${s}` : s;
  };
  const o = r.over_different_trials;
  // a conditional mean whose event moved: the runs' values average different trials
  const over = o ? ` (${overDifferentTrialsText({ event: o.event, from: o.before, to: o.after })})` : '';
  return `${signed(r.change.value)} [${signed(r.change.ci_low)}, ${signed(r.change.ci_high)}]${over}`;
}

/** ` against my-keep before (the names differ)`, when the runs' names differ. */
function renamed(s: DiffResult['scenarios'][number]): string {
  return s.before_name !== undefined ? ` against ${s.before_name} before (the names differ)` : '';
}

/** How many rows are variants' differences from the baseline (`diff_`), and how many plain metrics. */
function counts(d: DiffResult): { metrics: number; differences: number } {
  const differences = d.rows.filter((r) => r.baseline !== undefined).length;
  return { metrics: d.rows.length - differences, differences };
}

/** `on 8 metrics and 4 differences between variants, `: said only when there are differences. */
function breakdown(d: DiffResult): string {
  const c = counts(d);
  if (c.differences === 0) return '';
  return `on ${c.metrics} metric${c.metrics === 1 ? '' : 's'} and ${c.differences} difference${c.differences === 1 ? '' : 's'} between variants, `;
}

/** One sentence: how many moved, of how many, under which test. */
export function diffHeadline(d: DiffResult): string {
  const n = d.rows.length;
  return (
    `${d.moved} of ${n} comparison${n === 1 ? '' : 's'} moved significantly ` +
    `(two-sample tests, ${breakdown(d)}Holm-corrected over all ${n}, alpha ${d.alpha}); ${d.unchanged} showed no significant change`
  );
}

/**
 * Under a table with `diff_` rows: what they are (a variant's difference from its baseline,
 * compared between the runs), naming each scenario's baseline.
 */
function differenceKey(rows: readonly DiffRow[], code = (k: string) => k): string | undefined {
  const bases = [...new Set(rows.filter((r) => r.baseline !== undefined).map((r) => r.baseline!))];
  if (bases.length === 0) return undefined;
  return (
    `${code('diff_<metric>')}: the variant's difference from the baseline (${bases.join(', ')}) on the same dice, in each run; ` +
    `"change" is how much that difference moved between the runs`
  );
}

/**
 * What was compared and showed no significant change, a line per scenario, each metric once with
 * its case (or how many cases): `grid: no significant change: p_test (variant strict), mean_turns
 * in 4 cases`. A count alone leaves the reader to guess which. Not "did not move": a change
 * smaller than the two runs can detect is not ruled out (the new-user audit read it as no effect).
 */
function didNotMove(d: DiffResult): string[] {
  const out: string[] = [];
  for (const s of d.scenarios) {
    const still = new Map<string, string[]>();
    for (const r of d.rows) if (r.scenario === s.name && !r.moved) still.set(r.metric, [...(still.get(r.metric) ?? []), r.where]);
    if (still.size === 0) continue;
    const list = [...still].map(([m, wheres]) => (wheres.length > 1 ? `${m} in ${wheres.length} cases` : wheres[0] ? `${m} (${wheres[0]})` : m));
    out.push(`${s.name}: no significant change: ${list.join(', ')}`);
  }
  return out;
}

/** Everything that was not compared, as short sentences. */
function notCompared(d: DiffResult): string[] {
  const out: string[] = [];
  for (const s of d.scenarios) {
    if (s.only_before.length) out.push(`${s.name}: only before: ${s.only_before.join('; ')}`);
    if (s.only_after.length) out.push(`${s.name}: only after: ${s.only_after.join('; ')}`);
    if (s.differences_not_compared) out.push(`${s.name}: differences between variants not compared: ${s.differences_not_compared}`);
    if (s.untestable.length) {
      const count = new Map<string, number>();
      for (const { metric } of s.untestable) count.set(metric, (count.get(metric) ?? 0) + 1);
      const list = [...count].map(([m, n]) => `${m} in ${n} case${n === 1 ? '' : 's'}`);
      out.push(`${s.name}: not testable (undefined or missing on one side): ${list.join(', ')}`);
    }
  }
  if (d.only_before.length) out.push(`scenarios only before: ${d.only_before.join(', ')}`);
  if (d.only_after.length) out.push(`scenarios only after: ${d.only_after.join(', ')}`);
  return out;
}

/** A setting's value as the line says it: a list or mapping compact (`[8, 12, 16]`), one not written as such. */
function settingValue(x: unknown): string {
  if (x === null || x === undefined) return '(not written: the rules\' default)';
  if (typeof x === 'string') return x;
  if (Array.isArray(x)) return `[${x.map((e) => (typeof e === 'object' && e !== null ? JSON.stringify(e) : String(e))).join(', ')}]`;
  return typeof x === 'object' ? JSON.stringify(x) : String(x);
}

/**
 * `settings that differ: wall.dc: 12 -> 13; trials: 16384 -> 2000`: what the reader of a diff
 * asks first, said beside what moved (`code` wraps each key for Markdown, `arrow` between values).
 */
export function settingsLine(s: DiffScenario, code = (k: string) => k, arrow = '->'): string {
  if (s.settings === null) return MSG.diffSettingsUnknown(s.settings_unknown ?? []);
  if (s.settings.length === 0) return MSG.diffSettingsSame();
  return `settings that differ: ${s.settings.map((c) => `${code(c.key)}: ${settingValue(c.before)} ${arrow} ${settingValue(c.after)}`).join('; ')}`;
}

/** The console form: a header per scenario, the moved metrics as a table, then the rest. */
export function diffText(d: DiffResult): string {
  const out: string[] = [];
  for (const s of d.scenarios) {
    const f = showCount;
    out.push(`${s.name} (${s.system})${renamed(s)}: ${s.compared} comparison(s), ${f(s.before_trials)} trials before, ${f(s.after_trials)} after`);
    out.push(`  ${settingsLine(s)}`);
  }
  out.push(diffHeadline(d));
  const moved = d.rows.filter((r) => r.moved);
  if (moved.length > 0) {
    const head = ['scenario', 'where', 'metric', 'before', 'after', 'change [95% interval]', 'p (Holm)'];
    const rows = moved.map((r) => [r.scenario, r.where || '-', r.metric, fmtTest(r.before.value), fmtTest(r.after.value), changeText(r), pText(r.p_holm)]);
    const widths = head.map((h, k) => Math.max(h.length, ...rows.map((row) => row[k].length)));
    for (const row of [head, ...rows]) out.push(('  ' + row.map((c, k) => c.padEnd(widths[k])).join('  ')).trimEnd());
    const key = differenceKey(moved);
    if (key) out.push(`  ${key}`);
  }
  for (const line of didNotMove(d)) out.push(line);
  for (const line of notCompared(d)) out.push(line);
  return out.join('\n') + '\n';
}

function md(s: string): string {
  return s.replace(/\|/g, '\\|');
}

/** Markdown for a pull-request comment: the verdict, the moved metrics, the rest folded away. */
export function diffMarkdown(d: DiffResult): string {
  const icon = d.moved > 0 ? '⚠️' : '✅';
  const n = d.rows.length;
  const c = counts(d);
  const what = c.differences > 0 ? `metric${n === 1 ? '' : 's'} and differences` : `metric${n === 1 ? '' : 's'}`;
  const also = c.differences > 0 ? ` and on each variant's difference from the baseline (${c.metrics} metrics, ${c.differences} differences)` : '';
  const out = [
    `### ${icon} siegesim diff: ${d.moved} of ${n} ${what} moved`,
    '',
    `Two-sample tests on every metric of every matched case (matched by swept parameters and variant)${also}, ` +
      `Holm-corrected over all ${n} comparisons at α = ${d.alpha}: **${d.moved}** moved significantly, **${d.unchanged}** showed no significant change.`,
    '',
  ];
  const moved = d.rows.filter((r) => r.moved);
  if (moved.length > 0) {
    out.push('| scenario | where | metric | before | after | change [95% CI] | p (Holm) |', '|---|---|---|---:|---:|---|---:|');
    for (const r of moved) {
      out.push(`| ${md(r.scenario)} | ${md(r.where || '–')} | \`${md(r.metric)}\` | ${fmtTest(r.before.value)} | ${fmtTest(r.after.value)} | ${changeText(r)} | ${pText(r.p_holm)} |`);
    }
    out.push('');
    const key = differenceKey(moved, (k) => `\`${k}\``);
    if (key) out.push(md(key) + '.', '');
  }
  const scen = d.scenarios.map((s) => `${md(s.name)}${md(renamed(s))} (${showCount(s.before_trials)} → ${showCount(s.after_trials)} trials per case)`);
  out.push(`Scenarios: ${scen.join(', ')}.`);
  // a pull request's comment over every scenario: only those set differently (or not known), else one line
  const told = d.scenarios.filter((s) => s.settings === null || s.settings.length > 0);
  const cap = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);
  if (told.length === 0) out.push('', `${d.scenarios.length === 1 ? cap(MSG.diffSettingsSame()) : `Every scenario: ${MSG.diffSettingsSame()}`}.`);
  for (const s of told) out.push('', `${md(s.name)}: ${md(settingsLine(s, (k) => `\`${k}\``, '→'))}.`);
  if (told.length > 0 && told.length < d.scenarios.length) out.push('', `The other ${d.scenarios.length - told.length} scenario(s): ${MSG.diffSettingsSame()}.`);
  const still = didNotMove(d);
  if (still.length > 0) out.push('', '<details><summary>No significant change (a change smaller than these runs detect is not ruled out)</summary>', '', ...still.map((l) => `- ${md(l)}`), '', '</details>');
  const rest = notCompared(d);
  if (rest.length > 0) out.push('', '<details><summary>Not compared</summary>', '', ...rest.map((l) => `- ${md(l)}`), '', '</details>');
  return out.join('\n') + '\n';
}
