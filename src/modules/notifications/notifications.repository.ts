import { sql, type Kysely, type SqlBool, type ExpressionBuilder } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { forTenant } from '../../platform/db/tenant-scope.js';
import type { NotificationsTables } from './notifications.tables.js';
import type { StoredNotification, Visibility } from './notification.js';

type Db = Kysely<NotificationsTables>;

export interface NotificationRow {
  seq: number;
  doc: string;
  date: number;
  version: number;
}

/** SQL of the notifications: the rows, their recipients index and the per-tenant maintenance switch. */
export class NotificationsRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  async insert(trx: Db, tenantId: string, n: StoredNotification, doc: string, date: number): Promise<number> {
    const { seq } = await trx
      .insertInto('notifications')
      .values({ tenant_id: tenantId, id: n.id, doc, date, version: 1 })
      .returning('seq')
      .executeTakeFirstOrThrow();
    await this.insertRecipients(trx, tenantId, Number(seq), n, date);
    return Number(seq);
  }

  /** Locks the row for the rest of the transaction (a no-op update, portable) and answers it as it was. */
  async lock(trx: Db, tenantId: string, id: string): Promise<NotificationRow | undefined> {
    const row = await forTenant(trx, tenantId)
      .updateTable('notifications')
      .set({ version: sql`version` })
      .where('id', '=', id)
      .returning(['seq', 'doc', 'date', 'version'])
      .executeTakeFirst();
    return row && toRow(row);
  }

  async update(
    trx: Db,
    tenantId: string,
    seq: number,
    n: StoredNotification,
    doc: string,
    date: number,
    version: number,
  ): Promise<void> {
    await forTenant(trx, tenantId)
      .updateTable('notifications')
      .set({ doc, date, version })
      .where('seq', '=', seq)
      .execute();
    await forTenant(trx, tenantId).deleteFrom('notification_recipients').where('notification_seq', '=', seq).execute();
    await this.insertRecipients(trx, tenantId, seq, n, date);
  }

  async delete(trx: Db, tenantId: string, id: string): Promise<NotificationRow | undefined> {
    const row = await forTenant(trx, tenantId)
      .deleteFrom('notifications')
      .where('id', '=', id)
      .returning(['seq', 'doc', 'date', 'version'])
      .executeTakeFirst();
    if (!row) return undefined;
    await forTenant(trx, tenantId)
      .deleteFrom('notification_recipients')
      .where('notification_seq', '=', Number(row.seq))
      .execute();
    return toRow(row);
  }

  async get(tenantId: string, id: string, v: Visibility): Promise<NotificationRow | undefined> {
    const row = await forTenant(this.db, tenantId)
      .selectFrom('notifications as n')
      .select(['n.seq', 'n.doc', 'n.date', 'n.version'])
      .where('n.id', '=', id)
      .where((eb) => this.visible(eb, tenantId, v))
      .executeTakeFirst();
    return row && toRow(row);
  }

  /**
   * The caller's page, newest first, and how many it may see in all. For a recipient the count and the page come
   * from the recipients key alone (index-only, no document read), then the page's documents by seq; for
   * NOTIFICATION_ADMIN from the notifications' own (tenant, date, seq) index.
   */
  async list(
    tenantId: string,
    v: Visibility,
    start: number,
    limit: number,
  ): Promise<{ total: number; rows: NotificationRow[] }> {
    if (v.all) {
      const all = forTenant(this.db, tenantId).selectFrom('notifications as n');
      const [count, rows] = await Promise.all([
        all.select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow(),
        limit === 0
          ? []
          : all
              .select(['n.seq', 'n.doc', 'n.date', 'n.version'])
              .orderBy('n.date', 'desc')
              .orderBy('n.seq', 'desc')
              .limit(limit)
              .offset(start)
              .execute(),
      ]);
      return { total: Number(count.total), rows: rows.map(toRow) };
    }
    const named = this.recipientRows(tenantId, v);
    const [count, page] = await Promise.all([
      named.select(sql<number>`count(distinct r.notification_seq)`.as('total')).executeTakeFirstOrThrow(),
      limit === 0
        ? []
        : named
            .select(['r.notification_seq', 'r.date'])
            .distinct()
            .orderBy('r.date', 'desc')
            .orderBy('r.notification_seq', 'desc')
            .limit(limit)
            .offset(start)
            .execute(),
    ]);
    const seqs = page.map((p) => Number(p.notification_seq));
    if (seqs.length === 0) return { total: Number(count.total), rows: [] };
    const docs = await forTenant(this.db, tenantId)
      .selectFrom('notifications')
      .select(['seq', 'doc', 'date', 'version'])
      .where('seq', 'in', seqs)
      .execute();
    const bySeq = new Map(docs.map((d) => [Number(d.seq), toRow(d)]));
    // A notification deleted between the two statements is left out (the page is short by exactly that one).
    return { total: Number(count.total), rows: seqs.flatMap((seq) => bySeq.get(seq) ?? []) };
  }

  /** Runtime maintenance switches of every tenant that has set one. */
  async maintenanceSwitches(): Promise<Map<string, boolean>> {
    const rows = await this.db.selectFrom('notification_settings').select(['tenant_id', 'maintenance']).execute();
    return new Map(rows.map((r) => [r.tenant_id, this.dialect.fromBool(r.maintenance)]));
  }

  async setMaintenance(trx: Db, tenantId: string, active: boolean): Promise<void> {
    const value = this.dialect.toBool(active);
    await trx
      .insertInto('notification_settings')
      .values({ tenant_id: tenantId, maintenance: value })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ maintenance: value }))
      .execute();
  }

  private async insertRecipients(
    trx: Db,
    tenantId: string,
    seq: number,
    n: StoredNotification,
    date: number,
  ): Promise<void> {
    await trx
      .insertInto('notification_recipients')
      .values(
        n.recipients.map((name) => ({
          tenant_id: tenantId,
          kind: n.recipientsType,
          name,
          date,
          notification_seq: seq,
        })),
      )
      .execute();
  }

  /** The recipient rows naming the caller: its login name, one of its roles, one of its active organisations. */
  private recipientRows(tenantId: string, v: Extract<Visibility, { all: false }>) {
    return forTenant(this.db, tenantId)
      .selectFrom('notification_recipients as r')
      .where((w) => {
        const any = [w.and([w('r.kind', '=', 'user'), w('r.name', '=', v.user)])];
        if (v.roles.length) any.push(w.and([w('r.kind', '=', 'role'), w('r.name', 'in', v.roles)]));
        if (v.organisations.length)
          any.push(w.and([w('r.kind', '=', 'organisation'), w('r.name', 'in', v.organisations)]));
        return w.or(any);
      });
  }

  /** The visibility rule in SQL: the row's seq is among those whose recipients name the caller. */
  private visible(eb: ExpressionBuilder<any, any>, tenantId: string, v: Visibility) {
    if (v.all) return sql<SqlBool>`1 = 1`;
    return eb('n.seq', 'in', this.recipientRows(tenantId, v).select('r.notification_seq'));
  }
}

function toRow(row: { seq: unknown; doc: string; date: unknown; version: unknown }): NotificationRow {
  return { seq: Number(row.seq), doc: row.doc, date: Number(row.date), version: Number(row.version) };
}
