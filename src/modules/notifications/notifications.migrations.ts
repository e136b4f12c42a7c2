import type { ModuleMigration } from '../../platform/db/migrations.js';

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
    // A tenant's change count for conditional GETs (notification-tags.ts), kept by triggers in every write's
    // transaction (Dialect.createChangeCounter): every add, update and delete writes the notification's row.
    name: '2026-12-02-notifications-002-changes',
    async up(db, d) {
      await d.createChangeCounter(db, {
        table: 'notifications',
        counterTable: 'notification_changes',
        keys: ['tenant_id'],
      });
    },
  },
];
