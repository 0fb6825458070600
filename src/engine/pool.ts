/**
 * The piscina pool: the only module that knows piscina (DESIGN.md). A task is one chunk
 * (≥ 10 ms of work); its result comes back by transfer.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ChunkTask } from './chunk.js';
import type { Executor } from './executor.js';

/** The built worker: dist/workers/worker.js (from source under vitest, the build's copy). */
export function workerPath(): string {
  const here = fileURLToPath(import.meta.url);
  const candidates = here.endsWith('.ts')
    ? [fileURLToPath(new URL('../../dist/workers/worker.js', import.meta.url))]
    : [fileURLToPath(new URL('../../workers/worker.js', import.meta.url))];
  for (const c of candidates) if (existsSync(c)) return c;
  throw new Error(`worker not built: ${candidates.join(', ')} is missing (run npm run build)`);
}

export class PoolExecutor implements Executor {
  private readonly pool: Piscina;
  constructor(readonly threads: number) {
    this.pool = new Piscina({
      filename: workerPath(),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
      // Each task is coarse; a short queue per thread keeps every core busy.
      concurrentTasksPerWorker: 1,
    });
  }
  async run(task: ChunkTask): Promise<Float64Array> {
    return (await this.pool.run(task)) as Float64Array;
  }
  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
