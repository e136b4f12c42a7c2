import type { Kysely } from 'kysely';

/**
 * The statements of one tenant. Every `selectFrom`, `updateTable` and `deleteFrom` started here already filters on
 * the table's `tenant_id` (`<alias>.tenant_id` for `table as alias`), so a repository that starts its statements
 * from a scope cannot forget the tenant; a statement without one has to be started from the plain Kysely
 * instance, on purpose and visibly. Works on a transaction as on the root instance, and with a prepared query's
 * placeholder as the tenant.
 */
export type TenantScope<D extends Kysely<any>> = Pick<D, 'selectFrom' | 'updateTable' | 'deleteFrom'>;

export function forTenant<D extends Kysely<any>>(db: D, tenantId: unknown): TenantScope<D> {
  const scoped =
    <K extends 'selectFrom' | 'updateTable' | 'deleteFrom'>(method: K) =>
    (table: unknown) => {
      if (typeof table !== 'string') throw new Error(`a tenant scope starts from one named table, not ${typeof table}`);
      const alias = table.split(/\s+as\s+/i)[1] ?? table;
      return (db[method] as (t: string) => any).call(db, table).where(`${alias}.tenant_id`, '=', tenantId);
    };
  return {
    selectFrom: scoped('selectFrom') as D['selectFrom'],
    updateTable: scoped('updateTable') as D['updateTable'],
    deleteFrom: scoped('deleteFrom') as D['deleteFrom'],
  };
}
