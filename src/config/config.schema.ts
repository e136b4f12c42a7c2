import { Type, type Static } from '@sinclair/typebox';

/** Pino's levels, most severe first; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

// Every key carries a `description`: docs/configuration.md is generated from them (npm run docs:config) and a test
// fails when a key has none or the file is stale. Notes for maintainers stay comments.
// No default: a list the file leaves out is not stated, and provisioning then leaves the stored one as it is.
const StringList = (description: string) => Type.Array(Type.String({ maxLength: 256 }), { description });

export const UserConfigSchema = Type.Object(
  {
    loginName: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'The name the user logs in with (`username` of the login form).',
    }),
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: 'The password in plain text; stored as an scrypt hash (kept while it still matches).',
      }),
    ),
    passwordHash: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: 'Instead of `password`: its scrypt hash, as `npm run cli -- hash-password` prints it.',
      }),
    ),
    email: Type.Optional(Type.String({ maxLength: 320, description: 'E-mail address, answered in the principal.' })),
    firstName: Type.Optional(Type.String({ maxLength: 256, description: 'First name, answered in the principal.' })),
    lastName: Type.Optional(Type.String({ maxLength: 256, description: 'Last name, answered in the principal.' })),
    organisations: Type.Optional(
      StringList('Organisations the user belongs to (restrictions of storage items and notifications).'),
    ),
    inactiveOrganisations: Type.Optional(
      StringList('Organisations the user belongs to but that do not count for access now.'),
    ),
    roles: Type.Optional(StringList('Roles, e.g. `ADMIN`, `FORMS_ADMIN`, `NOTIFICATION_ADMIN`.')),
    rights: Type.Optional(StringList('Rights, e.g. `PROCESS_USER_CHECK`.')),
    customData: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Any JSON object, answered in the principal as it is.',
      }),
    ),
    active: Type.Optional(
      Type.Boolean({
        description: 'false: the user cannot log in and its sessions end. Absent: unchanged (new users are active).',
      }),
    ),
  },
  { additionalProperties: false, description: 'A user of the tenant, created or updated by `loginName`.' },
);

export const ApiKeyConfigSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 256,
      description: "The key's name (its `loginName` in the principal).",
    }),
    key: Type.Optional(
      Type.String({
        minLength: 8,
        maxLength: 1024,
        description: 'The key callers send in `X-APIKey`; only its SHA-256 hash is stored.',
      }),
    ),
    keyHash: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: 'Instead of `key`: its SHA-256 as 64 hex digits, optionally prefixed `sha256:`.',
      }),
    ),
    organisations: Type.Optional(StringList("Organisations of the key's caller.")),
    roles: Type.Optional(StringList("Roles of the key's caller.")),
    rights: Type.Optional(StringList("Rights of the key's caller.")),
    expiresOn: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'When the key stops working (ISO 8601 date-time); null or absent: never.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'An API key of the tenant, created or replaced by `name`; `key` or `keyHash` is required.',
  },
);

export const TenantConfigSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      description: "The tenant's name (`tenantname` of the login form).",
    }),
    users: Type.Optional(Type.Array(UserConfigSchema, { description: 'Users of the tenant.' })),
    apiKeys: Type.Optional(Type.Array(ApiKeyConfigSchema, { description: 'API keys of the tenant.' })),
  },
  { additionalProperties: false, description: 'A tenant, created if it does not exist.' },
);

export const ConfigSchema = Type.Object(
  {
    server: Type.Object(
      {
        host: Type.String({ default: '127.0.0.1', description: 'Listen address; `0.0.0.0` for every IPv4 interface.' }),
        port: Type.Integer({
          minimum: 0,
          maximum: 65535,
          default: 8080,
          description: 'Listen port; 0 takes a free one.',
        }),
        trustProxy: Type.Boolean({
          default: false,
          description:
            "Behind a reverse proxy: take the client's address, protocol and host from its `X-Forwarded-*` headers.",
        }),
        bodyLimitBytes: Type.Integer({
          minimum: 1024,
          default: 1048576,
          description:
            'Largest request body, 413 beyond it; storage items take up to 5 MiB, form-encoded logins 16 KiB.',
        }),
        logLevel: Type.Union(
          LOG_LEVELS.map((level) => Type.Literal(level)),
          {
            default: 'info',
            description:
              'Log level (pino, on stdout, in the form `logFormat` says). The headers `authorization`, `cookie`, `x-apikey`, `x-auth-token`, `x-csrf-token` and `set-cookie` are redacted.',
          },
        ),
        logFormat: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], {
          default: 'auto',
          description:
            '`auto`: readable lines (pino-pretty) when stdout is a terminal, JSON lines otherwise; `json`: always JSON lines; `pretty`: always readable lines.',
        }),
        drainSeconds: Type.Number({
          minimum: 0,
          maximum: 600,
          default: 5,
          description:
            'On SIGTERM, how long the service goes on serving while `GET /readyz` answers 503, so that load balancers stop sending to it; then live streams end with a `reconnect` event and the shutdown proceeds. SIGINT skips it.',
        }),
        shutdownGraceSeconds: Type.Number({
          minimum: 0,
          maximum: 600,
          default: 10,
          description:
            'On SIGTERM or SIGINT, how long requests already running may take to finish before the database closes.',
        }),
        requestTimeoutSeconds: Type.Number({
          exclusiveMinimum: 0,
          maximum: 3600,
          default: 30,
          description:
            'Time a client has to send a whole request, headers and body (408 past it, and the connection closes): a body that trickles in byte by byte must not hold a socket for ever. Bounds uploads through the flow proxy too.',
        }),
        headersTimeoutSeconds: Type.Number({
          exclusiveMinimum: 0,
          maximum: 3600,
          default: 10,
          description: 'Time a client has to send the request line and headers; at most `requestTimeoutSeconds`.',
        }),
        keepAliveTimeoutSeconds: Type.Number({
          exclusiveMinimum: 0,
          maximum: 3600,
          default: 5,
          description:
            'How long an idle keep-alive connection stays open for a next request (behind a load balancer: above its own).',
        }),
      },
      { default: {}, additionalProperties: false, description: 'The HTTP listener.' },
    ),
    limits: Type.Object(
      {
        connectionsPerAddress: Type.Integer({
          minimum: 0,
          maximum: 1_000_000,
          default: 256,
          description:
            "Open connections from one address (the socket's, also behind a trusted proxy, whose own address it then is); more are answered 429 and closed. 0: no limit.",
        }),
        streamsPerCaller: Type.Integer({
          minimum: 0,
          maximum: 100_000,
          default: 16,
          description:
            'Open live streams (Server-Sent Events) per address and per caller; one more is 429. 0: no limit.',
        }),
        headerCount: Type.Integer({
          minimum: 16,
          maximum: 10_000,
          default: 200,
          description: 'Header lines a request may carry; more is 431 (never a silent cut).',
        }),
      },
      {
        default: {},
        additionalProperties: false,
        description: 'What one client may hold or send; beyond it, the error object (decisions.md section 4).',
      },
    ),
    database: Type.Object(
      {
        // Schemes other than postgres(ql):// are refused by load-config.ts with a message naming them.
        url: Type.Optional(
          Type.String({
            description:
              '`postgres://` or `postgresql://` (`postgres://user:password@host:5432/db`) selects PostgreSQL, which several instances may share; absent or empty: the embedded SQLite in `dataDir`. Any other scheme stops the start.',
          }),
        ),
        dataDir: Type.String({
          default: './data',
          description:
            'Directory of the embedded SQLite database (`svc.sqlite`, WAL mode), made if missing. One process per database: a second start exits with code 3.',
        }),
        poolSize: Type.Integer({
          minimum: 1,
          maximum: 200,
          default: 10,
          description: "PostgreSQL: connections in each instance's pool.",
        }),
        sqliteCacheMiB: Type.Integer({
          minimum: 2,
          maximum: 65536,
          default: 64,
          description:
            "SQLite's page cache in MiB (one connection). Lists over large stores re-read the pages of every readable item: with more items than fit, they come from the OS cache instead (docs/benchmarks.md).",
        }),
        sqliteReaderThreads: Type.Integer({
          minimum: -1,
          maximum: 64,
          default: 2,
          description:
            "SQLite: threads that run the lists' statements on read-only connections of their own, so a long list never stops the event loop and the main thread answers HTTP meanwhile; 0 runs them on the main thread, -1 one thread per core but one. Each has its own page cache of `sqliteCacheMiB`. Two on a machine of 2 cores answered 45% more lists than none, one 27% (docs/benchmarks.md).",
        }),
        sqliteWriterThread: Type.Boolean({
          default: true,
          description:
            "SQLite: a thread that writes the storage module's batches of creates on a connection of its own, so that their statements and commits (and the WAL checkpoints those trigger, up to ~100 ms) never stop the event loop; false writes them on the main thread. It has its own page cache of `sqliteCacheMiB`.",
        }),
        pooler: Type.Union([Type.Literal('none'), Type.Literal('transaction')], {
          default: 'none',
          description:
            "PostgreSQL: `transaction` when `url` goes through a pooler in transaction pooling mode (PgBouncer `pool_mode = transaction`): the service then prepares no named statements on the server (unless `poolerPreparedStatements`), sends no session settings at connect (set `jit = off` and `max_parallel_workers_per_gather = 0` on the database or role instead), and opens what needs a session (the change feed's LISTEN, migrations and their advisory lock, the statistics upkeep's VACUUM) on `directUrl` (docs/operations.md, PgBouncer).",
        }),
        poolerPreparedStatements: Type.Boolean({
          default: false,
          description:
            'PostgreSQL with `pooler: transaction`: keep running the hot statements as named prepared statements, for a pooler that tracks them (PgBouncer 1.21 or later with `max_prepared_statements` of at least `preparedStatementsPerConnection`); PgBouncer before 1.21 would answer them on server connections that never prepared them.',
        }),
        preparedStatementsPerConnection: Type.Integer({
          minimum: 0,
          maximum: 100_000,
          default: 500,
          description:
            "PostgreSQL: named prepared statements each pool connection keeps (parsed once, and planned once where PostgreSQL's generic plan serves); past it the least recently used one is closed on the server (the protocol's Close, DEALLOCATE's equivalent, which PgBouncer 1.21 and later intercept) before a new one is prepared. Each costs server memory for its parse tree and plan, per connection. 0 prepares nothing by name.",
        }),
        directUrl: Type.Optional(
          Type.String({
            pattern: '^postgres(ql)?://',
            description:
              "PostgreSQL: a URL to the same database that bypasses the pooler, for what needs a session of its own: the change feed's LISTEN, migrations (their advisory lock) and the statistics upkeep's VACUUM. Used only with `pooler: transaction`; without it the service starts and logs what will not work.",
          }),
        ),
        analyzeCheckSeconds: Type.Number({
          minimum: 0,
          maximum: 86400,
          default: 2,
          description:
            'PostgreSQL: how often the service looks for its tables whose statistics went stale (a tenth of their rows, at least 50, changed since the last ANALYZE) and analyses them, or vacuums and analyses those that gained or lost that share since the last VACUUM, off the request path; 0 turns it off.',
        }),
      },
      {
        default: {},
        additionalProperties: false,
        description: 'Where the data lives: the embedded SQLite (the default) or PostgreSQL.',
      },
    ),
    identity: Type.Object(
      {
        provider: Type.Union([Type.Literal('local'), Type.Literal('oidc')], {
          default: 'local',
          description:
            "`local`: users log in with the platform's passwords. `oidc`: password login is refused and the tokens of the provider in `identity.oidc` are accepted as `Authorization: Bearer`.",
        }),
        sessionTtlSeconds: Type.Integer({
          minimum: 10,
          maximum: 31536000,
          default: 1800,
          description: 'A session ends after this long without a request; each request moves its end forward.',
        }),
        credentialCacheSeconds: Type.Number({
          minimum: 0,
          maximum: 60,
          default: 2,
          description:
            "How long an instance may reuse an API key's or a session user's grants (roles, rights, organisations, active flag); changes reach every instance within this. Session validity is checked on every call. 0: no cache.",
        }),
        auditRetentionDays: Type.Integer({
          minimum: 0,
          maximum: 36500,
          default: 90,
          description:
            'Audit records older than this many days are deleted by the periodic purge; 0 keeps them forever.',
        }),
        oidc: Type.Optional(
          Type.Object(
            {
              issuer: Type.String({
                minLength: 1,
                description: "The provider's issuer URL (the tokens' `iss`); its discovery document is read below it.",
              }),
              jwksUrl: Type.Optional(
                Type.String({
                  minLength: 1,
                  description: 'Where its signing keys are; absent: the `jwks_uri` of the discovery document.',
                }),
              ),
              audience: Type.Optional(
                Type.String({ description: 'The `aud` its tokens must carry; absent: not checked.' }),
              ),
              rolesClaim: Type.String({
                default: 'roles',
                description: 'Claim holding the roles: a dotted path into the claims, e.g. `realm_access.roles`.',
              }),
              rightsClaim: Type.String({ default: 'rights', description: 'Claim (dotted path) holding the rights.' }),
              organisationsClaim: Type.String({
                default: 'organisations',
                description: 'Claim (dotted path) holding the organisations.',
              }),
              loginNameClaim: Type.String({
                default: 'preferred_username',
                description: 'Claim (dotted path) holding the login name.',
              }),
              tenant: Type.String({
                default: 'default',
                description: "The tenant the provider's users belong to (unless `tenantClaim`).",
              }),
              tenantClaim: Type.Optional(
                Type.String({ description: "Claim (dotted path) naming each user's tenant, instead of `tenant`." }),
              ),
              algorithms: Type.Array(Type.String(), {
                default: ['RS256', 'ES256', 'EdDSA', 'PS256'],
                description: 'Signature algorithms accepted.',
              }),
              timeoutMs: Type.Integer({
                minimum: 100,
                maximum: 60000,
                default: 3000,
                description: 'Time limit of a fetch of the discovery document or the keys.',
              }),
              jwksCooldownMs: Type.Integer({
                minimum: 0,
                maximum: 3600000,
                default: 30000,
                description: 'After a fetch of the keys, an unknown key id triggers a new fetch only after this long.',
              }),
            },
            {
              additionalProperties: false,
              description: 'The OpenID Connect provider; required when `provider` is `oidc`.',
            },
          ),
        ),
        tokens: Type.Object(
          {
            issuer: Type.String({ default: 'svc-platform', description: "The `iss` of the platform's tokens." }),
            audience: Type.String({ default: 'svc-platform', description: "The `aud` of the platform's tokens." }),
            ttlSeconds: Type.Integer({
              minimum: 10,
              maximum: 86400,
              default: 300,
              description: 'Lifetime of a token.',
            }),
            rotationSeconds: Type.Integer({
              minimum: 60,
              default: 86400,
              description: 'How long one signing key signs before a new one takes over (the old one keeps verifying).',
            }),
            algorithm: Type.Union([Type.Literal('EdDSA'), Type.Literal('ES256')], {
              default: 'EdDSA',
              description: 'Signature algorithm of new signing keys.',
            }),
            clockSkewSeconds: Type.Integer({
              minimum: 0,
              maximum: 300,
              default: 30,
              description:
                "Leeway for the clocks of other machines when a token's times are checked (also the provider's tokens).",
            }),
          },
          {
            default: {},
            additionalProperties: false,
            description:
              "The platform's own access tokens (`POST /cxf/svc-core/authentication/token`, keys at `/cxf/svc-core/.well-known/jwks.json`).",
          },
        ),
        loginThrottle: Type.Object(
          {
            maxFailuresPerAccountAndAddress: Type.Optional(
              Type.Integer({
                minimum: 1,
                description:
                  "Failures of one account from one address per window. Default 5, at most the account's budget.",
              }),
            ),
            maxFailuresPerAccount: Type.Optional(
              Type.Integer({
                minimum: 1,
                description:
                  'Failures of one account from any address before its waits begin. Default 20 (or `maxFailuresPerUser`).',
              }),
            ),
            maxFailuresPerUser: Type.Optional(
              Type.Integer({ minimum: 1, description: 'Earlier name of `maxFailuresPerAccount`, still accepted.' }),
            ),
            maxFailuresPerAddress: Type.Integer({
              minimum: 1,
              default: 50,
              description: 'Failures from one address across all accounts per window.',
            }),
            windowSeconds: Type.Integer({
              minimum: 1,
              default: 300,
              description: 'The window of the per-window budgets above.',
            }),
            firstWaitSeconds: Type.Integer({
              minimum: 1,
              default: 30,
              description:
                "Past the account's budget each failure makes the next attempt wait: this first, doubling per failure up to `maxWaitSeconds`.",
            }),
            maxWaitSeconds: Type.Integer({ minimum: 1, default: 900, description: 'The longest of those waits.' }),
            failureResetSeconds: Type.Integer({
              minimum: 1,
              default: 43200,
              description:
                "An account's failures are forgotten after this long without one (at least `maxWaitSeconds`).",
            }),
          },
          {
            default: {},
            additionalProperties: false,
            description:
              'The credential throttle of every password check (logins, user checks, Basic on the engine), per (account, address), account and address; 429 beyond it, never a permanent lockout (docs/security.md).',
          },
        ),
        bootstrapAdminPassword: Type.Optional(
          Type.String({
            minLength: 1,
            description:
              'On an empty database the service creates tenant `default` with user `admin` (roles ADMIN, FORMS_ADMIN, NOTIFICATION_ADMIN, TENANT_ADMIN); this is its password. Absent: a generated one, printed once to the log.',
          }),
        ),
        platformAdmins: Type.Array(
          Type.Object(
            {
              tenant: Type.String({ minLength: 1, maxLength: 128, description: "The user's tenant." }),
              loginName: Type.String({ minLength: 1, maxLength: 256, description: "The user's login name." }),
            },
            { additionalProperties: false },
          ),
          {
            default: [],
            description:
              'Users (never API keys) who administer the tenants of the platform over HTTP: list, create, deactivate and reactivate them (`/cxf/svc-core/admin/tenants`). Empty: nobody can; tenants then come from this file only.',
          },
        ),
      },
      { default: {}, additionalProperties: false, description: 'Logins, sessions, tokens and the audit log.' },
    ),
    tenants: Type.Array(TenantConfigSchema, {
      default: [],
      description:
        'Tenants, users and API keys, applied at every start: what is missing is created, and of what exists only the fields the file states and that changed in the file since the start before are written, so changes made over HTTP or the CLI last (docs/operations.md, provisioning). Nothing is deleted, and a user or key deleted over HTTP is not brought back while its entry is unchanged.',
    }),
    events: Type.Object(
      {
        retentionHours: Type.Number({
          minimum: 0.01,
          maximum: 8760,
          default: 24,
          description: 'How long the change feed keeps events for subscribers that resume (`Last-Event-ID`).',
        }),
      },
      {
        default: {},
        additionalProperties: false,
        description: 'The change feed, which carries changes to live streams and between instances.',
      },
    ),
    storage: Type.Object(
      {
        streamHeartbeatSeconds: Type.Number({
          minimum: 0.05,
          maximum: 3600,
          default: 15,
          description:
            'A comment line on a store stream silent this long (none while events flow), so proxies and clients see the connection alive.',
        }),
        streamRetryMs: Type.Integer({
          minimum: 0,
          maximum: 600000,
          default: 3000,
          description: 'The reconnection delay a store stream asks EventSource clients for.',
        }),
        streamMaxQueuedBytes: Type.Integer({
          minimum: 1024,
          maximum: 1073741824,
          default: 1048576,
          description:
            'Bytes a store stream may have waiting for a slow client before it is closed (the client resumes).',
        }),
        exportPageSize: Type.Integer({
          minimum: 10,
          maximum: 10000,
          default: 500,
          description:
            'Items an export reads per statement; it holds about one page in memory and waits for the client between pages.',
        }),
      },
      {
        default: {},
        additionalProperties: false,
        description:
          'Storage: the live store streams (`/cxf/svc-core/storage/store/{storeId}/stream`) and the exports (`.../export`).',
      },
    ),
    notifications: Type.Object(
      {
        heartbeatSeconds: Type.Number({
          minimum: 0.05,
          maximum: 3600,
          default: 15,
          description:
            'A comment line on a stream silent this long (none while events flow), so proxies and clients see the connection alive.',
        }),
        retryMs: Type.Integer({
          minimum: 0,
          maximum: 600000,
          default: 3000,
          description: 'The reconnection delay the stream asks EventSource clients for.',
        }),
        maxQueuedBytes: Type.Integer({
          minimum: 1024,
          maximum: 1073741824,
          default: 1048576,
          description: 'Bytes a stream may have waiting for a slow client before it is closed (the client resumes).',
        }),
        listCacheSeconds: Type.Number({
          minimum: 0,
          maximum: 3600,
          default: 60,
          description:
            'How long a list answer may be reused while no notification of its tenant changes (any instance); 0: never.',
        }),
      },
      {
        default: {},
        additionalProperties: false,
        description: 'The notifications API and its live stream (`/cxf/svc-core/notification/stream`).',
      },
    ),
    flow: Type.Object(
      {
        instances: Type.Array(
          Type.Object(
            {
              id: Type.String({
                minLength: 1,
                maxLength: 128,
                pattern: '^[A-Za-z0-9._~-]+$',
                description: "The `{instanceId}` of the proxy's paths.",
              }),
              url: Type.String({
                pattern: '^https?://[^\\s]+$',
                description: "The instance's http(s) base URL; a call's `{targetPath}` is appended to its path.",
              }),
              auth: Type.Union(
                [
                  Type.Object(
                    { type: Type.Literal('none') },
                    { additionalProperties: false, description: 'No credentials.' },
                  ),
                  Type.Object(
                    {
                      type: Type.Literal('basic'),
                      username: Type.String({ description: 'User name of HTTP Basic.' }),
                      password: Type.String({ description: 'Password of HTTP Basic.' }),
                    },
                    { additionalProperties: false, description: 'HTTP Basic.' },
                  ),
                  Type.Object(
                    {
                      type: Type.Literal('bearer'),
                      token: Type.String({ minLength: 1, description: 'The token of `Authorization: Bearer`.' }),
                    },
                    { additionalProperties: false, description: 'A fixed bearer token.' },
                  ),
                ],
                {
                  default: { type: 'none' },
                  description:
                    "The credentials the proxy sends to the instance (the caller's own are never forwarded).",
                },
              ),
              timeoutSeconds: Type.Number({
                exclusiveMinimum: 0,
                maximum: 86400,
                default: 180,
                description:
                  "Time to the instance's response headers, and between body chunks: 504 (or a cut body) past it.",
              }),
            },
            { additionalProperties: false, description: 'A process engine instance.' },
          ),
          { default: [], description: 'The instances the proxy forwards to; a call to another id is 404.' },
        ),
        connectionsPerInstance: Type.Integer({
          minimum: 1,
          maximum: 4096,
          default: 128,
          description: 'Open connections to one instance at most.',
        }),
        audit: Type.Union([Type.Literal('off'), Type.Literal('errors'), Type.Literal('all')], {
          default: 'off',
          description:
            'Which proxied calls the audit log records: `errors` those answered 400 or more, `all` every one.',
        }),
      },
      {
        default: {},
        additionalProperties: false,
        description: 'The flow proxy, `/cxf/svc-flow/flow/{instanceId}{targetPath}` (docs/api/flow.md).',
      },
    ),
    metrics: Type.Object(
      {
        enabled: Type.Boolean({
          default: false,
          description:
            'Serve `GET /metrics` in the Prometheus text format (docs/operations.md, Metrics); off: the path answers 404.',
        }),
        token: Type.Optional(
          Type.String({
            minLength: 16,
            maxLength: 1024,
            description:
              'A scraper that sends `Authorization: Bearer <token>` with this token may read `/metrics` from any address (compared in constant time).',
          }),
        ),
        allow: Type.Array(
          Type.String({
            pattern: '^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$',
            description: 'An address or a CIDR range (`10.0.0.0/8`, `::1/128`).',
          }),
          {
            default: [],
            maxItems: 256,
            description:
              'Addresses that may read `/metrics` without the token: the TCP peer of the connection, never a forwarded header. Empty and no `token`: nobody may (403).',
          },
        ),
      },
      {
        default: {},
        additionalProperties: false,
        description: 'Prometheus metrics of this instance: requests, the process, the database, streams, logins.',
      },
    ),
    tracing: Type.Object(
      {
        otlpEndpoint: Type.Optional(
          Type.String({
            pattern: '^https?://',
            maxLength: 2048,
            description:
              'OpenTelemetry tracing (docs/operations.md, Tracing): the OTLP/HTTP collector base URL; spans go to `<url>/v1/traces`. Unset: no tracing, nothing of OpenTelemetry is loaded.',
          }),
        ),
        serviceName: Type.String({
          minLength: 1,
          maxLength: 256,
          default: 'svc-platform',
          description: 'The `service.name` of the spans.',
        }),
      },
      {
        default: {},
        additionalProperties: false,
        description: 'OpenTelemetry traces of requests and database statements, off unless `otlpEndpoint` is set.',
      },
    ),
    engine: Type.Object(
      {
        enabled: Type.Boolean({
          default: true,
          description: "Serve the process engine's face (`/engine/...`) in this process.",
        }),
        inactiveVersions: Type.Boolean({
          default: false,
          description: "The 'inactive versions' feature of the data management API.",
        }),
        listCacheSeconds: Type.Number({
          minimum: 0,
          maximum: 3600,
          default: 60,
          description:
            'How long a task or report list answer may be kept while no shared data changes (any instance); 0: never.',
        }),
        actionWebhooks: Type.Array(
          Type.Object(
            {
              name: Type.String({
                minLength: 1,
                maxLength: 128,
                description: "The name an action's handler calls it by.",
              }),
              url: Type.String({ pattern: '^https?://', description: 'The http(s) URL called.' }),
              timeoutSeconds: Type.Number({
                exclusiveMinimum: 0,
                maximum: 600,
                default: 30,
                description: 'Time limit of one call.',
              }),
            },
            { additionalProperties: false, description: 'A webhook.' },
          ),
          {
            default: [],
            description:
              'The webhooks that data management actions may call, by name: templates never carry URLs, so a data management user cannot make the engine call an address the operator did not list.',
          },
        ),
        users: Type.Array(
          Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 256, description: 'User name of HTTP Basic.' }),
              password: Type.Optional(
                Type.String({
                  minLength: 1,
                  maxLength: 1024,
                  description: 'Its password in plain text (hashed on load).',
                }),
              ),
              passwordHash: Type.Optional(
                Type.String({
                  minLength: 1,
                  maxLength: 1024,
                  description: 'Instead of `password`: its scrypt hash (`npm run cli -- hash-password`).',
                }),
              ),
              groups: Type.Array(Type.String({ maxLength: 256 }), {
                default: [],
                description: 'Groups; `DataManagement` admits the user to the data management API.',
              }),
              roles: Type.Array(Type.String({ maxLength: 256 }), {
                default: [],
                description: 'Roles, matched against those of shared data.',
              }),
            },
            { additionalProperties: false, description: 'A process-engine user.' },
          ),
          {
            default: [],
            description:
              "Process-engine users, who call the engine's face with HTTP Basic (`userType=processEngineUser`).",
          },
        ),
        // No schema defaults inside this union: they would leak into its other members (Value.Default fills each).
        processUserServer: Type.Union(
          [
            Type.Object(
              {
                type: Type.Literal('platform'),
                tenant: Type.Optional(
                  Type.String({ description: 'The tenant whose users they are. Default `default`.' }),
                ),
                url: Type.Optional(
                  Type.String({
                    pattern: '^https?://',
                    description:
                      "The platform's base URL when the engine runs apart from it; absent: the platform in this process.",
                  }),
                ),
                apiKey: Type.Optional(
                  Type.String({
                    minLength: 8,
                    description: 'With `url`: an API key of the tenant with role ADMIN or right PROCESS_USER_CHECK.',
                  }),
                ),
              },
              { additionalProperties: false, description: "The platform's users and their passwords." },
            ),
            Type.Object(
              {
                type: Type.Literal('oidc'),
                issuer: Type.String({ minLength: 1, description: "The provider's issuer URL." }),
                jwksUrl: Type.Optional(
                  Type.String({ minLength: 1, description: 'Its signing keys; absent: from its discovery document.' }),
                ),
                audience: Type.Optional(
                  Type.String({ description: 'The `aud` its tokens must carry; absent: not checked.' }),
                ),
                rolesClaim: Type.Optional(
                  Type.String({ description: 'Claim (dotted path) holding the roles. Default `roles`.' }),
                ),
                loginNameClaim: Type.Optional(
                  Type.String({
                    description: 'Claim (dotted path) holding the login name. Default `preferred_username`.',
                  }),
                ),
              },
              { additionalProperties: false, description: 'The tokens of an OpenID Connect provider.' },
            ),
            Type.Object(
              {
                type: Type.Literal('static'),
                users: Type.Array(
                  Type.Object(
                    {
                      name: Type.String({ minLength: 1, maxLength: 256, description: 'User name of HTTP Basic.' }),
                      password: Type.Optional(
                        Type.String({
                          minLength: 1,
                          maxLength: 1024,
                          description: 'Its password in plain text (hashed on load).',
                        }),
                      ),
                      passwordHash: Type.Optional(
                        Type.String({
                          minLength: 1,
                          maxLength: 1024,
                          description: 'Instead of `password`: its scrypt hash.',
                        }),
                      ),
                      roles: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { description: 'Its roles.' })),
                    },
                    { additionalProperties: false, description: 'A process user.' },
                  ),
                  { description: 'The process users.' },
                ),
              },
              { additionalProperties: false, description: 'A fixed list in this file.' },
            ),
          ],
          {
            default: { type: 'platform' },
            description:
              'Where process users (external frontend users, `userType=processUser`) and their roles come from.',
          },
        ),
      },
      {
        default: {},
        additionalProperties: false,
        description: "The process engine's face: REST (docs/api/engine.md) and data management.",
      },
    ),
    platform: Type.Object(
      {
        enabled: Type.Boolean({
          default: true,
          description: "Serve the platform's face (`/cxf/...`) in this process; off for an engine deployed apart.",
        }),
      },
      { default: {}, additionalProperties: false, description: "The platform's APIs." },
    ),
    console: Type.Object(
      {
        enabled: Type.Boolean({
          default: true,
          description: 'Serve the admin console at `/console/` (docs/console.md); off: no `/console/` routes.',
        }),
        dir: Type.String({
          default: '',
          description:
            "The built console's folder (its index.html and assets/); empty: the project's `console/dist`, built by `npm run build`. Without a build, `/console/` answers 503.",
        }),
      },
      { default: {}, additionalProperties: false, description: 'The admin console, a web app served by the service.' },
    ),
    maintenance: Type.Boolean({
      default: false,
      description:
        'Notification endpoints answer 503 in every tenant until an ADMIN switches maintenance off at run time.',
    }),
  },
  { additionalProperties: false },
);

export type AppConfig = Static<typeof ConfigSchema>;
export type TenantConfig = Static<typeof TenantConfigSchema>;
export type UserConfig = Static<typeof UserConfigSchema>;
export type ApiKeyConfig = Static<typeof ApiKeyConfigSchema>;
