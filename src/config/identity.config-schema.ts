// Identity: users, API keys and tenants as the configuration file provisions them, and the login, session and
// token settings.
import { Type } from '@sinclair/typebox';
import { StringList } from './string-list.js';

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

export const IdentityConfigSchema = Type.Object(
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
      description: 'Audit records older than this many days are deleted by the periodic purge; 0 keeps them forever.',
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
          description: "An account's failures are forgotten after this long without one (at least `maxWaitSeconds`).",
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
);
