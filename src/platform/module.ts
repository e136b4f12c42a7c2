import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { DataAccess } from './db/data-access.js';
import type { Dialect } from './db/dialects/dialect.js';
import type { DeploymentTraits } from './db/deployment.js';
import type { ModuleMigration } from './db/migrations.js';
import type { FinalStreamEvent } from './http/stream-end.js';

/**
 * What the module list hands a module: the database's handle typed with the module's own tables (it can name no
 * other module's; `data.db` is its Kysely, and the handle shows what else the database can do: prepared reads,
 * reader and writer threads), its own slice of the config, the SQL dialect, the deployment traits and a logger.
 * A module that needs more (the audit trail, the change feed) declares it as an extra, equally narrow field:
 * `ModuleDeps<FormsTables, FormsConfig> & { audit: AuditTrail }`.
 */
export interface ModuleDeps<Tables, Config = undefined> {
  data: DataAccess<Tables>;
  dialect: Dialect;
  traits: DeploymentTraits;
  config: Config;
  log: FastifyBaseLogger;
}

/**
 * One part of the service, as src/module-list.ts builds it: an API module (a plugin with its routes) or a
 * background service (no plugin: the change feed, the statistics upkeep, the credential throttle's purge).
 *
 * Lifecycle: building it does no I/O. `plugin` is registered once with `app.register`, in a scope of its own, and
 * only registers what the module answers with (routes, hooks, content-type parsers, request decorators, `preClose`);
 * none of it reaches another module. `start` runs once every plugin is registered, in the list's order, and starts
 * what runs in the background (timers, listeners, pools); `close` stops it again in reverse order, after running
 * requests have drained and before the database closes.
 *
 * A graceful shutdown (SIGTERM) first keeps serving for `server.drainSeconds` while readiness answers 503, then calls
 * `drain` of every module in reverse order, before the server stops taking requests: a module with live streams ends
 * them there with the final event it is handed (`SHUTDOWN_STREAM_EVENT`), so that clients reconnect elsewhere.
 */
export interface Module {
  readonly name: string;
  /** Its schema steps. They apply whether the config runs the module or not (the service and the CLI alike). */
  readonly migrations: readonly ModuleMigration[];
  /** The path prefix of every route of the plugin (the `prefix` of `app.register`); absent: routes name full paths. */
  readonly prefix?: string;
  /** Its face over HTTP, registered in a scope of its own; absent for a background service. */
  readonly plugin?: FastifyPluginAsync;
  /**
   * Who checks the callers: `platform` (default) registers the plugin inside the platform's credential scope, where
   * every route needs a credential unless its config says `public: true`; `own` leaves it to the module (the
   * engine's faces, with the engine's users).
   */
  readonly credentials?: 'platform' | 'own';
  start?(): void | Promise<void>;
  /** Ends what would hold the shutdown up (live streams), each stream with `event` as its last frame. */
  drain?(event: FinalStreamEvent): void | Promise<void>;
  close?(): void | Promise<void>;
}

/**
 * A module as its `index.ts` exports it: the name and schema steps, known without building it (the CLI only
 * migrates), and `create`, which builds it from its deps (exactly its own slice of what the module list holds).
 */
export interface ModuleDefinition<Name extends string, Deps, Built extends Module = Module> {
  readonly name: Name;
  readonly migrations: readonly ModuleMigration[];
  create(deps: Deps): Built;
}

/** What a definition's `create` answers; `defineModule` adds the name and the schema steps. */
export type ModuleParts = Omit<Module, 'name' | 'migrations'>;

/** Declares a module: `create` answers its plugin and lifecycle (and any face it offers the module list). */
export function defineModule<const Name extends string, Deps, Parts extends ModuleParts>(definition: {
  name: Name;
  migrations?: readonly ModuleMigration[];
  create(deps: Deps): Parts;
}): ModuleDefinition<Name, Deps, Parts & Module> {
  const { name } = definition;
  const migrations = definition.migrations ?? [];
  return { name, migrations, create: (deps) => ({ ...definition.create(deps), name, migrations }) };
}
