// The process engine's REST interface: /engine/rest with the credential rules of userType, the Process User Server,
// and shared data (tasks, reports) matched to the caller's roles. It owns engine_items and engine_item_roles.
import { defineModule, type ModuleDeps } from '../../platform/module.js';
import type { RestTables } from './rest.tables.js';
import type { CredentialGuard, EngineUsers } from './engine-users.js';
import {
  LocalPlatformServer,
  OidcServer,
  RemotePlatformServer,
  StaticServer,
  type LocalUserCheck,
  type ProcessUserServer,
} from './process-user-server.js';
import { restAuth } from './rest-auth.js';
import { SharedItemsRepository } from './shared-items.repository.js';
import { SHARED_ITEMS_TOPIC, SharedItemsService } from './shared-items.service.js';
import { FeedCache, type ChangeFeed } from '../../platform/events/index.js';
import { restRoutes } from './routes/rest-routes.js';
import { restMigrations } from './rest.migrations.js';

export { basicCredentials } from './rest-auth.js';
export { EngineUsers, type CredentialGuard, type EngineUserConfig } from './engine-users.js';

export type ProcessUserServerConfig =
  | { type: 'platform'; tenant?: string; url?: string; apiKey?: string }
  | { type: 'oidc'; issuer: string; jwksUrl?: string; audience?: string; rolesClaim?: string; loginNameClaim?: string }
  | { type: 'static'; users: Array<{ name: string; password?: string; passwordHash?: string; roles?: string[] }> };

export interface RestConfig {
  processUserServer: ProcessUserServerConfig;
  /** How long a list answer may be kept while no shared data of its scope changes (0: never). */
  listCacheSeconds: number;
}

/**
 * `userCheck`: the platform in this process, when there is one (type `platform` without `url` needs it); `guard`: the
 * credential throttle and counters every password check goes through; `engineUsers`: the engine's users of the config,
 * shared with data management (started by the module list before either).
 */
export type RestDeps = ModuleDeps<RestTables, RestConfig> & {
  userCheck?: LocalUserCheck;
  feed: ChangeFeed;
  guard: CredentialGuard;
  engineUsers: EngineUsers;
};

/** The engine's REST face: its own credential rules (userType) in its scope, and the shared items' list cache. */
export const restModule = defineModule({
  name: 'engine-rest',
  migrations: restMigrations,
  create(deps: RestDeps) {
    const pus = deps.config.processUserServer;
    const server = processUserServer(pus, deps.userCheck, deps.guard);
    const scope = pus.type === 'platform' ? (pus.tenant ?? 'default') : pus.type;
    const answers = new FeedCache(deps.feed, SHARED_ITEMS_TOPIC, deps.config.listCacheSeconds * 1000);
    const items = new SharedItemsService(deps.data.db, new SharedItemsRepository(deps.data), scope, deps.feed, answers);
    return {
      credentials: 'own' as const,
      prefix: '/engine/rest',
      async plugin(rest) {
        rest.decorateRequest('restCaller', null as never);
        rest.addHook('onRequest', restAuth(deps.engineUsers, server));
        restRoutes(rest, { items });
      },
      async start() {
        await server.start?.();
        answers.start();
      },
      close() {
        answers.close();
      },
    };
  },
});

function processUserServer(
  c: ProcessUserServerConfig,
  local: LocalUserCheck | undefined,
  guard: CredentialGuard,
): ProcessUserServer {
  switch (c.type) {
    case 'platform':
      if (c.url) {
        if (!c.apiKey) throw new Error('engine.processUserServer: type platform with url needs apiKey');
        return new RemotePlatformServer(c.url, c.apiKey, guard);
      }
      if (!local)
        throw new Error(
          'engine.processUserServer: type platform without url needs the platform in this process (platform.enabled)',
        );
      return new LocalPlatformServer(local, c.tenant ?? 'default');
    case 'oidc':
      return new OidcServer({
        ...c,
        rolesClaim: c.rolesClaim ?? 'roles',
        loginNameClaim: c.loginNameClaim ?? 'preferred_username',
      });
    case 'static':
      return new StaticServer(
        c.users.map((u) => ({ ...u, roles: u.roles ?? [] })),
        guard,
      );
  }
}
