import { sql } from 'kysely';
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
  {
    name: '2026-11-23-engine-dm-002-template-images',
    async up(db, d) {
      await db.schema
        .createTable('dm_template_images')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('template_id', d.bigintColumnType, (c) => c.notNull())
        .addColumn('png_base64', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('dm_template_images_pk', ['scope', 'template_id'])
        .execute();
    },
  },
  {
    // Template documents as JSON (jsonb on PostgreSQL), so queries on their fields run in SQL on both engines.
    name: '2026-11-23-engine-dm-003-template-json',
    async up(db, d) {
      if (d.jsonColumnType === 'jsonb') await sql`ALTER TABLE dm_templates ALTER COLUMN doc TYPE jsonb USING doc::jsonb`.execute(db);
    },
  },
];
