// Conditional GETs of item reads and lists (issue 47 goal 3): an ETag that changes exactly when the answer may change
// for that caller (the store's change count, the caller's grantees, the normalised query), 304 without a body for a
// matching If-None-Match, for API keys and sessions alike; errors carry no tag.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  apiKeyCaller,
  client,
  item,
  OWNER_KEY,
  sessionCaller,
  STORAGE_CONFIG,
  STORE,
  type Caller,
} from './storage-kit.js';

describeEachEngine('storage conditional GETs', (engine) => {
  let t: TestApp;
  let writer: ReturnType<typeof client>;
  let owner: Caller;
  let other: Caller;
  let uma: Caller;
  let kim: Caller;
  const readBoth = { readRestriction: { roles: ['OWNER', 'roleB'] } };
  const params = { sort: 'value.n|ASC', limit: 10 };

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = apiKeyCaller('owner', OWNER_KEY);
    other = apiKeyCaller('other', 'k-other-0123456789');
    kim = apiKeyCaller('kim', 'k-kim-0123456789');
    uma = await sessionCaller(t, 'acme', 'uma', 'uma-secret-1');
    writer = client(t, owner);
    const puts = [
      writer.put('tags', 'a', item({ n: 1 })),
      writer.put('tags', 'b', item({ n: 2 }, readBoth)),
      writer.put('tags', 'c', item({ n: 3 }, { readRestriction: { organisations: ['orgA'] } })),
      writer.put('tags-elsewhere', 'x', item({ n: 1 })),
    ];
    for (const res of await Promise.all(puts)) expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t.close());

  /** A GET with If-None-Match (when given) through the caller's credential. */
  const get = (c: Caller, url: string, tag?: string): Promise<LightMyRequestResponse> =>
    t.request({ method: 'GET', url, headers: { ...c.headers(false), ...(tag ? { 'if-none-match': tag } : {}) } });
  const listUrl = (store: string, q: Record<string, string | number> = params) =>
    `${STORE}/${store}?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]))}`;

  /** The answer is 200 with a weak tag and the cache policy; answers the tag. */
  function tagged(res: LightMyRequestResponse): string {
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const tag = String(res.headers.etag);
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    return tag;
  }

  function notModified(res: LightMyRequestResponse, tag: string): void {
    expect(res.statusCode, res.body).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers['content-length'] ?? '0').toBe('0');
    expect(res.headers.etag).toBe(tag);
    expect(res.headers['cache-control']).toBe('private, no-cache');
  }

  describe.each([
    ['an API key', () => owner],
    ['a session', () => uma],
  ])('through %s', (_, caller) => {
    it('answers a list and an item read with a tag, and 304 without a body for it', async () => {
      const c = caller();
      const id = c === uma ? 'c' : 'a';
      for (const url of [listUrl('tags'), `${STORE}/tags/${id}`]) {
        const first = await get(c, url);
        const tag = tagged(first);
        notModified(await get(c, url, tag), tag);
        // Weak comparison, in a list of tags, with or without W/.
        notModified(await get(c, url, `"nope", ${tag.slice(2)}`), tag);
        const again = await get(c, url, 'W/"other"');
        expect(tagged(again)).toBe(tag);
        expect(again.body).toBe(first.body);
      }
    });
  });

  it('changes the tags of the store with an item change, and not with another store', async () => {
    const before = tagged(await get(owner, listUrl('tags')));
    const itemBefore = tagged(await get(owner, `${STORE}/tags/b`));
    expect((await writer.put('tags-elsewhere', 'x', item({ n: 2 }))).statusCode).toBe(200);
    expect((await writer.put('tags-elsewhere', 'y', item({ n: 3 }))).statusCode).toBe(200);
    notModified(await get(owner, listUrl('tags'), before), before);
    notModified(await get(owner, `${STORE}/tags/b`, itemBefore), itemBefore);

    expect((await writer.put('tags', 'a', item({ n: 10 }))).statusCode).toBe(200);
    const after = await get(owner, listUrl('tags'), before);
    expect(tagged(after)).not.toBe(before);
    expect(after.json().items.map((i: { id: string }) => i.id)).toEqual(['b', 'a']);
    // The store's count covers every item of it: another item's tag changes too (a change may be anywhere).
    expect(tagged(await get(owner, `${STORE}/tags/b`, itemBefore))).not.toBe(itemBefore);
  });

  it('changes the tag with a restriction change that takes an item from the caller', async () => {
    const url = listUrl('tags');
    const before = await get(other, url);
    const tag = tagged(before);
    expect(before.json().items.map((i: { id: string }) => i.id)).toEqual(['b']);
    expect((await writer.put('tags', 'b', item({ n: 2 }))).statusCode).toBe(200);
    const after = await get(other, url, tag);
    expect(tagged(after)).not.toBe(tag);
    expect(after.json()).toEqual({ total: 0, items: [] });
    expect((await writer.put('tags', 'b', item({ n: 2 }, readBoth))).statusCode).toBe(200);
    expect((await get(other, url)).json().total).toBe(1);
  });

  it('gives callers of other grants other tags, and another query another tag', async () => {
    const url = listUrl('tags');
    const tags = [owner, other, uma, kim].map(async (c) => tagged(await get(c, url)));
    const [ownerTag, otherTag, umaTag, kimTag] = await Promise.all(tags);
    expect(new Set([ownerTag, otherTag, umaTag, kimTag]).size).toBe(4);
    // Another caller's tag is no match: its own answer comes in full.
    expect(tagged(await get(other, url, ownerTag))).toBe(otherTag);
    // The same caller and query asked again: the same tag, whatever the order of the parameters.
    expect(tagged(await get(owner, listUrl('tags', { limit: 10, sort: 'value.n|ASC', unknown: 1 })))).toBe(ownerTag);
    // Another page, sort or limit: another tag.
    for (const q of [
      { ...params, start: 1 },
      { ...params, sort: 'value.n|DESC' },
      { ...params, limit: 5 },
    ])
      expect(tagged(await get(owner, listUrl('tags', q)))).not.toBe(ownerTag);
  });

  it('sends no tag with errors', async () => {
    const denied = await get(other, `${STORE}/tags/a`);
    expect(denied.statusCode).toBe(403);
    expect(denied.headers.etag).toBeUndefined();
    const missing = await get(owner, `${STORE}/tags/none`);
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
    const invalid = await get(owner, listUrl('tags', { filter: '[{' }));
    expect(invalid.statusCode, invalid.body).toBe(500); // the spec's code for JSON that does not parse
    expect(invalid.headers.etag).toBeUndefined();
  });
});
