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
  { name: 'site.js', from: 'dist/site/site.js' },
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

/**
 * What a site's page says when it is opened as a file (file://, a double-click): browsers start no
 * Web Worker from a file page (origin 'null'), and index.html cannot fetch its scenarios nor
 * workbench.html load its module script, so without this the page would stay at "loading…". The
 * notice is the page's own HTML with a classic inline script, the one part of the page that runs
 * there: it shows the notice, names this folder in the command that serves it, and replaces each
 * "loading…" with "not running". Hidden, and the script does nothing, when the page is served.
 */
export const FILE_NOTICE = String.raw`<div id="served-notice" role="alert" hidden style="margin:14px auto;max-width:940px;padding:12px 16px;border:1px solid #f0c4bf;border-radius:8px;background:#fdecea;color:#8a1f11;font-size:14px;line-height:1.5">
<b>This page must be served, not opened as a file.</b> It was opened from <code data-at="page"></code>, and browsers start no Web Worker and read no scenario from a file:// page, so nothing can run here. Serve the folder with any static server, for example:
<pre style="margin:8px 0;padding:8px;background:#fff;border:1px solid #f0c4bf;border-radius:6px;white-space:pre-wrap"><code data-at="command"></code></pre>
and open <code data-at="url"></code> (GitHub Pages or a bucket serve it as well).<span data-at="base" hidden> This site was written with <code>--base-url</code> <code data-at="base-url"></code>: serve it under that path, or write it again without <code>--base-url</code> to serve it from this folder's root.</span>
</div>
<script>
(function () {
  if (location.protocol !== 'file:') return;
  var box = document.getElementById('served-notice');
  var at = function (k) { return box.querySelector('[data-at="' + k + '"]'); };
  var path = decodeURIComponent(location.pathname);
  var dir = path.replace(/\/[^\/]*$/, '') || '/';
  if (/^\/[A-Za-z]:/.test(dir)) dir = dir.slice(1);
  var quoted = /^[\w.\/:@%+,-]+$/.test(dir) ? dir : "'" + dir.replace(/'/g, "'\\''") + "'";
  at('page').textContent = path;
  at('command').textContent = 'python3 -m http.server 8000 --bind 127.0.0.1 --directory ' + quoted;
  at('url').textContent = 'http://127.0.0.1:8000/' + path.replace(/^.*\//, '');
  var base = document.querySelector('base');
  if (base) {
    at('base-url').textContent = base.getAttribute('href');
    at('base').hidden = false;
  }
  box.hidden = false;
  document.addEventListener('DOMContentLoaded', function () {
    var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (var n = walk.nextNode(); n; n = walk.nextNode()) if (n.nodeValue.trim() === 'loading…') n.nodeValue = 'not running: this page was opened as a file (see above)';
  });
})();
</script>`;

/**
 * The page from its template: with --base-url, a `<base href>` (every address in it is relative);
 * after `<body>`, the notice a page opened as a file shows (FILE_NOTICE).
 */
export function sitePage(template: string, baseUrl: string | undefined): string {
  const mark = '<!--siegesim:base-->';
  if (!template.includes(mark)) throw new Error(`the site's page template has no ${mark}`);
  if (!/<body[^>]*>/.test(template)) throw new Error("the site's page template has no <body>");
  return template
    .replace(mark, baseUrl ? `<base href="${baseUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">` : '')
    .replace(/<body[^>]*>/, (body) => `${body}\n${FILE_NOTICE}`);
}
