/**
 * The few browser globals the site's modules use, typed here: the project compiles against
 * Node's types (tsconfig.json), and these modules must also type-check there. Each is read from
 * `globalThis` where it is used, so importing this module in Node is harmless.
 */

/** A message as a worker or the page receives it. */
export interface Message<T = unknown> {
  data: T;
}

/** A dedicated Web Worker, as seen from the thread that started it. */
export interface WebWorker {
  postMessage(message: unknown): void;
  onmessage: ((e: Message) => void) | null;
  onerror: ((e: { message?: string; preventDefault?: () => void }) => void) | null;
  terminate(): void;
}

/** The global scope inside a dedicated worker. */
export interface WorkerScope {
  postMessage(message: unknown): void;
  onmessage: ((e: Message) => void) | null;
  /** The worker's own address (its siblings are found beside it). */
  location: { href: string };
  navigator: { hardwareConcurrency?: number };
}

/** Start a classic worker from a script address. */
export function startWorker(url: string): WebWorker {
  const W = (globalThis as unknown as { Worker: new (url: string, opts?: { name?: string }) => WebWorker }).Worker;
  return new W(url);
}

/** The scope of the worker this code runs in. */
export function workerScope(): WorkerScope {
  return globalThis as unknown as WorkerScope;
}
