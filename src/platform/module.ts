import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppConfig } from '../config/config.schema.js';
import type { Dialect } from './db/dialects/dialect.js';
import type { ModuleMigration } from './db/migrations.js';

/** What the composition root hands every module. */
export interface ModuleDeps {
  db: Kysely<any>;
  dialect: Dialect;
  config: AppConfig;
  log: FastifyBaseLogger;
}

/** One API module: its schema steps and its routes. Constructing it does no I/O. */
export interface PlatformModule {
  name: string;
  migrations: ModuleMigration[];
  /** Registers the module's routes inside the authenticated API scope. */
  register(app: FastifyInstance): Promise<void>;
  close?(): Promise<void>;
}
