/** Charts of a fantasy run: attrition, breach by round, wall HP, heatmap, variant bars, volley damage. */
import { curveChart, heatmapChart, seriesLabel, variantBarsChart } from '../chart-kit.js';
import type { ChartSpec, ScenarioResult } from '../types.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** Mean units alive by round, per side and type, for the first sweep point (variants as columns). */
function attritionChart(result: ScenarioResult): ChartSpec {
  const first = result.cases.filter((c) => c.case === 1);
  const values = first.flatMap((c) =>
    (c.curves.attrition ?? []).map((p) => ({ variant: seriesLabel(result, c), round: p.x.round, side: p.x.side, unit: p.x.unit, mean: p.m.value })),
  );
  const title = result.cases.length > first.length ? 'units alive by round (sweep point 1)' : 'units alive by round';
  const inner = {
    width: 300,
    height: 200,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'round', type: 'quantitative', axis: { tickMinStep: 1, format: 'd' } },
      y: { field: 'mean', type: 'quantitative', title: 'mean units alive' },
      color: { field: 'unit', type: 'nominal' },
    },
  };
  return {
    name: 'attrition',
    title,
    spec: {
      $schema: SCHEMA,
      title,
      data: { values },
      facet: {
        row: { field: 'side', title: null, sort: ['attacker', 'defender'] },
        ...(result.variants.length > 1 ? { column: { field: 'variant', title: null, sort: null } } : {}),
      },
      spec: inner,
    },
  };
}

function volleyChart(result: ScenarioResult): ChartSpec {
  const values = result.cases
    .slice(0, 12)
    .flatMap((c) => (c.curves.volley_damage ?? []).map((p) => ({ series: seriesLabel(result, c), damage: p.x.damage, p: p.m.value })));
  return {
    name: 'volley_damage',
    title: 'Phase A damage after cleric shields',
    spec: {
      $schema: SCHEMA,
      title: 'Phase A damage after cleric shields',
      width: 420,
      height: 220,
      data: { values },
      mark: { type: 'line', point: true, interpolate: 'step-after' },
      encoding: {
        x: { field: 'damage', type: 'quantitative', axis: { tickMinStep: 1, format: 'd' } },
        y: { field: 'p', type: 'quantitative', title: 'probability' },
        color: { field: 'series', type: 'nominal', title: null, sort: null },
      },
    },
  };
}

export function chartsFantasy(result: ScenarioResult): ChartSpec[] {
  const siege = result.cases.some((c) => c.curves.breach_by_round !== undefined);
  const charts: ChartSpec[] = [attritionChart(result)];
  if (siege) {
    charts.push(
      curveChart(result, { name: 'breach_by_round', title: 'P(breached by round)', curve: 'breach_by_round', x: 'round', xTitle: 'siege round', yTitle: 'P(breached)' }),
      curveChart(result, { name: 'wall_hp', title: 'mean wall HP by round', curve: 'wall_hp', x: 'round', xTitle: 'siege round', yTitle: 'wall HP', probability: false }),
    );
  } else charts.push(volleyChart(result));
  const heat = heatmapChart(result, 'p_attacker_wins', 'p_attacker_wins_heatmap');
  if (heat) charts.push(heat);
  const bars = variantBarsChart(result, 'p_attacker_wins', 'p_attacker_wins_by_variant');
  if (bars) charts.push(bars);
  return charts;
}
