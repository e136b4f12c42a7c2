import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import type { IdentityTables } from '../identity.tables.js';
import type { AuditEntry } from '../../../platform/audit/audit-trail.js';

export type { AuditEntry };

export interface AuditRecord extends Omit<AuditEntry, 'tenantId'> {
  id: string;
  at: string;
}

/** Optional filters of the audit list: a time range (epoch ms, `from` inclusive, `to` exclusive) and exact values. */
export interface AuditFilter {
  from?: number;
  to?: number;
  actor?: string;
  action?: string;
  outcome?: 'success' | 'failure';
}

export class AuditRepository {
  constructor(
    private readonly db: Kysely<IdentityTables>,
    private readonly dialect: Dialect,
  ) {}

  async insert(e: AuditEntry): Promise<void> {
    await this.db.insertInto('audit_log').values(this.row(randomUUID(), e)).execute();
  }

  /** Writes the record `id`, or replaces the detail of the one written before (a count that grows). */
  async upsertDetail(id: string, e: AuditEntry): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values(this.row(id, e))
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ detail: eb.ref('excluded.detail') })))
      .execute();
  }

  private row(id: string, e: AuditEntry) {
    return {
      id,
      tenant_id: e.tenantId,
      at: Date.now(),
      actor: e.actor.slice(0, 256),
      action: e.action,
      outcome: e.outcome,
      remote_address: e.remoteAddress.slice(0, 64),
      user_agent: e.userAgent.slice(0, 512),
      detail: this.dialect.toJson(e.detail ?? {}),
    };
  }

  /** Deletes the records older than `before` (epoch ms); answers how many. */
  async deleteOlderThan(before: number): Promise<number> {
    const result = await this.db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Newest first, one tenant only, narrowed by `filter`. */
  async list(
    tenantId: string,
    start: number,
    limit: number,
    filter: AuditFilter = {},
  ): Promise<{ total: number; items: AuditRecord[] }> {
    let base = this.db.selectFrom('audit_log').where('tenant_id', '=', tenantId);
    if (filter.from !== undefined) base = base.where('at', '>=', filter.from);
    if (filter.to !== undefined) base = base.where('at', '<', filter.to);
    if (filter.actor !== undefined) base = base.where('actor', '=', filter.actor);
    if (filter.action !== undefined) base = base.where('action', '=', filter.action);
    if (filter.outcome !== undefined) base = base.where('outcome', '=', filter.outcome);
    const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base.selectAll().orderBy('at', 'desc').orderBy('id').offset(start).limit(limit).execute();
    return {
      total: Number(n),
      items: rows.map((r) => ({
        id: r.id,
        at: new Date(Number(r.at)).toISOString(),
        actor: r.actor,
        action: r.action,
        outcome: r.outcome as 'success' | 'failure',
        remoteAddress: r.remote_address,
        userAgent: r.user_agent,
        detail: this.dialect.fromJson<Record<string, unknown>>(r.detail),
      })),
    };
  }
}
