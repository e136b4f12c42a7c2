import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
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
import type { Module } from './platform/module.js';
import type { CredentialResolver } from './platform/auth/credentials.js';
import { SecurityCounters } from './platform/auth/throttle/index.js';
import { installMetrics, Telemetry } from './platform/metrics/index.js';
import { buildModules, MIGRATIONS } from './module-list.js';

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

/**
 * The composition root: opens the database, migrates, builds the module list (src/module-list.ts), registers every
 * module's plugin in a scope of its own, and starts the parts in the list's order (closing them in reverse).
 */
export async function buildApp(config: AppConfig, deps: AppDeps = {}): Promise<App> {
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
  const database =
    deps.database ??
    createDatabase({
      url: config.database.url,
      dataDir: config.database.dataDir,
      poolSize: config.database.poolSize,
      pooler: config.database.pooler,
      directUrl: config.database.directUrl,
      poolerPreparedStatements: config.database.poolerPreparedStatements,
      sqliteCacheMiB: config.database.sqliteCacheMiB,
      sqliteReaderThreads: config.database.sqliteReaderThreads,
      sqliteWriterThread: config.database.sqliteWriterThread,
      logError: (err, what) => app.log.error({ err }, what),
    });
  limitConnectionsPerAddress(app.server, config.limits.connectionsPerAddress);
  const inFlight = trackInFlight(app);
  const started: Module[] = [];
  const security = new SecurityCounters();
  const telemetry = new Telemetry();
  try {
    const { db, dialect } = database;
    for (const limitation of database.limitations)
      app.log.warn(`database.pooler is transaction and database.directUrl is not set: ${limitation}`);
    await migrateToLatest(database.sessionDb ?? db, dialect, MIGRATIONS);
    const { modules, resolver, sessionCookie, bootstrapPassword, feed } = await buildModules(
      database,
      config,
      app.log,
      security,
      telemetry,
    );

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
            session: { type: 'apiKey', in: 'cookie', name: sessionCookie },
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
      {
        schema: {
          tags: ['operations'],
          summary: 'Liveness',
          security: [],
          response: { 200: Type.Object({ status: Type.String() }) },
        },
      },
      async () => ({ status: 'ok' }),
    );

    // Before the modules: its request hook reaches the scopes registered after it.
    installMetrics(app, config.metrics, { database, feed, security, telemetry });

    for (const m of modules) if (m.plugin) await app.register(scopeOf(m, resolver), { prefix: m.prefix });
    // Background work (timers, listeners, pools) starts once the routes stand, in the list's order; close() stops it.
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
        if (!deps.database) await database.destroy();
      },
    };
  } catch (err) {
    await app.close().catch(() => undefined);
    await closeModules(started).catch(() => undefined);
    if (!deps.database) await database.destroy().catch(() => undefined);
    throw err;
  }
}

/**
 * A module's plugin in the scope it is registered in: a platform module's inside the platform's credential scope
 * (every route needs a credential unless its config says `public: true`), an engine module's as it is (it checks its
 * callers itself, by the engine's rules). Either way in a scope of its own, so nothing of it reaches another module.
 */
function scopeOf(m: Module, resolver: CredentialResolver | undefined): FastifyPluginAsync {
  const plugin = m.plugin!;
  if (m.credentials === 'own') return plugin;
  if (!resolver) throw new Error(`module ${m.name} needs the platform's credentials (platform.enabled)`);
  return async (scope) => {
    await scope.register(authPlugin, { resolver });
    await scope.register(plugin);
  };
}

/** Stops started parts in reverse order of their start. */
async function closeModules(started: Module[]): Promise<void> {
  for (const m of [...started].reverse()) await m.close?.();
}
