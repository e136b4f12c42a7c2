import { sql, type Kysely } from 'kysely';
import { PreparedQueries } from '../../platform/db/prepared-query.js';
import type { DataAccess } from '../../platform/db/data-access.js';
import type { RestTables } from './rest.tables.js';

type Db = Kysely<RestTables>;
export type ItemKind = 'task' | 'report';

export interface ItemRow {
  doc: string;
  created_on: number;
}

/** SQL of the shared data: every statement names its scope (the Process User Server's tenant) and kind. */
export class SharedItemsRepository {
  /** The list statements, built once per shape (all, or matched against n roles). */
  private readonly lists = new PreparedQueries();

  private readonly db: Db;

  constructor(private readonly data: DataAccess<RestTables>) {
    this.db = data.db;
  }

  /** Inside the caller's transaction (which also publishes the write on the change feed). */
  async insert(
    trx: Db,
    scope: string,
    kind: ItemKind,
    id: string,
    doc: string,
    roles: string[],
    now: number,
    by: string,
  ): Promise<void> {
    {
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
    }
  }

  /** Items of the kind, oldest first; with `roles`, only those sharing at least one of them (matching in SQL). */
  async list(scope: string, kind: ItemKind, roles: string[] | 'all', start: number, limit: number): Promise<ItemRow[]> {
    if (roles !== 'all' && roles.length === 0) return [];
    const matched = roles === 'all' ? [] : [...new Set(roles)];
    const key = roles === 'all' ? 'all' : `roles:${matched.length}`;
    return this.lists.run<ItemRow>(
      this.data,
      key,
      (p) => {
        if (roles === 'all') {
          return this.db
            .selectFrom('engine_items as i')
            .select(['i.doc', 'i.created_on'])
            .where('i.scope', '=', p(0))
            .where('i.kind', '=', p(1))
            .orderBy('i.seq')
            .limit(p(2))
            .offset(p(3));
        }
        // Driven by the role key: the caller's role ranges, then each item by its key.
        return this.db
          .selectFrom('engine_item_roles as r')
          .innerJoin('engine_items as i', 'i.seq', 'r.item_seq')
          .select(['i.doc', 'i.created_on'])
          .where('r.scope', '=', p(0))
          .where('r.kind', '=', p(1))
          .where(
            'r.role',
            'in',
            matched.map((_, i) => p(4 + i)),
          )
          .where('i.scope', '=', p(0))
          .groupBy('i.seq')
          .orderBy('i.seq')
          .limit(p(2))
          .offset(p(3));
      },
      [scope, kind, limit, start, ...matched],
    );
  }

  /** For the benchmark and tests: how many items of a kind the scope holds. */
  async count(scope: string, kind: ItemKind): Promise<number> {
    const row = await this.db
      .selectFrom('engine_items')
      .select(sql<number>`count(*)`.as('n'))
      .where('scope', '=', scope)
      .where('kind', '=', kind)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
