/** Charts of a surrender run: the sweep's answer (heatmap, or P against the swept value), variant bars, the CDF by turn. */
import { curveChart, heatmapChart, sweepChart, variantBarsCharts } from '../chart-kit.js';
import type { ChartSpec, ScenarioResult } from '../types.js';

export function chartsSurrender(result: ScenarioResult): ChartSpec[] {
  const charts: ChartSpec[] = [];
  const sweep = sweepChart(result, ['p_surrender', 'p_test'], 'p_surrender', 'p_surrender_sweep');
  if (sweep) charts.push(sweep);
  const heat = heatmapChart(result, 'p_surrender', 'p_surrender_heatmap');
  if (heat) charts.push(heat);
  charts.push(...variantBarsCharts(result, ['p_surrender']));
  charts.push(
    curveChart(result, {
      name: 'surrender_by_turn',
      title: 'P(surrendered by turn)',
      curve: 'surrender_by_turn',
      x: 'turn',
      xTitle: 'game turn',
      yTitle: 'P(surrendered)',
    }),
  );
  return charts;
}
