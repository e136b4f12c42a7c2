// The process engine's face (/engine/...): its own small composition root, so that config can switch it off
// (`engine.enabled`) or run it without the platform (`platform.enabled: false`, with a Process User Server reached over
// HTTP). Its modules follow the platform's module contract; they may use the platform's public faces handed in here.
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { AppConfig } from '../config/config.schema.js';
import type { Dialect } from '../platform/db/dialects/dialect.js';
import type { DeploymentTraits } from '../platform/db/deployment.js';
import type { ModuleMigration } from '../platform/db/migrations.js';
import type { PlatformModule } from '../platform/module.js';
import { createRestModule, restMigrations, type RestDeps } from './rest/index.js';
import { createDataManagementModule, dmMigrations } from './data-management/index.js';

/** Every schema step of the engine's modules. */
export const engineMigrations: ModuleMigration[] = [...restMigrations, ...dmMigrations];

export interface EngineSources {
  db: Kysely<any>;
  dialect: Dialect;
  traits: DeploymentTraits;
  config: AppConfig['engine'];
  log: FastifyBaseLogger;
  /** The platform's user check, when the platform runs in this process. */
  userCheck?: RestDeps['userCheck'];
  feed: RestDeps['feed'];
  /** The credential throttle and security counters, built once by the composition root and shared with the platform. */
  guard: RestDeps['guard'];
}

export function createEngineModules({ db, dialect, traits, config, log, userCheck, feed, guard }: EngineSources): PlatformModule[] {
  return [
    createRestModule({
      db,
      dialect,
      traits,
      log,
      userCheck,
      feed,
      guard,
      config: { users: config.users, processUserServer: config.processUserServer, listCacheSeconds: config.listCacheSeconds },
    }),
    createDataManagementModule({ db, dialect, traits, log, guard, config: { users: config.users, actionWebhooks: config.actionWebhooks, inactiveVersions: config.inactiveVersions } }),
  ];
}
