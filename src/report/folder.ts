/** What marks a report folder, apart from the writer (report/write.ts) so that the folder walkers load only this. */
import { existsSync } from 'node:fs';
import path from 'node:path';

export { SCENARIO_COPY } from './copy-name.js';

/**
 * A siegesim report folder (it holds summary.json): its scenario.yaml is the copy of a run, never
 * a scenario to run, validate or serve, so the folder walkers (cli/files.ts, serve/catalogue.ts)
 * skip it (`siegesim run .` in a folder holding reports/).
 */
export function isReportFolder(dir: string): boolean {
  return existsSync(path.join(dir, 'summary.json'));
}
