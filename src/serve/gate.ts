/**
 * One worker pool shared by every run of the workbench, with the waiting line kept here rather
 * than in the pool: a task starts only when a thread is free, live runs go before sweeps, and a
 * cancelled run's waiting tasks are dropped at once, and its running ones stopped if they have not
 * ended STOP_AFTER_MS later (engine/pool.ts). So a newer change waits at most for the batches
 * already running (tens of milliseconds), or that plus a thread's start if one is slow (a chunk
 * of minutes), never for a stale run's queue.
 */
import { CancelledError } from '../api.js';
import type { BatchTask, Executor } from '../api.js';

/** Lower runs first. */
export const PRIORITY = { live: 0, sweep: 1 } as const;

interface Waiting {
  task: BatchTask;
  priority: number;
  signal: AbortSignal;
  onAbort: () => void;
  resolve: (r: Float64Array) => void;
  reject: (e: unknown) => void;
}

export class Gate {
  private waiting: Waiting[] = [];
  private running = 0;
  constructor(
    private readonly pool: Executor,
    /** Tasks running at once (one per worker thread). */
    private readonly slots = Math.max(1, pool.threads),
  ) {}

  /**
   * An executor for one run: its tasks wait here and are dropped when `signal` aborts. It says
   * `threads: 0`, so the engine never runs a one-chunk job in the calling thread (the server's:
   * it would stall every other request) and keeps at most two batches of a run in flight.
   */
  for(signal: AbortSignal, priority: number): Executor {
    return {
      threads: 0,
      run: (task) => this.submit(task, signal, priority),
      close: async () => {},
    };
  }

  /** Tasks waiting and running (for tests and the status line). */
  get load(): { waiting: number; running: number } {
    return { waiting: this.waiting.length, running: this.running };
  }

  private submit(task: BatchTask, signal: AbortSignal, priority: number): Promise<Float64Array> {
    if (signal.aborted) return Promise.reject(new CancelledError());
    return new Promise<Float64Array>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(w);
        if (i >= 0) {
          this.waiting.splice(i, 1);
          reject(new CancelledError());
        }
      };
      const w: Waiting = { task, priority, signal, onAbort, resolve, reject };
      this.waiting.push(w);
      signal.addEventListener('abort', onAbort, { once: true });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.slots && this.waiting.length > 0) {
      let best = 0;
      for (let i = 1; i < this.waiting.length; i++) if (this.waiting[i].priority < this.waiting[best].priority) best = i;
      const w = this.waiting.splice(best, 1)[0];
      w.signal.removeEventListener('abort', w.onAbort);
      this.running++;
      this.pool.run(w.task, { signal: w.signal }).then(
        (r) => {
          this.running--;
          w.resolve(r);
          this.pump();
        },
        (e) => {
          this.running--;
          w.reject(e);
          this.pump();
        },
      );
    }
  }
}
