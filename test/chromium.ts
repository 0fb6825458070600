/**
 * Where the system Chromium is and how it is started, for test/browser.ts (in the test workers)
 * and test/chromium-server.ts (vitest's global setup). No vitest import: the global setup runs
 * outside any test file.
 */
import { existsSync } from 'node:fs';
import type { Browser, BrowserServer } from 'playwright-core';

/** The system Chromium (override with SIEGESIM_CHROMIUM). */
export const CHROMIUM = process.env.SIEGESIM_CHROMIUM ?? '/usr/bin/chromium';

/** True when the browser tests can run on this machine. */
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Headless, with the flags this closed network needs (no background fetches). */
const LAUNCH = {
  executablePath: CHROMIUM,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
  ],
};

/** A Chromium of the caller's own, driven over a pipe; it ends with the caller. */
export async function launchOwnChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch(LAUNCH);
}

/** A Chromium that test processes connect to over a WebSocket (`wsEndpoint()`). */
export async function launchChromiumServer(): Promise<BrowserServer> {
  const { chromium } = await import('playwright-core');
  return chromium.launchServer(LAUNCH);
}
