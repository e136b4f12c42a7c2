import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { PreparedQueries } from '../../../platform/db/prepared-query.js';
import { targetOf, type DataAccess } from '../../../platform/db/data-access.js';
import type { FieldTarget } from '../../../platform/query/index.js';
import type { Dialect, JsonRecordColumn } from '../../../platform/db/dialects/dialect.js';
import { batchedLookup } from '../../../platform/db/batched-lookup.js';
import type { DmQuery } from '../dm-query.js';
import type { DmTables } from '../dm.tables.js';

type Db = Kysely<DmTables>;

export interface TemplateRow {
  id: number;
  doc: string;
}

export type TemplateRef = { id: number } | { customId: string };

/** What a template query may filter and sort on, for the template aliased `t`: its columns and its document's fields. */
export const TEMPLATE_FIELDS: Record<string, FieldTarget> = {
  id: { kind: 'column', column: 't.id', type: 'number' },
  customId: { kind: 'column', column: 't.custom_id', type: 'text' },
  name: { kind: 'column', column: 't.name', type: 'text' },
  description: { kind: 'json', column: 't.doc', path: ['description'] },
  restricted: { kind: 'json', column: 't.doc', path: ['restricted'] },
  roles: { kind: 'json', column: 't.doc', path: ['roles'] },
  childTemplates: { kind: 'json', column: 't.doc', path: ['childTemplates'] },
};

/** SQL of the templates: every statement names the engine's scope. */
export class TemplatesRepository {
  private readonly prepared = new PreparedQueries(8);

  private readonly byId: (key: { id: number }) => Promise<TemplateRow | undefined>;
  private readonly byCustomId: (key: { customId: string }) => Promise<TemplateRow | undefined>;

  private readonly root: Db;

  constructor(
    private readonly data: DataAccess<DmTables>,
    private readonly scope: string,
    private readonly dialect: Dialect,
  ) {
    const root = data.db;
    this.root = root;
    const lookup = <In>(
      name: string,
      columns: Record<string, JsonRecordColumn>,
      record: (input: In) => Record<string, unknown>,
      key: [string, string],
    ) =>
      batchedLookup<In, TemplateRow>(data, dialect, {
        name,
        columns: { s: 'text', ...columns },
        record: (input) => ({ s: scope, ...record(input) }),
        query: (records) =>
          dialect
            .joinByKey(records, 'dm_templates', 't', [['scope', 'r.s'], key])
            .select(['r.n', 't.id', dialect.jsonText('t.doc').as('doc')]),
      });
    this.byId = lookup('template-by-id', { i: 'bigint' }, ({ id }: { id: number }) => ({ i: id }), ['id', 'r.i']);
    this.byCustomId = lookup(
      'template-by-custom-id',
      { c: 'text' },
      ({ customId }: { customId: string }) => ({ c: customId }),
      ['custom_id', 'r.c'],
    );
  }

  async insert(db: Db, customId: string, name: string, now: number): Promise<number> {
    const { id } = await db
      .insertInto('dm_templates')
      .values({ scope: this.scope, custom_id: customId, name, doc: '{}', created_on: now, updated_on: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(id);
  }

  async setDoc(
    db: Db,
    id: number,
    customId: string,
    name: string,
    doc: string,
    restricted: boolean,
    now: number,
  ): Promise<void> {
    await db
      .updateTable('dm_templates')
      .set({ custom_id: customId, name, doc, restricted: restricted ? 1 : 0, updated_on: now })
      .where('scope', '=', this.scope)
      .where('id', '=', id)
      .execute();
  }

  /**
   * The template by id or customId. Outside a transaction, the lookups of one turn of the event loop are answered by
   * one statement (platform/db/batched-lookup): one round trip for a burst of gets.
   */
  async find(db: Db, ref: TemplateRef): Promise<TemplateRow | undefined> {
    if (db === this.root) {
      const row = 'id' in ref ? await this.byId({ id: ref.id }) : await this.byCustomId({ customId: ref.customId });
      return row && { id: Number(row.id), doc: row.doc };
    }
    const rows =
      'id' in ref
        ? await this.prepared.run<TemplateRow>(
            targetOf(this.data, db),
            'by-id',
            (p) =>
              db
                .selectFrom('dm_templates')
                .select(['id', this.dialect.jsonText('doc').as('doc')])
                .where('scope', '=', p(0))
                .where('id', '=', p(1)),
            [this.scope, ref.id],
          )
        : await this.prepared.run<TemplateRow>(
            targetOf(this.data, db),
            'by-custom-id',
            (p) =>
              db
                .selectFrom('dm_templates')
                .select(['id', this.dialect.jsonText('doc').as('doc')])
                .where('scope', '=', p(0))
                .where('custom_id', '=', p(1)),
            [this.scope, ref.customId],
          );
    const row = rows[0];
    return row && { id: Number(row.id), doc: row.doc };
  }

  /**
   * The ids of the restricted templates whose assets a caller does not see, as a subquery for the statements of a
   * query (read in their snapshot, no statement of its own): every restricted template, or with `roles` those that
   * name none of them.
   */
  hiddenIds(roles: readonly string[] | undefined): RawBuilder<unknown> {
    const allowed = roles?.length ? this.dialect.jsonArrayHasAny('h.doc', 'roles', roles) : sql<SqlBool>`1 = 0`;
    return sql`SELECT h.id FROM dm_templates h WHERE h.scope = ${this.scope} AND h.restricted = 1 AND NOT ${allowed}`;
  }

  async setImage(db: Db, id: number, pngBase64: string): Promise<void> {
    await db
      .insertInto('dm_template_images')
      .values({ scope: this.scope, template_id: id, png_base64: pngBase64 })
      .onConflict((oc) => oc.columns(['scope', 'template_id']).doUpdateSet({ png_base64: pngBase64 }))
      .execute();
  }

  async image(db: Db, id: number): Promise<string | undefined> {
    const row = await db
      .selectFrom('dm_template_images')
      .select('png_base64')
      .where('scope', '=', this.scope)
      .where('template_id', '=', id)
      .executeTakeFirst();
    return row?.png_base64;
  }

  async delete(db: Db, id: number): Promise<void> {
    await db.deleteFrom('dm_template_images').where('scope', '=', this.scope).where('template_id', '=', id).execute();
    await db.deleteFrom('dm_templates').where('scope', '=', this.scope).where('id', '=', id).execute();
  }

  /** One page of the templates a compiled query (alias `t`) selects, and how many it selects in all. */
  async query(db: Db, q: DmQuery, start: number, limit: number): Promise<{ total: number; rows: TemplateRow[] }> {
    const where = q.where ?? sql<SqlBool>`1 = 1`;
    const count = await sql<{
      n: number | string;
    }>`SELECT count(*) AS n FROM dm_templates t WHERE t.scope = ${this.scope} AND ${where}`.execute(db);
    if (limit === 0) return { total: Number(count.rows[0].n), rows: [] };
    const order = sql.join([...q.orderBy, sql`t.id`]);
    const rows = await sql<{
      id: number;
      doc: string;
    }>`SELECT t.id, ${this.dialect.jsonText('t.doc')} AS doc FROM dm_templates t WHERE t.scope = ${this.scope} AND ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${start}`.execute(
      db,
    );
    return { total: Number(count.rows[0].n), rows: rows.rows.map((r) => ({ id: Number(r.id), doc: r.doc })) };
  }
}
