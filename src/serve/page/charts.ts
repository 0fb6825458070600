/**
 * Drawing the servers' Vega-Lite specs with vega-embed: loaded by the page's deferred scripts
 * (`serve`), or on first use from the scripts the page names in `<meta name="siegesim:lazy-scripts">`
 * (the static site: vega's ~850 kB of script is then parsed after the first number, not before).
 */
import type { ChartSpec, NamedChart } from '../../api/protocol.js';
import { $, el } from './dom.js';
import type { EmbedResult } from './state.js';

const views = new Map<string, EmbedResult>(); // chart name -> vega view (finalized on redraw)
const EMBED = { actions: { export: true, source: false, compiled: false, editor: false }, ast: true, renderer: 'svg' };

/** vega-embed's right padding beside a chart with actions: where its "⋯" button sits. */
export const EMBED_ACTIONS_WIDTH = 38;

let loading: Promise<boolean> | undefined;

/** One classic script, run in the page; false when it cannot be fetched. */
function loadScript(src: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = document.createElement('script');
    s.src = src;
    s.async = false;
    s.onload = () => resolve(true);
    s.onerror = () => resolve(false);
    document.head.append(s);
  });
}

/** vega-embed is there: the page's own scripts, or the lazy ones loaded now, in their order (once). */
export function vegaReady(): Promise<boolean> {
  if (window.vegaEmbed) return Promise.resolve(true);
  loading ??= (async () => {
    const meta = document.querySelector<HTMLMetaElement>('meta[name="siegesim:lazy-scripts"]');
    for (const src of meta?.content.split(/\s+/).filter((x) => x !== '') ?? []) if (!(await loadScript(src))) break;
    return window.vegaEmbed !== undefined;
  })();
  return loading;
}

const embed = async (target: HTMLElement, spec: ChartSpec): Promise<EmbedResult> => {
  if (!(await vegaReady()) || !window.vegaEmbed) throw new Error('vega-embed did not load');
  return window.vegaEmbed(target, spec, EMBED);
};

/** An element's content width (inside its padding). */
export function contentWidth(box: HTMLElement): number {
  const cs = getComputedStyle(box);
  return box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
}

/** Draw a Vega-Lite spec in a box, replacing what it showed, unless `current()` turned false meanwhile. */
export async function embedInto(box: HTMLElement, spec: ChartSpec, current = () => true): Promise<void> {
  const target = el('div', { class: 'vis' });
  const r = await embed(target, spec);
  if (!current()) return r.finalize();
  box.view?.finalize();
  box.view = r;
  box.replaceChildren(target);
  box.hidden = false;
}

/** The live run's charts, each in its figure (kept across updates, so a redraw does not jump). */
export async function renderCharts(charts: NamedChart[]): Promise<void> {
  if (!(await vegaReady())) return;
  const box = $('#charts');
  const names = new Set(charts.map((c) => c.name));
  for (const fig of [...box.children] as HTMLElement[]) {
    const name = fig.dataset.name ?? '';
    if (!names.has(name)) {
      views.get(name)?.finalize();
      fig.remove();
    }
  }
  for (const ch of charts) {
    let fig = box.querySelector<HTMLElement>(`figure[data-name="${CSS.escape(ch.name)}"]`);
    if (!fig) {
      fig = el('figure', { class: 'chart', 'data-name': ch.name }, el('div', { class: 'vis' }), el('figcaption', { class: 'muted', text: ch.title }));
      box.append(fig);
    }
    const target = el('div', { class: 'vis' });
    const caption = $('figcaption', fig);
    try {
      const r = await embed(target, ch.spec);
      views.get(ch.name)?.finalize();
      views.set(ch.name, r);
      $('.vis', fig).replaceWith(target);
      caption.textContent = ch.title;
    } catch (e) {
      caption.textContent = `${ch.title} (could not be drawn: ${(e as Error).message})`;
    }
  }
}

let wanted: NamedChart[] | undefined;
/** A draw is waiting for its frames (it takes `wanted` as it is then). */
let framePending = false;
/** A redraw held back by the gap below. */
let held: ReturnType<typeof setTimeout> | undefined;
let lastDraw = -Infinity;
/**
 * While a run streams, its charts are redrawn at most once a second: each redraw costs the page
 * ~100-200 ms of its thread (vega-embed's compile and render), and a chart a fraction of a
 * second newer shows nothing new. The first charts of a run and its last ones (`final`: the
 * run is done) are drawn as soon as the numbers are painted.
 */
const CHART_GAP_MS = 1000;

/**
 * The live run's charts, drawn once the numbers are painted: a chart costs the page
 * far more than the numbers (vega-embed's compile and render: ~200 ms of the page's thread for a
 * Crusader Rex run's charts), so the numbers show first. Only the latest charts asked for are drawn.
 */
export function renderChartsAfterPaint(charts: NamedChart[], final = false): void {
  wanted = charts;
  if (framePending) return; // the draw about to start takes these
  if (held !== undefined) {
    if (!final) return; // the held redraw takes these
    clearTimeout(held);
    held = undefined;
  }
  const wait = final ? 0 : lastDraw + CHART_GAP_MS - performance.now();
  if (wait > 0) {
    held = setTimeout(() => {
      held = undefined;
      drawAfterPaint();
    }, wait);
    return;
  }
  drawAfterPaint();
}

/** A new run has started: its first charts are drawn at once, and the last run's held ones never. */
export function chartsOfNewRun(): void {
  if (held !== undefined) clearTimeout(held);
  held = undefined;
  wanted = undefined;
  lastDraw = -Infinity;
}

function drawAfterPaint(): void {
  framePending = true;
  // the next frame paints the numbers; the charts start after the one after it has begun
  requestAnimationFrame(() =>
    requestAnimationFrame(() =>
      setTimeout(() => {
        framePending = false;
        const c = wanted;
        wanted = undefined;
        lastDraw = performance.now();
        if (c) void renderCharts(c);
      }, 0),
    ),
  );
}
