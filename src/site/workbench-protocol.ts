/** Messages between the static site's workbench page (page/worker-transport.ts) and its workbench worker (workbench-worker.ts). */
import type { ErrorAnswer, StreamRoute } from '../api/protocol.js';

/** The page's requests to the workbench worker. */
export type WorkbenchRequest =
  | { id: number; op: 'scenarios' }
  | { id: number; op: 'scenario'; path: string; variant?: string }
  | { id: number; op: 'check' | 'save'; request: Record<string, unknown> }
  /** A scenario of your own (its file name and text): added to the list, or refused with its problems. */
  | { id: number; op: 'add'; name: string; text: string }
  | { id: number; op: 'stream'; route: StreamRoute; request: Record<string, unknown> }
  | { id: number; op: 'cancel' };

/** The worker's answers: a value, a refusal (an HTTP status and body, as the server's), a job's message, or a job's end. */
export type WorkbenchReply =
  | { id: number; value: unknown }
  | { id: number; refused: ErrorAnswer; status: number }
  | { id: number; message: unknown }
  | { id: number; end: true };

