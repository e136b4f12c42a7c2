import type { Kysely } from 'kysely';
import type { ModuleMigration } from '../../platform/db/migrations.js';
import { recipientSetKey } from './recipient-sets.js';

export const notificationsMigrations: ModuleMigration[] = [
  {
    name: '2026-11-23-notifications-001-initial',
    async up(db, d) {
      await d
        .addSerialPrimaryKey(db.schema.createTable('notifications'), 'seq')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('doc', 'text', (c) => c.notNull())
        .addColumn('date', d.bigintColumnType, (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('notifications_tenant_id')
        .on('notifications')
        .columns(['tenant_id', 'id'])
        .unique()
        .execute();
      // The list order: newest first.
      await db.schema
        .createIndex('notifications_tenant_date')
        .on('notifications')
        .columns(['tenant_id', 'date', 'seq'])
        .execute();
      await d
        .keyOnlyTable(
          db.schema
            .createTable('notification_recipients')
            .addColumn('tenant_id', 'text', (c) => c.notNull())
            .addColumn('kind', 'text', (c) => c.notNull())
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('date', d.bigintColumnType, (c) => c.notNull())
            .addColumn('notification_seq', d.bigintColumnType, (c) => c.notNull())
            // Per recipient, its notifications newest first: a caller's page and count come from this key alone.
            .addPrimaryKeyConstraint('notification_recipients_pk', [
              'tenant_id',
              'kind',
              'name',
              'date',
              'notification_seq',
            ]),
        )
        .execute();
      await db.schema
        .createIndex('notification_recipients_seq')
        .on('notification_recipients')
        .column('notification_seq')
        .execute();
      await db.schema
        .createTable('notification_settings')
        .addColumn('tenant_id', 'text', (c) => c.primaryKey())
        .addColumn('maintenance', 'boolean', (c) => c.notNull())
        .execute();
    },
  },
  {
    // Issue 47: a list's total from kept counts per recipient set instead of counting the caller's recipient rows.
    name: '2026-11-27-notifications-002-recipient-sets',
    async up(db, d) {
      await d
        .keyOnlyTable(
          db.schema
            .createTable('notification_recipient_sets')
            .addColumn('tenant_id', 'text', (c) => c.notNull())
            .addColumn('set_key', 'text', (c) => c.notNull())
            .addColumn('notifications', d.bigintColumnType, (c) => c.notNull())
            .addPrimaryKeyConstraint('notification_recipient_sets_pk', ['tenant_id', 'set_key']),
        )
        .execute();
      await d
        .keyOnlyTable(
          db.schema
            .createTable('notification_set_members')
            .addColumn('tenant_id', 'text', (c) => c.notNull())
            .addColumn('kind', 'text', (c) => c.notNull())
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('set_key', 'text', (c) => c.notNull())
            // Per recipient, the sets naming it: a caller's sets are a few range reads.
            .addPrimaryKeyConstraint('notification_set_members_pk', ['tenant_id', 'kind', 'name', 'set_key']),
        )
        .execute();
      await backfillRecipientSets(db);
    },
  },
  {
    // A tenant's change count for conditional GETs (notification-tags.ts), kept by triggers in every write's
    // transaction (Dialect.createChangeCounter): every add, update and delete writes the notification's row.
    name: '2026-12-02-notifications-003-changes',
    async up(db, d) {
      await d.createChangeCounter(db, {
        table: 'notifications',
        counterTable: 'notification_changes',
        keys: ['tenant_id'],
      });
    },
  },
];

/** Counts the notifications already stored, by tenant and recipient set, in pages of 1,000. */
async function backfillRecipientSets(db: Kysely<any>): Promise<void> {
  const sets = new Map<string, { tenant: string; key: string; kind: string; names: string[]; n: number }>();
  for (let after = 0; ; ) {
    const rows: { seq: unknown; tenant_id: string; doc: string }[] = await db
      .selectFrom('notifications')
      .select(['seq', 'tenant_id', 'doc'])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(1_000)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      const n = JSON.parse(row.doc) as { recipients: string[]; recipientsType: string };
      const key = recipientSetKey(n);
      const id = `${row.tenant_id}\n${key}`;
      const set = sets.get(id);
      if (set) set.n++;
      else
        sets.set(id, { tenant: row.tenant_id, key, kind: n.recipientsType, names: [...new Set(n.recipients)], n: 1 });
    }
    after = Number(rows.at(-1)!.seq);
  }
  for (const s of sets.values()) {
    await db
      .insertInto('notification_recipient_sets')
      .values({ tenant_id: s.tenant, set_key: s.key, notifications: s.n })
      .execute();
    for (let i = 0; i < s.names.length; i += 200) {
      await db
        .insertInto('notification_set_members')
        .values(s.names.slice(i, i + 200).map((name) => ({ tenant_id: s.tenant, kind: s.kind, name, set_key: s.key })))
        .execute();
    }
  }
}
