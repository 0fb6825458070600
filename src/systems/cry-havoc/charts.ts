/** Charts of a Cry Havoc run: the sweep's answer, variant bars, the curve of each kind, melee results by turn. */
import { curveChart, heatmapChart, MAX_PANELS, SCHEMA, sampleCaption, sampleIndices, seriesLabel, sweepChart, variantBarsCharts, wrapped } from '../chart-kit.js';
import type { ChartSpec, ScenarioResult } from '../types.js';
import { MELEE_FOOT_MEANING, MELEE_FOOT_RESULTS, MELEE_MOUNTED_MEANING, MELEE_MOUNTED_RESULTS } from './compile.js';

/**
 * A melee result in words, as the legend says it: the defender's table (foot or mounted), the
 * letter, and what it does (rule 1.6), e.g. `foot D: defender stunned`.
 */
export function meleeResultLabel(table: string, letter: string): string {
  const mounted = table === 'mounted';
  const k = (mounted ? MELEE_MOUNTED_RESULTS : MELEE_FOOT_RESULTS).indexOf(letter);
  const meaning = k < 0 ? '' : `: ${(mounted ? MELEE_MOUNTED_MEANING : MELEE_FOOT_MEANING)[k]}`;
  return `${mounted ? 'mounted' : 'foot'} ${letter === '-' ? '–' : letter}${meaning}`;
}

/**
 * Stacked bars of the melee results by turn, one panel per case; past MAX_PANELS cases an evenly
 * spaced sample of them (said in the caption; every case stays in results_by_turn.csv): a
 * 2 142-case sweep drew 2 142 panels, a 15 MB spec that took vega 16 s and 700 MB.
 */
function resultsChart(result: ScenarioResult): ChartSpec {
  const kept = sampleIndices(result.cases.length, MAX_PANELS).map((i) => result.cases[i]);
  const sampled = kept.length < result.cases.length;
  const series = kept.map((c) => seriesLabel(result, c));
  const values = kept.flatMap((c, i) =>
    (c.curves.results_by_turn ?? [])
      .filter((p) => p.m.value > 0)
      .map((p) => ({ series: series[i], turn: p.x.turn, result: meleeResultLabel(String(p.x.table), String(p.x.result)), p: p.m.value })),
  );
  // the tables' order (foot, then mounted; each from no effect to the worst for the defender)
  const order = [...MELEE_FOOT_RESULTS.map((l) => meleeResultLabel('foot', l)), ...MELEE_MOUNTED_RESULTS.map((l) => meleeResultLabel('mounted', l))];
  const seen = new Set(values.map((v) => v.result));
  const results = order.filter((r) => seen.has(r));
  const inner = {
    width: series.length > 1 ? 300 : 420,
    height: 220,
    mark: 'bar',
    encoding: {
      x: { field: 'turn', type: 'ordinal', axis: { labelAngle: 0 } },
      y: { field: 'p', type: 'quantitative', title: 'probability', stack: true },
      // 20 hues: the foot and mounted tables' results never share a colour
      color: {
        field: 'result',
        type: 'nominal',
        title: "defender's table, result (rule 1.6)",
        sort: results,
        scale: { domain: results, scheme: 'tableau20' },
        legend: { labelLimit: 0, titleLimit: 0 },
      },
    },
  };
  const title = 'melee results by turn';
  return {
    name: 'results_by_turn',
    title,
    caption: `${sampled ? sampleCaption(kept.length, result.cases.length, 'case', 'results_by_turn.csv') : ''}share of trials in which each result of the melee tables is rolled in each turn (the attack stops once decided); the table is the defender's, foot or mounted, and the letter is the table's result (rule 1.6)`,
    spec:
      series.length > 1
        ? { $schema: SCHEMA, title, data: { values }, facet: { field: 'series', type: 'nominal', title: null, sort: series }, ...wrapped(series.length, 3), spec: inner }
        : { $schema: SCHEMA, title, data: { values }, ...inner },
  };
}

/** Each kind's curve, and the metrics its sweep, heatmap and variant bars show (the first is the answer's). */
const KIND_CURVES = [
  { curve: 'p_killed_by_turn', headline: ['p_killed'], title: 'P(target killed by turn)', x: 'turn', xTitle: 'turn', yTitle: 'P(killed)' },
  { curve: 'breach_by_day', headline: ['p_breached'], title: 'P(wall hex demolished by day)', x: 'day', xTitle: 'siege day', yTitle: 'P(breached)' },
  { curve: 'p_burning_by_turn', headline: ['p_ever_ignited', 'p_burning_at_end'], title: 'P(burning at the end of turn)', x: 'turn', xTitle: 'turn', yTitle: 'P(burning)' },
  { curve: 'heal_by_day', headline: ['p_healed'], title: 'P(healed by day)', x: 'day', xTitle: 'day', yTitle: 'P(healed)' },
] as const;

export function chartsCryHavoc(result: ScenarioResult): ChartSpec[] {
  const has = (curve: string) => result.cases.some((c) => (c.curves[curve]?.length ?? 0) > 0);
  const curves: ChartSpec[] = [];
  let headline: readonly string[] = ['p_defender_killed', 'p_attacker_killed']; // melee
  for (const k of KIND_CURVES) {
    if (!has(k.curve)) continue;
    headline = k.headline;
    curves.push(curveChart(result, { name: k.curve, title: k.title, curve: k.curve, x: k.x, xTitle: k.xTitle, yTitle: k.yTitle }));
  }
  const main = headline[0];
  const charts: ChartSpec[] = [];
  const sweep = sweepChart(result, [...headline], main, `${main}_sweep`);
  if (sweep) charts.push(sweep);
  const heat = heatmapChart(result, main, `${main}_heatmap`);
  if (heat) charts.push(heat);
  charts.push(...variantBarsCharts(result, [main]));
  if (has('results_by_turn')) charts.push(resultsChart(result));
  return [...charts, ...curves];
}
