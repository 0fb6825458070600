/**
 * Reading a scenario file: the one path every reader takes (the command line's files and the
 * workbench's picker), so a file too large, UTF-16, not UTF-8 or not a file at all is named the
 * same way wherever it is opened.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { LIMITS } from './limits.js';
import { MSG } from './messages.js';
import type { ScenarioIssue } from './load.js';

/** A problem with the file as a whole (`file  (file)  message`, or at a line and column). */
export const fileIssue = (file: string, message: string, line = 0, col = 0): ScenarioIssue => ({ file, line, col, path: '(file)', message });
/** A problem with a folder given (`dir  (folder)  message`): not called a file. */
export const folderIssue = (dir: string, message: string): ScenarioIssue => ({ file: dir, line: 0, col: 0, path: '(folder)', message });
/** An error's code (ENOENT...), for MSG.fileUnreadable. */
export const errCode = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);

/** Line and column of a byte offset in a buffer (columns count bytes: the text is not UTF-8). */
function bytePos(buf: Buffer, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = buf.indexOf(10); i !== -1 && i < offset; i = buf.indexOf(10, i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}

/** Offset of the first byte that is not valid UTF-8 (or -1). */
function firstInvalidUtf8(buf: Buffer): number {
  for (let i = 0; i < buf.length; ) {
    const b = buf[i];
    const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (n === 0 || i + n > buf.length) return i;
    for (let k = 1; k < n; k++) if ((buf[i + k] & 0xc0) !== 0x80) return i;
    i += n;
  }
  return -1;
}

/** Why a path cannot be read as a file: a folder, a device, a pipe. */
class NotAFile extends Error {}
/** A file over the size limit: its size. */
class TooLarge extends Error {
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
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return { issue: fileIssue(file, MSG.utf16(), 1, 1) };
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) {
    const p = bytePos(bytes, bad);
    return { issue: fileIssue(file, MSG.invalidUtf8(), p.line, p.col) };
  }
  return { text: bytes.toString('utf8') };
}
