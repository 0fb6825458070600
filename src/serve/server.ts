/**
 * `siegesim serve`: the designer workbench, a local HTTP server over src/api.ts (the CLI's
 * sibling) and the page it serves. Like the local dev servers designers know (Vite, Jupyter):
 *
 * - it listens on 127.0.0.1 unless asked otherwise, and answers only requests whose Host (and
 *   Origin, when sent) is its own, so a web page elsewhere cannot reach it (DNS rebinding);
 * - it serves its own page and assets (vega, vega-lite and vega-embed from node_modules: the page
 *   works with the network off) and the scenario files under the folders it was given, by name;
 * - every request is checked before it runs (size, JSON, fields, the scenario schemas) and gets a
 *   4xx with a message when it is wrong; an internal failure is a 500 without a stack trace;
 * - runs stream NDJSON and stop when superseded or when the connection closes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { networkInterfaces, hostname } from 'node:os';
import path from 'node:path';
import { packageFile } from '../paths.js';
import { errorText } from '../source-stack.js';
import type { Executor } from '../api.js';
import { Catalogue, type Root } from './catalogue.js';
import { Gate } from './gate.js';
import { streamLive, streamSweep, type JobContext } from './jobs.js';
import { checkValues, describeScenario, saveTuned } from './answers.js';
import { streamSensitivity, streamTune } from './tuning.js';
import { Admission } from './admission.js';
import { FIELDS, LIMITS, onlyKnown, parseBody, RequestError } from './requests.js';
import type { CheckAnswer, ErrorAnswer, SaveAnswer, ScenarioEntry, ScenarioInfo, ScenarioList } from '../api/protocol.js';

export interface WorkbenchOptions {
  roots: Root[];
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 4173; 0 picks a free one). */
  port?: number;
  /** Where chunks run (the CLI passes a worker pool). */
  executor: Executor;
  /** Server-side log (errors with their stacks); default stderr. */
  log?: (line: string) => void;
}

export interface Workbench {
  url: string;
  /** The served files (the command reads it at start to say which are broken). */
  catalogue: Catalogue;
  port: number;
  server: Server;
  /** Open runs and sweeps, clients with one, and the batches waiting and running (tests and logs). */
  stats(): { open: number; clients: number; waiting: number; running: number; preparing: number };
  /** Cancel every run, end every stream, stop listening. */
  close(): Promise<void>;
}

export const DEFAULT_PORT = 4173;

/** How long `/api/scenarios` waits for files being validated before listing them as pending. */
const LIST_WAIT_MS = 100;

/** The API's POST routes: the JSON answers, then the streamed jobs (one of each kind per tab). */
const POST_ROUTES = ['/api/save', '/api/check', '/api/run', '/api/sweep', '/api/sensitivity', '/api/tune'];
export const DEFAULT_HOST = '127.0.0.1';

/** Is the interface this machine only? */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The page's files: its own (src/serve/assets, found from src and from dist), its script (the
 * build's bundle of src/serve/page: scripts/build.mjs) and the vega builds.
 */
export function assetTable(): Map<string, { file: string; type: string }> {
  const candidates = [packageFile('src/serve/assets'), packageFile('dist/src/serve/assets')];
  const own = candidates.find((c) => existsSync(path.join(c, 'index.html')));
  if (!own) throw new Error(`workbench assets not found (looked in ${candidates.join(', ')})`);
  const page = packageFile('dist/page/app.js');
  if (!existsSync(page)) throw new Error(`the workbench page is not built (${page} is missing: npm run build makes it)`);
  const require = createRequire(import.meta.url);
  const embedDir = path.dirname(require.resolve('vega-embed'));
  const t = new Map<string, { file: string; type: string }>();
  const js = 'text/javascript; charset=utf-8';
  t.set('/', { file: path.join(own, 'index.html'), type: 'text/html; charset=utf-8' });
  t.set('/assets/app.js', { file: page, type: js });
  t.set('/assets/app.css', { file: path.join(own, 'app.css'), type: 'text/css; charset=utf-8' });
  t.set('/assets/icon.svg', { file: path.join(own, 'icon.svg'), type: 'image/svg+xml' });
  t.set('/assets/vega.min.js', { file: require.resolve('vega/build/vega.min.js'), type: js });
  t.set('/assets/vega-lite.min.js', { file: require.resolve('vega-lite/build/vega-lite.min.js'), type: js });
  t.set('/assets/vega-embed.min.js', { file: path.join(embedDir, 'vega-embed.min.js'), type: js });
  return t;
}

/** Content-Security-Policy of the page: nothing from elsewhere, no eval (charts use vega's interpreter). */
const CSP = "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Start the workbench; resolves once it listens. */
export async function startWorkbench(o: WorkbenchOptions): Promise<Workbench> {
  const host = o.host ?? DEFAULT_HOST;
  const log = o.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const assets = assetTable();
  const cache = new Map<string, Buffer>();
  const ctx: JobContext<Catalogue> = { catalogue: new Catalogue(o.roots, log), gate: new Gate(o.executor), clients: new Map(), open: new Set(), log, admission: new Admission(), started: new WeakMap() };
  let allowedHosts = new Set<string>();

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      const err = e instanceof RequestError ? e : undefined;
      if (!err) log(`siegesim serve: internal error on ${req.method} ${String(req.url).slice(0, 200)}: ${errorText(e)}`);
      if (res.headersSent) {
        res.end();
        return;
      }
      for (const [k, v] of Object.entries(err?.headers ?? {})) res.setHeader(k, v);
      sendJson(res, err?.status ?? 500, (err ? { error: err.message, issues: err.issues } : { error: 'internal error (the server log has the details)' }) satisfies ErrorAnswer);
    });
  });
  // A slow or stuck client cannot hold a request open forever (streams are responses, not requests).
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const t0 = performance.now();
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // --- who is asking: our own page on our own address, or nobody ---
    const hostHeader = req.headers.host;
    if (!hostHeader || !allowedHosts.has(hostHeader.toLowerCase())) {
      throw new RequestError(403, `host "${String(hostHeader ?? '').slice(0, 100)}" is not this workbench's address (open it as ${urlOf()})`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts.has(originHost(origin))) throw new RequestError(403, 'requests from other sites are refused');
    const url = parseUrl(req.url);
    const api = url.pathname.startsWith('/api/');
    if (api && req.headers['sec-fetch-site'] === 'cross-site') throw new RequestError(403, 'requests from other sites are refused');

    // --- the page and its assets ---
    if (!api) {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new RequestError(405, 'only GET here');
      const a = assets.get(url.pathname);
      if (!a) throw new RequestError(404, 'not found');
      let body = cache.get(a.file);
      if (!body) cache.set(a.file, (body = readFileSync(a.file)));
      res.writeHead(200, {
        'Content-Type': a.type,
        'Content-Length': body.length,
        'Cache-Control': url.pathname === '/' ? 'no-store' : 'max-age=3600',
        ...(url.pathname === '/' ? { 'Content-Security-Policy': CSP } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }

    // --- the API ---
    res.setHeader('Cache-Control', 'no-store');
    if (req.method === 'GET') {
      if (url.pathname === '/api/scenarios') return sendJson(res, 200, { scenarios: await listScenarios() } satisfies ScenarioList);
      if (url.pathname === '/api/scenario') return sendJson(res, 200, await describe(url.searchParams.get('path') ?? '', url.searchParams.get('variant') ?? undefined));
      if (POST_ROUTES.includes(url.pathname)) throw new RequestError(405, 'use POST with a JSON body');
      throw new RequestError(404, 'not found');
    }
    if (req.method !== 'POST') throw new RequestError(405, 'only GET and POST here');
    const route = url.pathname;
    if (!POST_ROUTES.includes(route)) throw new RequestError(404, 'not found');
    if (route === '/api/save' || route === '/api/check') {
      const body = parseBody(await readBody(req, res));
      onlyKnown(body, FIELDS[route.slice('/api/'.length) as keyof typeof FIELDS]);
      return sendJson(res, 200, route === '/api/save' ? await save(body) : await check(body));
    }
    const client = String(req.headers['x-siegesim-client'] ?? '');
    if (!/^[A-Za-z0-9_-]{8,64}$/.test(client)) throw new RequestError(400, 'the X-Siegesim-Client header (the tab\'s id) is missing or malformed');
    // admitted or refused from the headers alone, before the body is read (admission.ts)
    const leave = ctx.admission.enter(client);
    let prepared: (() => void) | undefined;
    const done = () => {
      leave();
      prepared?.();
    };
    res.once('close', done);
    try {
      prepared = await ctx.admission.preparing();
      if (res.destroyed) return; // the client went while it waited
      ctx.started.set(res, done);
      const body = parseBody(await readBody(req, res));
      onlyKnown(body, FIELDS[route.slice('/api/'.length) as keyof typeof FIELDS]);
      if (route === '/api/run') return await streamLive(ctx, client, body, req, res, t0);
      if (route === '/api/sensitivity') return await streamSensitivity(ctx, client, body, req, res, t0);
      if (route === '/api/tune') return await streamTune(ctx, client, body, req, res, t0);
      return await streamSweep(ctx, client, body, req, res, t0);
    } finally {
      done();
    }
  }

  /**
   * The served files, each with its validation: those not yet known are validated off this
   * thread (validator.ts), and a file still being validated after LIST_WAIT_MS is listed as
   * `pending` (its name only) rather than holding up the list.
   */
  async function listScenarios(): Promise<ScenarioEntry[]> {
    const entries = ctx.catalogue.entries();
    const loads = entries.map((e) => ctx.catalogue.loadAsync(e));
    await Promise.race([Promise.all(loads), new Promise((r) => setTimeout(r, LIST_WAIT_MS).unref())]);
    return entries.map((e) => {
      const l = ctx.catalogue.peek(e);
      if (!l) return { path: e.name, pending: true };
      return l.ok
        ? { path: e.name, name: l.scenario.name, system: l.scenario.system.id, description: l.scenario.description ?? '', variants: l.scenario.variantNames }
        : { path: e.name, error: l.issues.slice(0, 3).map((i) => `${i.line > 0 ? `line ${i.line}: ` : ''}${i.path}: ${i.message}`).join('; ') };
    });
  }

  const describe = (name: string, variant: string | undefined): Promise<ScenarioInfo> => describeScenario(ctx, name, variant);
  const check = (body: Record<string, unknown>): Promise<CheckAnswer> => checkValues(ctx, body);
  const save = (body: Record<string, unknown>): Promise<SaveAnswer> => saveTuned(ctx, body);

  function urlOf(): string {
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : o.port ?? DEFAULT_PORT;
    const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    return `http://${shown}:${port}/`;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? DEFAULT_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  allowedHosts = hostsFor(host, port);

  return {
    url: urlOf(),
    catalogue: ctx.catalogue,
    port,
    server,
    stats: () => ({ open: ctx.open.size, clients: ctx.clients.size, ...ctx.gate.load, preparing: ctx.admission.load.queued }),
    close: async () => {
      for (const ac of [...ctx.open]) ac.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await ctx.catalogue.close();
    },
  };
}

/** The Host values that name this server: its loopback names, and when bound wider, this machine's addresses. */
function hostsFor(host: string, port: number): Set<string> {
  const names = new Set<string>(['127.0.0.1', 'localhost', '[::1]']);
  if (host === '0.0.0.0' || host === '::') {
    for (const list of Object.values(networkInterfaces())) {
      for (const a of list ?? []) names.add(a.family === 'IPv6' ? `[${a.address.toLowerCase()}]` : a.address);
    }
    names.add(hostname().toLowerCase());
  } else names.add(host.includes(':') ? `[${host.toLowerCase()}]` : host.toLowerCase());
  const out = new Set<string>();
  for (const n of names) {
    out.add(`${n}:${port}`);
    if (port === 80) out.add(n);
  }
  return out;
}

/** `http://127.0.0.1:4173` -> `127.0.0.1:4173` (anything else, e.g. "null" or https, matches nothing). */
function originHost(origin: string): string {
  const m = /^http:\/\/([^/]+)$/i.exec(origin.trim());
  return m ? m[1].toLowerCase() : '\u0000';
}

function parseUrl(raw: string | undefined): URL {
  try {
    // Only the path and query are used; the base is never fetched.
    return new URL(raw ?? '/', 'http://workbench.invalid');
  } catch {
    throw new RequestError(400, 'malformed URL');
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}

/** The request body as text: JSON only, at most LIMITS.maxBody bytes (a 413 stops reading and closes the connection). */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<string> {
  const type = String(req.headers['content-type'] ?? '');
  if (!/^application\/json\s*(;|$)/i.test(type)) return Promise.reject(new RequestError(415, 'send the request as application/json'));
  const tooLarge = () => {
    res.setHeader('Connection', 'close');
    res.once('finish', () => req.socket.destroySoon());
    return new RequestError(413, `the request body is larger than ${LIMITS.maxBody} bytes`);
  };
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > LIMITS.maxBody) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (b: Buffer) => {
      if (failed) return;
      size += b.length;
      if (size > LIMITS.maxBody) {
        failed = true;
        reject(tooLarge());
        return;
      }
      parts.push(b);
    });
    req.on('end', () => failed || resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', (e) => failed || reject(new RequestError(400, `the request could not be read (${e.message})`)));
  });
}
