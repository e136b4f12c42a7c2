import { describe, expect, it } from 'vitest';
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type Driver } from 'kysely';
import { ref, table } from './sql-parts.js';

// Compiling needs no connection: the driver is never asked for one.
const db = new Kysely<any>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => ({}) as Driver,
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const text = (b: { compile(db: Kysely<any>): { sql: string } }) => b.compile(db).sql;

describe('ref and table, built once per name', () => {
  it('write what sql.ref and sql.table write', () => {
    for (const name of ['q__v.item_seq', 'a.seq', 'doc', 'q__s0.str'])
      expect(text(sql`${ref(name)}`)).toBe(text(sql`${sql.ref(name)}`));
    expect(text(sql`${table('dm_asset_values')}`)).toBe(text(sql`${sql.table('dm_asset_values')}`));
  });

  it('answer the same builder for a name, another for another name, in any statement', () => {
    expect(ref('q__v.path')).toBe(ref('q__v.path'));
    expect(ref('q__v.path')).not.toBe(ref('q__v.t'));
    expect(table('dm_assets')).toBe(table('dm_assets'));
    // One builder in two places of one statement and in another statement: each compiles where it stands.
    const path = ref('q__v.path');
    expect(text(sql`${path} = 1 AND ${ref('q__d.seq')} = ${path}`)).toBe(
      '"q__v"."path" = 1 AND "q__d"."seq" = "q__v"."path"',
    );
    expect(text(sql`SELECT ${path} FROM ${table('dm_asset_values')} q__v`)).toBe(
      'SELECT "q__v"."path" FROM "dm_asset_values" q__v',
    );
  });
});
