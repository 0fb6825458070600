/** Charts of a Cry Havoc run: the curve of each kind, variant bars, a heatmap for 2-D sweeps. */
import { curveChart, heatmapChart, seriesLabel, variantBarsChart } from '../chart-kit.js';
import type { ChartSpec, ScenarioResult } from '../types.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** Stacked bars of the melee results by turn, for the first case. */
function resultsChart(result: ScenarioResult): ChartSpec {
  const c = result.cases[0];
  const values = (c.curves.results_by_turn ?? [])
    .filter((p) => p.m.value > 0)
    .map((p) => ({ turn: p.x.turn, result: `${p.x.table} ${p.x.result}`, p: p.m.value }));
  const title = `melee results by turn (${seriesLabel(result, c)})`;
  return {
    name: 'results_by_turn',
    title,
    spec: {
      $schema: SCHEMA,
      title,
      width: 420,
      height: 240,
      data: { values },
      mark: 'bar',
      encoding: {
        x: { field: 'turn', type: 'ordinal' },
        y: { field: 'p', type: 'quantitative', title: 'probability', stack: true },
        color: { field: 'result', type: 'nominal', title: 'table, result' },
      },
    },
  };
}

/** Each kind's curve, and the metric its heatmap and variant bars show. */
const KIND_CURVES = [
  { curve: 'p_killed_by_turn', headline: 'p_killed', title: 'P(target killed by turn)', x: 'turn', xTitle: 'turn', yTitle: 'P(killed)' },
  { curve: 'breach_by_day', headline: 'p_breached', title: 'P(wall hex demolished by day)', x: 'day', xTitle: 'siege day', yTitle: 'P(breached)' },
  { curve: 'p_burning_by_turn', headline: 'p_ever_ignited', title: 'P(burning at the end of turn)', x: 'turn', xTitle: 'turn', yTitle: 'P(burning)' },
  { curve: 'heal_by_day', headline: 'p_healed', title: 'P(healed by day)', x: 'day', xTitle: 'day', yTitle: 'P(healed)' },
] as const;

export function chartsCryHavoc(result: ScenarioResult): ChartSpec[] {
  const has = (curve: string) => result.cases.some((c) => (c.curves[curve]?.length ?? 0) > 0);
  const charts: ChartSpec[] = [];
  let headline = 'p_defender_killed'; // melee
  if (has('results_by_turn')) charts.push(resultsChart(result));
  for (const k of KIND_CURVES) {
    if (!has(k.curve)) continue;
    headline = k.headline;
    charts.push(curveChart(result, { name: k.curve, title: k.title, curve: k.curve, x: k.x, xTitle: k.xTitle, yTitle: k.yTitle }));
  }
  const heat = heatmapChart(result, headline, `${headline}_heatmap`);
  if (heat) charts.push(heat);
  const bars = variantBarsChart(result, headline, `${headline}_by_variant`);
  if (bars) charts.push(bars);
  return charts;
}
