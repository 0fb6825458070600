/**
 * A scenario file's bytes as text, wherever they were read (a file at the command line or the
 * workbench, bytes fetched by a page): UTF-16 and text that is not UTF-8 are named as such, at
 * the first bad byte, the same way everywhere. Reading the bytes is the edges' work (api/read.ts).
 */
import { MSG } from './messages.js';
import type { ScenarioIssue } from './load.js';

/** A problem with the file as a whole (`file  (file)  message`, or at a line and column). */
export const fileIssue = (file: string, message: string, line = 0, col = 0): ScenarioIssue => ({ file, line, col, path: '(file)', message });
/** A problem with a folder given (`dir  (folder)  message`): not called a file. */
export const folderIssue = (dir: string, message: string): ScenarioIssue => ({ file: dir, line: 0, col: 0, path: '(folder)', message });

/** Line and column of a byte offset (columns count bytes: the text is not UTF-8). */
function bytePos(bytes: Uint8Array, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = bytes.indexOf(10); i !== -1 && i < offset; i = bytes.indexOf(10, i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}

/** Offset of the first byte that is not valid UTF-8 (or -1). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (n === 0 || i + n > bytes.length) return i;
    for (let k = 1; k < n; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    i += n;
  }
  return -1;
}

/** UTF-8 as it is, a byte-order mark kept (the YAML parser reads it). */
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A scenario file's bytes as UTF-8 text, or the issue that says why they are not. */
export function decodeScenario(file: string, bytes: Uint8Array): { text?: string; issue?: ScenarioIssue } {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return { issue: fileIssue(file, MSG.utf16(), 1, 1) };
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) {
    const p = bytePos(bytes, bad);
    return { issue: fileIssue(file, MSG.invalidUtf8(), p.line, p.col) };
  }
  return { text: UTF8.decode(bytes) };
}
