/**
 * The vitest configuration `npm run mutate` runs under (scripts/mutate.mjs, docs/mutation.md):
 * the project's, with one load of the modules shared by a mutant's test files (isolate: false).
 * Stryker switches mutants on and off through a global (mutant schemata), so a test file's
 * imports need not be evaluated again for each file: reloading src/api.js's module graph took
 * ~5 s per test file per mutant. Each mutant's run loads them anew, but after the test files'
 * imports, so a static mutant (in code run once, at module load) cannot take effect: the script
 * leaves those out unless `--static` runs it under vitest.config.ts.
 *
 * The files run in the order of their paths, whatever ran or failed before: they share module
 * state (a thread's kept scratch arrays), so a kill could depend on which file ran first, and
 * vitest's own order puts last run's failures first (a mutant of engine/chunk.ts's scratch
 * growth survived with engine-pairing first and was killed with engine-slices first).
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config.js';

/** Test files in the order of their paths. */
class ByPath extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0));
  }
}

export default mergeConfig(
  base,
  defineConfig({
    test: {
      isolate: false,
      fileParallelism: false,
      maxWorkers: 1,
      minWorkers: 1,
      sequence: { sequencer: ByPath },
    },
  }),
);
