import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { PreparedQueries } from './prepared-query.js';

/** A Kysely whose driver records each statement it is given and answers no rows. */
function recording(engine: 'postgres' | 'sqlite') {
  const ran: CompiledQuery[] = [];
  const connection: DatabaseConnection = {
    executeQuery: async (compiled) => {
      ran.push(compiled);
      return { rows: [] };
    },
    // biome-ignore lint/correctness/useYield: nothing streams
    streamQuery: async function* () {
      throw new Error('not used');
    },
  };
  class Driver extends DummyDriver {
    override async acquireConnection() {
      return connection;
    }
  }
  const dialect: Dialect = {
    createAdapter: () => (engine === 'postgres' ? new PostgresAdapter() : new SqliteAdapter()),
    createDriver: () => new Driver(),
    createIntrospector: (db) => (engine === 'postgres' ? new PostgresIntrospector(db) : new SqliteIntrospector(db)),
    createQueryCompiler: () => (engine === 'postgres' ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
  };
  return { db: new Kysely<any>({ dialect }), ran };
}

describe('PreparedQueries: an argument taken in several places', () => {
  const build = (db: Kysely<any>) => (p: (i: number) => any) =>
    db
      .selectFrom('t')
      .select(sql<string>`'$1 it''s'`.as('text'))
      .where('a', '=', p(0))
      .where('b', '=', p(1))
      .where('c', '=', p(0))
      .where('d', '=', 7)
      .where('e', '=', 7)
      .limit(p(1));

  it('is bound once on PostgreSQL, its number written in each place; constants and quoted text stay', async () => {
    const { db, ran } = recording('postgres');
    await new PreparedQueries().run(db, 'k', build(db), ['tenant', 50]);
    await new PreparedQueries().run(db, 'k', build(db), ['other', 10]);
    expect(ran[0]!.sql).toBe(
      `select '$1 it''s' as "text" from "t" where "a" = $1 and "b" = $2 and "c" = $1 and "d" = $3 and "e" = $4 limit $2`,
    );
    expect(ran[0]!.parameters).toEqual(['tenant', 50, 7, 7]);
    expect(ran[1]!.parameters).toEqual(['other', 10, 7, 7]);
  });

  it('is bound at each place on SQLite (positional placeholders)', async () => {
    const { db, ran } = recording('sqlite');
    await new PreparedQueries().run(db, 'k', build(db), ['tenant', 50]);
    expect(ran[0]!.sql).toBe(
      `select '$1 it''s' as "text" from "t" where "a" = ? and "b" = ? and "c" = ? and "d" = ? and "e" = ? limit ?`,
    );
    expect(ran[0]!.parameters).toEqual(['tenant', 50, 'tenant', 7, 7, 50]);
  });
});
