// A store page follows the store's live stream: another user's change appears without a reload, an item that stops
// being readable disappears; on PostgreSQL a change made on instance A appears on a page served by instance B.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import {
  describeWithBrowser,
  ensureConsoleBuilt,
  launchBrowser,
  logIn,
  screenshotsOnFailure,
} from '../helpers/browser.js';
import {
  API_KEY,
  consoleFixture,
  JOURNEY_CONFIG,
  pagerText,
  TENANT,
  tableIds,
  uniqueStore,
  USERS,
} from '../helpers/console-fixture.js';
import { openTestDatabase } from '../helpers/test-app.js';

const STORAGE = '/cxf/svc-core/storage/store';
const SALES = { organisations: ['sales'] };

/** A session of a user through the API, as another browser would hold it. */
async function sessionOf(base: string, user: keyof typeof USERS) {
  const res = await fetch(`${base}/cxf/svc-core/authentication`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ tenantname: TENANT, username: USERS[user].loginName, password: USERS[user].password }),
  });
  const cookie = res.headers.getSetCookie()[0].split(';')[0];
  const record = (await res.json()) as { principals: Record<string, string[]> };
  const csrf = record.principals['X-Csrf-Token'][0];
  return (method: string, path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.status);
}

/** Marks the page so that a reload would show: the mark is gone after one. */
async function markNoReload(page: Page): Promise<() => Promise<boolean>> {
  await page.evaluate(() => {
    (globalThis as unknown as { __noReload: boolean }).__noReload = true;
  });
  return () => page.evaluate(() => (globalThis as unknown as { __noReload?: boolean }).__noReload === true);
}

describeWithBrowser('console live store page [sqlite]', () => {
  const f = consoleFixture('store-live');

  it("shows another user's new item and drops an item that becomes unreadable, without a reload", async () => {
    const store = uniqueStore('live');
    for (const id of ['l1', 'l2']) {
      const res = await f.apiCall('PUT', `${STORAGE}/${store}/${id}`, {
        value: { id },
        readRestriction: SALES,
        writeRestriction: { organisations: ['sales', 'support'] },
      });
      expect(res.status).toBe(200);
    }
    const { context, page } = await f.openAs('carla', `/stores/${store}`);
    await expect.poll(() => pagerText(page)).toBe('1–2 of 2');
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const stillSamePage = await markNoReload(page);

    // dave (organisation support) writes an item that carla's organisation may read.
    const dave = await sessionOf(f.base, 'dave');
    expect(
      await dave('PUT', `${STORAGE}/${store}/from-dave`, {
        value: { by: 'dave' },
        readRestriction: SALES,
        writeRestriction: { user: 'dave' },
      }),
    ).toBe(200);
    await expect.poll(() => tableIds(page), { timeout: 15_000 }).toEqual(['l1', 'l2', 'from-dave']);
    expect(await pagerText(page)).toBe('1–3 of 3');

    // dave takes l1 away from sales: it leaves carla's page.
    expect(
      await dave('PUT', `${STORAGE}/${store}/l1`, {
        value: { id: 'l1' },
        readRestriction: { organisations: ['support'] },
        writeRestriction: { organisations: ['support'] },
      }),
    ).toBe(200);
    await expect.poll(() => tableIds(page), { timeout: 15_000 }).toEqual(['l2', 'from-dave']);
    expect(await pagerText(page)).toBe('1–2 of 2');
    expect(await stillSamePage()).toBe(true);
    await context.close();
  }, 180_000);
});

(inject('pgUrl') ? describeWithBrowser : describe.skip)('console live store page on two instances [postgres]', () => {
  let database: Database;
  let second: Database;
  let a: App;
  let b: App;
  let baseA: string;
  let baseB: string;
  let browser: Browser;
  const shots = screenshotsOnFailure('store-live-two-instances');

  beforeAll(async () => {
    ensureConsoleBuilt();
    database = await openTestDatabase('postgres');
    const schema = await database.dialect.currentSchema(database.db);
    second = createDatabase({ logError: () => {}, url: inject('pgUrl'), dataDir: '', pgSchema: schema, poolSize: 3 });
    const config = parseConfig({
      ...JOURNEY_CONFIG,
      server: { logLevel: 'silent' },
      identity: { bootstrapAdminPassword: 'admin-pass-1' },
    });
    a = await buildApp(config, { database, logger: false });
    b = await buildApp(config, { database: second, logger: false });
    const urls: string[] = [];
    for (const app of [a, b]) {
      await app.app.listen({ host: '127.0.0.1', port: 0 });
      urls.push(`http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`);
    }
    [baseA, baseB] = urls;
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await a?.close();
    await b?.close();
    await second?.destroy();
    await database?.destroy();
  });

  it('a change made on instance A appears on the page served by instance B, and an unreadable item leaves it', async () => {
    const store = uniqueStore('two');
    const viaA = (method: string, path: string, body: unknown) =>
      fetch(`${baseA}${path}`, {
        method,
        headers: { 'x-apikey': API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.status);
    expect(
      await viaA('PUT', `${STORAGE}/${store}/first`, { value: 1, readRestriction: SALES, writeRestriction: SALES }),
    ).toBe(200);

    const context = shots.track(await browser.newContext());
    const page = await context.newPage();
    await page.goto(`${baseB}/console/#/stores/${store}`);
    await logIn(page, TENANT, USERS.carla.loginName, USERS.carla.password);
    await expect.poll(() => pagerText(page)).toBe('1–1 of 1');
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const stillSamePage = await markNoReload(page);

    expect(
      await viaA('PUT', `${STORAGE}/${store}/from-a`, { value: 2, readRestriction: SALES, writeRestriction: SALES }),
    ).toBe(200);
    await expect.poll(() => tableIds(page), { timeout: 15_000 }).toEqual(['first', 'from-a']);
    expect(
      await viaA('PUT', `${STORAGE}/${store}/first`, {
        value: 1,
        readRestriction: { organisations: ['support'] },
        writeRestriction: SALES,
      }),
    ).toBe(200);
    await expect.poll(() => tableIds(page), { timeout: 15_000 }).toEqual(['from-a']);
    expect(await pagerText(page)).toBe('1–1 of 1');
    expect(await stillSamePage()).toBe(true);
    await context.close();
  }, 180_000);
});
