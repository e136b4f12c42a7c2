// Storage: restricted JSON items in named stores (/cxf/svc-core/storage); each store is the index
// `svc-store-<storeId>` of the spec, kept as rows of one table per tenant, with access rows for the restrictions.
import { defineModule, type ModuleDeps } from '../../platform/module.js';
import type { StorageTables } from './storage.tables.js';
import { StoreItemRepository } from './store-item.repository.js';
import { storageSqlFor } from './dialects/index.js';
import { StorageService } from './storage.service.js';
import type { ChangeFeed } from '../../platform/events/index.js';
import type { WriteBatcher } from '../../platform/db/write-batcher.js';
import { postItemRoute } from './routes/post-item.js';
import { putItemRoutes } from './routes/put-item.js';
import { getItemRoute } from './routes/get-item.js';
import { getItemsRoute } from './routes/get-items.js';
import { deleteItemRoute } from './routes/delete-item.js';
import { listStoresRoute } from './routes/list-stores.js';
import { streamStoreRoute } from './routes/stream-store.js';
import { exportStoreRoute } from './routes/export-store.js';
import { StoreStreams } from './live/store-streams.js';
import type { FinalStreamEvent } from '../../platform/http/stream-end.js';
import type { Telemetry } from '../../platform/metrics/index.js';
import type { StorageContext } from './storage.context.js';
import { ValueIndexer } from './value-indexer.js';
import { storageMigrations } from './storage.migrations.js';
import { StoreTags } from './store-tags.js';
import { KeptLists } from './store-kept-lists.js';

/** Largest item body accepted (a larger one answers 413). */
export const STORAGE_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * `writes`: the service's write batcher, shared with the other modules that write on a single-writer engine (SQLite
 * has one writer, so concurrent item writes share a commit; PostgreSQL runs them side by side and can create items
 * with their access rows in one statement, dialects/).
 */
export interface StorageConfig {
  streamHeartbeatSeconds: number;
  streamRetryMs: number;
  streamMaxQueuedBytes: number;
  exportPageSize: number;
  /** How long a list's answer is kept for the same list asked again (0: never), and the kept answers' size. */
  listCacheSeconds: number;
  listCacheMegabytes: number;
}

export type StorageDeps = ModuleDeps<StorageTables, StorageConfig> & {
  writes: WriteBatcher<StorageTables>;
  feed: ChangeFeed;
  telemetry?: Telemetry;
};

/** The storage module: its routes, and the value indexer, which fills the value index in the background. */
export const storageModule = defineModule({
  name: 'storage',
  migrations: storageMigrations,
  create(deps: StorageDeps) {
    const { writes } = deps;
    const repo = new StoreItemRepository(
      deps.data,
      deps.dialect,
      storageSqlFor(deps.dialect),
      (job) => writes.run(job),
      deps.feed,
    );
    const tags = new StoreTags(deps.data, deps.dialect);
    const kept = new KeptLists({
      ttlMs: deps.config.listCacheSeconds * 1000,
      maxChars: deps.config.listCacheMegabytes * 1024 * 1024,
    });
    const service = new StorageService(repo, writes, deps.dialect, deps.feed, tags, kept);
    const indexer = new ValueIndexer(repo, writes, deps.log);
    const streams = new StoreStreams(
      deps.feed,
      {
        heartbeatMs: deps.config.streamHeartbeatSeconds * 1000,
        retryMs: deps.config.streamRetryMs,
        maxQueuedBytes: deps.config.streamMaxQueuedBytes,
      },
      deps.log,
      deps.telemetry,
    );
    const ctx: StorageContext = {
      service,
      tags,
      streams,
      prefix: '/cxf/svc-core/storage/store',
      bodyLimit: STORAGE_BODY_LIMIT,
      exportPageSize: deps.config.exportPageSize,
    };
    return {
      async plugin(app) {
        // Open streams would keep the server from closing: they end first.
        app.addHook('preClose', async () => streams.endAll());
        listStoresRoute(app, ctx);
        streamStoreRoute(app, ctx);
        exportStoreRoute(app, ctx);
        postItemRoute(app, ctx);
        putItemRoutes(app, ctx);
        getItemRoute(app, ctx);
        getItemsRoute(app, ctx);
        deleteItemRoute(app, ctx);
      },
      /** A graceful shutdown ends every store stream with `event` (reconnect elsewhere) as its last frame. */
      drain: (event: FinalStreamEvent) => streams.endAll(event),
      start: () => {
        streams.start();
        return indexer.start();
      },
      close: () => {
        streams.close();
        return indexer.close();
      },
    };
  },
});
