/** `siegesim site`: the workbench as a folder of static files that runs every kernel in the browser (src/api/site.ts). */
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseBaseUrl, SITE_FILES, SITE_PAGE, siteIndexJson, sitePage, siteScenarios, siteWorkbenchPage, SiteInputError } from '../../api/site.js';
import { assetTable } from '../../serve/server.js';
import { shellWord } from '../../text/shell.js';
import { checkReportDir, writeFolder } from '../../report/write.js';
import { packageFile } from '../../paths.js';
import { loadAll, outArg, UserError } from '../common.js';

interface SiteFlags {
  out: string;
  baseUrl?: string;
  force?: boolean;
}

async function siteCommand(files: string[], flags: SiteFlags): Promise<void> {
  let base: string | undefined;
  try {
    base = flags.baseUrl === undefined ? undefined : parseBaseUrl(flags.baseUrl);
  } catch (e) {
    if (e instanceof SiteInputError) throw new UserError(e.message);
    throw e;
  }
  const given = files.length > 0 ? files : [packageFile('scenarios')];
  const scenarios = loadAll(given);
  const built = [...SITE_FILES, { name: 'assets/app.js', from: 'dist/site/workbench-page.js' }].map((f) => ({ ...f, at: packageFile(f.from) }));
  const missing = built.filter((f) => !existsSync(f.at));
  if (missing.length > 0) throw new Error(`the site's built files are missing (${missing.map((f) => f.from).join(', ')}): run npm run build`);
  const list = siteScenarios(scenarios);
  // every file the site holds, known before anything is written: under --force, each that is a
  // file of the user's is named at once (checkReportDir), not found one at a time at the end
  const planned: { name: string; text: () => string }[] = [{ name: 'index.html', text: () => sitePage(readFileSync(packageFile(SITE_PAGE), 'utf8'), base) }];
  for (const f of built.slice(0, SITE_FILES.length)) planned.push({ name: f.name, text: () => readFileSync(f.at, 'utf8') });
  // the workbench page as serve serves it, with its assets (vega's builds among them) under assets/
  for (const [url, a] of assetTable()) {
    if (url === '/') planned.push({ name: 'workbench.html', text: () => sitePage(siteWorkbenchPage(readFileSync(a.file, 'utf8')), base) });
    else if (url === '/assets/app.js') planned.push({ name: 'assets/app.js', text: () => readFileSync(packageFile('dist/site/workbench-page.js'), 'utf8') });
    else planned.push({ name: url.slice(1), text: () => readFileSync(a.file, 'utf8') });
  }
  planned.push({ name: 'scenarios/index.json', text: () => siteIndexJson(list) });
  for (let i = 0; i < scenarios.length; i++) planned.push({ name: list[i].path, text: () => scenarios[i].text });
  checkReportDir(flags.out, 'site', { force: flags.force, inputs: scenarios.map((v) => v.file), planned: planned.map((f) => f.name) });
  const written = await writeFolder(
    flags.out,
    async (put) => {
      for (const f of planned) await put(f.name, f.text());
    },
    'site',
  );
  const systems = new Set(list.map((s) => s.system)).size;
  process.stderr.write(
    `site: ${list.length} scenario(s) of ${systems} system(s), ${written.length} files -> ${flags.out}${path.sep}\n` +
      `serve the folder with any static server (python3 -m http.server --bind 127.0.0.1 -d ${shellWord(flags.out)}; GitHub Pages; a bucket)${base ? ` under ${base}` : ''}: opened as a file, its pages cannot run\n`,
  );
}

export function register(program: Command): void {
  program
    .command('site')
    .description('write the workbench as static files (HTML, JS, CSS, the scenarios) that run every kernel in the browser, with no server')
    .argument('[files...]', 'scenario files or folders of them (default: the bundled scenarios)')
    .option('--out <DIR>', 'the folder to write', outArg('--out'), 'site')
    .option('--base-url <PATH>', 'the path the site is served under, e.g. /siegesim/ (default: wherever index.html is)')
    .option('--force', 'write into a folder that holds files siegesim did not write (they are kept)')
    .action((files: string[], flags: SiteFlags) => siteCommand(files, flags));
}
