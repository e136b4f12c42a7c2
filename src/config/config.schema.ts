import { Type, type Static } from '@sinclair/typebox';

/** Pino's levels, most severe first; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const StringList = Type.Array(Type.String({ maxLength: 256 }), { default: [] });

export const UserConfigSchema = Type.Object(
  {
    loginName: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    passwordHash: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    firstName: Type.Optional(Type.String({ maxLength: 256 })),
    lastName: Type.Optional(Type.String({ maxLength: 256 })),
    organisations: Type.Optional(StringList),
    inactiveOrganisations: Type.Optional(StringList),
    roles: Type.Optional(StringList),
    rights: Type.Optional(StringList),
    customData: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const ApiKeyConfigSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256 }),
    key: Type.Optional(Type.String({ minLength: 8, maxLength: 1024 })),
    keyHash: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    organisations: Type.Optional(StringList),
    roles: Type.Optional(StringList),
    rights: Type.Optional(StringList),
    expiresOn: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const TenantConfigSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
    users: Type.Optional(Type.Array(UserConfigSchema)),
    apiKeys: Type.Optional(Type.Array(ApiKeyConfigSchema)),
  },
  { additionalProperties: false },
);

export const ConfigSchema = Type.Object(
  {
    server: Type.Object(
      {
        host: Type.String({ default: '127.0.0.1' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
        trustProxy: Type.Boolean({ default: false }),
        bodyLimitBytes: Type.Integer({ minimum: 1024, default: 1048576 }),
        logLevel: Type.Union(LOG_LEVELS.map((level) => Type.Literal(level)), { default: 'info' }),
        /** On shutdown, how long requests already running may take to finish before the database closes. */
        shutdownGraceSeconds: Type.Number({ minimum: 0, maximum: 600, default: 10 }),
        /**
         * Time a client has to send a whole request, headers and body (408 past it, and the connection closes): a body
         * that trickles in byte by byte must not hold a socket for ever. Bounds uploads through the flow proxy too.
         */
        requestTimeoutSeconds: Type.Number({ exclusiveMinimum: 0, maximum: 3600, default: 30 }),
        /** Time a client has to send the request line and headers; at most requestTimeoutSeconds. */
        headersTimeoutSeconds: Type.Number({ exclusiveMinimum: 0, maximum: 3600, default: 10 }),
        /** How long an idle keep-alive connection stays open for a next request (behind a load balancer: above its own). */
        keepAliveTimeoutSeconds: Type.Number({ exclusiveMinimum: 0, maximum: 3600, default: 5 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** What one client may hold or send; beyond it the error object (decisions.md section 4). */
    limits: Type.Object(
      {
        /**
         * Open connections from one address (the socket's, also behind a trusted proxy, whose own address it then is);
         * more are answered 429 and closed. 0: no limit.
         */
        connectionsPerAddress: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 256 }),
        /** Open live streams (Server-Sent Events) per address and per caller; one more is 429. 0: no limit. */
        streamsPerCaller: Type.Integer({ minimum: 0, maximum: 100_000, default: 16 }),
        /** Header lines a request may carry; more is 431 (never a silent cut). */
        headerCount: Type.Integer({ minimum: 16, maximum: 10_000, default: 200 }),
      },
      { default: {}, additionalProperties: false },
    ),
    database: Type.Object(
      {
        /** postgres://... selects PostgreSQL; empty means the embedded SQLite in dataDir. */
        url: Type.Optional(Type.String()),
        dataDir: Type.String({ default: './data' }),
        poolSize: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
        /**
         * SQLite's page cache in MiB (one connection). Lists over large stores re-read the pages of every readable
         * item: with more items than fit, they come from the OS cache instead (docs/benchmarks/storage.md).
         */
        sqliteCacheMiB: Type.Integer({ minimum: 2, maximum: 65536, default: 64 }),
        /**
         * SQLite: threads that run the lists' statements on read-only connections of their own, so a long list never
         * stops the event loop and the main thread answers HTTP meanwhile; 0 runs them on the main thread, -1 one
         * thread per core but one. Each has its own page cache of sqliteCacheMiB. Two on a machine of 2 cores answered
         * 45% more lists than none, one 27% (docs/benchmarks.md).
         */
        sqliteReaderThreads: Type.Integer({ minimum: -1, maximum: 64, default: 2 }),
        /**
         * SQLite: a thread that writes the storage module's batches of creates on a connection of its own, so that
         * their statements and commits (and the WAL checkpoints those trigger, up to ~100 ms) never stop the event
         * loop; false writes them on the main thread. It has its own page cache of sqliteCacheMiB.
         */
        sqliteWriterThread: Type.Boolean({ default: true }),
        /**
         * PostgreSQL: how often the service looks for its tables whose statistics went stale (a tenth of their rows, at
         * least 50, changed since the last ANALYZE) and analyses them, or vacuums and analyses those that gained or
         * lost that share since the last VACUUM, off the request path; 0 turns it off.
         */
        analyzeCheckSeconds: Type.Number({ minimum: 0, maximum: 86400, default: 2 }),
      },
      { default: {}, additionalProperties: false },
    ),
    identity: Type.Object(
      {
        provider: Type.Union([Type.Literal('local'), Type.Literal('oidc')], { default: 'local' }),
        sessionTtlSeconds: Type.Integer({ minimum: 10, maximum: 31536000, default: 1800 }),
        /**
         * How long an instance may reuse an API key's or a session user's grants (roles, rights, organisations,
         * active flag); changes reach every instance within this. Session validity is checked on every call. 0: no cache.
         */
        credentialCacheSeconds: Type.Number({ minimum: 0, maximum: 60, default: 2 }),
        /** Audit records older than this many days are deleted by the periodic purge; 0 keeps them forever. */
        auditRetentionDays: Type.Integer({ minimum: 0, maximum: 36500, default: 90 }),
        oidc: Type.Optional(
          Type.Object(
            {
              issuer: Type.String({ minLength: 1 }),
              /** Defaults to the jwks_uri of the issuer's discovery document. */
              jwksUrl: Type.Optional(Type.String({ minLength: 1 })),
              audience: Type.Optional(Type.String()),
              /** Dotted paths into the token's claims, e.g. `realm_access.roles`. */
              rolesClaim: Type.String({ default: 'roles' }),
              rightsClaim: Type.String({ default: 'rights' }),
              organisationsClaim: Type.String({ default: 'organisations' }),
              loginNameClaim: Type.String({ default: 'preferred_username' }),
              /** The tenant the provider's users belong to, or a claim naming it. */
              tenant: Type.String({ default: 'default' }),
              tenantClaim: Type.Optional(Type.String()),
              algorithms: Type.Array(Type.String(), { default: ['RS256', 'ES256', 'EdDSA', 'PS256'] }),
              timeoutMs: Type.Integer({ minimum: 100, maximum: 60000, default: 3000 }),
              /** After a JWKS fetch, an unknown key id triggers a new fetch only after this long. */
              jwksCooldownMs: Type.Integer({ minimum: 0, maximum: 3600000, default: 30000 }),
            },
            { additionalProperties: false },
          ),
        ),
        tokens: Type.Object(
          {
            issuer: Type.String({ default: 'svc-platform' }),
            audience: Type.String({ default: 'svc-platform' }),
            ttlSeconds: Type.Integer({ minimum: 10, maximum: 86400, default: 300 }),
            /** How long one signing key signs before a new one takes over (the old one keeps verifying). */
            rotationSeconds: Type.Integer({ minimum: 60, default: 86400 }),
            algorithm: Type.Union([Type.Literal('EdDSA'), Type.Literal('ES256')], { default: 'EdDSA' }),
            clockSkewSeconds: Type.Integer({ minimum: 0, maximum: 300, default: 30 }),
          },
          { default: {}, additionalProperties: false },
        ),
        /**
         * The credential throttle of every password check (logins, user checks, Basic on the engine), per key:
         * (account, address), account, address (platform/auth/throttle). No permanent lockout.
         */
        loginThrottle: Type.Object(
          {
            /** Failures of one account from one address per window. Default 5, at most the account's budget. */
            maxFailuresPerAccountAndAddress: Type.Optional(Type.Integer({ minimum: 1 })),
            /** Failures of one account from any address before its waits begin. Default 20 (or maxFailuresPerUser). */
            maxFailuresPerAccount: Type.Optional(Type.Integer({ minimum: 1 })),
            /** Earlier name of maxFailuresPerAccount, still accepted. */
            maxFailuresPerUser: Type.Optional(Type.Integer({ minimum: 1 })),
            /** Failures from one address across all accounts per window. */
            maxFailuresPerAddress: Type.Integer({ minimum: 1, default: 50 }),
            /** The window of the two budgets above. */
            windowSeconds: Type.Integer({ minimum: 1, default: 300 }),
            /** Past the account's budget each failure makes the next attempt wait: this first, doubling per failure... */
            firstWaitSeconds: Type.Integer({ minimum: 1, default: 30 }),
            /** ...up to this. */
            maxWaitSeconds: Type.Integer({ minimum: 1, default: 900 }),
            /** An account's failures are forgotten after this long without one (at least maxWaitSeconds). */
            failureResetSeconds: Type.Integer({ minimum: 1, default: 43200 }),
          },
          { default: {}, additionalProperties: false },
        ),
        bootstrapAdminPassword: Type.Optional(Type.String({ minLength: 1 })),
      },
      { default: {}, additionalProperties: false },
    ),
    tenants: Type.Array(TenantConfigSchema, { default: [] }),
    events: Type.Object(
      {
        /** How long the change feed keeps events for subscribers that resume (`Last-Event-ID`). */
        retentionHours: Type.Number({ minimum: 0.01, maximum: 8760, default: 24 }),
      },
      { default: {}, additionalProperties: false },
    ),
    notifications: Type.Object(
      {
        /** Comment lines on idle streams, so proxies and clients see the connection alive. */
        heartbeatSeconds: Type.Number({ minimum: 0.05, maximum: 3600, default: 15 }),
        /** The reconnection delay the stream asks EventSource clients for. */
        retryMs: Type.Integer({ minimum: 0, maximum: 600000, default: 3000 }),
        /** Bytes a stream may have waiting for a slow client before it is closed (the client resumes). */
        maxQueuedBytes: Type.Integer({ minimum: 1024, maximum: 1073741824, default: 1048576 }),
        /** How long a list answer may be reused while no notification of its tenant changes (any instance); 0: never. */
        listCacheSeconds: Type.Number({ minimum: 0, maximum: 3600, default: 60 }),
      },
      { default: {}, additionalProperties: false },
    ),
    // Sections owned by later modules; each module validates its own part.
    flow: Type.Object(
      {
        instances: Type.Array(
          Type.Object(
            {
              id: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._~-]+$' }),
              /** http(s) URL; targetPath is appended to its path. */
              url: Type.String({ pattern: '^https?://[^\\s]+$' }),
              auth: Type.Union(
                [
                  Type.Object({ type: Type.Literal('none') }, { additionalProperties: false }),
                  Type.Object({ type: Type.Literal('basic'), username: Type.String(), password: Type.String() }, { additionalProperties: false }),
                  Type.Object({ type: Type.Literal('bearer'), token: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
                ],
                { default: { type: 'none' } },
              ),
              /** Time to the instance's response headers, and between body chunks: 504 (or a cut body) past it. */
              timeoutSeconds: Type.Number({ exclusiveMinimum: 0, maximum: 86400, default: 180 }),
            },
            { additionalProperties: false },
          ),
          { default: [] },
        ),
        connectionsPerInstance: Type.Integer({ minimum: 1, maximum: 4096, default: 128 }),
        /** Which proxied calls the audit log records: off (default), errors (status >= 400), all. */
        audit: Type.Union([Type.Literal('off'), Type.Literal('errors'), Type.Literal('all')], { default: 'off' }),
      },
      { default: {}, additionalProperties: false },
    ),
    engine: Type.Object(
      {
        /** Serve the process engine's face (/engine/...) in this process. */
        enabled: Type.Boolean({ default: true }),
        /** The 'inactive versions' feature of the data management API. */
        inactiveVersions: Type.Boolean({ default: false }),
        /** How long a task or report list answer may be kept while no shared data changes (any instance); 0: never. */
        listCacheSeconds: Type.Number({ minimum: 0, maximum: 3600, default: 60 }),
        /**
         * The webhooks that data management actions may call, by name (an action's handler names one: templates never
         * carry URLs, so a data management user cannot make the engine call an address the operator did not list).
         */
        actionWebhooks: Type.Array(
          Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 128 }),
              url: Type.String({ pattern: '^https?://' }),
              timeoutSeconds: Type.Number({ exclusiveMinimum: 0, maximum: 600, default: 30 }),
            },
            { additionalProperties: false },
          ),
          { default: [] },
        ),
        /** Process-engine users (HTTP Basic). */
        users: Type.Array(
          Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 256 }),
              password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
              passwordHash: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
              groups: Type.Array(Type.String({ maxLength: 256 }), { default: [] }),
              roles: Type.Array(Type.String({ maxLength: 256 }), { default: [] }),
            },
            { additionalProperties: false },
          ),
          { default: [] },
        ),
        /** Where process users (external frontend users) and their roles come from. */
        processUserServer: Type.Union(
          [
            Type.Object(
              {
                type: Type.Literal('platform'),
                /** Default 'default'. (No schema defaults inside this union: they would leak into its other members.) */
                tenant: Type.Optional(Type.String()),
                /** The platform's base URL when the engine runs apart from it; absent: the platform in this process. */
                url: Type.Optional(Type.String({ pattern: '^https?://' })),
                /** An API key of the tenant with role ADMIN or right PROCESS_USER_CHECK (with `url`). */
                apiKey: Type.Optional(Type.String({ minLength: 8 })),
              },
              { additionalProperties: false },
            ),
            Type.Object(
              {
                type: Type.Literal('oidc'),
                issuer: Type.String({ minLength: 1 }),
                jwksUrl: Type.Optional(Type.String({ minLength: 1 })),
                audience: Type.Optional(Type.String()),
                /** Default 'roles'. */
                rolesClaim: Type.Optional(Type.String()),
                /** Default 'preferred_username'. */
                loginNameClaim: Type.Optional(Type.String()),
              },
              { additionalProperties: false },
            ),
            Type.Object(
              {
                type: Type.Literal('static'),
                users: Type.Array(
                  Type.Object(
                    {
                      name: Type.String({ minLength: 1, maxLength: 256 }),
                      password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
                      passwordHash: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
                      roles: Type.Optional(Type.Array(Type.String({ maxLength: 256 }))),
                    },
                    { additionalProperties: false },
                  ),
                ),
              },
              { additionalProperties: false },
            ),
          ],
          { default: { type: 'platform' } },
        ),
      },
      { default: {}, additionalProperties: false },
    ),
    platform: Type.Object(
      {
        /** Serve the platform's face (/cxf/...) in this process; off for an engine deployed apart. */
        enabled: Type.Boolean({ default: true }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** Notification endpoints answer 503 in every tenant until an ADMIN switches maintenance off at run time. */
    maintenance: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
);

export type AppConfig = Static<typeof ConfigSchema>;
export type TenantConfig = Static<typeof TenantConfigSchema>;
export type UserConfig = Static<typeof UserConfigSchema>;
export type ApiKeyConfig = Static<typeof ApiKeyConfigSchema>;
