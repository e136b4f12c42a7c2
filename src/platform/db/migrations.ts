import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Dialect } from './dialects/dialect.js';

/** A module's schema step. Names sort globally, so prefix them with a date: `2026-11-22-identity-001`. */
export interface ModuleMigration {
  name: string;
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
  down?(db: Kysely<any>, dialect: Dialect): Promise<void>;
}

/** Applies the migrations the database lacks; answers their names in the order they ran (none: it was up to date). */
export async function migrateToLatest(
  db: Kysely<any>,
  dialect: Dialect,
  migrations: ModuleMigration[],
): Promise<string[]> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const m of migrations) {
        if (out[m.name]) throw new Error(`duplicate migration name ${m.name}`);
        out[m.name] = { up: (d) => m.up(d, dialect), down: m.down ? (d) => m.down!(d, dialect) : undefined };
      }
      return out;
    },
  };
  // Modules evolve independently, so a module's new step may sort before another's applied one.
  // Kysely looks for its bookkeeping tables in every schema unless told which one is ours.
  const migrationTableSchema = await dialect.currentSchema(db);
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
