// Identity: tenants, users, API keys, sessions, access tokens, OIDC and the audit log; the
// /cxf/svc-core/authentication endpoints. It implements the platform's CredentialResolver, so every
// other module sees one Principal whatever the credential was.
import type { AppConfig, TenantConfig } from '../../config/config.schema.js';
import { defineModule, type Module, type ModuleDeps } from '../../platform/module.js';
import type { AuditTrail } from '../../platform/audit/audit-trail.js';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { accessOf, type QueryTarget } from '../../platform/db/data-access.js';
import type { FastifyBaseLogger } from 'fastify';
import { IDENTITY_ERRORS } from './identity.errors.js';
import type { CredentialResolver, RequestMeta } from '../../platform/auth/credentials.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { ApiKey, IdentityTables, User } from './identity.tables.js';
import { UsersRepository } from './users.repository.js';
import { SessionsRepository } from './sessions.repository.js';
import { IdentityService, type UserChange, type ApiKeyChange } from './identity.service.js';
import { SessionService } from './session.service.js';
import type { CredentialThrottle, SecurityCounters } from '../../platform/auth/throttle/index.js';
import type { IdentityContext } from './identity.context.js';
import { AuditRepository } from './audit/audit.repository.js';
import { AuditService } from './audit/audit.service.js';
import { SigningKeys } from './tokens/signing-keys.js';
import { TokenService } from './tokens/token.service.js';
import { OidcVerifier } from './tokens/oidc-verifier.js';
import { postLoginRoute } from './routes/post-login.js';
import { getSessionRoute } from './routes/get-session.js';
import { deleteSessionRoute } from './routes/delete-session.js';
import { getPrincipalRoute } from './routes/get-principal.js';
import { deleteAllSessionsRoute } from './routes/delete-all-sessions.js';
import { postTokenRoute } from './routes/post-token.js';
import { getJwksRoute } from './routes/get-jwks.js';
import { getAuditRoute } from './routes/get-audit.js';
import { SessionEndings } from './session-endings.js';
import { UserCheckService, type CheckedUser } from './user-check.service.js';
import { postUserCheckRoute } from './routes/post-user-check.js';
import type { ChangeFeed } from '../../platform/events/index.js';
import { identityMigrations } from './identity.migrations.js';
import { AdminRepository } from './admin/admin.repository.js';
import { AdminService, type AdminCaller } from './admin/admin.service.js';
import { TenantsService } from './admin/tenants.service.js';
import { KeyRevocations } from './key-revocations.js';
import { ProvisioningService } from './provisioning.service.js';
import { adminUserRoutes } from './routes/admin/users.js';
import { adminSessionRoutes } from './routes/admin/user-sessions.js';
import { adminApiKeyRoutes } from './routes/admin/api-keys.js';
import { adminTenantRoutes } from './routes/admin/tenants.js';

export type { UserChange, ApiKeyChange } from './identity.service.js';
export type { User, ApiKey } from './identity.tables.js';
export { TENANT_ADMIN } from './identity.service.js';
export type { SessionRecord } from './session.service.js';

export const SESSION_COOKIE = 'svc_session';

export type { CheckedUser } from './user-check.service.js';
/** The users of a tenant as another system checks them: current grants, or null for wrong credentials. */
export interface UserCheck {
  /** `ip` absent: a relay's check, throttled by the account only (UserCheckService.byPassword). */
  byPassword(tenant: string, loginName: string, password: string, ip: string | undefined): Promise<CheckedUser | null>;
  byToken(tenant: string, token: string): Promise<CheckedUser | null>;
}

export type IdentityConfig = AppConfig['identity'];
/**
 * `feed`: the change feed, over which session endings reach every instance (absent in tools such as the CLI).
 * `throttle`: the credential throttle the engine's checks share; `counters`: the process's security counters.
 */
export type IdentityDeps = ModuleDeps<IdentityTables, IdentityConfig> & {
  feed?: ChangeFeed;
  throttle: CredentialThrottle;
  counters: SecurityCounters;
};

/** The identity module: a platform module that also resolves credentials and keeps the audit trail. */
export interface IdentityModule extends Module {
  /** Handed to the auth plugin: every module's caller is resolved through it. */
  resolver: CredentialResolver;
  /** The audit log, for other modules' records. */
  audit: AuditTrail;
  /** Checks users' passwords and tokens for systems without users of their own (the engine's Process User Server). */
  userCheck: UserCheck;
}

/** What the admin CLI (or another process on the same database) may do to users, keys and sessions. */
export interface IdentityAdmin {
  listUsers(tenant?: string): Promise<User[]>;
  setUser(tenant: string, loginName: string, change: UserChange): Promise<void>;
  listApiKeys(tenant?: string): Promise<ApiKey[]>;
  /** Creates or replaces a key; answers the new key when one was generated (shown once). */
  setApiKey(tenant: string, name: string, change: ApiKeyChange): Promise<string | undefined>;
  /** The HTTP administration's operations, with the CLI as the audited actor. */
  deleteUser(tenant: string, loginName: string): Promise<{ sessionsEnded: number }>;
  revokeApiKey(tenant: string, name: string): Promise<void>;
  /** Ends one session (its id as the HTTP session list answers it) or all sessions of a user. */
  endSessions(tenant: string, loginName: string, id?: string): Promise<{ sessionsEnded: number }>;
}

/** The audit log's actor for changes made with the admin CLI. */
export const CLI_ACTOR = '(admin CLI)';

/**
 * The identity administration of a database, without the HTTP module around it (the admin CLI's entry). With `tools`,
 * session endings and key revocations go through the change feed, so running instances drop what they cached at once.
 */
export function createIdentityAdmin(
  db: QueryTarget<IdentityTables>,
  dialect: Dialect,
  tools: { feed?: ChangeFeed; throttle?: CredentialThrottle; log?: FastifyBaseLogger } = {},
): IdentityAdmin {
  const users = new UsersRepository(db, dialect);
  const data = accessOf(db);
  const identity = new IdentityService(users);
  const repo = new AdminRepository(data, dialect);
  const sessionRows = new SessionsRepository(data, dialect);
  const audit = new AuditService(new AuditRepository(data.db, dialect), tools.log ?? silentLog);
  const admin = new AdminService({
    repo,
    sessions: sessionRows,
    throttle: tools.throttle ?? noThrottle,
    audit,
    endings: tools.feed ? new SessionEndings(data.db, tools.feed, sessionRows, false) : undefined,
    revocations: tools.feed ? new KeyRevocations(data.db, tools.feed, false) : undefined,
    forgetUser: () => undefined,
    forgetApiKeys: () => undefined,
    forgetSessions: () => undefined,
  });
  const caller = async (tenant: string): Promise<AdminCaller> => {
    const t = await repo.findTenant(tenant);
    if (!t) throw IDENTITY_ERRORS.tenantNotFound(tenant);
    return { tenantId: t.id, tenant: t.name, actor: CLI_ACTOR, remoteAddress: '', userAgent: 'svc admin CLI' };
  };
  return {
    listUsers: (tenant) => identity.listUsers(tenant),
    setUser: (tenant, loginName, change) => identity.setUser(tenant, loginName, change),
    listApiKeys: (tenant) => identity.listApiKeys(tenant),
    setApiKey: (tenant, name, change) => identity.setApiKey(tenant, name, change),
    deleteUser: async (tenant, loginName) => admin.deleteUser(await caller(tenant), loginName),
    revokeApiKey: async (tenant, name) => admin.revokeApiKey(await caller(tenant), name),
    endSessions: async (tenant, loginName, id) => admin.endSessions(await caller(tenant), loginName, id),
  };
}

/** The CLI unlocks nothing: the throttle is a running service's. */
const noThrottle = { unlock: async () => false } as unknown as CredentialThrottle;
const silentLog = { warn: () => undefined } as unknown as FastifyBaseLogger;

/**
 * Applies the config's tenants, users and keys (ProvisioningService: the file and HTTP administration agree) and, on
 * an empty database, creates the bootstrap admin; answers the generated password when one was made. Whether or not
 * the platform's face runs in this process.
 */
export async function provisionIdentity(
  db: QueryTarget<IdentityTables>,
  dialect: Dialect,
  tenants: TenantConfig[],
  bootstrapAdminPassword: string | undefined,
): Promise<{ generatedPassword?: string }> {
  const users = new UsersRepository(db, dialect);
  const data = accessOf(db);
  const identity = new IdentityService(users);
  const firstStart = await identity.isEmpty();
  await new ProvisioningService(users, new AdminRepository(data, dialect), dialect, data.db).provision(tenants);
  return firstStart ? identity.bootstrapAdmin(bootstrapAdminPassword) : {};
}

const PURGE_INTERVAL_MS = 10 * 60 * 1000;
/** How long a verified password is remembered by the user check (keyed by a hash that includes the stored hash). */
const USER_CHECK_TTL_MS = 30_000;
/** Session rows kept in memory where one process owns the database, or while the change feed reports every ending. */
const SESSION_CACHE_MS = 60_000;

/** The identity module: the authentication and audit routes, the credential resolver, and the purge of expired rows. */
export const identityModule = defineModule({
  name: 'identity',
  migrations: identityMigrations,
  create: (deps: IdentityDeps): Omit<IdentityModule, 'name' | 'migrations'> => createIdentity(deps),
});

function createIdentity({
  data,
  dialect,
  traits,
  config: idc,
  log,
  feed,
  throttle,
  counters,
}: IdentityDeps): Omit<IdentityModule, 'name' | 'migrations'> {
  const { db } = data;
  const sessionRows = new SessionsRepository(data, dialect);
  const users = new UsersRepository(data, dialect);
  const identity = new IdentityService(users, idc.credentialCacheSeconds * 1000);
  const audit = new AuditService(new AuditRepository(db, dialect), log);
  // One of each per process: both acknowledge their topic on the feed.
  const sessionEndings = feed ? new SessionEndings(db, feed, sessionRows) : undefined;
  const revocations = feed ? new KeyRevocations(db, feed) : undefined;
  const sessions = new SessionService(
    users,
    sessionRows,
    throttle,
    counters,
    {
      ttlSeconds: idc.sessionTtlSeconds,
      passwordLoginEnabled: idc.provider === 'local',
      userCacheMs: idc.credentialCacheSeconds * 1000,
      sessionCacheMs: SESSION_CACHE_MS,
      singleInstance: traits.singleInstance,
    },
    audit,
    sessionEndings,
  );
  const signingKeys = new SigningKeys(db, dialect, {
    algorithm: idc.tokens.algorithm,
    rotationSeconds: idc.tokens.rotationSeconds,
    tokenTtlSeconds: idc.tokens.ttlSeconds,
    clockSkewSeconds: idc.tokens.clockSkewSeconds,
  });
  const tenantIds = new Map<string, string>();
  const oidc =
    idc.provider === 'oidc' && idc.oidc
      ? new OidcVerifier({ ...idc.oidc, clockSkewSeconds: idc.tokens.clockSkewSeconds }, async (name) => {
          if (!tenantIds.has(name)) {
            // A deactivated tenant's OIDC users authenticate nowhere, as its platform users (forgotten on revocation).
            const t = await users.findTenant(name, { activeOnly: true });
            if (!t) return undefined;
            tenantIds.set(name, t.id);
          }
          return tenantIds.get(name);
        })
      : undefined;
  const tokens = new TokenService(signingKeys, idc.tokens, audit, oidc);
  const adminRepo = new AdminRepository(data, dialect);
  const caches = {
    forgetUser: (userId: string) => sessions.forgetUser(userId),
    forgetApiKeys: () => {
      identity.forgetApiKeys();
      tenantIds.clear();
    },
    forgetSessions: (tenantId: string) => sessions.forgetSessions(tenantId),
  };
  const admin = new AdminService({
    repo: adminRepo,
    sessions: sessionRows,
    throttle,
    audit,
    endings: sessionEndings,
    revocations,
    ...caches,
  });
  const tenantsAdmin = new TenantsService({
    repo: adminRepo,
    platformAdmins: idc.platformAdmins,
    audit,
    endings: sessionEndings,
    revocations,
    ...caches,
  });
  const userCheck = new UserCheckService(users, tokens, throttle, counters, USER_CHECK_TTL_MS);
  const context: IdentityContext = {
    identity,
    sessions,
    tokens,
    signingKeys,
    audit,
    cookieName: SESSION_COOKIE,
    sessionTtlSeconds: idc.sessionTtlSeconds,
  };
  const keyUse = (meta: RequestMeta, actor: string, tenantId: string | null, outcome: 'success' | 'failure') => ({
    tenantId,
    actor,
    action: 'apikey.use',
    outcome,
    remoteAddress: meta.ip,
    userAgent: meta.userAgent,
  });
  const keyUsed = (p: Principal | null, meta: RequestMeta): Principal | null => {
    if (p) {
      audit.recordKeyUse(p.tenantId, p.loginName, meta.ip, () => keyUse(meta, p.loginName, p.tenantId, 'success'));
    } else audit.recordKeyUse('', 'invalid', meta.ip, () => keyUse(meta, '(unknown or expired key)', null, 'failure'));
    return p;
  };
  const resolver: CredentialResolver = {
    sessionCookie: SESSION_COOKIE,
    // Synchronous while the key's lookup is cached (most calls): no promise on the way of every API-key request.
    fromApiKey(key, meta) {
      const found = identity.principalFromApiKey(key);
      return found instanceof Promise ? found.then((p) => keyUsed(p, meta)) : keyUsed(found, meta);
    },
    fromSession: (id) => sessions.principalFromSession(id),
    fromBearer: (token) => tokens.verify(token),
  };
  let purgeTimer: NodeJS.Timeout | undefined;
  let stopEndings: (() => void) | undefined;
  return {
    resolver,
    audit,
    userCheck,
    prefix: '/cxf/svc-core',
    start() {
      const stopSessions = sessions.followEndings();
      const stopKeys = revocations?.listen(() => caches.forgetApiKeys());
      stopEndings = () => {
        stopSessions();
        stopKeys?.();
      };
      purgeTimer = setInterval(() => {
        Promise.all([sessions.purgeExpired(), signingKeys.purge(), audit.purge(idc.auditRetentionDays)]).catch((err) =>
          log.warn({ err }, 'identity purge failed'),
        );
      }, PURGE_INTERVAL_MS);
      purgeTimer.unref();
    },
    close() {
      stopEndings?.();
      if (purgeTimer) clearInterval(purgeTimer);
      purgeTimer = undefined;
    },
    async plugin(app) {
      postLoginRoute(app, context);
      getSessionRoute(app, context);
      deleteSessionRoute(app, context);
      getPrincipalRoute(app);
      deleteAllSessionsRoute(app, context);
      postTokenRoute(app, context);
      getJwksRoute(app, context);
      getAuditRoute(app, context);
      postUserCheckRoute(app, userCheck);
      adminUserRoutes(app, admin);
      adminSessionRoutes(app, admin);
      adminApiKeyRoutes(app, admin);
      adminTenantRoutes(app, tenantsAdmin);
    },
  };
}
