import { sql, type Kysely } from 'kysely';
import type { RestTables } from './rest.tables.js';

type Db = Kysely<RestTables>;
export type ItemKind = 'task' | 'report';

export interface ItemRow {
  doc: string;
  created_on: number;
}

/** SQL of the shared data: every statement names its scope (the Process User Server's tenant) and kind. */
export class SharedItemsRepository {
  constructor(private readonly db: Db) {}

  async insert(scope: string, kind: ItemKind, id: string, doc: string, roles: string[], now: number, by: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const { seq } = await trx
        .insertInto('engine_items')
        .values({ scope, kind, id, doc, created_on: now, created_by: by })
        .returning('seq')
        .executeTakeFirstOrThrow();
      if (roles.length) {
        await trx
          .insertInto('engine_item_roles')
          .values(roles.map((role) => ({ scope, kind, role, item_seq: Number(seq) })))
          .execute();
      }
    });
  }

  /** Items of the kind, oldest first; with `roles`, only those sharing at least one of them (matching in SQL). */
  async list(scope: string, kind: ItemKind, roles: string[] | 'all', start: number, limit: number): Promise<ItemRow[]> {
    if (roles !== 'all' && roles.length === 0) return [];
    let query = this.db
      .selectFrom('engine_items as i')
      .select(['i.doc', 'i.created_on'])
      .where('i.scope', '=', scope)
      .where('i.kind', '=', kind);
    if (roles !== 'all') {
      const matching = this.db
        .selectFrom('engine_item_roles as r')
        .select('r.item_seq')
        .where('r.scope', '=', scope)
        .where('r.kind', '=', kind)
        .where('r.role', 'in', roles);
      query = query.where('i.seq', 'in', matching);
    }
    return query.orderBy('i.seq').limit(limit).offset(start).execute();
  }

  /** For the benchmark and tests: how many items of a kind the scope holds. */
  async count(scope: string, kind: ItemKind): Promise<number> {
    const row = await this.db.selectFrom('engine_items').select(sql<number>`count(*)`.as('n')).where('scope', '=', scope).where('kind', '=', kind).executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
