// The identity administration pages in a real browser against the real service (SQLite): the bootstrap admin
// (TENANT_ADMIN) finds a user, changes its roles, sets its password, ends its sessions, deactivates, unlocks and
// deletes users, and creates, copies, expires and revokes an API key; each change checked over HTTP. A user without
// TENANT_ADMIN sees none of it and the API refuses them. axe-core on every page.
import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
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
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../helpers/test-app.js';

const TENANT = 'default';
const ADMIN_KEY = 'sk-console-identity-admin-0123456789';
const user = (loginName: string, extra: Record<string, unknown> = {}) => ({
  loginName,
  password: `${loginName}-password-1`,
  ...extra,
});
const PAUL = user('paul', { roles: ['ADMIN'] }); // ADMIN alone is no TENANT_ADMIN
const CONFIG = {
  identity: {
    loginThrottle: { maxFailuresPerAccountAndAddress: 3, maxFailuresPerAccount: 3, maxFailuresPerAddress: 1000 },
  },
  tenants: [
    {
      name: TENANT,
      users: [
        user('dora', { email: 'dora@example.com', firstName: 'Dora', roles: ['clerk'] }),
        user('erin', { lastName: 'Example' }),
        user('fred'),
        user('gus'),
        user('hank'),
        PAUL,
      ],
      apiKeys: [{ name: 'identity-robot', key: ADMIN_KEY, rights: ['TENANT_ADMIN'] }],
    },
  ],
};
const A = '/cxf/svc-core/admin';
const PRINCIPAL = '/cxf/svc-core/authentication/principal';

describeWithBrowser('console identity pages [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  const shots = screenshotsOnFailure('identity');

  beforeAll(async () => {
    ensureConsoleBuilt();
    t = await startTestApp('sqlite', CONFIG);
    base = await listen(t);
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A fresh browser context logged in on `path`, waiting for `heading`. */
  async function openAs(login: string, password: string, path: string, heading: string) {
    const context = shots.track(await browser.newContext());
    const page = await context.newPage();
    await page.goto(`${base}/console/#${path}`);
    await logIn(page, TENANT, login, password);
    await page.getByRole('heading', { name: heading, exact: true }).waitFor();
    return { context, page };
  }
  const asAdmin = (path: string, heading: string) => openAs('admin', ADMIN_PASSWORD, path, heading);

  /** An API call with the TENANT_ADMIN key (or the headers given); answers status and parsed body. */
  const api = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(headers ?? { 'x-apikey': ADMIN_KEY }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  /** A login over HTTP: the status and the session id (the cookie's value) when it succeeded. */
  const httpLogin = async (login: string, password: string) => {
    const res = await fetch(`${base}/cxf/svc-core/authentication`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tenantname: TENANT, username: login, password }),
    });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('svc_session='));
    return { status: res.status, sessionId: cookie?.split(';')[0].slice('svc_session='.length) };
  };
  const sessionStatus = async (sessionId: string | undefined) =>
    (await api('GET', PRINCIPAL, undefined, { cookie: `svc_session=${sessionId}` })).status;
  /** The first characters of the session id the API lists for a cookie's session (its SHA-256). */
  const shortId = (sessionId: string | undefined) =>
    createHash('sha256')
      .update(sessionId ?? '')
      .digest('hex')
      .slice(0, 8);
  const status = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();

  it('finds a user by search, opens it and saves new roles, organisations and names', async () => {
    const { context, page } = await asAdmin('/stores', 'Stores');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'API keys' }).waitFor();
    await nav.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users', exact: true }).waitFor();
    const table = page.getByRole('table', { name: 'Users' });
    await table.getByRole('link', { name: 'paul' }).waitFor();
    await expectAccessible(page, 'users page');
    const all = await api('GET', `${A}/users?limit=100`);
    await page.getByText(`1–${all.body.total} of ${all.body.total}`).waitFor();

    await page.getByLabel('Search', { exact: true }).fill('DORA@EXAMPLE');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('1–1 of 1').waitFor();
    expect(await table.locator('tbody tr').count()).toBe(1);
    await page.getByLabel('Search', { exact: true }).fill('nobody-like-this');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('No user matches.').waitFor();
    await page.getByLabel('Search', { exact: true }).fill('dora');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await table.getByRole('link', { name: 'dora' }).click();

    await page.getByRole('heading', { name: 'User dora' }).waitFor();
    await page.getByRole('table', { name: 'Sessions' }).or(page.getByText('No live session.')).waitFor();
    await expectAccessible(page, 'user page');
    expect(await page.getByLabel('Roles').inputValue()).toBe('clerk');
    await page.getByLabel('First name').fill('Dorothea');
    await page.getByLabel('Roles').fill('clerk, auditor');
    await page.getByLabel('Organisations').fill('sales,support');
    await page.getByLabel('Rights').fill('PROCESS_USER_CHECK');
    await page.getByRole('button', { name: 'Save details' }).click();
    await status(page, 'Saved dora.');
    expect((await api('GET', `${A}/users/dora`)).body).toMatchObject({
      firstName: 'Dorothea',
      email: 'dora@example.com',
      roles: ['clerk', 'auditor'],
      organisations: ['sales', 'support'],
      rights: ['PROCESS_USER_CHECK'],
    });

    // The API's refusal is shown with its message: an administrator cannot deactivate themselves.
    await page.goto(`${base}/console/#/users/admin`);
    await page.getByRole('heading', { name: 'User admin' }).waitFor();
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByRole('alert').filter({ hasText: 'cannot deactivate their own account' }).waitFor();
    expect((await api('GET', `${A}/users/admin`)).body.active).toBe(true);
    await context.close();
  }, 300_000);

  it("sets a password, which ends the user's sessions, and ends one session and then all", async () => {
    const old = await httpLogin('erin', 'erin-password-1');
    expect(old.status).toBe(200);
    const { context, page } = await asAdmin('/users/erin', 'User erin');
    const sessions = page.getByRole('table', { name: 'Sessions' });
    await sessions.getByText(shortId(old.sessionId)).waitFor();
    await expectAccessible(page, 'user page with sessions');

    await page.getByLabel('New password').fill('erin-password-2');
    await page.getByRole('button', { name: 'Set password' }).click();
    await status(page, 'Password set; 1 session(s) ended.');
    await page.getByText('No live session.').waitFor();
    expect(await sessionStatus(old.sessionId)).toBe(401);
    expect((await httpLogin('erin', 'erin-password-1')).status).toBe(401);

    const first = await httpLogin('erin', 'erin-password-2');
    const second = await httpLogin('erin', 'erin-password-2');
    expect([first.status, second.status]).toEqual([200, 200]);
    await page.reload();
    await sessions.locator('tbody tr').nth(1).waitFor();
    expect(await sessions.locator('tbody tr').count()).toBe(2);
    await page.getByRole('button', { name: `End session ${shortId(first.sessionId)}` }).click();
    await status(page, `Ended session ${shortId(first.sessionId)}.`);
    await expect.poll(() => sessions.locator('tbody tr').count()).toBe(1);
    expect(await sessionStatus(first.sessionId)).toBe(401);
    expect(await sessionStatus(second.sessionId)).toBe(200);

    await page.getByRole('button', { name: 'End all sessions' }).click();
    await status(page, 'Ended 1 session(s).');
    expect(await sessionStatus(second.sessionId)).toBe(401);
    expect((await api('GET', `${A}/users/erin/sessions`)).body.items).toEqual([]);
    await context.close();
  }, 300_000);

  it('deactivates and activates a user, unlocks one the throttle holds, deletes one after confirming', async () => {
    const { context, page } = await asAdmin('/users/fred', 'User fred');
    const fredSession = await httpLogin('fred', 'fred-password-1');
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await status(page, 'fred is deactivated; their sessions ended.');
    expect(await sessionStatus(fredSession.sessionId)).toBe(401);
    expect((await httpLogin('fred', 'fred-password-1')).status).toBe(401);
    expect((await api('GET', `${A}/users/fred`)).body.active).toBe(false);
    await page.getByRole('button', { name: 'Activate' }).click();
    await status(page, 'fred is active.');
    expect((await httpLogin('fred', 'fred-password-1')).status).toBe(200);

    // hank: held back by failed logins over HTTP, then unlocked on the page.
    for (let i = 0; i < 3; i++) expect((await httpLogin('hank', 'wrong-password')).status).toBe(401);
    expect((await httpLogin('hank', 'hank-password-1')).status).toBe(429);
    await page.goto(`${base}/console/#/users/hank`);
    await page.getByRole('heading', { name: 'User hank' }).waitFor();
    await page.getByRole('button', { name: 'Unlock' }).click();
    await status(page, "The login throttle's hold on hank is lifted.");
    expect((await httpLogin('hank', 'hank-password-1')).status).toBe(200);
    await page.getByRole('button', { name: 'Unlock' }).click();
    await status(page, 'The login throttle held nothing for hank.');

    // gus: Delete asks first; Cancel keeps him, Delete removes him and goes back to the table.
    await page.goto(`${base}/console/#/users/gus`);
    await page.getByRole('heading', { name: 'User gus' }).waitFor();
    await page.getByRole('button', { name: 'Delete user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Delete the user gus?').waitFor();
    await expectAccessible(page, 'user page, delete confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await api('GET', `${A}/users/gus`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete user' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Users', exact: true }).waitFor();
    const table = page.getByRole('table', { name: 'Users' });
    await table.getByRole('link', { name: 'hank' }).waitFor();
    expect(await table.getByRole('link', { name: 'gus' }).count()).toBe(0);
    expect((await api('GET', `${A}/users/gus`)).status).toBe(404);
    await context.close();
  }, 300_000);

  it('creates an API key shown once with a Copy button, sets its expiry and revokes it', async () => {
    const { context, page } = await asAdmin('/api-keys', 'API keys');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const table = page.getByRole('table', { name: 'API keys' });
    await table.getByRole('cell', { name: 'identity-robot', exact: true }).waitFor();
    await expectAccessible(page, 'API keys page');

    await page.getByLabel('Name').fill('nightly');
    await page.getByLabel('Roles').fill('ADMIN');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByTestId('new-api-key');
    await shown.waitFor();
    const key = (await shown.textContent()) ?? '';
    expect(key).toMatch(/^sk-/);
    await page.getByRole('button', { name: 'Copy the key of nightly' }).click();
    await status(page, 'Copied to the clipboard.');
    const readClipboard = () =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText();
    expect(await page.evaluate(readClipboard)).toBe(key);
    await expectAccessible(page, 'API keys page with a new key');
    await page.emulateMedia({ colorScheme: 'dark' }); // the dark theme's contrast too
    await expectAccessible(page, 'API keys page with a new key, dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await table.getByRole('cell', { name: 'nightly', exact: true }).waitFor();
    const listed = await api('GET', `${A}/api-keys`);
    expect(listed.body.items.find((k: { name: string }) => k.name === 'nightly')).toMatchObject({
      roles: ['ADMIN'],
      expiresOn: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(key);
    const withKey = { 'x-apikey': key };
    expect((await api('GET', PRINCIPAL, undefined, withKey)).body).toMatchObject({ loginName: 'nightly' });
    expect((await api('GET', '/cxf/svc-core/audit', undefined, withKey)).status).toBe(200);

    // Shown once: after a reload the page no longer has it.
    await page.reload();
    await table.getByRole('cell', { name: 'nightly', exact: true }).waitFor();
    expect(await page.content()).not.toContain(key);

    // An expiry in the past stops the key; cleared, it works again.
    await page.getByLabel('Expiry of nightly', { exact: true }).fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Set expiry of nightly' }).click();
    await status(page, 'nightly expires:');
    const expired = (await api('GET', `${A}/api-keys`)).body.items.find((k: { name: string }) => k.name === 'nightly');
    expect(new Date(expired.expiresOn).getUTCFullYear()).toBe(2020);
    expect((await api('GET', PRINCIPAL, undefined, withKey)).status).toBe(401);
    await page.getByLabel('Expiry of nightly', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Set expiry of nightly' }).click();
    await status(page, 'nightly expires: Never.');
    expect((await api('GET', PRINCIPAL, undefined, withKey)).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke nightly' }).click();
    await page.getByRole('dialog').getByText('Revoke the API key nightly?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await status(page, 'Revoked nightly.');
    await expect.poll(() => table.getByRole('cell', { name: 'nightly', exact: true }).count()).toBe(0);
    expect((await api('GET', PRINCIPAL, undefined, withKey)).status).toBe(401);
    await context.close();
  }, 300_000);

  it('a user without TENANT_ADMIN sees neither page, and the API refuses them', async () => {
    const { context, page } = await openAs(PAUL.loginName, PAUL.password, '/stores', 'Stores');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Audit' }).waitFor(); // his ADMIN pages are there
    for (const name of ['Users', 'API keys']) expect(await nav.getByRole('link', { name }).count()).toBe(0);
    for (const path of ['/users', '/users/dora', '/api-keys']) {
      await page.goto(`${base}/console/#${path}`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    }
    await expectAccessible(page, 'not-allowed page');
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session');
    const headers = { cookie: `svc_session=${cookie?.value}` };
    for (const path of [`${A}/users`, `${A}/users/dora`, `${A}/api-keys`]) {
      const refused = await api('GET', path, undefined, headers);
      expect(refused.status, path).toBe(403);
      expect(refused.body.error.messageKey).toBe('CORE_ERROR_FORBIDDEN');
    }
    await context.close();
  }, 300_000);
});
