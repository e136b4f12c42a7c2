// The login journey in a real browser against the real service (SQLite): a wrong password, the right one, a deep
// link that survives a reload, a session that ends under the user and brings them back where they were, log out.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/axe.js';
import {
  describeWithBrowser,
  ensureConsoleBuilt,
  launchBrowser,
  listen,
  logIn,
  screenshotsOnFailure,
} from '../helpers/browser.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const TENANT = 'default';
const USER = { loginName: 'carla', password: 'carla-password-1', organisations: ['sales'] };

describeWithBrowser('console login journey [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  const shots = screenshotsOnFailure('login');

  beforeAll(async () => {
    ensureConsoleBuilt();
    t = await startTestApp('sqlite', { tenants: [{ name: TENANT, users: [USER] }] });
    base = await listen(t);
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('refuses a wrong password with the API message, logs in, keeps a deep link over a reload, logs out', async () => {
    const context = shots.track(await browser.newContext());
    const page = await context.newPage();
    await page.goto(`${base}/console/#/stores/orders`);

    // Not logged in: the login page, which remembers where the user wanted to go.
    await expect.poll(() => page.getByRole('heading', { name: 'Log in' }).isVisible()).toBe(true);
    expect(page.url()).toContain('#/login?next=%2Fstores%2Forders');
    await expectAccessible(page, 'login page');

    await logIn(page, TENANT, USER.loginName, 'not-the-password');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const refused = await fetch(`${base}/cxf/svc-core/authentication`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tenantname: TENANT, username: USER.loginName, password: 'not-the-password' }),
    });
    const apiMessage = ((await refused.json()) as { error: { message: string } }).error.message;
    expect(await alert.textContent()).toContain(apiMessage);
    await expectAccessible(page, 'login page with an error');

    await logIn(page, TENANT, USER.loginName, USER.password);
    await page.getByRole('heading', { name: 'Store orders' }).waitFor();
    expect(page.url()).toMatch(/#\/stores\/orders$/);
    await expect.poll(() => page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(true);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Stores' }).count()).toBe(1);

    // A reload keeps the session and the page.
    await page.reload();
    await page.getByRole('heading', { name: 'Store orders' }).waitFor();

    // Log out: back at login, and a reload stays there (the session is gone on the server too).
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect((await context.cookies()).filter((c) => c.name === 'svc_session' && c.value)).toHaveLength(0);
    await context.close();
  }, 180_000);

  it('sends a user whose session ended to login, then back to the page they were on', async () => {
    const context = shots.track(await browser.newContext());
    const page = await context.newPage();
    await page.goto(`${base}/console/`);
    await logIn(page, TENANT, USER.loginName, USER.password);
    await page.getByRole('heading', { name: 'Stores' }).waitFor();
    await page.goto(`${base}/console/#/stores/invoices`);
    await page.getByRole('heading', { name: 'Store invoices' }).waitFor();

    // The session ends on the server (as when it expires); the next call the page makes answers 401.
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session')!;
    const ended = await fetch(`${base}/cxf/svc-core/authentication`, {
      method: 'DELETE',
      headers: { cookie: `${cookie.name}=${cookie.value}`, 'x-csrf-token': await csrfOf(base, cookie.value) },
    });
    expect(ended.status).toBe(200);
    await page.getByRole('button', { name: 'Apply' }).click();

    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(page.url()).toContain('next=%2Fstores%2Finvoices');
    await logIn(page, TENANT, USER.loginName, USER.password);
    await page.getByRole('heading', { name: 'Store invoices' }).waitFor();
    await context.close();
  }, 180_000);
});

/** The CSRF token of a session, as the session check answers it. */
async function csrfOf(base: string, sessionId: string): Promise<string> {
  const res = await fetch(`${base}/cxf/svc-core/authentication`, { headers: { cookie: `svc_session=${sessionId}` } });
  const record = (await res.json()) as { principals: Record<string, string[]> };
  return record.principals['X-Csrf-Token'][0];
}
