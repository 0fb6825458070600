/**
 * The tune report's chart of the feasible region as a Vega-Lite spec: drawn by the tune report
 * (tune.ts) and by the workbench's search, in `serve` and in the static site's browser worker, so
 * it imports nothing of Node.
 */
import type { TuneEvaluation, TuneResult } from '../api/tune.js';
import type { ChartSpec } from '../systems/types.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** The region chart: its spec with the schema and title in place. */
function regionSpec(title: string, caption: string, body: Record<string, unknown>): ChartSpec {
  return { name: 'tune_region', title, caption, spec: { $schema: SCHEMA, title, ...body } };
}

/** The target metrics, each once, in the order given. */
export function targetMetrics(r: TuneResult): string[] {
  return [...new Set(r.targets.map((t) => t.metric))];
}

/** A candidate's key: its values. */
const key = (e: TuneEvaluation) => JSON.stringify(e.values);

/** The last (most trials) evaluation of each candidate. */
function latest(r: TuneResult): TuneEvaluation[] {
  const by = new Map<string, TuneEvaluation>();
  for (const e of r.evaluations) by.set(key(e), e);
  return [...by.values()];
}

/** The stage each candidate was first evaluated in (a candidate re-run to confirm it keeps the stage that found it). */
function firstStage(r: TuneResult): Map<string, TuneEvaluation['stage']> {
  const by = new Map<string, TuneEvaluation['stage']>();
  for (const e of r.evaluations) if (!by.has(key(e))) by.set(key(e), e.stage);
  return by;
}

/**
 * The feasible region: with two or more parameters, every candidate on the plane of the first
 * two (with three, those at the best value of the third), coloured by how many targets it meets,
 * the best ringed; with one, each target metric against the parameter with its target band.
 */
export function regionChart(r: TuneResult): ChartSpec {
  const n = r.targets.length;
  const [px, py, pz] = r.params.map((p) => p.path);
  if (!py) {
    const values = latest(r)
      .filter((e) => e.checks)
      .flatMap((e) => e.checks!.map((c) => ({ x: e.values[px], metric: c.metric, value: c.value, lo: c.ci_low, hi: c.ci_high, band_lo: c.lo, band_hi: c.hi, met: c.met ? 'in the target' : 'outside' })));
    // the axis spans the range searched (as the two-setting chart's), not from 0
    const xScale = { domain: [r.params[0].lo, r.params[0].hi], nice: false, padding: 14 };
    const xAxis = { format: 'd', tickMinStep: 1 }; // whole-number settings: no 8.0
    return regionSpec(`Each target against ${px}`, `Each target metric at every value of ${px} evaluated (the last, most trials, of each), with its 95% interval; the green band is the target.`, {
      data: { values },
      facet: { row: { field: 'metric', type: 'nominal', title: null } },
      resolve: { scale: { y: 'independent' } },
      spec: {
        width: 520,
        height: 180,
        layer: [
          { mark: { type: 'rect', color: '#54a24b', opacity: 0.12 }, encoding: { y: { aggregate: 'min', field: 'band_lo', type: 'quantitative' }, y2: { aggregate: 'max', field: 'band_hi' } } },
          { mark: { type: 'rule', color: '#666' }, encoding: { x: { field: 'x', type: 'quantitative', title: px, scale: xScale, axis: xAxis }, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } } },
          {
            mark: { type: 'point', filled: true, size: 40 },
            encoding: {
              x: { field: 'x', type: 'quantitative', title: px, scale: xScale, axis: xAxis },
              y: { field: 'value', type: 'quantitative', title: null, scale: { zero: false } },
              color: { field: 'met', type: 'nominal', title: null, scale: { domain: ['in the target', 'outside'], range: ['#54a24b', '#e45756'] } },
            },
          },
        ],
      },
    });
  }
  const best = r.best.values;
  const slice = pz ? latest(r).filter((e) => e.values[pz] === best[pz]) : latest(r);
  const all = n === 1 ? 'target met' : `all ${n} targets met`;
  const status = (e: TuneEvaluation) => (e.invalid ? 'not a valid case' : e.met === n ? all : n === 1 ? 'target missed' : `${e.met} of ${n} met`);
  const domain = [all, ...(n === 1 ? ['target missed'] : Array.from({ length: n }, (_, i) => `${n - 1 - i} of ${n} met`)), 'not a valid case'];
  const range = ['#2ca02c', ...Array.from({ length: n }, (_, i) => (i === 0 && n > 1 ? '#f2b447' : i === n - 1 ? '#bbbbbb' : '#e8d08a')), '#ffffff'];
  // The coarse grid's candidates as big squares, the refinement's (and the confirmation's walk)
  // as small ones: a size per stage, so the caption's "big" and "small" are what is drawn. The
  // big side is the coarse spacing on screen (capped), the small one half of it, but never more
  // than one step of the integer grid, so neighbouring refined squares do not overlap.
  const W = 480;
  const H = 360;
  const sx = W / Math.max(1, r.params[0].hi - r.params[0].lo);
  const sy = H / Math.max(1, r.params[1].hi - r.params[1].lo);
  const first = firstStage(r);
  const coarse = slice.filter((e) => first.get(key(e)) === 'coarse');
  let gap = 24;
  for (const e of coarse) for (const o of coarse) if (o !== e) gap = Math.min(gap, Math.max(Math.abs(o.values[px] - e.values[px]) * sx, Math.abs(o.values[py] - e.values[py]) * sy));
  const big = Math.max(6, gap * 0.9);
  const small = Math.max(3, Math.min(big / 2, 0.9 * Math.min(sx, sy)));
  const values = slice.map((e) => ({
    x: e.values[px],
    y: e.values[py],
    size: Math.round((first.get(key(e)) === 'coarse' ? big : small) ** 2),
    stage: first.get(key(e)) === 'coarse' ? 'coarse grid' : 'refinement',
    status: status(e),
    distance: Number.isFinite(e.distance) ? Number(e.distance.toPrecision(4)) : null,
    trials: e.trials,
    best: e.values[px] === best[px] && e.values[py] === best[py] ? 'best' : '',
    ...Object.fromEntries((e.checks ?? []).map((c) => [c.metric, Number(c.value.toPrecision(4))])),
  }));
  return regionSpec(
    `Targets met over ${px} x ${py}${pz ? ` at ${pz} = ${best[pz]}` : ''}`,
    `Every candidate evaluated, coloured by how many targets its estimate meets (big squares: the coarse grid; small: the refinement near the best, and the confirmation's neighbours); the answer is ringed.`,
    {
      width: W,
      height: H,
      data: { values },
      encoding: {
        x: { field: 'x', type: 'quantitative', title: px, scale: { domain: [r.params[0].lo, r.params[0].hi], nice: false, padding: 14 } },
        y: { field: 'y', type: 'quantitative', title: py, scale: { domain: [r.params[1].lo, r.params[1].hi], nice: false, padding: 14 } },
      },
      layer: [
        {
          mark: { type: 'square', filled: true, stroke: '#555', strokeWidth: 0.5 },
          encoding: {
            size: { field: 'size', type: 'quantitative', scale: null, legend: null },
            color: { field: 'status', type: 'nominal', title: null, scale: { domain, range }, legend: { orient: 'bottom' } },
            tooltip: [{ field: 'x', title: px }, { field: 'y', title: py }, { field: 'stage' }, { field: 'status' }, { field: 'distance' }, ...targetMetrics(r).map((m) => ({ field: m }))],
          },
        },
        { transform: [{ filter: "datum.best == 'best'" }], mark: { type: 'point', shape: 'circle', size: 420, stroke: '#000', strokeWidth: 2.5, filled: false } },
      ],
    },
  );
}
