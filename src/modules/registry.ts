// The list of API modules the composition root wires in, and every module's schema steps.
import type { Kysely } from 'kysely';
import type { AppConfig } from '../config/config.schema.js';
import type { ModuleMigration } from '../platform/db/migrations.js';
import type { Dialect } from '../platform/db/dialects/dialect.js';
import type { DeploymentTraits } from '../platform/db/deployment.js';
import type { FastifyBaseLogger } from 'fastify';
import type { PlatformModule } from '../platform/module.js';
import type { AuditTrail } from '../platform/audit/audit-trail.js';
import { identityMigrations, SESSION_COOKIE } from './identity/index.js';
import { createStorageModule, storageMigrations } from './storage/index.js';
import { createFormsModule, formsMigrations } from './forms/index.js';
import { createNotificationsModule, notificationsMigrations } from './notifications/index.js';
import { createFlowModule } from './flow/index.js';
import { eventsMigrations, type ChangeFeed } from '../platform/events/index.js';
import { throttleMigrations } from '../platform/auth/throttle/index.js';

/** Every schema step of every module (the CLI migrates without building the HTTP app). */
export const allMigrations: ModuleMigration[] = [...eventsMigrations, ...throttleMigrations, ...identityMigrations, ...storageMigrations, ...formsMigrations, ...notificationsMigrations];

/** What the composition root has to hand out; each module receives only its own slice of it. */
export interface ModuleSources {
  /** The database, untyped here: each module's deps type it with that module's own tables. */
  db: Kysely<any>;
  dialect: Dialect;
  traits: DeploymentTraits;
  config: AppConfig;
  log: FastifyBaseLogger;
  audit: AuditTrail;
  feed: ChangeFeed;
}

/** API modules besides identity, which the composition root builds first because it resolves credentials. */
export function createModules({ db, dialect, traits, log, config, feed, audit }: ModuleSources): PlatformModule[] {
  const base = { dialect, traits, log };
  return [
    createStorageModule({ ...base, db, config: undefined }),
    createFormsModule({ ...base, db, config: undefined }),
    createNotificationsModule({ ...base, db, feed, config: { maintenance: config.maintenance, ...config.notifications } }),
    createFlowModule({ ...base, db, audit, config: config.flow, ownCookies: [SESSION_COOKIE] }),
  ];
}
