/** Charts of a Crusader Rex run: attrition curves per variant, survivors histogram, win-rate bars. */
import { seriesLabel, variantBarsChart } from '../chart-kit.js';
import type { ChartSpec, ScenarioResult } from '../types.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

function attritionChart(result: ScenarioResult): ChartSpec {
  const shown = result.cases.slice(0, 8);
  const values = shown.flatMap((c) =>
    (c.curves.attrition ?? []).map((p) => ({
      series: seriesLabel(result, c),
      step: `T${p.x.turn} ${p.x.round === 'end' ? 'end' : `R${p.x.round}`}`,
      order: (Number(p.x.turn) - 1) * 4 + (p.x.round === 'end' ? 3 : Number(p.x.round) - 1),
      side: p.x.side,
      place: p.x.place,
      mean: p.m.value,
    })),
  );
  return {
    name: 'attrition',
    title: 'mean steps by round: field, castle, reserves',
    spec: {
      $schema: SCHEMA,
      title: 'mean steps by round: field, castle, reserves',
      data: { values },
      facet: { row: { field: 'side', title: null }, column: { field: 'place', title: null, sort: ['field', 'castle', 'reserves'] } },
      spec: {
        width: 220,
        height: 160,
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'step', type: 'ordinal', sort: { field: 'order' }, title: null },
          y: { field: 'mean', type: 'quantitative', title: 'steps' },
          color: { field: 'series', type: 'nominal', title: null, sort: null },
        },
      },
    },
  };
}

function survivorsChart(result: ScenarioResult): ChartSpec {
  const shown = result.cases.slice(0, 8);
  const values = shown.flatMap((c) =>
    (c.curves.survivors ?? []).map((p) => ({ series: seriesLabel(result, c), side: p.x.side, steps: p.x.steps, p: p.m.value })),
  );
  return {
    name: 'survivors',
    title: 'surviving steps per side',
    spec: {
      $schema: SCHEMA,
      title: 'surviving steps per side',
      data: { values },
      facet: { column: { field: 'side', title: null } },
      spec: {
        width: 260,
        height: 180,
        mark: { type: 'line', point: true, interpolate: 'step-after' },
        encoding: {
          x: { field: 'steps', type: 'quantitative', axis: { tickMinStep: 1, format: 'd' } },
          y: { field: 'p', type: 'quantitative', title: 'probability' },
          color: { field: 'series', type: 'nominal', title: null, sort: null },
        },
      },
    },
  };
}

export function chartsCrusaderRex(result: ScenarioResult): ChartSpec[] {
  const charts = [attritionChart(result), survivorsChart(result)];
  for (const m of ['p_attacker_wins', 'p_castle_falls']) {
    const bars = variantBarsChart(result, m, `${m}_by_variant`);
    if (bars) charts.push(bars);
  }
  return charts;
}
