/**
 * How the page reaches the workbench: a `Transport` answers the page's questions (the scenarios,
 * one scenario's controls, a check, a save) and streams its jobs as protocol messages
 * (src/api/protocol.ts). `httpTransport` is the one `siegesim serve` answers: JSON and NDJSON over
 * fetch. Another (the kernels in the browser's workers, say) is another entry's `startPage(t)`.
 */
import type { CheckAnswer, CheckRequest, ErrorAnswer, SaveAnswer, SaveRequest, ScenarioEntry, ScenarioInfo, ScenarioList, StreamRoute, StreamRoutes } from '../../api/protocol.js';
import { messagesOf } from './ndjson.js';

/** A refused request: the answer's message, its issues, and its HTTP status. */
export class TransportError extends Error {
  constructor(
    readonly body: ErrorAnswer,
    readonly status: number,
  ) {
    super(body.error || `HTTP ${status}`);
  }
}

export interface Transport {
  /**
   * A live run's stream refuses values the scenario cannot take with the issues `check` gives
   * (422), so the page need not ask `check` first. Over HTTP the page asks anyway: a value being
   * typed is then not a failed request in the browser's console. A worker has no such console,
   * and the round trip delays the first number.
   */
  readonly streamChecksValues?: boolean;
  scenarios(): Promise<ScenarioList>;
  scenario(path: string, variant?: string): Promise<ScenarioInfo>;
  check(request: CheckRequest): Promise<CheckAnswer>;
  save(request: SaveRequest): Promise<SaveAnswer>;
  /**
   * Add a scenario of your own (a file's name and its YAML) to the list: its entry, or a
   * TransportError whose issues are its problems in the command line's words
   * (`file:line:col  path  message`). Only where the workbench can hold one (the static site).
   */
  addScenario?(name: string, text: string): Promise<ScenarioEntry>;
  /**
   * A job's messages in order, ending after `done` or `error`. A refusal before the job starts
   * rejects with a TransportError; `signal` cancels it (an AbortError), as does a newer job of
   * the same route from this page.
   */
  stream<R extends StreamRoute>(route: R, request: StreamRoutes[R]['request'], signal: AbortSignal): AsyncIterable<StreamRoutes[R]['message']>;
}

/** This tab's id, sent with every job so the server keeps one of each kind per tab. */
export function tabId(): string {
  // an identifier, not dice: from the browser's crypto (getRandomValues also where randomUUID is
  // missing, on a plain-http page served beyond this machine), never from a non-cryptographic generator
  return crypto.randomUUID
    ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The page's transport to `siegesim serve` (same origin: /api/...). */
export function httpTransport(client = tabId()): Transport {
  const answer = async <T>(r: Response): Promise<T> => {
    const body = (await r.json().catch(() => ({ error: `HTTP ${r.status}` }))) as T & ErrorAnswer;
    if (!r.ok) throw new TransportError(body, r.status);
    return body;
  };
  const get = async <T>(url: string): Promise<T> => answer<T>(await fetch(url, { headers: { Accept: 'application/json' } }));
  const post = (url: string, payload: unknown, signal?: AbortSignal) =>
    fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Siegesim-Client': client }, body: JSON.stringify(payload), signal });
  return {
    scenarios: () => get<ScenarioList>('/api/scenarios'),
    scenario: (path, variant) => get<ScenarioInfo>(`/api/scenario?path=${encodeURIComponent(path)}${variant ? `&variant=${encodeURIComponent(variant)}` : ''}`),
    check: async (request) => answer<CheckAnswer>(await post('/api/check', request)),
    save: async (request) => answer<SaveAnswer>(await post('/api/save', request)),
    async *stream(route, request, signal) {
      const r = await post(`/api/${route}`, request, signal);
      if (!r.ok) await answer<never>(r); // throws the refusal
      if (r.body) yield* messagesOf(chunksOf(r.body));
    },
  };
}

/** A fetch body's chunks as an async iterable. */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    yield value;
  }
}

let current: Transport | undefined;

/** The page's transport (startPage sets it before anything asks). */
export function transport(): Transport {
  if (!current) throw new Error('the page has no transport: start it with startPage');
  return current;
}

export function setTransport(t: Transport): void {
  current = t;
}
