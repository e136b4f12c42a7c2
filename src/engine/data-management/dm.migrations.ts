import type { ModuleMigration } from '../../platform/db/migrations.js';

export const dmMigrations: ModuleMigration[] = [
  {
    name: '2026-11-23-engine-dm-001-templates',
    async up(db, d) {
      await d
        .addSerialPrimaryKey(db.schema.createTable('dm_templates'), 'id')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('custom_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('doc', 'text', (c) => c.notNull())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('updated_on', d.bigintColumnType, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('dm_templates_custom_id').on('dm_templates').columns(['scope', 'custom_id']).unique().execute();
    },
  },
];
