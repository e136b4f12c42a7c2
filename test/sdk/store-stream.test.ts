// storage.subscribe against GET /cxf/svc-core/storage/store/{storeId}/stream (built on the store-stream branch).
// Events created/updated/deleted with data {storeId, id, item?}, ids, resume by Last-Event-ID and `reset`, as the
// notification stream has them. The tests skip only while sdk/src/schema.ts (generated from the document) lacks the
// stream's path.
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, type StoreEvent, type StreamState, type SvcClient, unwrap } from '../../sdk/src/index.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { type ListeningApp, ROBOT_KEY, salesItem, startListening, uniqueStore } from './sdk-kit.js';

const HAS_STORE_STREAM = readFileSync(join(import.meta.dirname, '../../sdk/src/schema.ts'), 'utf8').includes(
  '"/cxf/svc-core/storage/store/{storeId}/stream"',
);

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function recorder() {
  const events: StoreEvent[] = [];
  const states: StreamState[] = [];
  const errors: unknown[] = [];
  return {
    events,
    states,
    errors,
    onEvent: (e: StoreEvent) => events.push(e),
    options: { onStateChange: (s: StreamState) => states.push(s), onError: (e: unknown) => errors.push(e) },
  };
}

describeEachEngine('sdk storage.subscribe (store stream contract)', (engine) => {
  let s: ListeningApp;
  let robot: SvcClient;
  const stops: (() => void)[] = [];

  beforeAll(async () => {
    if (!HAS_STORE_STREAM) return;
    s = await startListening(engine);
    robot = createClient({ baseUrl: s.baseUrl, auth: { apiKey: ROBOT_KEY } });
  });
  afterAll(async () => {
    for (const stop of stops) stop();
    await s?.t.close();
  });

  it.skipIf(!HAS_STORE_STREAM)(
    'created, updated and deleted events of the store only, with ids; resume; reset; unsubscribe',
    async () => {
      const store = uniqueStore('live');
      const other = uniqueStore('other');
      const r = recorder();
      stops.push(robot.storage.subscribe(store, r.onEvent, r.options));
      await until(() => r.states.includes('open'), 'open');

      const { id } = await unwrap(
        robot.POST('/cxf/svc-core/storage/store/{storeId}', {
          params: { path: { storeId: store } },
          body: salesItem({ n: 1 }),
        }),
      );
      await unwrap(
        robot.POST('/cxf/svc-core/storage/store/{storeId}', {
          params: { path: { storeId: other } },
          body: salesItem({ elsewhere: true }),
        }),
      );
      await unwrap(
        robot.PUT('/cxf/svc-core/storage/store/{storeId}/{itemId}', {
          params: { path: { storeId: store, itemId: id } },
          body: salesItem({ n: 2 }),
        }),
      );
      await unwrap(
        robot.DELETE('/cxf/svc-core/storage/store/{storeId}/{itemId}', {
          params: { path: { storeId: store, itemId: id } },
        }),
      );
      await until(() => r.events.length >= 3, 'three events');
      expect(r.events.map((e) => e.type !== 'reset' && [e.type, e.id])).toEqual([
        ['created', id],
        ['updated', id],
        ['deleted', id],
      ]);
      expect(r.events[0]).toMatchObject({ storeId: store, item: { id, value: { n: 1 } } });
      expect(r.events[1]).toMatchObject({ storeId: store, item: { id, value: { n: 2 } } });
      const eventIds = r.events.map((e) => (e.type !== 'reset' ? e.eventId : undefined));
      expect(eventIds.every((e) => typeof e === 'string')).toBe(true);
      expect(new Set(eventIds).size).toBe(3);

      // Resume after the first event: exactly the two that followed it.
      const resumed = recorder();
      stops.push(robot.storage.subscribe(store, resumed.onEvent, { ...resumed.options, lastEventId: eventIds[0] }));
      await until(() => resumed.events.length >= 2, 'the replay');
      expect(resumed.events.map((e) => e.type)).toEqual(['updated', 'deleted']);

      // An id the stream cannot resume from: reset, surfaced.
      const reset = recorder();
      stops.push(robot.storage.subscribe(store, reset.onEvent, { ...reset.options, lastEventId: 'not-a-number' }));
      await until(() => reset.events.length >= 1, 'reset');
      expect(reset.events[0]).toMatchObject({ type: 'reset', reason: expect.any(String) });

      // Unsubscribe ends it.
      const stop = stops.shift()!;
      stop();
      await until(() => r.states.at(-1) === 'closed', 'closed');
      expect(r.errors).toEqual([]);
    },
  );

  it.skipIf(!HAS_STORE_STREAM)('unsubscribe ends an open stream after a garbage collection too', async () => {
    // fetch follows the stream's abort signal through Request copies it holds only weakly: after a collection the
    // abort alone reached nothing and the stream stayed open (an idle store: no bytes came to end the read).
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const r = recorder();
    const stop = robot.storage.subscribe(uniqueStore('idle'), r.onEvent, r.options);
    await until(() => r.states.includes('open'), 'open');
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    stop();
    await until(() => r.states.at(-1) === 'closed', 'closed');
    expect(r.errors).toEqual([]);
  });
});
