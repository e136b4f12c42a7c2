import type { ModuleMigration } from '../db/migrations.js';

export const eventsMigrations: ModuleMigration[] = [
  {
    name: '2026-11-23-events-001-initial',
    async up(db, d) {
      await db.schema
        .createTable('change_event_counters')
        .addColumn('tenant_id', 'text', (c) => c.primaryKey())
        .addColumn('last_id', d.bigintColumnType, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('change_events')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('id', d.bigintColumnType, (c) => c.notNull())
        .addColumn('topic', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addPrimaryKeyConstraint('change_events_pk', ['tenant_id', 'id'])
        .execute();
      // The retention purge deletes by age.
      await db.schema.createIndex('change_events_created_on').on('change_events').column('created_on').execute();
    },
  },
];
