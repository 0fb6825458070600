/** Charts of a surrender run: the CDF by turn (variants overlaid), a heatmap for 2-D sweeps, variant bars. */
import { curveChart, heatmapChart, variantBarsChart } from '../chart-kit.js';
import type { ChartSpec, ScenarioResult } from '../types.js';

export function chartsSurrender(result: ScenarioResult): ChartSpec[] {
  const charts: ChartSpec[] = [
    curveChart(result, {
      name: 'surrender_by_turn',
      title: 'P(surrendered by turn)',
      curve: 'surrender_by_turn',
      x: 'turn',
      xTitle: 'game turn',
      yTitle: 'P(surrendered)',
    }),
  ];
  const heat = heatmapChart(result, 'p_surrender', 'p_surrender_heatmap');
  if (heat) charts.push(heat);
  const bars = variantBarsChart(result, 'p_surrender', 'p_surrender_by_variant');
  if (bars) charts.push(bars);
  return charts;
}
