/**
 * The engine's Executor (engine/executor.ts) over Web Workers: batches of chunks go to kernel
 * workers (kernel-worker.ts), one batch in each at a time, so a cancelled run's batches still
 * waiting are dropped here and never reach a worker; a batch already running ends by itself
 * within its ~40 ms (engine/run.ts sizes batches so), and its result is ignored. The engine
 * merges results in chunk order whatever worker ran them, so the numbers are the command line's.
 */
import { CancelledError, type Executor, type TaskOptions } from '../engine/executor.js';
import type { BatchTask } from '../engine/chunk.js';
import type { KernelReply } from './kernel-worker.js';
import type { WebWorker } from './browser.js';

interface Waiting {
  id: number;
  task: BatchTask;
  resolve: (out: Float64Array) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
}

/** Thrown when a kernel worker fails (a bug, or the tab out of memory). */
export class KernelWorkerError extends Error {}

export class WebWorkerExecutor implements Executor {
  readonly threads: number;
  private readonly workers: WebWorker[];
  private readonly busy: (Waiting | undefined)[];
  private readonly queue: Waiting[] = [];
  private nextId = 1;
  /** `start` makes one kernel worker (the page: `startWorker(<site>/kernel.js)`). */
  constructor(threads: number, start: () => WebWorker) {
    this.threads = Math.max(1, Math.floor(threads));
    this.workers = [];
    this.busy = [];
    for (let i = 0; i < this.threads; i++) {
      const w = start();
      w.onmessage = (e) => this.answered(i, e.data as KernelReply);
      w.onerror = (e) => {
        e.preventDefault?.();
        this.failed(i, new KernelWorkerError(`a kernel worker failed: ${e.message ?? 'unknown error'}`));
      };
      this.workers.push(w);
      this.busy.push(undefined);
    }
  }

  run(task: BatchTask, opts: TaskOptions = {}): Promise<Float64Array> {
    if (opts.signal?.aborted) return Promise.reject(new CancelledError());
    return new Promise<Float64Array>((resolve, reject) => {
      const w: Waiting = { id: this.nextId++, task, resolve, reject, signal: opts.signal };
      this.queue.push(w);
      opts.signal?.addEventListener(
        'abort',
        () => {
          const at = this.queue.indexOf(w);
          if (at >= 0) this.queue.splice(at, 1);
          reject(new CancelledError());
        },
        { once: true },
      );
      this.pump();
    });
  }

  async close(): Promise<void> {
    for (const w of this.workers) w.terminate();
    for (const q of this.queue.splice(0)) q.reject(new CancelledError());
  }

  private pump(): void {
    for (let i = 0; i < this.workers.length && this.queue.length > 0; i++) {
      if (this.busy[i]) continue;
      const w = this.queue.shift()!;
      this.busy[i] = w;
      this.workers[i].postMessage({ id: w.id, task: w.task });
    }
  }

  private answered(i: number, r: KernelReply): void {
    const w = this.busy[i];
    this.busy[i] = undefined;
    if (w && w.id === r.id && !w.signal?.aborted) {
      if ('out' in r) w.resolve(r.out);
      else w.reject(new KernelWorkerError(r.error));
    }
    this.pump();
  }

  private failed(i: number, e: Error): void {
    const w = this.busy[i];
    this.busy[i] = undefined;
    w?.reject(e);
    this.pump();
  }
}
