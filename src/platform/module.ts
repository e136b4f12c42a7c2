import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppConfig } from '../config/config.schema.js';
import type { Dialect } from './db/dialects/dialect.js';

/** What the composition root hands every module. */
export interface ModuleDeps {
  db: Kysely<any>;
  dialect: Dialect;
  config: AppConfig;
  log: FastifyBaseLogger;
}

/** One API module. Constructing it does no I/O; its schema steps are listed in modules/registry.ts. */
export interface PlatformModule {
  name: string;
  /** Registers the module's routes inside the authenticated API scope. */
  register(app: FastifyInstance): Promise<void>;
  close?(): Promise<void>;
}
