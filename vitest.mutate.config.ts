/**
 * The vitest configuration `npm run mutate` runs under (scripts/mutate.mjs, docs/mutation.md):
 * the project's, with modules kept loaded between runs. Stryker switches mutants on and off
 * through a global (mutant schemata), so a test file's imports need not be evaluated again for
 * each mutant: reloading src/api.js's module graph took ~5 s per test file per mutant. A static
 * mutant (in code run once, at module load) cannot take effect this way: the script leaves those
 * out unless `--static` runs it under vitest.config.ts.
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      isolate: false,
      fileParallelism: false,
      maxWorkers: 1,
      minWorkers: 1,
    },
  }),
);
