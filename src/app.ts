import Fastify, {
  type FastifyContextConfig,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifySchema,
} from 'fastify';
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
import { consolePlugin, DEFAULT_CONSOLE_DIR } from './platform/http/console-static.js';
import { limitConnectionsPerAddress, limitLongLivedAnswers } from './platform/http/connection-limits.js';
import { AJV_OPTIONS, typedBodyValidators } from './platform/http/validators.js';
import { openapiOptions, outOfDocument, registerOutOfDocument } from './platform/http/openapi.js';
import type { Module } from './platform/module.js';
import type { CredentialResolver } from './platform/auth/credentials.js';
import { SecurityCounters } from './platform/auth/throttle/index.js';
import { installMetrics, Telemetry } from './platform/metrics/index.js';
import { buildModules, MIGRATIONS } from './module-list.js';
import { loggerOptions } from './platform/http/logger-options.js';
import { answerRequestId, requestIdGenerator } from './platform/http/request-id.js';
import { lazyRequestLogger } from './platform/http/request-logger.js';
import { registerReadiness, type Readiness } from './platform/http/readiness.js';
import { SHUTDOWN_STREAM_EVENT } from './platform/http/stream-end.js';
import { trackUnusedSockets } from './platform/http/unused-sockets.js';
import { startTracing, type Tracing } from './platform/tracing/index.js';

export interface AppDeps {
  /** An already open database (tests, CLI); otherwise one is opened from config.database. */
  database?: Database;
  /** Pino options or false; defaults to the configured level and format with secret headers redacted. */
  logger?: boolean | object;
  /** Whether stdout is a terminal (`logFormat: auto` then logs readable lines); default: process.stdout.isTTY. */
  stdoutIsTTY?: boolean;
  /**
   * Tracing already started (tests: startTracing with an in-memory exporter; the caller shuts it down); otherwise
   * started from config.tracing when `otlpEndpoint` is set. A given `database` must have been opened with its `spans`.
   */
  tracing?: Tracing;
}

export interface App {
  app: FastifyInstance;
  database: Database;
  /** Set when the bootstrap admin was created with a generated password (printed once). */
  bootstrapPassword?: string;
  /** Every route the app registered (HEAD routes of GET included), in order. */
  routes: readonly RouteRecord[];
  /** Security events counted in this process (password verifications, throttled attempts...), for metrics. */
  security: SecurityCounters;
  /** Readiness (GET /readyz) and whether a shutdown has begun. */
  readiness: Readiness;
  /**
   * The graceful shutdown (SIGTERM): readiness answers 503 at once while the service goes on serving for `drainMs`
   * (answers then say `Connection: close`), then every module drains (live streams end with the `reconnect` event),
   * the server stops taking requests, requests in flight finish (up to `server.shutdownGraceSeconds`), the modules
   * close and the database closes. Called again, it answers the same shutdown; a shorter `drainMs` cuts the wait.
   */
  shutdown(drainMs: number): Promise<void>;
  /** `shutdown(0)`. */
  close(): Promise<void>;
}

/** A route as registered: what the test of the OpenAPI document needs of it. */
export interface RouteRecord {
  method: string | string[];
  url: string;
  config?: FastifyContextConfig;
  schema?: FastifySchema;
}

/** The service's version, in the OpenAPI document. */
const SERVICE_VERSION = '0.1.0';

/**
 * The composition root: opens the database, migrates, builds the module list (src/module-list.ts), registers every
 * module's plugin in a scope of its own, and starts the parts in the list's order (closing them in reverse).
 */
export async function buildApp(config: AppConfig, deps: AppDeps = {}): Promise<App> {
  const app = Fastify({
    logger: deps.logger ?? loggerOptions(config.server, deps.stdoutIsTTY ?? process.stdout.isTTY === true),
    trustProxy: config.server.trustProxy,
    // Every log line of a request carries `reqId`, answered as X-Request-Id (a trusted proxy's own is kept).
    genReqId: requestIdGenerator(config.server.trustProxy),
    requestIdHeader: false,
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
  // Each request's logger is made on its first line (request-logger.ts): most requests write none.
  app.setChildLoggerFactory(lazyRequestLogger);
  // Loaded only when on: without an endpoint nothing of OpenTelemetry is imported.
  const ownTracing = !deps.tracing && config.tracing.otlpEndpoint ? await startTracing(config.tracing) : undefined;
  const tracing = deps.tracing ?? ownTracing;
  const database =
    deps.database ??
    createDatabase({
      url: config.database.url,
      dataDir: config.database.dataDir,
      poolSize: config.database.poolSize,
      pooler: config.database.pooler,
      directUrl: config.database.directUrl,
      poolerPreparedStatements: config.database.poolerPreparedStatements,
      preparedStatementsPerConnection: config.database.preparedStatementsPerConnection,
      sqliteCacheMiB: config.database.sqliteCacheMiB,
      sqliteReaderThreads: config.database.sqliteReaderThreads,
      sqliteWriterThread: config.database.sqliteWriterThread,
      logError: (err, what) => app.log.error({ err }, what),
      spans: tracing?.spans,
    });
  limitConnectionsPerAddress(app.server, config.limits.connectionsPerAddress);
  const inFlight = trackInFlight(app);
  const sockets = trackUnusedSockets(app.server);
  const started: Module[] = [];
  const routes: RouteRecord[] = [];
  const security = new SecurityCounters();
  const telemetry = new Telemetry();
  try {
    // First of all, at the root: its onRoute and onRequest hooks reach every route and request.
    if (tracing) await app.register(tracing.plugin);
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

    // Every route as registered (the test of the OpenAPI document compares them with it).
    // Kept as registered: hooks of inner scopes may still complete a route's options after this one ran.
    app.addHook('onRoute', (route) => {
      routes.push(route);
    });
    installErrorHandler(app, dialect.toDomainError);
    answerRequestId(app);
    installInputIntegrity(app);
    checkRequestHead(app, { headerCount: config.limits.headerCount });
    closeUnreadBodies(app);
    limitLongLivedAnswers(app, config.limits.streamsPerCaller);
    await app.register(cookie);
    await app.register(formbody, { bodyLimit: 16 * 1024 });
    await app.register(swagger, openapiOptions(sessionCookie, SERVICE_VERSION));
    await registerOutOfDocument(app, 'the OpenAPI document and its UI', async (scope) => {
      await scope.register(swaggerUi, { routePrefix: '/docs' });
    });
    // A first visitor of / lands on the console (or the API's UI without it); a redirect, not an API call.
    const home = config.console.enabled ? '/console/' : '/docs';
    app.get('/', outOfDocument('a redirect of a first visitor to the UI, not an API call'), (_req, reply) =>
      reply.redirect(home, 302),
    );
    if (config.console.enabled)
      await registerOutOfDocument(app, "the admin console's static files (no API call)", async (scope) => {
        await scope.register(consolePlugin, { dir: config.console.dir || DEFAULT_CONSOLE_DIR });
      });

    app.get(
      '/health',
      {
        schema: {
          tags: ['operations'],
          summary: 'Liveness',
          description: 'Answers while the process serves requests; needs no credential.',
          security: [],
          response: {
            200: Type.Object(
              { status: Type.Literal('ok') },
              { description: 'The service is alive', examples: [{ status: 'ok' }] },
            ),
          },
        },
      },
      async () => ({ status: 'ok' as const }),
    );

    const readiness = registerReadiness(app, {
      db,
      migrations: MIGRATIONS.map((m) => m.name),
      feed,
      sharedFeed: !database.traits.singleInstance,
      timeoutMs: 1000,
    });
    // While draining, every answer closes its connection: clients (and balancers) open the next one elsewhere.
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (readiness.draining) reply.header('connection', 'close');
      done(null, payload);
    });
    // Registered before the modules' plugins, so it runs before theirs; the server closes right after the last one.
    app.addHook('preClose', (done) => {
      sockets.closeUnused();
      done();
    });
    // Before the modules: its request hook reaches the scopes registered after it.
    installMetrics(app, config.metrics, { database, feed, security, telemetry });

    for (const m of modules) if (m.plugin) await app.register(scopeOf(m, resolver), { prefix: m.prefix });
    // Background work (timers, listeners, pools) starts once the routes stand, in the list's order; close() stops it.
    for (const m of modules) {
      started.push(m);
      await m.start?.();
    }

    const graceMs = config.server.shutdownGraceSeconds * 1000;
    let shutting: Promise<void> | undefined;
    let endDrain: (() => void) | undefined;
    let drainUntil = Number.POSITIVE_INFINITY;
    const shutdown = (drainMs: number): Promise<void> => {
      readiness.startDraining();
      // A second signal with a shorter drain (SIGINT after SIGTERM) cuts the wait short.
      if (shutting) {
        if (Date.now() + drainMs < drainUntil) endDrain?.();
        return shutting;
      }
      drainUntil = Date.now() + drainMs;
      shutting = (async () => {
        if (drainMs > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, drainMs);
            endDrain = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        for (const m of [...started].reverse()) await m.drain?.(SHUTDOWN_STREAM_EVENT);
        const until = Date.now() + graceMs;
        const closing = app.close();
        let timer: NodeJS.Timeout | undefined;
        const inTime = await Promise.race([
          closing.then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), graceMs);
          }),
        ]);
        clearTimeout(timer);
        // Past the grace period, requests whose clients are still connected are cut, so that the process ends.
        if (!inTime) app.server.closeAllConnections();
        await closing;
        await inFlight.drained(Math.max(0, until - Date.now()));
        await closeModules(started);
        if (!deps.database) await database.destroy();
        await ownTracing?.shutdown();
      })();
      return shutting;
    };

    return {
      app,
      routes,
      database,
      bootstrapPassword,
      security,
      readiness,
      shutdown,
      close: () => shutdown(0),
    };
  } catch (err) {
    await app.close().catch(() => undefined);
    await closeModules(started).catch(() => undefined);
    if (!deps.database) await database.destroy().catch(() => undefined);
    await ownTracing?.shutdown().catch(() => undefined);
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
