/**
 * The `site` verb's plan: what a static workbench folder holds besides the built scripts — the
 * page with its base address, each scenario as `scenarios/<name>.yaml` and the list the page
 * picks from (`scenarios/index.json`). Touches no files: the command line reads the scenarios
 * and the built files (`npm run build` bundles the page's workers into dist/site/) and writes
 * the folder.
 */
import type { ValidScenario } from '../scenario/validate.js';

/** The site's files copied as built or as written, by their name in the folder and where they come from in the package. */
export const SITE_FILES: readonly { name: string; from: string }[] = [
  { name: 'run.js', from: 'dist/site/run.js' },
  { name: 'kernel.js', from: 'dist/site/kernel.js' },
  { name: 'workbench.js', from: 'dist/site/workbench.js' },
  { name: 'site.js', from: 'src/site/assets/site.js' },
  { name: 'site.css', from: 'src/site/assets/site.css' },
  { name: 'app.css', from: 'src/serve/assets/app.css' },
  { name: 'icon.svg', from: 'src/serve/assets/icon.svg' },
];

/** Where the page's template is (its `<!--siegesim:base-->` becomes the `<base>` of --base-url). */
export const SITE_PAGE = 'src/site/assets/index.html';

/**
 * The workbench page (`serve`'s, src/serve/assets/index.html) for the site: its assets under
 * `assets/` beside it (relative addresses, so --base-url's <base> applies), its script the site's
 * build of the page on the workbench worker, vega's scripts named for loading on first use.
 */
export function siteWorkbenchPage(serveIndex: string): string {
  let page = serveIndex.replace(/(["'])\/assets\//g, '$1assets/');
  if (page === serveIndex || !page.includes('assets/app.js')) throw new Error("the workbench page's template does not load /assets/app.js");
  // vega's scripts are loaded when the first chart is drawn (serve/page/charts.ts, vegaReady),
  // after the first number: the page does not parse ~850 kB of script before it can answer
  const lazy: string[] = [];
  page = page.replace(/<script src="(assets\/vega[\w.-]*\.js)" defer><\/script>\n?/g, (_m, src: string) => (lazy.push(src), ''));
  if (lazy.length === 0) throw new Error("the workbench page's template does not load vega's scripts");
  return page.replace('<head>', `<head>\n<!--siegesim:base-->\n<meta name="siegesim:lazy-scripts" content="${lazy.join(' ')}">`);
}

/** A `--base-url` the site can be served under: a path from its host's root, `/` at both ends (no other origin: the page never asks one). */
export function parseBaseUrl(x: string): string {
  if (!/^\/(?:[A-Za-z0-9._~!$&'()*+,;=:@%-]+\/)*$/.test(x) || x.split('/').some((s) => s === '.' || s === '..')) {
    throw new SiteInputError(`--base-url must be the path the site is served under, starting and ending with / (e.g. /siegesim/ for https://you.github.io/siegesim/); got ${JSON.stringify(x.slice(0, 100))}`);
  }
  return x;
}

export class SiteInputError extends Error {}

export interface SiteScenario {
  /** The file's address in the site, from the site's root (`scenarios/town-basic.yaml`). */
  path: string;
  name: string;
  system: string;
  description?: string;
  variants: number;
  /** The variants' names, as the workbench's list gives them. */
  variantNames: string[];
  points: number;
  trials: number;
}

/** The page's picker list, in the order given (the command line's: files as named, folders walked in name order). */
export function siteScenarios(scenarios: readonly ValidScenario[]): SiteScenario[] {
  return scenarios.map((v) => ({
    path: `scenarios/${v.name}.yaml`,
    name: v.name,
    system: v.system.id,
    ...(v.description ? { description: v.description } : {}),
    variants: v.variantNames.length,
    variantNames: v.variantNames,
    points: v.points.length,
    trials: v.trials,
  }));
}

/** `scenarios/index.json`'s text. */
export function siteIndexJson(list: readonly SiteScenario[]): string {
  return JSON.stringify({ scenarios: list }, null, 2) + '\n';
}

/** The page from its template: with --base-url, a `<base href>` (every address in it is relative). */
export function sitePage(template: string, baseUrl: string | undefined): string {
  const mark = '<!--siegesim:base-->';
  if (!template.includes(mark)) throw new Error(`the site's page template has no ${mark}`);
  return template.replace(mark, baseUrl ? `<base href="${baseUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">` : '');
}
