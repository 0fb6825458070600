/**
 * The static site's workbench worker: answers the workbench page's Transport
 * (page/worker-transport.ts) as `siegesim serve` answers its HTTP API, with the server's own
 * code — serve/answers.ts for a scenario's controls, checks and saves, serve/jobs.ts for the
 * live run and the sweep, serve/tuning.ts for the ranking of what matters and the tuning search —
 * on the site's scenarios (scenarios/index.json and the files beside it, and the scenarios of
 * your own the page adds) and a gate over one kernel worker per core. A job's NDJSON lines are
 * posted to the page one message at a time; the page's cancel closes the job as a closed
 * connection does.
 */
import { validateText } from '../api/run.js';
import { formatIssue } from '../scenario/load.js';
import { showCount } from '../report/format.js';
import { Gate } from '../serve/gate.js';
import { Admission } from '../serve/admission.js';
import { FIELDS, onlyKnown, RequestError } from '../serve/requests.js';
import { streamLive, streamSweep, type JobContext, type JobRequest, type JobResponse, type ScenarioSource } from '../serve/jobs.js';
import { checkValues, describeScenario, saveTuned } from '../serve/answers.js';
import { streamSensitivity, streamTune } from '../serve/tuning.js';
import type { Entry, Loaded } from '../serve/catalogue.js';
import type { ScenarioEntry, StreamRoute } from '../api/protocol.js';
import type { SiteScenario } from '../api/site.js';
import { WebWorkerExecutor } from './web-executor.js';
import { startWorker, workerScope, type Message } from './browser.js';
import type { WorkbenchReply, WorkbenchRequest } from './workbench-protocol.js';
import { MAX_OWN_TEXT, ownFileName } from './own-scenario.js';

const scope = workerScope();
const post = (r: WorkbenchReply) => scope.postMessage(r);
const threads = Math.max(1, Math.min(16, scope.navigator.hardwareConcurrency ?? 2));
const executor = new WebWorkerExecutor(threads, () => startWorker(new URL('kernel.js', scope.location.href).href));

/** A scenario's text validated as the site's files are (stale `expect:` items left out, as `serve` leaves them). */
function loadedOf(entry: Entry, text: string): Loaded {
  const v = validateText(entry.display, text, { staleExpect: 'warn' });
  return v.ok ? { ok: true, entry, text, scenario: v.value } : { ok: false, entry, issues: v.issues.filter((i) => !i.stale) };
}

/**
 * The site's scenarios: listed in scenarios/index.json beside the page, each fetched and validated
 * when first asked for; and the scenarios of your own (pasted, dropped or carried by a link),
 * named `yours/<file>`, held here as the files are.
 */
class SiteScenarios implements ScenarioSource {
  list: SiteScenario[] = [];
  private entries: Entry[] = [];
  private own: ScenarioEntry[] = [];
  private loaded = new Map<string, Promise<Loaded>>();
  readonly ready: Promise<void> = fetch(new URL('scenarios/index.json', scope.location.href).href).then(async (r) => {
    if (!r.ok) throw new Error(`scenarios/index.json: HTTP ${r.status}`);
    this.list = ((await r.json()) as { scenarios: SiteScenario[] }).scenarios;
    this.entries = this.list.map((s) => ({ name: s.path, abs: s.path, display: s.path }));
  });
  /** The picker's list: the site's files, then yours. */
  scenarios(): ScenarioEntry[] {
    return [...this.list.map((s) => ({ path: s.path, name: s.name, system: s.system, description: s.description ?? '', variants: s.variantNames })), ...this.own];
  }
  find(name: unknown): Entry | undefined {
    return this.entries.find((e) => e.name === name);
  }
  loadAsync(entry: Entry): Promise<Loaded> {
    let p = this.loaded.get(entry.name);
    if (!p) {
      p = fetch(new URL(entry.name, scope.location.href).href).then(async (r): Promise<Loaded> => {
        if (!r.ok) return { ok: false, entry, issues: [{ file: entry.display, line: 0, col: 0, path: '(file)', message: `cannot be read (HTTP ${r.status})` }] };
        return loadedOf(entry, await r.text());
      });
      this.loaded.set(entry.name, p);
    }
    return p;
  }
  /**
   * A scenario of your own: validated with the command line's messages (a 422 listing them, each
   * `file:line:col  path  message`, when it has errors, and nothing added), else added to the
   * list as `yours/<file>` (replacing one of that name).
   */
  add(name: string, text: string): ScenarioEntry {
    const file = ownFileName(name);
    if (text.length > MAX_OWN_TEXT) throw new RequestError(413, `${file} has ${showCount(text.length)} characters: a scenario is a few kilobytes (at most ${showCount(MAX_OWN_TEXT)})`);
    const entry: Entry = { name: `yours/${file}`, abs: `yours/${file}`, display: file };
    const l = loadedOf(entry, text);
    if (!l.ok) throw new RequestError(422, `${file} is not a valid scenario`, l.issues.map((i) => ({ path: i.path, message: formatIssue(i) })));
    const v = l.scenario;
    const listed: ScenarioEntry = { path: entry.name, name: v.name, system: v.system.id, description: v.description ?? '', variants: v.variantNames };
    this.entries = [...this.entries.filter((e) => e.name !== entry.name), entry];
    this.own = [...this.own.filter((e) => e.path !== entry.name), listed];
    this.loaded.set(entry.name, Promise.resolve(l));
    return listed;
  }
}

const catalogue = new SiteScenarios();
const ctx: JobContext<SiteScenarios> = {
  catalogue,
  gate: new Gate(executor),
  clients: new Map(),
  open: new Set(),
  log: (line) => console.error(line),
  admission: new Admission(),
  started: new WeakMap(),
};
/** The page is one tab: one client, so a newer job of a kind cancels the older, as the server does per tab. */
const CLIENT = 'site-page';
const jobs = new Map<number, () => void>();
/** Each streamed route's job, as the server routes POST /api/<route>. */
const STREAMS: Record<StreamRoute, typeof streamLive> = { run: streamLive, sweep: streamSweep, sensitivity: streamSensitivity, tune: streamTune };

/** A job's connection: its NDJSON lines become messages to the page; a cancel closes it. */
function connection(id: number): { req: JobRequest; res: JobResponse; close: () => void } {
  const onClose: (() => void)[] = [];
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    for (const f of onClose) f();
  };
  const res: JobResponse = {
    on: (_event, f) => onClose.push(f),
    writeHead: () => undefined,
    write: (chunk) => {
      for (const line of chunk.split('\n')) if (line !== '') post({ id, message: JSON.parse(line) as unknown });
    },
    end: () => {
      post({ id, end: true });
      close();
    },
  };
  return { req: { on: (_event, f) => onClose.push(f) }, res, close };
}

function refuse(id: number, e: unknown): void {
  if (e instanceof RequestError) post({ id, refused: { error: e.message, ...(e.issues.length > 0 ? { issues: e.issues } : {}) }, status: e.status });
  else post({ id, refused: { error: `the workbench worker failed: ${e instanceof Error ? e.message : String(e)}` }, status: 500 });
}

async function answer(req: WorkbenchRequest): Promise<void> {
  await catalogue.ready;
  if (req.op === 'scenarios') {
    return post({ id: req.id, value: { scenarios: catalogue.scenarios() } });
  }
  if (req.op === 'add') {
    if (typeof req.name !== 'string' || typeof req.text !== 'string') throw new RequestError(400, 'a scenario of your own needs its name and its text');
    return post({ id: req.id, value: catalogue.add(req.name, req.text) });
  }
  if (req.op === 'scenario') return post({ id: req.id, value: await describeScenario(ctx, req.path, req.variant) });
  if (req.op === 'check' || req.op === 'save') {
    onlyKnown(req.request, FIELDS[req.op]);
    return post({ id: req.id, value: req.op === 'check' ? await checkValues(ctx, req.request) : await saveTuned(ctx, req.request) });
  }
  if (req.op === 'stream') {
    const run = Object.hasOwn(STREAMS, req.route) ? STREAMS[req.route] : undefined;
    if (!run) throw new RequestError(404, `no job "${String(req.route).slice(0, 50)}"`);
    onlyKnown(req.request, FIELDS[req.route]);
    const c = connection(req.id);
    jobs.set(req.id, c.close);
    try {
      await run(ctx, CLIENT, req.request, c.req, c.res, performance.now());
    } finally {
      jobs.delete(req.id);
    }
  }
}

scope.onmessage = (e: Message) => {
  const req = e.data as WorkbenchRequest;
  if (req.op === 'cancel') return jobs.get(req.id)?.();
  answer(req).catch((err: unknown) => refuse(req.id, err));
};
