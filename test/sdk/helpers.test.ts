// The SDK's helpers against the real service: typed data management calls and batches, a store list iterated to the
// end across pages (2,500 items), and errors as ApiError in both styles ({ error } and unwrap's throw).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiError, createClient, isApiError, type SvcClient, unwrap } from '../../sdk/src/index.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { DM_USER, type ListeningApp, ROBOT_KEY, salesItem, startListening, uniqueStore } from './sdk-kit.js';

const ITEMS = 2_500;

describeEachEngine('sdk helpers', (engine) => {
  let s: ListeningApp;
  let robot: SvcClient;
  let requests: URL[];
  let store: string;

  beforeAll(async () => {
    s = await startListening(engine);
    requests = [];
    robot = createClient({
      baseUrl: s.baseUrl,
      auth: { apiKey: ROBOT_KEY },
      fetch: (request) => {
        requests.push(new URL(request.url));
        return fetch(request);
      },
    });
    // 2,500 items through the SDK, 20 at a time.
    store = uniqueStore('paging');
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < ITEMS) {
          const n = next++;
          await unwrap(
            robot.POST('/cxf/svc-core/storage/store/{storeId}', {
              params: { path: { storeId: store } },
              body: salesItem({ n, parity: n % 2 ? 'odd' : 'even' }),
            }),
          );
        }
      }),
    );
  }, 240_000);
  afterAll(async () => {
    await s.t.close();
  });

  it('storage.items pages to the end of a 2,500-item list, in the list order, each item once', async () => {
    requests.length = 0;
    const seen: number[] = [];
    for await (const item of robot.storage.items(store, { sort: ['value.n|ASC'], pageSize: 300 })) {
      seen.push((item.value as { n: number }).n);
    }
    expect(seen).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
    const pages = requests.filter((u) => u.pathname.endsWith(`/${store}`));
    expect(pages.map((u) => [u.searchParams.get('start'), u.searchParams.get('limit')])).toEqual(
      Array.from({ length: 9 }, (_, i) => [String(i * 300), '300']),
    );
    expect(pages[0].searchParams.get('sort')).toBe('value.n|ASC');

    // The default page size (500) ends on the total without an empty last request.
    requests.length = 0;
    let count = 0;
    for await (const _ of robot.storage.items(store)) count++;
    expect(count).toBe(ITEMS);
    expect(requests.length).toBe(5);
  });

  it('storage.items passes filter (conditions or text), sort and query, and stops where the caller breaks', async () => {
    const filtered: number[] = [];
    for await (const item of robot.storage.items(store, {
      filter: [{ property: 'value.n', operator: 'gte', value: 2_490 }],
      sort: 'value.n|DESC',
      pageSize: 4,
    })) {
      filtered.push((item.value as { n: number }).n);
    }
    expect(filtered).toEqual([2499, 2498, 2497, 2496, 2495, 2494, 2493, 2492, 2491, 2490]);

    const queried: number[] = [];
    for await (const item of robot.storage.items(store, {
      query: 'value.parity:odd',
      filter: '[{"property":"value.n","operator":"lt","value":10}]',
      sort: ['value.n|ASC'],
    })) {
      queried.push((item.value as { n: number }).n);
    }
    expect(queried).toEqual([1, 3, 5, 7, 9]);

    requests.length = 0;
    let taken = 0;
    for await (const _ of robot.storage.items(store, { pageSize: 50 })) if (++taken === 120) break;
    expect(requests.length).toBe(3);
  });

  it('a refused page throws ApiError from the iterator', async () => {
    const failure = await (async () => {
      for await (const _ of robot.storage.items(store, { filter: '{"not":"a list"}' })) return undefined;
    })().catch((e) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 400, messageKey: 'CORE_ERROR_VALIDATION_FAILED' });
  });

  it('errors: { error } of openapi-fetch holds the error object; unwrap throws it as ApiError', async () => {
    const storeId = uniqueStore('missing');
    const raw = await robot.GET('/cxf/svc-core/storage/store/{storeId}/{itemId}', {
      params: { path: { storeId, itemId: 'nope' } },
    });
    expect(raw.response.status).toBe(404);
    expect(raw.data).toBeUndefined();
    expect(raw.error).toMatchObject({ error: { code: 404, name: expect.any(String), messageKey: expect.any(String) } });

    const thrown = await unwrap(
      robot.GET('/cxf/svc-core/storage/store/{storeId}/{itemId}', { params: { path: { storeId, itemId: 'nope' } } }),
    ).catch((e) => e);
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({
      status: 404,
      code: 404,
      messageKey: (raw.error as { error: { messageKey: string } }).error.messageKey,
      message: (raw.error as { error: { message: string } }).error.message,
    });
    expect(isApiError(thrown, thrown.messageKey)).toBe(true);
    expect(isApiError(thrown, 'SOMETHING_ELSE')).toBe(false);

    const anonymous = createClient({ baseUrl: s.baseUrl });
    const refused = await unwrap(anonymous.GET('/cxf/svc-core/authentication/principal')).catch((e) => e);
    expect(refused).toMatchObject({ status: 401, code: 540, name: 'AUTHENTICATION_UNAUTHORIZED' });
  });

  it('dm.call: typed calls of the data management protocol with HTTP Basic', async () => {
    const dm = createClient({ baseUrl: s.baseUrl, auth: { basic: DM_USER } });
    const template = uniqueStore('tpl');
    const created = await dm.dm.call('Template', 'create', {
      template: { customId: template, name: 'Pump', attributes: [{ key: 'serial', type: 'string', required: true }] },
      return: true,
    });
    expect(created).toMatchObject({ template: { customId: template, name: 'Pump' } });
    await dm.dm.call('Asset', 'create', {
      templateCustomId: template,
      asset: { customId: 'P-1', attributes: { serial: 'A100' } },
    });
    const got = await dm.dm.call('Asset', 'get', { templateCustomId: template, customId: 'P-1' });
    expect(got).toMatchObject({ asset: { customId: 'P-1', attributes: { serial: 'A100' } } });
    // This file's first asset: the count of all is 1.
    expect(await dm.dm.call('Asset', 'query', { limit: 0 })).toMatchObject({ total: 1, assets: [] });

    const missing = await dm.dm.call('Asset', 'get', { templateCustomId: template, customId: 'nope' }).catch((e) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, messageKey: 'DM_ERROR_ASSET_NOT_FOUND' });

    const notDm = createClient({ baseUrl: s.baseUrl, auth: { apiKey: ROBOT_KEY } });
    expect(await notDm.dm.call('Template', 'query', {}).catch((e) => e)).toMatchObject({ status: 401, code: 540 });
  });

  it('dm.batch: answers in order; a failing call rolls back all and names its index', async () => {
    const dm = createClient({ baseUrl: s.baseUrl, auth: { basic: DM_USER } });
    const template = uniqueStore('tplb');
    const [tpl, asset, got] = await dm.dm.batch([
      {
        context: 'Template',
        method: 'create',
        parameters: {
          template: { customId: template, attributes: [{ key: 'serial', type: 'string', required: true }] },
        },
      },
      {
        context: 'Asset',
        method: 'create',
        parameters: {
          templateCustomId: template,
          asset: { customId: 'B-1', attributes: { serial: 'S1' } },
          return: true,
        },
      },
      { context: 'Asset', method: 'get', parameters: { templateCustomId: template, customId: 'B-1' } },
    ] as const);
    expect(tpl).toEqual({});
    expect(asset).toMatchObject({ asset: { customId: 'B-1' } });
    expect(got).toMatchObject({ asset: { customId: 'B-1', attributes: { serial: 'S1' } } });

    const failure = await dm.dm
      .batch([
        {
          context: 'Asset',
          method: 'create',
          parameters: { templateCustomId: template, asset: { customId: 'B-2', attributes: { serial: 'S2' } } },
        },
        {
          context: 'Asset',
          method: 'create',
          parameters: { templateCustomId: template, asset: { customId: 'B-3', attributes: {} } },
        },
      ])
      .catch((e) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 400, messageKey: 'DM_ERROR_INVALID_CALL', properties: { request: 1 } });
    const rolledBack = await dm.dm
      .call('Asset', 'get', { templateCustomId: template, customId: 'B-2' })
      .catch((e) => e);
    expect(rolledBack).toMatchObject({ status: 404, messageKey: 'DM_ERROR_ASSET_NOT_FOUND' });
  });
});
