import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@sinclair/typebox';
import type { AppConfig } from './config/config.schema.js';
import { createDatabase, type Database } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrations.js';
import { frameworkErrorHandler, installErrorHandler } from './platform/errors/error-handler.js';
import { authPlugin } from './platform/auth/auth-plugin.js';
import { trackInFlight } from './platform/http/in-flight.js';
import { installInputIntegrity } from './platform/http/input-integrity.js';
import { checkRequestHead, closeUnreadBodies, transportErrorHandler } from './platform/http/transport.js';
import { serverTimeouts } from './platform/http/server-options.js';
import { limitConnectionsPerAddress, limitLongLivedAnswers } from './platform/http/connection-limits.js';
import { AJV_OPTIONS, typedBodyValidators } from './platform/http/validators.js';
import type { PlatformModule } from './platform/module.js';
import { createIdentityModule } from './modules/identity/index.js';
import { allMigrations, createModules } from './modules/registry.js';
import { createEngineModules, engineMigrations } from './engine/index.js';
import { createChangeFeed, type ChangeFeed } from './platform/events/index.js';
import { StatisticsUpkeep } from './platform/db/statistics-upkeep.js';
import { createCredentialThrottle, SecurityCounters, type CredentialThrottle } from './platform/auth/throttle/index.js';

export interface AppDeps {
  /** An already open database (tests, CLI); otherwise one is opened from config.database. */
  database?: Database;
  /** Pino options or false; defaults to the configured level with secret headers redacted. */
  logger?: boolean | object;
}

export interface App {
  app: FastifyInstance;
  database: Database;
  /** Set when the bootstrap admin was created with a generated password (printed once). */
  bootstrapPassword?: string;
  /** Security events counted in this process (password verifications, throttled attempts...), for metrics. */
  security: SecurityCounters;
  close(): Promise<void>;
}

const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-apikey"]',
  'req.headers["x-auth-token"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
];

/** The composition root: opens the database, migrates, provisions, and wires modules into one Fastify app. */
export async function buildApp(config: AppConfig, deps: AppDeps = {}): Promise<App> {
  const database =
    deps.database ??
    createDatabase({
      url: config.database.url,
      dataDir: config.database.dataDir,
      poolSize: config.database.poolSize,
      sqliteCacheMiB: config.database.sqliteCacheMiB,
      sqliteReaderThreads: config.database.sqliteReaderThreads,
      sqliteWriterThread: config.database.sqliteWriterThread,
    });
  const app = Fastify({
    logger: deps.logger ?? { level: config.server.logLevel, redact: { paths: REDACT, censor: '[redacted]' } },
    trustProxy: config.server.trustProxy,
    bodyLimit: config.server.bodyLimitBytes,
    // Bodies are validated as typed, query strings, parameters and headers as text (validators.ts).
    ajv: { customOptions: { ...AJV_OPTIONS } },
    schemaController: { compilersFactory: { buildValidator: typedBodyValidators() } },
    ...serverTimeouts(config.server),
    return503OnClosing: true,
    // Ids are validated by each route's schema (with a clear 400); the router only stops absurd lengths.
    routerOptions: { maxParamLength: 2048 },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler: transportErrorHandler,
  });
  limitConnectionsPerAddress(app.server, config.limits.connectionsPerAddress);
  const inFlight = trackInFlight(app);
  const started: PlatformModule[] = [];
  let feed: ChangeFeed | undefined;
  let upkeep: StatisticsUpkeep | undefined;
  let throttle: CredentialThrottle | undefined;
  const security = new SecurityCounters();
  try {
    const { db, dialect, traits } = database;
    await migrateToLatest(db, dialect, [...allMigrations, ...engineMigrations]);
    feed = createChangeFeed({
      db,
      connectDedicated: database.connectDedicated,
      schema: await dialect.currentSchema(db),
      retentionHours: config.events.retentionHours,
      log: app.log,
    });
    // One credential throttle for every password check, the platform's and the engine's (which may run without it).
    throttle = createCredentialThrottle(db, config.identity.loginThrottle, security);
    const guard = { throttle, counters: security };
    const identity = createIdentityModule({ db, dialect, traits, config: config.identity, log: app.log, feed, ...guard });
    const platformModules: PlatformModule[] = config.platform.enabled
      ? [identity, ...createModules({ db, dialect, traits, config, log: app.log, audit: identity.audit, feed })]
      : [];
    const engineModules = config.engine.enabled
      ? createEngineModules({ db, dialect, traits, log: app.log, config: config.engine, feed, userCheck: config.platform.enabled ? identity.userCheck : undefined, guard })
      : [];
    const modules = [...platformModules, ...engineModules];

    const { generatedPassword: bootstrapPassword } = await identity.provision(config.tenants);

    installErrorHandler(app, dialect.toDomainError);
    installInputIntegrity(app);
    checkRequestHead(app, { headerCount: config.limits.headerCount });
    closeUnreadBodies(app);
    limitLongLivedAnswers(app, config.limits.streamsPerCaller);
    await app.register(cookie);
    await app.register(formbody, { bodyLimit: 16 * 1024 });
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: { title: 'Application platform service', version: '0.1.0' },
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'X-APIKey' },
            session: { type: 'apiKey', in: 'cookie', name: identity.resolver.sessionCookie },
            csrf: { type: 'apiKey', in: 'header', name: 'X-Csrf-Token' },
            basic: { type: 'http', scheme: 'basic' },
            processUserToken: { type: 'apiKey', in: 'header', name: 'X-AUTH-TOKEN' },
          },
        },
        security: [{ apiKey: [] }, { session: [], csrf: [] }],
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    // A first visitor of / lands on the API's UI (the console's place once it exists); a redirect, not an API call.
    app.get('/', { schema: { hide: true } }, (_req, reply) => reply.redirect('/docs', 302));

    app.get(
      '/health',
      { schema: { tags: ['operations'], summary: 'Liveness', security: [], response: { 200: Type.Object({ status: Type.String() }) } } },
      async () => ({ status: 'ok' }),
    );

    // Everything under the API scope needs a credential unless a route says `public: true`.
    if (platformModules.length) {
      await app.register(async (api) => {
        await api.register(authPlugin, { resolver: identity.resolver });
        for (const m of platformModules) await m.routes(api);
      });
    }
    // The engine's face authenticates by its own rules (userType), outside the platform's credential scope.
    for (const m of engineModules) await m.routes(app);
    // Background work (timers, listeners) starts once the routes stand, and stops in close(); the feed first.
    await feed.start();
    const schema = await dialect.currentSchema(db);
    // A tenth of a table and at least 50 rows, as autovacuum's defaults: a store's reader-set grantees (150 rows in the
    // benchmark) were never analysed nor vacuumed at 500, and every list read them with a heap fetch per row and the
    // grantee test as a filter instead of an index condition (docs/benchmarks.md, session 13).
    upkeep = new StatisticsUpkeep(db, schema, { checkIntervalMs: config.database.analyzeCheckSeconds * 1000, changedShare: 0.1, minChangedRows: 50, busyVacuumWaitMs: 30_000 }, app.log);
    upkeep.start();
    throttle.start();
    for (const m of modules) {
      started.push(m);
      await m.start?.();
    }

    return {
      app,
      database,
      bootstrapPassword,
      security,
      async close() {
        await app.close();
        await inFlight.drained(config.server.shutdownGraceSeconds * 1000);
        await closeModules(started);
        await upkeep?.close();
        throttle?.close();
        await feed?.close();
        if (!deps.database) await database.destroy();
      },
    };
  } catch (err) {
    await app.close().catch(() => undefined);
    await closeModules(started).catch(() => undefined);
    await upkeep?.close().catch(() => undefined);
    throttle?.close();
    await feed?.close().catch(() => undefined);
    if (!deps.database) await database.destroy().catch(() => undefined);
    throw err;
  }
}

/** Stops started modules in reverse order of their start. */
async function closeModules(started: PlatformModule[]): Promise<void> {
  for (const m of [...started].reverse()) await m.close?.();
}
