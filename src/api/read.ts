/**
 * Reading a scenario file: the one path every reader takes (the command line's files and the
 * workbench's picker), so a file too large, UTF-16, not UTF-8 or not a file at all is named the
 * same way wherever it is opened. The file system is read here, at the edge; the bytes are
 * judged by scenario/decode.ts.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { LIMITS } from '../scenario/limits.js';
import { MSG } from '../scenario/messages.js';
import type { ScenarioIssue } from '../scenario/load.js';
import { decodeScenario, fileIssue } from '../scenario/decode.js';

/** An error's code (ENOENT...), for MSG.fileUnreadable. */
export const errCode = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);

/** Why a path cannot be read as a file: a folder, a device, a pipe. */
export class NotAFile extends Error {}
/** A file over the size limit: its size. */
export class TooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`the file is ${bytes} bytes`);
  }
}

/**
 * A regular file's bytes, at most `max` of them (else TooLarge, from its size alone: nothing is
 * read). Folders, devices and pipes are refused without waiting on them.
 */
export function readRegularFile(file: string, max = Infinity): Buffer {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotAFile('not a regular file (a folder, a device or a pipe)');
    if (st.size > max) throw new TooLarge(st.size);
    const cap = Number.isFinite(max) ? max + 1 : st.size;
    const buf = Buffer.alloc(cap);
    let n = 0;
    for (let r; n < buf.length && (r = readSync(fd, buf, n, buf.length - n, null)) > 0; ) n += r;
    if (n > max) throw new TooLarge(n); // grew while being read
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/**
 * Read a scenario file as UTF-8 text. Files over `LIMITS.fileBytes` are refused from their size
 * alone (nothing is read), as are folders, devices and pipes; UTF-16 and text that is not UTF-8
 * are named as such, at the first bad byte.
 */
export function readText(file: string): { text?: string; issue?: ScenarioIssue } {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file, LIMITS.fileBytes);
  } catch (e) {
    if (e instanceof NotAFile) return { issue: fileIssue(file, MSG.notAFile()) };
    if (e instanceof TooLarge) return { issue: fileIssue(file, MSG.fileTooLarge(e.bytes, LIMITS.fileBytes)) };
    return { issue: fileIssue(file, MSG.fileUnreadable(errCode(e))) };
  }
  return decodeScenario(file, bytes);
}
