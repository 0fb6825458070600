/**
 * Reading and validating the served files off the server's thread, so that a file
 * slow to validate holds up neither the scenario list nor a static asset.
 * One worker thread validates files one at a time; the server's thread only stats a file and
 * waits. A validation comes back as plain data (structured-cloned: the sweep's cases, the
 * expect: targets) with its system named by id, and is made whole again here. Where the built
 * worker is missing (tests from the TypeScript sources), files are validated in this thread,
 * each after a turn of the event loop.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { validateText, type ValidScenario, MSG, systemById } from '../api.js';
import { fromSources, packageFile } from '../paths.js';
import { readText } from '../api/read.js';
import type { ScenarioIssue } from '../api.js';

/** A file's validation as data a thread can send: its text and scenario (system by id), or its problems. */
export type PlainValidation =
  | { ok: true; text: string; value: Omit<ValidScenario, 'system'> & { system: string } }
  | { ok: false; issues: ScenarioIssue[] }
  | { error: string };

export type FileValidation = { ok: true; text: string; value: ValidScenario } | { ok: false; issues: ScenarioIssue[] };

/** Read and validate one file as the command line would (the worker's job; also the fallback here). */
export function validateFileText(abs: string, display: string): PlainValidation {
  // read as the command line reads it (size, folders and pipes, UTF-16, UTF-8): the same words for the same file
  const read = readText(abs);
  if (read.issue) return { ok: false, issues: [{ ...read.issue, file: display }] };
  let v: ReturnType<typeof validateText>;
  try {
    // an expect: item the file no longer matches is for `siegesim test` to refuse: the workbench opens it
    v = validateText(display, read.text!, { staleExpect: 'warn' });
  } catch (e) {
    // A parser failure on hostile text is this file's problem, never the server's.
    return { ok: false, issues: [{ file: display, line: 0, col: 0, path: '(file)', message: MSG.yamlSyntax((e as Error).message.split('\n')[0]) }] };
  }
  if (!v.ok) return { ok: false, issues: v.issues };
  return { ok: true, text: read.text!, value: { ...v.value, system: v.value.system.id } };
}

function whole(p: PlainValidation, display: string): FileValidation {
  if ('error' in p) throw new Error(`validating ${display} failed: ${p.error}`);
  if (!p.ok) return p;
  const system = systemById(p.value.system);
  if (!system) throw new Error(`validating ${display}: unknown system ${p.value.system}`);
  return { ok: true, text: p.text, value: { ...p.value, system } };
}

export class Validator {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (v: PlainValidation) => void; reject: (e: Error) => void }>();

  /** Validate a file; never on the calling thread when the built worker is there. */
  async validate(abs: string, display: string): Promise<FileValidation> {
    const w = this.thread();
    if (!w) {
      await new Promise((r) => setImmediate(r));
      return whole(validateFileText(abs, display), display);
    }
    w.ref();
    const plain = await new Promise<PlainValidation>((resolve, reject) => {
      const id = this.nextId++;
      this.waiting.set(id, { resolve, reject });
      w.postMessage({ id, abs, display });
    });
    return whole(plain, display);
  }

  private thread(): Worker | undefined {
    if (this.worker) return this.worker;
    if (fromSources()) return undefined;
    const file = packageFile('dist/src/serve/validate-worker.js');
    if (!existsSync(file)) return undefined;
    const w = new Worker(file);
    w.on('message', (m: { id: number; out: PlainValidation }) => {
      const p = this.waiting.get(m.id);
      if (!p) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) w.unref();
      p.resolve(m.out);
    });
    w.on('error', (e) => {
      for (const p of this.waiting.values()) p.reject(e);
      this.waiting.clear();
      if (this.worker === w) this.worker = undefined;
    });
    w.on('exit', () => {
      for (const p of this.waiting.values()) p.reject(new Error('the validation thread stopped'));
      this.waiting.clear();
      if (this.worker === w) this.worker = undefined;
    });
    w.unref();
    this.worker = w;
    return w;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
