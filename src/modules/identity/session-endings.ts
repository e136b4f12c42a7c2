import type { Kysely, Transaction } from 'kysely';
import type { ChangeFeed } from '../../platform/events/index.js';
import type { IdentityTables } from './identity.tables.js';
import type { SessionsRepository } from './sessions.repository.js';

const TOPIC = 'identity.session';
/** How long an ending waits for every live instance to confirm it has dropped the session(s). */
const DELIVERY_WAIT_MS = 2_000;

type SessionEnded = { idHash: string } | { idHashes: string[] } | { tenant: true };

/**
 * Ending sessions where several instances share the database: the delete and an event in one transaction, so every
 * instance can keep session rows in memory and still drop an ended one at once. Where one process owns the database
 * (SQLite) every ending passes through that process anyway; the event costs nothing there.
 */
export class SessionEndings {
  constructor(
    private readonly db: Kysely<IdentityTables>,
    private readonly feed: ChangeFeed,
    private readonly sessions: SessionsRepository,
    /** False in a tool (the admin CLI) that publishes endings but does not follow the feed itself. */
    private readonly waitForDelivery = true,
  ) {
    feed.acknowledge(TOPIC);
  }

  /** True while every ending reaches this instance, i.e. while a cache of session rows is exact. */
  get live(): boolean {
    return this.feed.connected;
  }

  async endOne(tenantId: string, idHash: string): Promise<void> {
    const event = await this.feed.transaction(this.db, async (trx, publish) => {
      await this.sessions.deleteSession(idHash, trx);
      return publish({ tenantId, topic: TOPIC, payload: { idHash } satisfies SessionEnded });
    });
    await this.feed.deliveredEverywhere(event, DELIVERY_WAIT_MS);
  }

  async endTenant(tenantId: string): Promise<number> {
    const { deleted, event } = await this.feed.transaction(this.db, async (trx, publish) => {
      const n = await this.sessions.deleteTenantSessions(tenantId, trx);
      return {
        deleted: n,
        event: await publish({ tenantId, topic: TOPIC, payload: { tenant: true } satisfies SessionEnded }),
      };
    });
    await this.feed.deliveredEverywhere(event, DELIVERY_WAIT_MS);
    return deleted;
  }

  /**
   * Ends sessions of one user (all, or the one of `idHash`) with `work` in one transaction: a password set, a
   * deactivation or a delete and the end of the sessions it implies commit together. Answers the sessions ended and
   * what `work` answered.
   */
  async endUser<T>(
    tenantId: string,
    userId: string,
    work: (trx: Transaction<IdentityTables>) => Promise<T>,
    idHash?: string,
  ): Promise<{ ended: number; result: T }> {
    const { ended, result, event } = await this.feed.transaction(this.db, async (trx, publish) => {
      const idHashes = await this.sessions.deleteUserSessions(userId, trx, idHash);
      const result = await work(trx);
      const event = idHashes.length
        ? await publish({ tenantId, topic: TOPIC, payload: { idHashes } satisfies SessionEnded })
        : undefined;
      return { ended: idHashes.length, result, event };
    });
    if (event && this.waitForDelivery) await this.feed.deliveredEverywhere(event, DELIVERY_WAIT_MS);
    return { ended, result };
  }

  /** Calls back for every ending on any instance, and when endings may have been missed. Returns the unsubscribe. */
  listen(ended: (tenantId: string, idHash?: string) => void, missed: () => void): () => void {
    const stops = [
      this.feed.subscribe(TOPIC, (e) => {
        const p = e.payload as SessionEnded;
        if ('idHashes' in p) for (const h of p.idHashes) ended(e.tenantId, h);
        else ended(e.tenantId, 'idHash' in p ? p.idHash : undefined);
      }),
      this.feed.onResync(missed),
    ];
    return () => stops.forEach((stop) => stop());
  }
}
