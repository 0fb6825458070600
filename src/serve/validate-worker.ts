/**
 * The workbench's validation thread (see validator.ts): reads and validates one scenario file
 * at a time, off the server's thread, so that a file that takes seconds to expand never holds
 * up another request. Answers with the validation as plain data (its system by id).
 */
import { parentPort } from 'node:worker_threads';
import { validateFileText, type PlainValidation } from './validator.js';

parentPort!.on('message', (msg: { id: number; abs: string; display: string }) => {
  let out: PlainValidation;
  try {
    out = validateFileText(msg.abs, msg.display);
  } catch (e) {
    out = { error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage({ id: msg.id, out });
});
