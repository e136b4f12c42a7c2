// Store lists as an async iterator across pages, and the store's live stream (created/updated/deleted events).
import type { ClientCore } from './client.js';
import { unwrap } from './errors.js';
import { resetOf, subscribeStream, type ResetEvent, type StreamOptions, type Unsubscribe } from './live.js';
import type { components, paths } from './schema.js';

type ListPath = paths['/cxf/svc-core/storage/store/{storeId}']['get'];
/** A store item as lists and reads answer it. */
export type StoreItem = ListPath['responses'][200]['content']['application/json']['items'][number];

/** One condition of a list filter (docs/api/query.md). */
export interface FilterCondition {
  property: string;
  operator: string;
  value?: unknown;
  source?: string;
  invert?: boolean;
}

export interface ItemsOptions {
  /** Conditions (sent as the JSON text the API takes) or that text itself. */
  filter?: FilterCondition[] | string;
  /** `field|ASC` / `field|DESC` instructions, as a list or comma-separated. */
  sort?: string[] | string;
  /** Lucene query-string, e.g. `value.status:open`. */
  query?: string;
  /** Items per request (1..10000), default 500. */
  pageSize?: number;
  /** Where to start (items to skip), default 0. */
  start?: number;
  timezoneName?: string;
  timezoneOffset?: string;
  /** Stops the iteration (the page being read is abandoned). */
  signal?: AbortSignal;
}

/** An event of a store's live stream: what happened to which item; `item` (as a read answers it) unless deleted. */
export type StoreChange =
  | ({ type: 'created' | 'updated'; eventId?: string } & components['schemas']['Storage.Event.item'])
  | ({ type: 'deleted'; eventId?: string } & components['schemas']['Storage.Event.deleted']);

export type StoreEvent = StoreChange | ResetEvent;

export interface StorageHelpers {
  /**
   * Every item of the list, page by page, in the list's order: `for await (const item of client.storage.items(id))`.
   * Throws ApiError on a refused page.
   */
  items(storeId: string, options?: ItemsOptions): AsyncIterableIterator<StoreItem>;
  /**
   * Live events of a store (GET /cxf/svc-core/storage/store/{storeId}/stream): reconnects and resumes like
   * notifications.subscribe. Answers the function that ends the subscription.
   */
  subscribe(storeId: string, onEvent: (event: StoreEvent) => void, options?: StreamOptions): Unsubscribe;
}

const STORE_EVENTS = new Set(['created', 'updated', 'deleted']);

export function createStorage(core: ClientCore): StorageHelpers {
  return {
    async *items(storeId, options = {}) {
      const pageSize = Math.max(1, Math.min(10_000, Math.floor(options.pageSize ?? 500)));
      const filter =
        typeof options.filter === 'string' ? options.filter : options.filter && JSON.stringify(options.filter);
      const sort = Array.isArray(options.sort) ? options.sort.join(',') : options.sort;
      let start = options.start ?? 0;
      for (;;) {
        const page = await unwrap(
          core.raw.GET('/cxf/svc-core/storage/store/{storeId}', {
            params: {
              path: { storeId },
              query: {
                start,
                limit: pageSize,
                ...(filter !== undefined ? { filter } : {}),
                ...(sort !== undefined ? { sort } : {}),
                ...(options.query !== undefined ? { query: options.query } : {}),
                ...(options.timezoneName !== undefined ? { timezoneName: options.timezoneName } : {}),
                ...(options.timezoneOffset !== undefined ? { timezoneOffset: options.timezoneOffset } : {}),
              },
            },
            signal: options.signal,
          }),
        );
        yield* page.items;
        start += page.items.length;
        if (page.items.length < pageSize || start >= page.total) return;
      }
    },
    subscribe(storeId, onEvent, options = {}) {
      return subscribeStream(
        core,
        `/cxf/svc-core/storage/store/${encodeURIComponent(storeId)}/stream`,
        (message) => {
          if (message.event === 'reset') return onEvent(resetOf(message));
          if (!STORE_EVENTS.has(message.event)) return;
          const data = JSON.parse(message.data);
          onEvent({ type: message.event, ...data, eventId: message.id } as StoreChange);
        },
        options,
      );
    },
  };
}
