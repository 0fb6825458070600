/**
 * vitest's global setup (vitest.config.ts): one Chromium for all the browser test files of a run,
 * instead of a launch per file (a connection costs about 1.3 s of CPU less than a launch). It is
 * started when a test first asks for it, not before: a run without browser tests starts none. The
 * test processes ask
 * a small HTTP server on 127.0.0.1 (its address given to them as `chromiumBroker`, see
 * `inject`) for the browser's WebSocket address; test/browser.ts's `launchBrowser` then connects
 * to it, and every page a file opens lives in a browser context of its own, closed with the
 * file's connection. A browser that has exited (a crash) is started again for the next file that
 * asks; a file that cannot reach the shared browser within a minute launches one of its own.
 * The browser is closed when the run ends.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import type { BrowserServer } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromiumServer } from './chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL that answers the shared Chromium's WebSocket address (absent: no shared browser). */
    chromiumBroker?: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!HAVE_CHROMIUM) return async () => undefined;
  let server: Promise<BrowserServer> | undefined;
  const live = async (): Promise<BrowserServer> => {
    const current = server;
    if (current) {
      const s = await current.catch(() => undefined);
      if (s && s.process().exitCode === null && s.process().signalCode === null) return s;
      if (server === current) server = undefined;
    }
    server ??= launchChromiumServer();
    return server;
  };
  const http = createServer((_req, res) => {
    live().then(
      (s) => res.writeHead(200, { 'content-type': 'text/plain' }).end(s.wsEndpoint()),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e)),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  project.provide('chromiumBroker', `http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
  return async () => {
    http.close();
    const s = await server?.catch(() => undefined);
    if (!s) return;
    // close() ends the browser and its pages; a browser that does not end is killed
    const timer = setTimeout(() => s.process().kill('SIGKILL'), 10_000);
    await s.close().catch(() => s.process().kill('SIGKILL'));
    clearTimeout(timer);
  };
}
