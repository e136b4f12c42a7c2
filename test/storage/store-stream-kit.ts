// Plumbing of the store stream tests: callers with known grants, one-line writes, and the stream's events decoded.
import type { SseEvent } from '../helpers/sse-client.js';

export const STORE = '/cxf/svc-core/storage/store';

/** Tenant acme: a writer that may write everything, readers by role; tenant globex with a reader of the same role. */
export const READERS = {
  r1: { key: 'k-stream-r1-000001', roles: ['R1'] },
  r2: { key: 'k-stream-r2-000001', roles: ['R2'] },
  r12: { key: 'k-stream-r12-00001', roles: ['R1', 'R2'] },
  r3: { key: 'k-stream-r3-000001', roles: ['R3'] },
} as const;
export const WRITER_KEY = 'k-stream-writer-001';
export const GLOBEX_KEY = 'k-stream-globex-001';

export const STREAM_CONFIG = {
  tenants: [
    {
      name: 'acme',
      apiKeys: [
        { name: 'writer', key: WRITER_KEY, roles: ['W'] },
        ...Object.entries(READERS).map(([name, r]) => ({ name, key: r.key, roles: [...r.roles] })),
      ],
    },
    { name: 'globex', apiKeys: [{ name: 'r1', key: GLOBEX_KEY, roles: ['R1', 'W'] }] },
  ],
  storage: { streamHeartbeatSeconds: 0.1, streamRetryMs: 1234, streamMaxQueuedBytes: 4096 },
};

/** An item body readable by the roles (or the user), writable by the writer. */
export const itemFor = (value: unknown, read: { roles?: string[]; user?: string }) => ({
  value,
  readRestriction: read,
  writeRestriction: { roles: ['W'] },
});

export interface Change {
  event: string;
  id: string;
  value?: unknown;
}

/** The item events of a stream (no reset), as `event id value`. */
export const changes = (events: SseEvent[]): Change[] =>
  events
    .filter((e) => e.event === 'created' || e.event === 'updated' || e.event === 'deleted')
    .map((e) => {
      const data = JSON.parse(e.data) as { id: string; item?: { value: unknown } };
      return data.item ? { event: e.event, id: data.id, value: data.item.value } : { event: e.event, id: data.id };
    });
