import { sql, type Kysely, type ExpressionBuilder } from 'kysely';
import type { DmTables } from '../dm.tables.js';

type Db = Kysely<DmTables>;

export interface TemplateRow {
  id: number;
  doc: string;
}

export type TemplateRef = { id: number } | { customId: string };

/** The columns a template query may filter and sort on (decisions section 9's properties that templates have). */
export const TEMPLATE_COLUMNS = { id: 'id', customId: 'custom_id', name: 'name' } as const;

export interface ColumnFilter {
  column: (typeof TEMPLATE_COLUMNS)[keyof typeof TEMPLATE_COLUMNS];
  operator: string;
  value: unknown;
  invert: boolean;
}

/** SQL of the templates: every statement names the engine's scope. */
export class TemplatesRepository {
  constructor(private readonly scope: string) {}

  async insert(db: Db, customId: string, name: string, now: number): Promise<number> {
    const { id } = await db
      .insertInto('dm_templates')
      .values({ scope: this.scope, custom_id: customId, name, doc: '{}', created_on: now, updated_on: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(id);
  }

  async setDoc(db: Db, id: number, customId: string, name: string, doc: string, now: number): Promise<void> {
    await db.updateTable('dm_templates').set({ custom_id: customId, name, doc, updated_on: now }).where('scope', '=', this.scope).where('id', '=', id).execute();
  }

  async find(db: Db, ref: TemplateRef): Promise<TemplateRow | undefined> {
    let q = db.selectFrom('dm_templates').select(['id', 'doc']).where('scope', '=', this.scope);
    q = 'id' in ref ? q.where('id', '=', ref.id) : q.where('custom_id', '=', ref.customId);
    const row = await q.executeTakeFirst();
    return row && { id: Number(row.id), doc: row.doc };
  }

  async setImage(db: Db, id: number, pngBase64: string): Promise<void> {
    await db
      .insertInto('dm_template_images')
      .values({ scope: this.scope, template_id: id, png_base64: pngBase64 })
      .onConflict((oc) => oc.columns(['scope', 'template_id']).doUpdateSet({ png_base64: pngBase64 }))
      .execute();
  }

  async image(db: Db, id: number): Promise<string | undefined> {
    const row = await db.selectFrom('dm_template_images').select('png_base64').where('scope', '=', this.scope).where('template_id', '=', id).executeTakeFirst();
    return row?.png_base64;
  }

  async delete(db: Db, id: number): Promise<void> {
    await db.deleteFrom('dm_template_images').where('scope', '=', this.scope).where('template_id', '=', id).execute();
    await db.deleteFrom('dm_templates').where('scope', '=', this.scope).where('id', '=', id).execute();
  }

  async query(
    db: Db,
    filters: ColumnFilter[],
    sorters: Array<{ column: string; direction: 'asc' | 'desc' }>,
    start: number,
    limit: number,
  ): Promise<{ total: number; rows: TemplateRow[] }> {
    const where = (eb: ExpressionBuilder<DmTables, 'dm_templates'>) => eb.and([eb('scope', '=', this.scope), ...filters.map((f) => condition(eb, f))]);
    const count = await db.selectFrom('dm_templates').select(sql<number>`count(*)`.as('n')).where(where).executeTakeFirstOrThrow();
    let q = db.selectFrom('dm_templates').select(['id', 'doc']).where(where);
    for (const s of sorters) q = q.orderBy(sql.ref(s.column), s.direction);
    const rows = limit === 0 ? [] : await q.orderBy('id').limit(limit).offset(start).execute();
    return { total: Number(count.n), rows: rows.map((r) => ({ id: Number(r.id), doc: r.doc })) };
  }
}

function condition(eb: ExpressionBuilder<DmTables, 'dm_templates'>, f: ColumnFilter) {
  const col = sql.ref<string | number>(f.column);
  const v = f.value as never;
  const base = (() => {
    switch (f.operator) {
      case 'eq':
        return eb(col, '=', v);
      case 'ne':
        return eb(col, '<>', v);
      case 'gt':
        return eb(col, '>', v);
      case 'gte':
        return eb(col, '>=', v);
      case 'lt':
        return eb(col, '<', v);
      case 'lte':
        return eb(col, '<=', v);
      case 'in':
        return (f.value as unknown[]).length ? eb(col, 'in', f.value as never[]) : sql<boolean>`1 = 0`;
      case 'like':
        return sql<boolean>`lower(cast(${col} as text)) like ${likePattern(String(f.value))} escape '\\'`;
      default: // exists: every template has these columns
        return f.value === false ? sql<boolean>`1 = 0` : sql<boolean>`1 = 1`;
    }
  })();
  return f.invert ? eb.not(base as never) : base;
}

/** `*` and `?` wildcards, case-insensitive, everything else literal. */
function likePattern(value: string): string {
  return value
    .toLowerCase()
    .replace(/[\\%_]/g, (c) => `\\${c}`)
    .replace(/\*/g, '%')
    .replace(/\?/g, '_');
}
