import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Dialect } from './db/dialects/dialect.js';
import type { DeploymentTraits } from './db/deployment.js';

/**
 * What the composition root hands a module: a Kysely typed with the module's own tables (it can name no
 * other module's), its own slice of the config, the SQL dialect, the deployment traits and a logger.
 * A module that needs more (the audit trail, the change feed) declares it as an extra, equally narrow field:
 * `ModuleDeps<FormsTables, FormsConfig> & { audit: AuditTrail }`.
 */
export interface ModuleDeps<Tables, Config = undefined> {
  db: Kysely<Tables>;
  dialect: Dialect;
  traits: DeploymentTraits;
  config: Config;
  log: FastifyBaseLogger;
}

/**
 * One API module, as `createXModule(deps)` returns it. Constructing it does no I/O. Its schema steps are
 * exported beside it (`xMigrations`) and listed in modules/registry.ts, so the CLI migrates without building it.
 *
 * Lifecycle: `routes` is called once, inside the authenticated API scope, and only registers routes (no timers,
 * no connections); `start` runs once the database is migrated, before the server listens, and starts what runs
 * in the background (timers, listeners, pools); `close` stops it again, after running requests have drained and
 * before the database closes.
 */
export interface PlatformModule {
  readonly name: string;
  routes(app: FastifyInstance): void | Promise<void>;
  start?(): void | Promise<void>;
  close?(): void | Promise<void>;
}
