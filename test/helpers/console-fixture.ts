// A service with users for the console's journeys, a browser, and API calls to set up and check what the pages show.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { ensureConsoleBuilt, launchBrowser, listen, logIn, screenshotsOnFailure } from './browser.js';
import { startTestApp, type Engine, type TestApp } from './test-app.js';

export const TENANT = 'default';
export const API_KEY = 'sk-console-journeys-0123456789abcdef';
export const USERS = {
  carla: { loginName: 'carla', password: 'carla-password-1', organisations: ['sales'] },
  dave: { loginName: 'dave', password: 'dave-password-1', organisations: ['support'] },
} as const;

/** The service's config for the journeys: two users and an API key (organisation sales) for set-up and checks. */
export const JOURNEY_CONFIG = {
  tenants: [
    {
      name: TENANT,
      users: Object.values(USERS).map((u) => ({ ...u, organisations: [...u.organisations] })),
      apiKeys: [{ name: 'robot', key: API_KEY, roles: ['ADMIN'], organisations: ['sales', 'support'] }],
    },
  ],
};

export interface ConsoleFixture {
  t: TestApp;
  base: string;
  browser: Browser;
  /** A new browser context (tracked for failure screenshots) with a page logged in as `user`, at `path`. */
  openAs(user: keyof typeof USERS, path: string): Promise<{ context: BrowserContext; page: Page }>;
  /** A call of the API with the robot's key; answers status and parsed body. */
  apiCall(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** Starts the service (app on an ephemeral port) and a browser for the file; closes both after it. */
export function consoleFixture(name: string, engine: Engine = 'sqlite'): ConsoleFixture {
  const shots = screenshotsOnFailure(name);
  const fixture = {} as ConsoleFixture;
  beforeAll(async () => {
    ensureConsoleBuilt();
    fixture.t = await startTestApp(engine, JOURNEY_CONFIG);
    fixture.base = await listen(fixture.t);
    fixture.browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await fixture.browser?.close();
    await fixture.t?.close();
  });
  fixture.openAs = async (user, path) => {
    const context = shots.track(await fixture.browser.newContext({ acceptDownloads: true }));
    const page = await context.newPage();
    await page.goto(`${fixture.base}/console/#${path}`);
    await logIn(page, TENANT, USERS[user].loginName, USERS[user].password);
    await page.getByRole('button', { name: 'Log out' }).waitFor();
    return { context, page };
  };
  fixture.apiCall = async (method, path, body) => {
    const res = await fetch(`${fixture.base}${path}`, {
      method,
      headers: { 'x-apikey': API_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return fixture;
}

/** A store id no other test uses. */
export function uniqueStore(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}

/** The pager's text, "1–3 of 3". */
export async function pagerText(page: Page): Promise<string> {
  return (await page.getByRole('navigation', { name: 'Pages' }).locator('span').first().textContent()) ?? '';
}

/** The ids in the items table, in order. */
export async function tableIds(page: Page): Promise<string[]> {
  return page.locator('table.items tbody tr td:nth-child(2)').allTextContents();
}
