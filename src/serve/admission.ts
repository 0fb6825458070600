/**
 * Admission control of the workbench's jobs, so that a flood of heavy requests from many
 * client ids neither leaves requests without an answer nor holds up the scenario list. A job request is admitted or refused from its headers alone, before its body is
 * read: each client (tab id) may have ADMISSION.perClientQueued requests being prepared, and
 * the server ADMISSION.queued in all; beyond them the answer is 429 (that client) or 503 (the
 * server), each with Retry-After, at the cost of a header check. Admitted requests are prepared
 * (scenario, values, cases compiled) one at a time, each after a turn of the event loop, so
 * a page, an asset or a probe waits at most for one preparation, never for a queue of them;
 * the simulation itself runs on the worker pool, and at most LIMITS.maxStreams jobs run at
 * once (jobs.ts `admit`, 503 beyond).
 */
import { RequestError } from './requests.js';

export const ADMISSION = {
  /** Job requests one client may have waiting for, or in, preparation. A tab sends one per kind (run, sweep, sensitivity, tune), and a newer one replaces the older. */
  perClientQueued: 8,
  /** Job requests waiting for, or in, preparation over all clients. */
  queued: 16,
  /** Seconds a refused client is asked to wait (Retry-After). */
  retryClientSeconds: 1,
  /** Seconds every client is asked to wait when the server is full. */
  retryServerSeconds: 2,
} as const;

export class Admission {
  private readonly byClient = new Map<string, number>();
  private total = 0;
  private chain: Promise<void> = Promise.resolve();

  /**
   * Admit a job request of `client`, or throw a 429/503 RequestError with Retry-After. The
   * returned release must be called once the request's preparation is over (admitted or not).
   */
  enter(client: string): () => void {
    const mine = this.byClient.get(client) ?? 0;
    if (mine >= ADMISSION.perClientQueued) {
      throw new RequestError(429, `this tab has ${mine} requests waiting; wait for them, or send fewer`, [], { 'Retry-After': String(ADMISSION.retryClientSeconds) });
    }
    if (this.total >= ADMISSION.queued) {
      throw new RequestError(503, `the workbench is busy (${this.total} requests waiting); try again shortly`, [], { 'Retry-After': String(ADMISSION.retryServerSeconds) });
    }
    this.byClient.set(client, mine + 1);
    this.total++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.total--;
      const n = (this.byClient.get(client) ?? 1) - 1;
      if (n > 0) this.byClient.set(client, n);
      else this.byClient.delete(client);
    };
  }

  /**
   * Wait for the preparations admitted before this one to end, and a turn of the event loop
   * (so a waiting page or probe is answered between two of them); the returned function ends
   * this one (when its job starts, or its request fails).
   */
  async preparing(): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const before = this.chain;
    this.chain = before.then(() => mine);
    await before;
    await new Promise((r) => setImmediate(r));
    return release;
  }

  get load(): { queued: number; clients: number } {
    return { queued: this.total, clients: this.byClient.size };
  }
}
