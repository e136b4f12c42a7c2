import { sql, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { DataAccess } from '../../platform/db/data-access.js';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { PreparedQueries } from '../../platform/db/prepared-query.js';
import { forTenant } from '../../platform/db/tenant-scope.js';
import type { NotificationsTables } from './notifications.tables.js';
import type { StoredNotification, Visibility } from './notification.js';
import { type NotificationList, NotificationListsRepository } from './notification-lists.repository.js';
import { callerRecipientRows, type NotificationRow, toRow } from './notification-rows.js';
import { recipientSetKey } from './recipient-sets.js';

export type { NotificationRow } from './notification-rows.js';

type Db = Kysely<NotificationsTables>;

/** SQL of the notifications: the rows, their recipients index and the per-tenant maintenance switch. */
export class NotificationsRepository {
  private readonly db: Db;
  private readonly lists: NotificationListsRepository;
  /** The one-statement insert (PostgreSQL), compiled once. */
  private readonly statements = new PreparedQueries();

  constructor(
    data: DataAccess<NotificationsTables>,
    private readonly dialect: Dialect,
  ) {
    this.db = data.db;
    this.lists = new NotificationListsRepository(data, dialect);
  }

  async insert(trx: Db, tenantId: string, n: StoredNotification, doc: string, date: number): Promise<number> {
    if (this.dialect.combinesWrites) return this.insertInOneStatement(trx, tenantId, n, doc, date);
    const { seq } = await trx
      .insertInto('notifications')
      .values({ tenant_id: tenantId, id: n.id, doc, date, version: 1 })
      .returning('seq')
      .executeTakeFirstOrThrow();
    await this.insertRecipients(trx, tenantId, Number(seq), n, date);
    await this.countIn(trx, tenantId, n);
    return Number(seq);
  }

  /**
   * As `insert`, in one statement (PostgreSQL: one round trip where there were three or four): the notification row,
   * its recipient rows, its recipient set's count and, where that count is 1 (countIn), the set's members.
   */
  private async insertInOneStatement(
    trx: Db,
    tenantId: string,
    n: StoredNotification,
    doc: string,
    date: number,
  ): Promise<number> {
    const rows = await this.statements.run<{ seq: number | string }>(
      trx,
      'insert',
      (p) => {
        const [row, , set] = [0, 1, 2].map((i) => sql.id(this.dialect.statementPart(i)));
        const names = (i: number) => this.dialect.jsonRecords(p(i), { name: 'text' });
        const statement = this.dialect.oneStatement([
          sql`insert into notifications (tenant_id, id, doc, date, version)
            values (${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, 1) returning seq`,
          sql`insert into notification_recipients (tenant_id, kind, name, date, notification_seq)
            select ${p(0)}, ${p(4)}, r.name, ${p(3)}, ${row}.seq from ${row} cross join ${names(5)} r`,
          sql`insert into notification_recipient_sets as s (tenant_id, set_key, notifications)
            values (${p(0)}, ${p(6)}, 1)
            on conflict (tenant_id, set_key) do update set notifications = s.notifications + 1
            returning notifications`,
          sql`insert into notification_set_members (tenant_id, kind, name, set_key)
            select ${p(0)}, ${p(4)}, r.name, ${p(6)} from ${set} cross join ${names(7)} r
            where ${set}.notifications = 1
            on conflict do nothing`,
          sql`select seq from ${row}`,
        ])!;
        return { compile: () => statement.compile(this.db) };
      },
      [
        tenantId,
        n.id,
        doc,
        date,
        n.recipientsType,
        JSON.stringify(n.recipients.map((name) => ({ name }))),
        recipientSetKey(n),
        JSON.stringify([...new Set(n.recipients)].map((name) => ({ name }))),
      ],
    );
    return Number(rows[0]!.seq);
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

  /** `before`: the notification as it was (its recipient set loses it if the update moves it to another). */
  async update(
    trx: Db,
    tenantId: string,
    seq: number,
    before: StoredNotification,
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
    if (recipientSetKey(before) !== recipientSetKey(n)) {
      await this.countOut(trx, tenantId, before);
      await this.countIn(trx, tenantId, n);
    }
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
    await this.countOut(trx, tenantId, JSON.parse(row.doc));
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

  /** The caller's page, newest first, its total and the tenant's change count (notification-lists.repository.ts). */
  list(tenantId: string, v: Visibility, start: number, limit: number): Promise<NotificationList> {
    return this.lists.list(tenantId, v, start, limit);
  }

  /** The notification joins its recipient set's count; a set counted for the first time gets its members. */
  private async countIn(trx: Db, tenantId: string, n: StoredNotification): Promise<void> {
    const key = recipientSetKey(n);
    const { notifications } = await trx
      .insertInto('notification_recipient_sets')
      .values({ tenant_id: tenantId, set_key: key, notifications: 1 })
      .onConflict((oc) =>
        oc
          .columns(['tenant_id', 'set_key'])
          .doUpdateSet({ notifications: sql`notification_recipient_sets.notifications + 1` }),
      )
      .returning('notifications')
      .executeTakeFirstOrThrow();
    // At 1 the set is new or was at 0 (its members stay with it then): either way they are there after this.
    if (Number(notifications) !== 1) return;
    await trx
      .insertInto('notification_set_members')
      .values(
        [...new Set(n.recipients)].map((name) => ({ tenant_id: tenantId, kind: n.recipientsType, name, set_key: key })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  private async countOut(trx: Db, tenantId: string, n: StoredNotification): Promise<void> {
    await forTenant(trx, tenantId)
      .updateTable('notification_recipient_sets')
      .set({ notifications: sql`notifications - 1` })
      .where('set_key', '=', recipientSetKey(n))
      .execute();
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

  /** The visibility rule in SQL: the row's seq is among those whose recipients name the caller. */
  private visible(eb: ExpressionBuilder<any, any>, tenantId: string, v: Visibility) {
    if (v.all) return sql<SqlBool>`1 = 1`;
    return eb('n.seq', 'in', callerRecipientRows(this.db, tenantId, v).select('r.notification_seq'));
  }
}
