// The one list of the service's parts: every module, platform and engine alike, and the background services, in the
// order they start (they close in reverse). The composition root (app.ts) registers and starts what this file builds;
// the admin CLI takes the schema steps from it. Objects that several parts share are built here, once, and handed in.
import type { FastifyBaseLogger } from 'fastify';
import type { AppConfig } from './config/config.schema.js';
import type { Database } from './platform/db/database.js';
import type { ModuleMigration } from './platform/db/migrations.js';
import { WriteBatcher } from './platform/db/write-batcher.js';
import { StatisticsUpkeep } from './platform/db/statistics-upkeep.js';
import { defineModule, type Module } from './platform/module.js';
import type { Telemetry } from './platform/metrics/index.js';
import type { CredentialResolver } from './platform/auth/credentials.js';
import { createChangeFeed, eventsMigrations, type ChangeFeed } from './platform/events/index.js';
import {
  createCredentialThrottle,
  throttleMigrations,
  type CredentialThrottle,
  type SecurityCounters,
} from './platform/auth/throttle/index.js';
import { identityModule, provisionIdentity, SESSION_COOKIE } from './modules/identity/index.js';
import { storageModule } from './modules/storage/index.js';
import { formsModule } from './modules/forms/index.js';
import { notificationsModule } from './modules/notifications/index.js';
import { flowModule } from './modules/flow/index.js';
import { EngineUsers, restModule } from './engine/rest/index.js';
import { dataManagementModule } from './engine/data-management/index.js';

// The background services: shared objects with a lifecycle of their own, and the schema steps of their tables.
const changeFeed = defineModule({
  name: 'change-feed',
  migrations: eventsMigrations,
  create: (feed: ChangeFeed) => ({ start: () => feed.start(), close: () => feed.close() }),
});
const statisticsUpkeep = defineModule({
  name: 'statistics-upkeep',
  create: (upkeep: StatisticsUpkeep) => ({ start: () => upkeep.start(), close: () => upkeep.close() }),
});
const credentialThrottle = defineModule({
  name: 'credential-throttle',
  migrations: throttleMigrations,
  // Forgets expired throttle keys now and then.
  create: (throttle: CredentialThrottle) => ({ start: () => throttle.start(), close: () => throttle.close() }),
});
const engineUsers = defineModule({
  name: 'engine-users',
  // Hashes the configured passwords, once for both of the engine's faces, before either starts.
  create: (users: EngineUsers) => ({ start: () => users.start() }),
});

/**
 * Every part, in start order. The change feed starts before the modules that listen to it and closes after them.
 * The schema steps of every part apply whether the config runs it or not: one database serves either face.
 */
const LIST = [
  changeFeed,
  statisticsUpkeep,
  credentialThrottle,
  identityModule,
  storageModule,
  formsModule,
  notificationsModule,
  flowModule,
  engineUsers,
  restModule,
  dataManagementModule,
] as const;

/** Every schema step of the service (its migrations, and the admin CLI's). */
export const MIGRATIONS: ModuleMigration[] = LIST.flatMap((m) => m.migrations);

export interface BuiltModules {
  /** The parts the config runs, in start order. */
  modules: Module[];
  /** The platform's credential resolver, for the credential scope of its modules; absent with the platform off. */
  resolver?: CredentialResolver;
  /** The platform's session cookie (for the OpenAPI document). */
  sessionCookie: string;
  /** Set when the bootstrap admin was created with a generated password (printed once). */
  bootstrapPassword?: string;
  /** The change feed every part shares (for metrics and readiness). */
  feed: ChangeFeed;
}

/**
 * Builds the parts the config runs (`platform.enabled`, `engine.enabled`) on a migrated database, and provisions the
 * config's tenants, users and keys. Building does no I/O but the provisioning; nothing starts here.
 */
export async function buildModules(
  database: Database,
  config: AppConfig,
  log: FastifyBaseLogger,
  counters: SecurityCounters,
  telemetry: Telemetry,
): Promise<BuiltModules> {
  const { db, dialect, traits } = database;
  const {
    platform: { enabled: platform },
    engine: ec,
    identity: ic,
  } = config;
  const engine = ec.enabled;
  const schema = await dialect.currentSchema(db);

  const { connectDedicated } = database;
  const feed = createChangeFeed({
    db,
    connectDedicated,
    shared: !traits.singleInstance,
    schema,
    retentionHours: config.events.retentionHours,
    log,
  });
  // One credential throttle for every password check, the platform's and the engine's (which may run without it).
  // One process owns a SQLite database: the throttle then knows every change of its keys and reads them once.
  const throttle = createCredentialThrottle(db, ic.loginThrottle, counters, { onlyWriter: traits.singleInstance });
  const guard = { throttle, counters };
  // One write batcher: SQLite has one writer, so concurrent writes of every module share a commit (each in its own
  // savepoint); on PostgreSQL (maxBatch 1) every job is simply its own transaction.
  const writes = new WriteBatcher(db, traits.singleWriter ? 64 : 1);
  const users = new EngineUsers(ec.users, guard);
  const base = { data: database.data, dialect, traits, log };
  const identity = platform ? identityModule.create({ ...base, config: ic, feed, throttle, counters }) : undefined;

  // A tenth of a table and at least 50 rows, as autovacuum's defaults: a store's reader-set grantees (150 rows in the
  // benchmark) were never analysed nor vacuumed at 500, and every list read them with a heap fetch per row and the
  // grantee test as a filter instead of an index condition (docs/benchmarks.md, session 13).
  const checkIntervalMs = config.database.analyzeCheckSeconds * 1000;
  const upkeepSettings = { checkIntervalMs, changedShare: 0.1, minChangedRows: 50, busyVacuumWaitMs: 30_000 };
  const upkeep = new StatisticsUpkeep(db, schema, upkeepSettings, log, database.sessionDb, database.statisticsChanged);

  // One entry per part of LIST; the type holds them together: a part missing here, or one too many, fails to compile.
  const built: Record<(typeof LIST)[number]['name'], Module | undefined> = {
    'change-feed': changeFeed.create(feed),
    'statistics-upkeep': statisticsUpkeep.create(upkeep),
    'credential-throttle': credentialThrottle.create(throttle),
    identity,
    storage: platform ? storageModule.create({ ...base, config: config.storage, writes, feed, telemetry }) : undefined,
    forms: platform ? formsModule.create({ ...base, config: undefined }) : undefined,
    notifications: platform
      ? notificationsModule.create({
          ...base,
          feed,
          telemetry,
          config: { maintenance: config.maintenance, ...config.notifications },
        })
      : undefined,
    flow: identity
      ? flowModule.create({
          ...base,
          audit: identity.audit,
          telemetry,
          config: config.flow,
          ownCookies: [SESSION_COOKIE],
        })
      : undefined,
    'engine-users': engine ? engineUsers.create(users) : undefined,
    'engine-rest': engine
      ? restModule.create({
          ...base,
          feed,
          guard,
          engineUsers: users,
          userCheck: identity?.userCheck,
          config: { processUserServer: ec.processUserServer, listCacheSeconds: ec.listCacheSeconds },
        })
      : undefined,
    'engine-data-management': engine
      ? dataManagementModule.create({
          ...base,
          engineUsers: users,
          writes,
          config: { actionWebhooks: ec.actionWebhooks, inactiveVersions: ec.inactiveVersions },
        })
      : undefined,
  };

  // The config's tenants are applied whether or not the platform's face runs here (as the schema steps are).
  const { generatedPassword } = await provisionIdentity(
    database.data,
    dialect,
    config.tenants,
    ic.bootstrapAdminPassword,
  );
  return {
    modules: LIST.flatMap((m) => built[m.name] ?? []),
    resolver: identity?.resolver,
    sessionCookie: SESSION_COOKIE,
    bootstrapPassword: generatedPassword,
    feed,
  };
}
