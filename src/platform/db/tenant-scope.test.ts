import { describe, expect, it } from 'vitest';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { forTenant } from './tenant-scope.js';

interface Tables {
  things: { tenant_id: string; id: string; n: number };
}

const db = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

describe('forTenant', () => {
  it('puts the tenant into every select, update and delete it starts, aliased or not', () => {
    const t = forTenant(db, 'acme');
    const select = t.selectFrom('things as x').select('x.id').where('x.n', '>', 1).compile();
    expect(select.sql).toBe('select "x"."id" from "things" as "x" where "x"."tenant_id" = ? and "x"."n" > ?');
    expect(select.parameters).toEqual(['acme', 1]);
    const update = t.updateTable('things').set({ n: 2 }).where('id', '=', 'a').compile();
    expect(update.sql).toBe('update "things" set "n" = ? where "things"."tenant_id" = ? and "id" = ?');
    expect(update.parameters).toEqual([2, 'acme', 'a']);
    const del = t.deleteFrom('things').where('id', '=', 'a').compile();
    expect(del.sql).toBe('delete from "things" where "things"."tenant_id" = ? and "id" = ?');
  });

  it('refuses what it cannot scope (a list of tables)', () => {
    expect(() => forTenant(db, 'acme').selectFrom(['things'] as any)).toThrow(/one named table/);
  });
});
