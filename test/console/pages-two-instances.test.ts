// The live parts of the notification pages across instances (PostgreSQL, two instances on one database): a
// notification sent from the console served by instance A appears, with the bell count, on a page served by instance
// B; the maintenance switch flipped on A shows its banner on B and clears when it is off.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { expectAccessible } from '../helpers/axe.js';
import {
  describeWithBrowser,
  ensureConsoleBuilt,
  launchBrowser,
  logIn,
  screenshotsOnFailure,
} from '../helpers/browser.js';
import { ADMIN_PASSWORD, openTestDatabase } from '../helpers/test-app.js';

const TENANT = 'default';
const NORA = { loginName: 'nora', password: 'nora-password-1', roles: ['ADMIN', 'NOTIFICATION_ADMIN'] };
const PAUL = { loginName: 'paul', password: 'paul-password-1', roles: ['clerk'] };

async function serve(app: App): Promise<string> {
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

describeWithBrowser('console notification pages on two instances [postgres]', () => {
  if (!inject('pgUrl')) {
    it.skip('needs PostgreSQL', () => {});
    return;
  }
  let database: Database;
  let second: Database;
  let a: App;
  let b: App;
  let baseA: string;
  let baseB: string;
  let browser: Browser;
  const shots = screenshotsOnFailure('pages-two-instances');

  beforeAll(async () => {
    ensureConsoleBuilt();
    database = await openTestDatabase('postgres');
    const schema = await database.dialect.currentSchema(database.db);
    second = createDatabase({ logError: () => {}, url: inject('pgUrl'), dataDir: '', pgSchema: schema, poolSize: 3 });
    const config = parseConfig({
      server: { logLevel: 'silent' },
      identity: { bootstrapAdminPassword: ADMIN_PASSWORD },
      tenants: [{ name: TENANT, users: [NORA, PAUL] }],
    });
    a = await buildApp(config, { database, logger: false });
    b = await buildApp(config, { database: second, logger: false });
    baseA = await serve(a);
    baseB = await serve(b);
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await a?.close();
    await b?.close();
    await second?.destroy();
    await database?.destroy();
  });

  async function openAs(base: string, user: { loginName: string; password: string }, path: string, heading: string) {
    const context = shots.track(await browser.newContext());
    const page = await context.newPage();
    await page.goto(`${base}/console/#${path}`);
    await logIn(page, TENANT, user.loginName, user.password);
    await page.getByRole('heading', { name: heading, exact: true }).waitFor();
    return { context, page };
  }
  const waitForStream = (page: Page) => page.locator('a.bell[data-stream="live"]').waitFor({ timeout: 15_000 });
  const bellCount = (page: Page) => page.getByTestId('bell-count').textContent();

  it('a notification sent on instance A appears live on a page of instance B; maintenance too', async () => {
    const paul = await openAs(baseB, PAUL, '/notifications', 'Notifications');
    const nora = await openAs(baseA, NORA, '/notifications', 'Notifications');
    await waitForStream(paul.page);
    await expect.poll(() => bellCount(paul.page)).toBe('0');

    const subject = `Across instances ${Date.now()}`;
    await nora.page.getByLabel('Subject').fill(subject);
    await nora.page.getByLabel('Message').fill('Sent on A, read on B.');
    await nora.page.getByLabel('Recipients are').selectOption('role');
    await nora.page.getByLabel('Recipients', { exact: true }).fill('clerk');
    await nora.page.getByRole('button', { name: 'Send notification' }).click();

    await paul.page.getByRole('table', { name: 'Inbox' }).getByRole('row').filter({ hasText: subject }).waitFor();
    await expect.poll(() => bellCount(paul.page)).toBe('1');
    await expectAccessible(paul.page, 'notifications page on instance B');

    // Maintenance switched on A: B's page shows the banner, and loses it when A switches it off.
    await nora.page.goto(`${baseA}/console/#/maintenance`);
    const toggle = nora.page.getByRole('switch', { name: 'Maintenance mode' });
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('false');
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    const banner = paul.page.getByRole('status').filter({ hasText: 'Maintenance:' });
    await banner.waitFor({ timeout: 15_000 });
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('false');
    await banner.waitFor({ state: 'detached', timeout: 15_000 });
    await waitForStream(paul.page);
    await paul.context.close();
    await nora.context.close();
  }, 180_000);
});
