import type { FastifyBaseLogger } from 'fastify';
import type { WriteBatcher } from '../../platform/db/write-batcher.js';
import type { StorageTables } from './storage.tables.js';
import type { StoreItemRepository } from './store-item.repository.js';

const BATCH = 500;

/**
 * Puts items written before the value index existed into it, in the background after start, a batch per write
 * transaction with the event loop free between batches. Queries answer such items from their documents until then
 * (storage_items.idx), so results never wait for it; only their speed does. Every instance may run it: batches lock
 * their rows and skip what another instance (or an update) indexed meanwhile.
 */
export class ValueIndexer {
  private stopped = false;
  private running?: Promise<void>;

  constructor(
    private readonly repo: StoreItemRepository,
    private readonly writes: WriteBatcher<StorageTables>,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    this.stopped = false;
    this.running = this.run().catch((err) =>
      this.log.warn({ err }, 'storage: indexing earlier items failed; queries read their documents'),
    );
  }

  /** Resolves once nothing is left to index (or the indexer stopped); for tests and benchmarks. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async run(): Promise<void> {
    let total = 0;
    while (!this.stopped) {
      const done = await this.writes.run((trx) => this.repo.valueIndex.indexPending(trx, BATCH));
      if (done === 0) break;
      total += done;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (total > 0) this.log.info({ items: total }, 'storage: earlier items put into the value index');
  }
}
