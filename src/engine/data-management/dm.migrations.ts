import { sql } from 'kysely';
import type { ModuleMigration } from '../../platform/db/migrations.js';
import { VALUE_KIND } from '../../platform/query/index.js';

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
      await db.schema
        .createIndex('dm_templates_custom_id')
        .on('dm_templates')
        .columns(['scope', 'custom_id'])
        .unique()
        .execute();
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
      if (d.jsonColumnType === 'jsonb')
        await sql`ALTER TABLE dm_templates ALTER COLUMN doc TYPE jsonb USING doc::jsonb`.execute(db);
    },
  },
  {
    // Assets (decisions section 9): the asset with its ACTIVE version's answer (`doc`), every version, the value index
    // of the ACTIVE versions for queries (platform/query/value-index.ts, with the sort keys of the sort modes), and
    // the engine users' saved queries.
    name: '2026-11-23-engine-dm-004-assets',
    async up(db, d) {
      // Whether a template is restricted, as a column: a query leaves out the assets of restricted templates.
      await db.schema
        .alterTable('dm_templates')
        .addColumn('restricted', 'smallint', (c) => c.notNull().defaultTo(0))
        .execute();
      const templates = await db.selectFrom('dm_templates').select(['id', 'doc']).execute();
      for (const t of templates) {
        if (d.fromJson<{ restricted?: boolean }>(t.doc).restricted)
          await db.updateTable('dm_templates').set({ restricted: 1 }).where('id', '=', t.id).execute();
      }
      await d
        .addSerialPrimaryKey(db.schema.createTable('dm_assets'), 'seq')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('template_id', d.bigintColumnType, (c) => c.notNull())
        .addColumn('custom_id', 'text')
        .addColumn('parent_id', d.bigintColumnType)
        .addColumn('head_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('active_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('doc', d.jsonColumnType, (c) => c.notNull())
        .addColumn('idx', 'smallint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('dm_assets_custom_id')
        .on('dm_assets')
        .columns(['scope', 'template_id', 'custom_id'])
        .unique()
        .execute();
      await db.schema.createIndex('dm_assets_parent').on('dm_assets').columns(['scope', 'parent_id']).execute();
      await db.schema
        .createIndex('dm_assets_unindexed_idx')
        .on('dm_assets')
        .columns(['scope', 'seq'])
        .where(sql.ref('idx'), '<>', 1)
        .execute();
      await db.schema
        .createTable('dm_asset_versions')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('asset_id', d.bigintColumnType, (c) => c.notNull())
        .addColumn('updated_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .addColumn('comment', 'text', (c) => c.notNull())
        .addColumn('data', d.jsonColumnType, (c) => c.notNull())
        .addPrimaryKeyConstraint('dm_asset_versions_pk', ['scope', 'asset_id', 'updated_on'])
        .execute();
      await db.schema
        .createTable('dm_asset_values')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('item_seq', d.bigintColumnType, (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('t', 'smallint', (c) => c.notNull())
        .addColumn('elem', 'smallint', (c) => c.notNull())
        .addColumn('num', 'double precision')
        .addColumn('str', d.codePointTextType)
        .addColumn('ci', d.codePointTextType)
        .addColumn('usr', d.codePointTextType)
        .addColumn('uci', d.codePointTextType)
        .execute();
      await db.schema
        .createIndex('dm_asset_values_lookup_idx')
        .on('dm_asset_values')
        .columns(['scope', 'path', 't', 'num', 'str', 'item_seq'])
        .execute();
      await db.schema
        .createIndex('dm_asset_values_item_idx')
        .on('dm_asset_values')
        .columns(['item_seq', 'path', 'elem', 't', 'num', 'str', 'ci', 'usr', 'uci', 'scope'])
        .execute();
      await db.schema
        .createTable('dm_saved_queries')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('user_name', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('query', d.jsonColumnType, (c) => c.notNull())
        .addColumn('updated_on', d.bigintColumnType, (c) => c.notNull())
        .addPrimaryKeyConstraint('dm_saved_queries_pk', ['scope', 'user_name', 'name'])
        .execute();
    },
  },
  {
    // The sort keys of the sort modes ci, user and user_ci, each in its own index over the string rows, so that a query
    // sorted in those modes can walk its sort's index as in mode '' (AssetLists.walk) instead of sorting every match.
    // Only string rows carry these keys; an update rewrites only the rows of the paths it changed.
    name: '2026-11-24-engine-dm-005-sort-mode-indexes',
    async up(db) {
      for (const key of ['ci', 'usr', 'uci'] as const) {
        await db.schema
          .createIndex(`dm_asset_values_${key}_idx`)
          .on('dm_asset_values')
          .columns(['scope', 'path', key, 'item_seq'])
          .where(sql.ref('t'), '=', VALUE_KIND.string)
          .execute();
      }
    },
  },
  {
    // A write counter on assets: an update writes its one statement only if the asset's `rev` is still the one it
    // read (PostgreSQL runs single updates that way, without a transaction; inside transactions it keeps two
    // concurrent updates of one asset from overwriting each other's version).
    name: '2026-11-25-engine-dm-006-asset-rev',
    async up(db, d) {
      await db.schema
        .alterTable('dm_assets')
        .addColumn('rev', d.bigintColumnType, (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
];
