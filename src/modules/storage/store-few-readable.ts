// The few-items hint: whether a caller may read so few of a store's items that a test of an indexed value probes
// each of them instead of reading the value's index rows (StoreScope.fewReadable). It picks a plan, never an answer.
import { sql } from 'kysely';
import { SingleFlight } from '../../platform/async/single-flight.js';
import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import { accessRows, granteesOf } from './store-access.js';
import type { ListReads } from './store-list-reads.js';
import { FEW_READABLE, type StoreCaller } from './store-scope.js';

/** How long an answer is kept, and for how many callers at most. */
const FEW_KEPT_MS = 10_000;
const FEW_KNOWN_MAX = 10_000;

export class FewReadableHint {
  /** Answers by tenant, store and grantees, each kept FEW_KEPT_MS, and those being counted (one count for a burst). */
  private readonly known = new ExpiringMap<string, boolean>(FEW_KNOWN_MAX);
  private readonly counting = new SingleFlight<string, boolean>();

  constructor(private readonly reads: ListReads) {}

  /**
   * Whether the caller's grantees may read fewer than FEW_READABLE of the store's items: up to that many of their
   * access rows counted, as the lists' statements run (off the main thread where the database can, prepared), the
   * answer kept a few seconds. A caller whose share grew meanwhile gets the same items a little more slowly until it
   * is asked again.
   */
  async readsFew(caller: StoreCaller): Promise<boolean> {
    const key = JSON.stringify([caller.tenantId, caller.storeId, caller.grantees]);
    const known = this.known.get(key);
    if (known !== undefined) return known;
    return this.counting.run(key, async () => {
      const count = sql<{ n: number | string }>`SELECT count(*) AS n
        FROM (SELECT 1 FROM ${accessRows(granteesOf(caller), 'r')} LIMIT ${sql.lit(FEW_READABLE)}) q__c`;
      const { rows } = await this.reads.once(count.compile(this.reads.db), true);
      const few = Number(rows[0].n) < FEW_READABLE;
      this.known.set(key, few, Date.now() + FEW_KEPT_MS);
      return few;
    });
  }
}
