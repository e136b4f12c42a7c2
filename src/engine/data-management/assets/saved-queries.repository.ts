import type { Kysely } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import type { DmTables } from '../dm.tables.js';

type Db = Kysely<DmTables>;

/** The engine users' saved queries (context Asset: saveQuery, deleteQuery, query with getQueries). */
export class SavedQueriesRepository {
  constructor(
    private readonly scope: string,
    private readonly dialect: Dialect,
  ) {}

  async save(db: Db, user: string, name: string, query: Record<string, unknown>, now: number): Promise<void> {
    await db
      .insertInto('dm_saved_queries')
      .values({ scope: this.scope, user_name: user, name, query: JSON.stringify(query), updated_on: now })
      .onConflict((oc) =>
        oc.columns(['scope', 'user_name', 'name']).doUpdateSet({ query: JSON.stringify(query), updated_on: now }),
      )
      .execute();
  }

  async remove(db: Db, user: string, name: string): Promise<boolean> {
    const r = await db
      .deleteFrom('dm_saved_queries')
      .where('scope', '=', this.scope)
      .where('user_name', '=', user)
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The user's queries by name: `[{name, query, updatedOn}]`. */
  async list(db: Db, user: string): Promise<Array<{ name: string; query: unknown; updatedOn: string }>> {
    const rows = await db
      .selectFrom('dm_saved_queries')
      .select(['name', this.dialect.jsonText('query').as('query'), 'updated_on'])
      .where('scope', '=', this.scope)
      .where('user_name', '=', user)
      .orderBy('name')
      .execute();
    return rows.map((r) => ({
      name: r.name,
      query: JSON.parse(r.query as string),
      updatedOn: new Date(Number(r.updated_on)).toISOString(),
    }));
  }
}
