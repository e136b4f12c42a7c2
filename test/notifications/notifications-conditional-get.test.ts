// Conditional GETs of the notifications (issue 47 goal 3): the list and a read answer an ETag from the tenant's change
// count (kept in the write's transaction), who the caller is as far as seeing goes, and the page; If-None-Match naming
// it answers 304 without a body. Any change of the tenant's notifications changes the tags, another tenant's does not.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, login, sessionHeaders, startTestApp, type TestApp } from '../helpers/test-app.js';
import { ADMIN_KEY, ALICE, BOB, call, N, note, NOTIFICATIONS_CONFIG, OTHER_ADMIN_KEY } from './notifications-kit.js';

describeEachEngine('notifications conditional GETs', (engine) => {
  let t: TestApp;
  let alice: Record<string, string>;
  let bob: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp(engine, NOTIFICATIONS_CONFIG);
    alice = sessionHeaders(await login(t, 'acme', ALICE.loginName, ALICE.password), false);
    bob = sessionHeaders(await login(t, 'acme', BOB.loginName, BOB.password), false);
    for (const body of [note('role', ['R1'], { id: 'to-r1' }), note('role', ['R2'], { id: 'to-r2' })]) {
      const res = await call(t, 'POST', N, ADMIN_KEY, body);
      expect(res.statusCode, res.body).toBe(200);
    }
  });
  afterAll(() => t.close());

  const get = (headers: Record<string, string>, url: string, tag?: string) =>
    t.request({ method: 'GET', url, headers: { ...headers, ...(tag ? { 'if-none-match': tag } : {}) } });
  const admin = { 'x-apikey': ADMIN_KEY };

  function tagged(res: LightMyRequestResponse): string {
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(String(res.headers.etag)).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    return String(res.headers.etag);
  }

  function notModified(res: LightMyRequestResponse, tag: string): void {
    expect(res.statusCode, res.body).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers.etag).toBe(tag);
  }

  it('answers 304 without a body for the tag, by session and by API key; each caller its own tag', async () => {
    const tags = [];
    for (const [who, url] of [
      [alice, N],
      [bob, N],
      [admin, N],
      [alice, `${N}/to-r1`],
      [admin, `${N}?start=0&limit=1`],
    ] as const) {
      const tag = tagged(await get(who, url));
      notModified(await get(who, url, tag), tag);
      tags.push(tag);
    }
    expect(new Set(tags).size).toBe(tags.length);
    // Another caller's tag is no match.
    expect(tagged(await get(bob, N, tags[0]))).toBe(tags[1]);
    // A read the caller may not make answers 404 without a tag.
    const hidden = await get(bob, `${N}/to-r1`);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.headers.etag).toBeUndefined();
  });

  it("changes the tags with a change of the tenant's notifications, not with another tenant's", async () => {
    const before = tagged(await get(alice, N));
    const added = await call(t, 'POST', N, OTHER_ADMIN_KEY, note('role', ['R1'], { id: 'elsewhere' }));
    expect(added.statusCode, added.body).toBe(200);
    notModified(await get(alice, N, before), before);

    const updated = await call(t, 'PUT', `${N}/to-r1`, ADMIN_KEY, note('role', ['R1'], { subject: 'changed' }));
    expect(updated.statusCode, updated.body).toBe(200);
    const after = await get(alice, N, before);
    expect(tagged(after)).not.toBe(before);
    expect(after.json().items.map((n: { subject: string }) => n.subject)).toEqual(['changed']);

    // Taken from alice's recipients: her tag changes, and her list is empty.
    const moved = await call(t, 'PUT', `${N}/to-r1`, ADMIN_KEY, note('role', ['R2']));
    expect(moved.statusCode, moved.body).toBe(200);
    const emptied = await get(alice, N, tagged(after));
    expect(emptied.statusCode).toBe(200);
    expect(emptied.json().total).toBe(0);
    expect((await call(t, 'DELETE', `${N}/to-r2`, ADMIN_KEY)).statusCode).toBe(200);
    expect(tagged(await get(alice, N, String(emptied.headers.etag)))).not.toBe(emptied.headers.etag);
  });
});
