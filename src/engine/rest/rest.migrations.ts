import type { ModuleMigration } from '../../platform/db/migrations.js';

export const restMigrations: ModuleMigration[] = [
  {
    name: '2026-11-23-engine-rest-001-initial',
    async up(db, d) {
      await d
        .addSerialPrimaryKey(db.schema.createTable('engine_items'), 'seq')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('doc', 'text', (c) => c.notNull())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('engine_items_scope_kind')
        .on('engine_items')
        .columns(['scope', 'kind', 'seq'])
        .execute();
      await d
        .keyOnlyTable(
          db.schema
            .createTable('engine_item_roles')
            .addColumn('scope', 'text', (c) => c.notNull())
            .addColumn('kind', 'text', (c) => c.notNull())
            .addColumn('role', 'text', (c) => c.notNull())
            .addColumn('item_seq', d.bigintColumnType, (c) => c.notNull())
            .addPrimaryKeyConstraint('engine_item_roles_pk', ['scope', 'kind', 'role', 'item_seq']),
        )
        .execute();
    },
  },
];
