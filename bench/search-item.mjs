// The storage search benchmark's item (bench/storage-search.mjs), shared with the write profile
// (bench/storage-write-profile.mjs ITEM=search) so that both measure the same shape.
const STATUSES = ['open', 'closed', 'pending', 'done'];
const WORDS = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
  'mike',
  'november',
  'oscar',
  'papa',
  'quebec',
  'romeo',
  'sierra',
  'tango',
];

/** An item of about 10 scalar leaves; `invoice` occurs in one title in 5, one of 20 words in every title. */
export const searchItem = (i) => ({
  name: `item ${i}`,
  value: {
    n: i,
    status: STATUSES[i % 4],
    price: (i * 37) % 1000,
    title: `${i % 5 === 0 ? 'Invoice' : 'Order'} ${i} ${WORDS[i % 20]}`,
    category: `c${i % 8}`,
    tags: ['bench', `t${i % 10}`],
    owner: `user-${i % 100}`,
  },
  readRestriction: { roles: [`role-${i % 50}`, `half-${i % 2}`, 'everyone'] },
  writeRestriction: { roles: ['writer'] },
});

/**
 * Creates items `0 .. count - 1` (searchItem) in the store `search` through `pool` (an undici Pool), 50 at a time,
 * with the writer's API key; throws on any answer but 200.
 */
export async function loadSearchItems(pool, key, count) {
  await eachOf(count, async (i) => {
    const res = await pool.request({
      path: '/cxf/svc-core/storage/store/search',
      method: 'POST',
      headers: { 'x-apikey': key, 'content-type': 'application/json' },
      body: JSON.stringify(searchItem(i)),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`create ${i}: ${res.statusCode} ${text}`);
  });
}

/** Runs `create(i)` for i = 0 .. count - 1, 50 at a time. */
async function eachOf(count, create) {
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < count) await create(next++);
    }),
  );
}

/**
 * Creates items `0 .. count - 1` (searchItem) in store `s` of a service built in this process from this checkout's
 * dist on `databaseUrl` (`app.inject`, 50 in flight), then closes it: for scripts that measure the database after a
 * load (bench/storage-analyze-cost.mjs, bench/storage-create-statement.mjs).
 */
export async function createSearchItemsInProcess(databaseUrl, count) {
  const { buildApp } = await import('../dist/app.js');
  const { parseConfig } = await import('../dist/config/load-config.js');
  const config = parseConfig({
    database: { url: databaseUrl },
    server: { logLevel: 'silent' },
    tenants: [{ name: 'bench', apiKeys: [{ name: 'writer', key: 'k-w-0123456789', roles: ['writer'] }] }],
  });
  const { app, close } = await buildApp(config, { logger: false });
  await app.ready();
  try {
    await eachOf(count, async (i) => {
      const r = await app.inject({
        method: 'POST',
        url: '/cxf/svc-core/storage/store/s',
        headers: { 'x-apikey': 'k-w-0123456789', 'content-type': 'application/json' },
        payload: JSON.stringify(searchItem(i)),
      });
      if (r.statusCode !== 200) throw new Error(r.body);
    });
  } finally {
    await close();
  }
}
