/** Charts of a fantasy run: sweep answers (heatmap, metric against the swept value), variant bars, breach by round, wall HP, attrition, volley damage. */
import { curveChart, dashEncoding, facetKey, heatmapChart, keyedFacet, integerAxis, MAX_PANELS, panelWord, sampleCaption, sampleIndices, samplePanels, SCHEMA, seriesLabel, seriesLayout, seriesScale, sweepChart, variantBarsCharts, wrapped } from '../chart-kit.js';
import type { ChartSpec, ScenarioResult } from '../types.js';

/**
 * Mean units alive by round, per side and unit type, for every case: a column per case when
 * there are a few, otherwise small multiples per side (a panel per case and side: past
 * MAX_PANELS panels, an evenly spaced sample of the cases). Types nobody fields are left out.
 */
function attritionChart(result: ScenarioResult): ChartSpec {
  const drawn = sampleIndices(result.cases.length, Math.floor(MAX_PANELS / 2)).map((i) => result.cases[i]);
  const sampled = drawn.length < result.cases.length ? sampleCaption(2 * drawn.length, 2 * result.cases.length, 'case and side', 'attrition.csv') : '';
  const series = drawn.map((c) => seriesLabel(result, c));
  const used = new Set<string>();
  const values = drawn.flatMap((c, i) =>
    (c.curves.attrition ?? []).map((p) => {
      if (p.m.value !== 0) used.add(`${p.x.side}|${p.x.unit}`);
      return { series: series[i], round: p.x.round, side: p.x.side, unit: p.x.unit, mean: p.m.value };
    }),
  ).filter((v) => used.has(`${v.side}|${v.unit}`));
  const units = [...new Set(values.map((v) => String(v.unit)))];
  const rounds = values.map((v) => Number(v.round));
  const few = series.length <= 4;
  const keyed = few ? values.map((v) => ({ ...v, row: facetKey(['attacker', 'defender'], String(v.side)), col: facetKey(series, v.series) })) : values;
  const width = few ? 240 : 150;
  const inner = {
    width,
    height: few ? 170 : 100,
    mark: { type: 'line', point: few },
    encoding: {
      x: { field: 'round', type: 'quantitative', axis: integerAxis(rounds, width) },
      y: { field: 'mean', type: 'quantitative', title: 'mean units alive' },
      color: { field: 'unit', type: 'nominal', title: 'unit', sort: units, scale: seriesScale(units) },
      // two types with the same count alive draw one line over the other: a dash each keeps both in sight
      ...(units.length > 1 ? { strokeDash: dashEncoding(units, 'unit', 'unit') } : {}),
    },
  };
  const title = 'units alive by round';
  const spec = few
    ? {
        facet: { row: keyedFacet('row'), ...(series.length > 1 ? { column: keyedFacet('col') } : {}) },
        spec: inner,
      }
    : {
        vconcat: ['attacker', 'defender'].map((side) => ({
          title: side,
          transform: [{ filter: `datum.side === '${side}'` }],
          facet: { field: 'series', type: 'nominal', title: null, sort: series },
          ...wrapped(series.length, 6),
          spec: inner,
        })),
      };
  return {
    name: 'attrition',
    title,
    caption: `${few ? 'mean units of each type alive after each round (round 0: before the battle)' : `${sampled}mean units of each type alive after each round${sampled ? '' : ', one panel per case'} (round 0: before the battle)`}; over every trial, a battle that has ended held at its last round`,
    spec: { $schema: SCHEMA, title, data: { values: keyed }, ...spec },
  };
}

function volleyChart(result: ScenarioResult): ChartSpec {
  const layout = seriesLayout(result);
  // past MAX_PANELS panels, an evenly spaced sample of them (said in the caption)
  const { kept, all, cases } = samplePanels(result, layout);
  const values = cases.flatMap((c) =>
    (c.curves.volley_damage ?? []).map((p) => ({ series: layout.color(c), ...(layout.panel ? { panel: layout.panel(c) } : {}), damage: p.x.damage, p: p.m.value })),
  );
  const xs = values.map((v) => Number(v.damage));
  const width = layout.panel ? 200 : 420;
  const inner = {
    mark: { type: 'line', point: true, interpolate: 'step-after' },
    encoding: {
      x: { field: 'damage', type: 'quantitative', axis: integerAxis(xs, width) },
      y: { field: 'p', type: 'quantitative', title: 'probability' },
      color: { field: 'series', type: 'nominal', title: layout.colorTitle, sort: layout.colors, scale: seriesScale(layout.colors), legend: { labelLimit: 0 } },
      ...(layout.colors.length > 1 ? { strokeDash: dashEncoding(layout.colors, 'series', layout.colorTitle) } : {}),
    },
  };
  const title = 'Phase A damage after cleric shields';
  return {
    name: 'volley_damage',
    title,
    caption: `${kept ? sampleCaption(layout.panels.length, all, panelWord(layout), 'volley_damage.csv') : ''}probability of each total damage of the first volley, after shields`,
    spec: layout.panel
      ? { $schema: SCHEMA, title, data: { values }, facet: { field: 'panel', type: 'nominal', title: null, sort: layout.panels }, ...wrapped(layout.panels.length, 4), spec: { width, height: 140, ...inner } }
      : { $schema: SCHEMA, title, data: { values }, width, height: 220, ...inner },
  };
}

/**
 * The wall's HP values when no case's wall ever loses any (no engines, e.g. climbers only: its
 * mean by round is its starting HP throughout), sorted; undefined when the wall HP moves anywhere.
 */
function unchangedWallHp(result: ScenarioResult): number[] | undefined {
  const hps = new Set<number>();
  for (const c of result.cases) {
    const curve = c.curves.wall_hp ?? [];
    if (curve.some((p) => p.m.value !== curve[0].m.value)) return undefined;
    if (curve.length > 0) hps.add(curve[0].m.value);
  }
  return hps.size > 0 ? [...hps].sort((a, b) => a - b) : undefined;
}

/** What a sweep is charted by: the headline, and in a siege when the wall is breached. */
const HEADLINE = ['p_attacker_wins', 'p_defender_wins', 'p_breach', 'mean_breach_round'];

export function chartsFantasy(result: ScenarioResult): ChartSpec[] {
  const siege = result.cases.some((c) => c.curves.breach_by_round !== undefined);
  const charts: ChartSpec[] = [];
  const sweep = sweepChart(result, HEADLINE, 'p_attacker_wins', 'p_attacker_wins_sweep');
  if (sweep) charts.push(sweep);
  const heat = heatmapChart(result, 'p_attacker_wins', 'p_attacker_wins_heatmap');
  if (heat) charts.push(heat);
  charts.push(...variantBarsCharts(result, ['p_attacker_wins']));
  if (siege) {
    const breach = curveChart(result, { name: 'breach_by_round', title: 'P(breached by round)', curve: 'breach_by_round', x: 'round', xTitle: 'siege round', yTitle: 'P(breached)' });
    const still = unchangedWallHp(result);
    if (still) {
      // a flat line says nothing: one line under the breach chart says it instead
      const hp = still.length === 1 ? `stays at ${still[0]} HP` : `keeps its starting HP (${still[0]}–${still.at(-1)})`;
      charts.push({ ...breach, caption: `${breach.caption}; the wall ${hp} in every case and round (nothing here damages it), so its HP is not charted` });
    } else {
      const wall = curveChart(result, { name: 'wall_hp', title: 'mean wall HP by round', curve: 'wall_hp', x: 'round', xTitle: 'siege round', yTitle: 'wall HP', probability: false });
      // a flat tail is sieges that ended, not a wall standing at that HP (a new user's reading)
      charts.push(breach, { ...wall, caption: `${wall.caption}; over every trial, a siege that has ended held at its last round's wall` });
    }
  } else charts.push(volleyChart(result));
  charts.push(attritionChart(result));
  return charts;
}
