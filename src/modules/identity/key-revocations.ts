import type { Kysely, Transaction } from 'kysely';
import type { ChangeFeed } from '../../platform/events/index.js';
import type { IdentityTables } from './identity.tables.js';

const TOPIC = 'identity.apikey';
/** How long a revocation waits for every live instance to confirm it has forgotten its cached keys. */
const DELIVERY_WAIT_MS = 2_000;

/**
 * Revoking API keys (a revoke, an expiry brought forward, a tenant deactivated) where several instances share the
 * database: the write and an event in one transaction, and every instance forgets the keys it cached when the event
 * arrives, so a revoked key stops working at once everywhere instead of within `identity.credentialCacheSeconds`.
 */
export class KeyRevocations {
  constructor(
    private readonly db: Kysely<IdentityTables>,
    private readonly feed: ChangeFeed,
    private readonly waitForDelivery = true,
  ) {
    feed.acknowledge(TOPIC);
  }

  async revoke<T>(tenantId: string, work: (trx: Transaction<IdentityTables>) => Promise<T>): Promise<T> {
    const { result, event } = await this.feed.transaction(this.db, async (trx, publish) => {
      const result = await work(trx);
      return { result, event: await publish({ tenantId, topic: TOPIC, payload: { revoked: true } }) };
    });
    if (this.waitForDelivery) await this.feed.deliveredEverywhere(event, DELIVERY_WAIT_MS);
    return result;
  }

  /** Calls back on every revocation on any instance, and when some may have been missed. Returns the unsubscribe. */
  listen(revoked: () => void): () => void {
    const stops = [this.feed.subscribe(TOPIC, () => revoked()), this.feed.onResync(revoked)];
    return () => stops.forEach((stop) => stop());
  }
}
