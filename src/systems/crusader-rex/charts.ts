/** Charts of a Crusader Rex run: attrition by round, survivors, win-rate bars, sweep answers. */
import { dashEncoding, facetKey, heatmapChart, integerAxis, keyedFacet, MAX_PANELS, panelWord, sampleCaption, samplePanels, SCHEMA, seriesLabel, seriesLayout, seriesScale, shapeEncoding, sweepChart, variantBarsCharts } from '../chart-kit.js';
import type { CaseResult, ChartSpec, ScenarioResult } from '../types.js';

const PLACES = ['field', 'castle', 'reserves'];

/**
 * Every case's lines. Few cases: one line per case in each (side, place) panel. Many: a row
 * of panels per group of cases (seriesLayout), the side told by the dash; past `rows` rows (a
 * chart of at most MAX_PANELS panels), an evenly spaced sample of them: `cases` are those drawn,
 * `sampled` the start of the caption that says so.
 */
function lineKeys(result: ScenarioResult, rows: number, csv: string) {
  // these charts are already panels (side x place): more than 4 lines in one is a tangle
  const layout = seriesLayout(result, 4);
  const { kept, all, cases } = samplePanels(result, layout, rows);
  const sampled = kept ? sampleCaption(layout.panels.length, all, panelWord(layout), csv, 'row') : '';
  const label = (c: CaseResult) => (layout.panel ? layout.color(c) : seriesLabel(result, c));
  const colors = layout.panel ? layout.colors : result.cases.map((c) => seriesLabel(result, c));
  const color = {
    field: 'series',
    type: layout.ordered && layout.panel ? 'ordinal' : 'nominal',
    title: layout.panel ? layout.colorTitle : null,
    sort: colors,
    scale: seriesScale(colors, layout.ordered && layout.panel !== null),
    legend: colors.length > 1 ? { labelLimit: 0 } : null,
  };
  // Lines drawn over each other (two cases that agree) must both show: each series has its own
  // dash and hollow point shape, on the colour's field so that they merge into its legend.
  const type = color.type as 'nominal' | 'ordinal';
  const many = colors.length > 1;
  const dash = many ? { strokeDash: dashEncoding(colors, 'series', color.title, type) } : {};
  const shape = many ? { shape: shapeEncoding(colors, 'series', color.title, type) } : {};
  // where the dash tells the sides apart (attrition's panels) and two lines meet, the first series
  // is drawn widest and each next one narrower, so a line drawn over another leaves its edges in sight
  const width = many ? { strokeWidth: { field: 'series', type, sort: colors, scale: { domain: colors, range: colors.map((_, i) => (i === 0 ? 4.5 : Math.max(1.25, 3 - i))) } } } : {};
  return { layout, label, color, dash, shape, width, cases, sampled };
}

/** The points on the lines: hollow, so that a shape drawn over another leaves it in sight. */
const POINT = { type: 'point', filled: false, size: 40, strokeWidth: 1.5, opacity: 1 };

/** Least room a step's label has beside the next (the labels stand upright, 10 px type). */
const STEP_LABEL_PX = 14;
/** Least room an upright turn label ("T12") has beside the next. */
const TURN_LABEL_PX = 24;

/**
 * The x axis of the steps: every step labelled (`T3 R2`) while each has STEP_LABEL_PX; more
 * steps than that (a siege past 5 turns: 4 steps a turn) crowd, so only each turn's first step
 * has a tick, labelled by its turn (`T7`), every turn or every k-th one as the width allows.
 */
function stepAxis(shown: { step: string; order: number }[], width: number): { title?: string; axis?: Record<string, unknown> } {
  const order = new Map(shown.map((v) => [v.step, v.order]));
  if (order.size * STEP_LABEL_PX <= width) return {};
  const firsts = [...order].filter(([, o]) => o % 4 === 0).sort((a, b) => a[1] - b[1]);
  const every = Math.ceil((TURN_LABEL_PX * order.size) / (4 * width));
  const values = firsts.filter((_, i) => i % every === 0).map(([step]) => step);
  return { title: 'game turn (rounds 1-3 and end each)', axis: { values, labelExpr: "split(datum.value, ' ')[0]", labelAngle: 0 } };
}

function attritionChart(result: ScenarioResult): ChartSpec {
  // a row of up to 3 panels (field, castle, reserves) a group of cases
  const { layout, label, color, dash, shape, width: strokeWidth, cases, sampled } = lineKeys(result, Math.floor(MAX_PANELS / PLACES.length), 'attrition.csv');
  // a side nobody has in a place (no castle in a field battle, no reserves) is a flat zero: left out
  const used = new Set<string>();
  for (const c of cases) for (const p of c.curves.attrition ?? []) if (p.m.value !== 0) used.add(`${p.x.side}|${p.x.place}`);
  const values = cases.flatMap((c) =>
    (c.curves.attrition ?? [])
      .filter((p) => used.has(`${p.x.side}|${p.x.place}`))
      .map((p) => ({
        series: label(c),
        ...(layout.panel ? { panel: layout.panel(c) } : {}),
        step: `T${p.x.turn} ${p.x.round === 'end' ? 'end' : `R${p.x.round}`}`,
        order: (Number(p.x.turn) - 1) * 4 + (p.x.round === 'end' ? 3 : Number(p.x.round) - 1),
        side: p.x.side,
        place: p.x.place,
        mean: p.m.value,
      })),
  );
  const places = PLACES.filter((pl) => [...used].some((k) => k.endsWith(`|${pl}`)));
  const sides = [...new Set(values.map((v) => String(v.side)))];
  const rowOrder = layout.panel ? layout.panels : sides;
  const shown = values.map((v) => ({
    ...v,
    row: facetKey(rowOrder, String(layout.panel ? v.panel : v.side)),
    col: facetKey(places, String(v.place)),
  }));
  // lines that meet: two series within a tenth of a step (a pixel or so) at the same step of one panel's side and place
  const at = new Map<string, string>();
  const meet = shown.some((v) => {
    const k = `${v.row}|${v.col}|${v.side}|${v.step}|${Math.round(v.mean * 10)}`;
    const first = at.get(k);
    if (first === undefined) at.set(k, v.series);
    return first !== undefined && first !== v.series;
  });
  const title = 'mean steps by round: field, castle, reserves';
  const steps = new Set(shown.map((v) => v.step)).size;
  const width = Math.max(160, Math.min(300, steps * 14));
  const encoding = {
    x: { field: 'step', type: 'ordinal', sort: { field: 'order' }, title: null, ...stepAxis(shown, width) },
    y: { field: 'mean', type: 'quantitative', title: 'steps' },
    color,
  };
  // the lines, and their points in a layer of their own (a line's width is not its points')
  const layer = [
    {
      mark: 'line',
      encoding: layout.panel
        ? { strokeDash: { field: 'side', type: 'nominal', title: 'side', sort: sides, scale: { domain: sides, range: [[1, 0], [6, 3]] }, legend: { symbolType: 'stroke', symbolStrokeWidth: 2, encode: { symbols: { update: { stroke: { value: '#333' } } } } } }, ...(meet ? strokeWidth : {}) }
        : dash,
    },
    { mark: POINT, encoding: shape },
  ];
  return {
    name: 'attrition',
    title,
    caption: layout.panel
      ? `${sampled}mean steps of each side where it stands, after each round of each turn; ${sampled ? '' : `one row per ${panelWord(layout)}; `}solid: ${sides[0] ?? ''}, dashed: ${sides[1] ?? ''}${layout.colors.length > 1 ? `; each ${layout.colorTitle ?? 'variant'} has its point shape${meet ? `, and ${layout.colors[0]}'s line is the widest, so a line drawn over it leaves its edges in sight` : ''}` : ''}`
      : 'mean steps of each side where it stands, after each round of each turn ("end": after retreats and attrition)',
    spec: {
      $schema: SCHEMA,
      title,
      data: { values: shown },
      facet: { row: keyedFacet('row'), column: keyedFacet('col') },
      spec: { width, height: 140, encoding, layer },
    },
  };
}

function survivorsChart(result: ScenarioResult): ChartSpec {
  // a row of 2 panels (the sides) a group of cases
  const { layout, label, color, dash, shape, cases, sampled } = lineKeys(result, Math.floor(MAX_PANELS / 2), 'survivors.csv');
  const values = cases.flatMap((c) =>
    (c.curves.survivors ?? []).map((p) => ({
      series: label(c),
      ...(layout.panel ? { panel: layout.panel(c) } : {}),
      side: p.x.side,
      steps: p.x.steps,
      p: p.m.value,
    })),
  );
  const xs = values.map((v) => Number(v.steps));
  const sides = [...new Set(values.map((v) => String(v.side)))];
  const keyed = values.map((v) => ({ ...v, col: facetKey(sides, String(v.side)), ...(layout.panel ? { row: facetKey(layout.panels, String(v.panel)) } : {}) }));
  const title = 'surviving steps per side';
  return {
    name: 'survivors',
    title,
    caption: `${sampled}probability that a side ends with exactly this many steps`,
    spec: {
      $schema: SCHEMA,
      title,
      data: { values: keyed },
      facet: layout.panel ? { row: keyedFacet('row'), column: keyedFacet('col') } : { column: keyedFacet('col') },
      spec: {
        width: 260,
        height: layout.panel ? 130 : 180,
        encoding: {
          x: { field: 'steps', type: 'quantitative', axis: integerAxis(xs, 260) },
          y: { field: 'p', type: 'quantitative', title: 'probability' },
          color,
        },
        // the sides are the columns: the dash and the shape are the series', in panels too
        layer: [
          { mark: { type: 'line', interpolate: 'step-after' }, encoding: dash },
          { mark: POINT, encoding: shape },
        ],
      },
    },
  };
}

const HEADLINE = ['p_attacker_wins', 'p_defender_holds', 'p_castle_falls'];

export function chartsCrusaderRex(result: ScenarioResult): ChartSpec[] {
  const charts: ChartSpec[] = [];
  const sweep = sweepChart(result, HEADLINE, 'p_attacker_wins', 'p_attacker_wins_sweep');
  if (sweep) charts.push(sweep);
  const heat = heatmapChart(result, 'p_attacker_wins', 'p_attacker_wins_heatmap');
  if (heat) charts.push(heat);
  charts.push(...variantBarsCharts(result, ['p_attacker_wins', 'p_castle_falls']));
  charts.push(attritionChart(result), survivorsChart(result));
  return charts;
}
