// Headless Chromium for the console's journeys (playwright-core driving Debian's `chromium`), the console's build,
// the service on an ephemeral port, and screenshots of every open page when a journey fails.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { beforeEach, describe } from 'vitest';
import { isCi } from './global-setup.js';
import type { TestApp } from './test-app.js';

export const CHROMIUM = process.env.SVC_TEST_CHROMIUM || '/usr/bin/chromium';
const ROOT = resolve(import.meta.dirname, '../..');
export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'console');

/**
 * The flags of every journey's browser. Playwright adds `--headless` and a fresh `--user-data-dir` (a new temp
 * profile per launch) itself; the rest keep Chromium from reaching out (updates, sync, field trials) and from QUIC.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let bannerShown = false;

/**
 * A describe block that needs the browser: skipped with a banner when Chromium is missing, as the PostgreSQL half is,
 * and failed instead under CI (`CI` set and not `false`/`0`), where `.ci/run` installs it.
 */
export function describeWithBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  if (isCi(process.env)) {
    describe(name, () => {
      throw new Error(
        `CI=${process.env.CI}: the console's journeys need Chromium at ${CHROMIUM} (apt-get install chromium)`,
      );
    });
    return;
  }
  if (!bannerShown) {
    bannerShown = true;
    console.warn(
      `\n*** Console browser journeys SKIPPED: no Chromium at ${CHROMIUM}.\n*** apt-get install chromium (or set SVC_TEST_CHROMIUM) to run them.\n`,
    );
  }
  describe.skip(name, body);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Builds console/dist when its sources are newer than the last build (a no-op after `npm test`'s build). */
export function ensureConsoleBuilt(): void {
  const run = spawnSync(process.execPath, [join(ROOT, 'scripts/build-if-changed.mjs'), '--console', ROOT], {
    stdio: 'inherit',
  });
  if (run.status !== 0) throw new Error(`the console's build failed (exit ${run.status})`);
}

/** Serves the test app on an ephemeral port of 127.0.0.1; answers its base URL. */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/**
 * Tracks the browser contexts of a file and, when a test fails, writes a screenshot of every page still open to
 * test-results/console/ and prints the paths.
 */
export function screenshotsOnFailure(prefix: string): { track(context: BrowserContext): BrowserContext } {
  const contexts = new Set<BrowserContext>();
  beforeEach((ctx) => {
    ctx.onTestFailed(async () => {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const slug = `${prefix}-${ctx.task.name}`.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 100);
      let n = 0;
      for (const context of contexts) {
        for (const page of context.pages()) {
          const path = join(SCREENSHOT_DIR, `${slug}-${++n}.png`);
          try {
            await page.screenshot({ path, fullPage: true });
            console.error(`screenshot of ${page.url()}: ${path}`);
          } catch (err) {
            console.error(`no screenshot of ${page.url()}: ${(err as Error).message}`);
          }
        }
      }
    });
  });
  return {
    track(context) {
      contexts.add(context);
      context.on('close', () => contexts.delete(context));
      return context;
    },
  };
}

/** Logs in through the console's login page as a user would. */
export async function logIn(page: Page, tenant: string, user: string, password: string): Promise<void> {
  await page.getByLabel('Tenant').fill(tenant);
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}
