// Identity: tenants, users, API keys and sessions; the /cxf/svc-core/authentication endpoints.
// It also implements the platform's CredentialResolver, so every other module sees one Principal.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppConfig } from '../../config/config.schema.js';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import type { CredentialResolver } from '../../platform/auth/credentials.js';
import { IdentityRepository } from './identity.repository.js';
import { IdentityService } from './identity.service.js';
import { SessionService } from './session.service.js';
import { LoginThrottle } from './login-throttle.js';
import type { IdentityContext } from './identity.context.js';
import { postLoginRoute } from './routes/post-login.js';
import { getSessionRoute } from './routes/get-session.js';
import { deleteSessionRoute } from './routes/delete-session.js';
import { getPrincipalRoute } from './routes/get-principal.js';
import { deleteAllSessionsRoute } from './routes/delete-all-sessions.js';

export { identityMigrations } from './identity.migrations.js';
export { IdentityService } from './identity.service.js';
export type { SessionRecord } from './session.service.js';

export const SESSION_COOKIE = 'svc_session';

export interface IdentityModule {
  context: IdentityContext;
  resolver: CredentialResolver;
  routes(app: FastifyInstance): Promise<void>;
  close(): Promise<void>;
}

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

export function createIdentityModule(db: Kysely<any>, dialect: Dialect, config: AppConfig): IdentityModule {
  const repo = new IdentityRepository(db, dialect);
  const identity = new IdentityService(repo);
  const throttle = new LoginThrottle(repo, config.identity.loginThrottle);
  const sessions = new SessionService(repo, throttle, {
    ttlSeconds: config.identity.sessionTtlSeconds,
    passwordLoginEnabled: config.identity.provider === 'local',
  });
  const context: IdentityContext = {
    identity,
    sessions,
    cookieName: SESSION_COOKIE,
    sessionTtlSeconds: config.identity.sessionTtlSeconds,
  };
  const resolver: CredentialResolver = {
    sessionCookie: SESSION_COOKIE,
    fromApiKey: (key) => identity.principalFromApiKey(key),
    fromSession: (id) => sessions.principalFromSession(id),
  };
  let purgeTimer: NodeJS.Timeout | undefined;
  return {
    context,
    resolver,
    async close() {
      if (purgeTimer) clearInterval(purgeTimer);
    },
    async routes(app) {
      purgeTimer = setInterval(() => {
        sessions.purgeExpired(config.identity.loginThrottle.windowSeconds).catch((err) => app.log.warn({ err }, 'session purge failed'));
      }, PURGE_INTERVAL_MS);
      purgeTimer.unref();
      postLoginRoute(app, context);
      getSessionRoute(app, context);
      deleteSessionRoute(app, context);
      getPrincipalRoute(app);
      deleteAllSessionsRoute(app, context);
    },
  };
}
