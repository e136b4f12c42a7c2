import type { Kysely } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { batchedLookup } from '../../platform/db/batched-lookup.js';
import type { DataAccess } from '../../platform/db/data-access.js';
import type { IdentityTables, User } from './identity.tables.js';

export interface LiveSession {
  userId: string;
  tenantId: string;
  csrfToken: string;
  expiresOn: number;
}

interface LiveSessionRow {
  user_id: string;
  tenant_id: string;
  csrf_token: string;
  expires_on: number;
}

/**
 * Session rows. A session is found by the hash of its id, unique across tenants (the row carries its tenant);
 * "end all sessions" names its tenant; the expiry purge is global by design.
 */
export class SessionsRepository {
  private readonly liveSession;

  private readonly db: Kysely<IdentityTables>;

  constructor(data: DataAccess<IdentityTables>, dialect: Dialect) {
    this.db = data.db;
    // Session checks of one turn of the event loop share one statement: on PostgreSQL, where every call checks
    // the database, one round trip for a burst of session-authenticated requests.
    this.liveSession = batchedLookup<{ idHash: string; now: number }, LiveSessionRow>(data, dialect, {
      name: 'live-sessions',
      columns: { h: 'text', c: 'bigint' },
      record: ({ idHash, now }) => ({ h: idHash, c: now }),
      query: (records) =>
        dialect
          .joinByKey(records, 'sessions', 's', [['id_hash', 'r.h']])
          .whereRef('s.expires_on', '>', 'r.c')
          .select(['r.n', 's.user_id', 's.tenant_id', 's.csrf_token', 's.expires_on']),
    });
  }

  async createSession(s: {
    idHash: string;
    user: User;
    csrfToken: string;
    expiresOn: number;
    remoteAddress: string;
    userAgent: string;
  }) {
    await this.db
      .insertInto('sessions')
      .values({
        id_hash: s.idHash,
        tenant_id: s.user.tenantId,
        user_id: s.user.id,
        csrf_token: s.csrfToken,
        remote_address: s.remoteAddress,
        user_agent: s.userAgent,
        created_on: Date.now(),
        expires_on: s.expiresOn,
      })
      .execute();
  }

  /** A session that has not expired (its user is read separately, see findUserById). */
  async findLiveSession(idHash: string, now: number): Promise<LiveSession | undefined> {
    const row = await this.liveSession({ idHash, now });
    return row
      ? { userId: row.user_id, tenantId: row.tenant_id, csrfToken: row.csrf_token, expiresOn: Number(row.expires_on) }
      : undefined;
  }

  async extendSession(idHash: string, expiresOn: number): Promise<void> {
    await this.db.updateTable('sessions').set({ expires_on: expiresOn }).where('id_hash', '=', idHash).execute();
  }

  async deleteSession(idHash: string, db: Kysely<IdentityTables> = this.db): Promise<void> {
    await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  /** Deletes the sessions of a user (or its one of `idHash`); answers their hashes, for the endings' event. */
  async deleteUserSessions(userId: string, db: Kysely<IdentityTables> = this.db, idHash?: string): Promise<string[]> {
    let q = db.deleteFrom('sessions').where('user_id', '=', userId);
    if (idHash !== undefined) q = q.where('id_hash', '=', idHash);
    const rows = await q.returning('id_hash').execute();
    return rows.map((r) => r.id_hash);
  }

  /** The live sessions of a user, newest first. */
  async listUserSessions(userId: string, now: number) {
    return this.db
      .selectFrom('sessions')
      .select(['id_hash', 'remote_address', 'user_agent', 'created_on', 'expires_on'])
      .where('user_id', '=', userId)
      .where('expires_on', '>', now)
      .orderBy('created_on', 'desc')
      .orderBy('id_hash')
      .execute();
  }

  async deleteTenantSessions(tenantId: string, db: Kysely<IdentityTables> = this.db): Promise<number> {
    const r = await db.deleteFrom('sessions').where('tenant_id', '=', tenantId).executeTakeFirst();
    return Number(r.numDeletedRows ?? 0);
  }

  async deleteExpiredSessions(now: number): Promise<number> {
    const r = await this.db.deleteFrom('sessions').where('expires_on', '<=', now).executeTakeFirst();
    return Number(r.numDeletedRows ?? 0);
  }
}
