// Type test of the SDK: every line under `@ts-expect-error` must not compile (a wrong path, parameter name or type),
// every other line must. test/sdk/types.test.ts compiles this file with each directive removed and checks that
// exactly the marked lines fail; `npm run typecheck` compiles it as it is (an unused directive fails too).
import { ApiError, createClient, type StoreItem } from '../src/index.js';

const client = createClient({ baseUrl: 'http://127.0.0.1:8080', auth: { apiKey: 'k' } });
createClient({ baseUrl: '', auth: { session: true } });
createClient({ baseUrl: '', auth: { bearer: async () => 'token' } });
createClient({ baseUrl: '', auth: { basic: { username: 'dm', password: 'p' } } });
// @ts-expect-error the option is apiKey, not apikey
createClient({ baseUrl: '', auth: { apikey: 'k' } });
// @ts-expect-error a bearer token is a string or a function answering one
createClient({ baseUrl: '', auth: { bearer: 42 } });

export async function calls(): Promise<void> {
  // Correct calls, with their answers' types.
  const item = await client.GET('/cxf/svc-core/storage/store/{storeId}/{itemId}', {
    params: { path: { storeId: 'orders', itemId: 'a' } },
  });
  const id: string | undefined = item.data?.id;
  const list = await client.GET('/cxf/svc-core/storage/store/{storeId}', {
    params: { path: { storeId: 'orders' }, query: { start: 0, limit: 10, sort: 'createdOn|DESC' } },
  });
  const total: number | undefined = list.data?.total;
  await client.POST('/cxf/svc-core/storage/store/{storeId}', {
    params: { path: { storeId: 'orders' } },
    body: { value: { n: 1 }, readRestriction: { roles: ['r'] }, writeRestriction: { roles: ['r'] }, favorite: true },
  });
  await client.DELETE('/cxf/svc-core/storage/store/{storeId}/{itemId}', {
    params: { path: { storeId: 'orders', itemId: 'a' } },
  });

  // @ts-expect-error no such path (stores, not store)
  await client.GET('/cxf/svc-core/storage/stores/{storeId}', { params: { path: { storeId: 'orders' } } });
  // @ts-expect-error the path has no PATCH
  await client.PATCH('/cxf/svc-core/storage/store/{storeId}/{itemId}', {
    params: { path: { storeId: 'orders', itemId: 'a' } },
  });
  await client.GET('/cxf/svc-core/storage/store/{storeId}/{itemId}', {
    // @ts-expect-error wrong parameter name: store instead of storeId
    params: { path: { store: 'orders', itemId: 'a' } },
  });
  await client.GET('/cxf/svc-core/storage/store/{storeId}/{itemId}', {
    // @ts-expect-error a path parameter is missing
    params: { path: { storeId: 'orders' } },
  });
  await client.GET('/cxf/svc-core/storage/store/{storeId}', {
    // @ts-expect-error wrong type: start is a number
    params: { path: { storeId: 'orders' }, query: { start: 'zero', limit: 10 } },
  });
  await client.POST('/cxf/svc-core/storage/store/{storeId}', {
    params: { path: { storeId: 'orders' } },
    // @ts-expect-error wrong type in the body: favorite is a boolean
    body: { value: 1, readRestriction: {}, writeRestriction: {}, favorite: 'yes' },
  });
  // @ts-expect-error the answer's total is a number
  const wrongTotal: string | undefined = list.data?.total;

  // Helpers.
  for await (const stored of client.storage.items('orders', { sort: ['createdOn|ASC'], pageSize: 100 })) {
    const itemId: string = stored.id;
    // @ts-expect-error items are store items: no such field
    stored.notAField;
    void itemId;
  }
  // @ts-expect-error pageSize is a number
  client.storage.items('orders', { pageSize: '100' });
  await client.dm.call('Asset', 'query', { limit: 0 });
  await client.dm.batch([
    { context: 'Asset', method: 'create', parameters: {} },
    { context: 'Template', method: 'query' },
  ]);
  // @ts-expect-error no such method of Asset
  await client.dm.call('Asset', 'quer');
  // @ts-expect-error no such context
  await client.dm.call('Assets', 'query');
  // @ts-expect-error a batch names methods of the context
  await client.dm.batch([{ context: 'Template', method: 'saveQuery' }]);
  const stop = client.notifications.subscribe((event) => {
    if (event.type === 'notification') {
      const action: 'add' | 'update' | 'delete' = event.action;
      void action;
    } else {
      const reason: string = event.reason;
      void reason;
    }
  });
  stop();

  try {
    await client.login({ tenant: 't', username: 'u', password: 'p' });
  } catch (error) {
    if (error instanceof ApiError) {
      const key: string = error.messageKey;
      const status: number = error.status;
      void [key, status];
    }
  }
  // @ts-expect-error login takes tenant, not tenantname
  await client.login({ tenantname: 't', username: 'u', password: 'p' });
  void [id, total, wrongTotal];
}

export type { StoreItem };
