/**
 * Reading an NDJSON stream: text arrives in pieces that split lines anywhere; each whole line is
 * one JSON message. Pure (no DOM, no network): the transports feed it their bytes.
 */
import type { StreamMessage } from '../../api/protocol.js';

/** Splits text arriving in pieces into whole lines; `push` returns the lines a piece completes (blank ones skipped). */
export class LineSplitter {
  private buf = '';
  push(text: string): string[] {
    this.buf += text;
    const lines: string[] = [];
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.trim()) lines.push(line);
    }
    return lines;
  }
  /** What is left after the last newline (a stream that ends without one). */
  rest(): string {
    return this.buf;
  }
}

const TYPES: ReadonlySet<string> = new Set<StreamMessage['type']>(['start', 'partial', 'done', 'solving', 'progress', 'error']);

/** Is a parsed value one of the streams' messages (an object whose `type` the protocol names)? */
export function isMessage(x: unknown): x is StreamMessage {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && TYPES.has((x as { type?: unknown }).type as string);
}

/** One line as a message; a line that is not one is an error naming it. */
export function parseMessage<M extends StreamMessage = StreamMessage>(line: string): M {
  const x: unknown = JSON.parse(line);
  if (!isMessage(x)) throw new Error(`not a workbench message: ${line.slice(0, 200)}`);
  return x as M;
}

/** The messages of a byte stream, in order, as they arrive. */
export async function* messagesOf<M extends StreamMessage>(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<M> {
  const decoder = new TextDecoder();
  const lines = new LineSplitter();
  for await (const chunk of chunks) for (const line of lines.push(decoder.decode(chunk, { stream: true }))) yield parseMessage<M>(line);
  const last = lines.push(decoder.decode() + '\n');
  for (const line of last) yield parseMessage<M>(line);
}
