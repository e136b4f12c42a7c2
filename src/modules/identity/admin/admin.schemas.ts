import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { requestMeta } from '../../../platform/http/request-meta.js';
import { QueryInteger } from '../../../platform/http/schemas.js';
import type { AdminApiKey, AdminTenant, AdminUser } from './admin.repository.js';
import type { AdminCaller, SessionInfo } from './admin.service.js';
import { ADMIN_PASSWORD_MIN } from './admin.service.js';

// The shapes of /cxf/svc-core/admin. Limits are the config file's (config.schema.ts), so what one source accepts the
// other accepts too. Instants are ISO 8601 strings, as in the audit log.

const Name = (max: number, description: string, example?: string) =>
  Type.String({ minLength: 1, maxLength: max, description, ...(example ? { examples: [example] } : {}) });
const List = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 1000, uniqueItems: true, description });

export const LoginNameParams = Type.Object({
  loginName: Name(256, 'The login name of a user of your tenant', 'carol'),
});
export const ApiKeyParams = Type.Object({ name: Name(256, 'The name of an API key of your tenant', 'nightly-export') });
export const TenantParams = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 128,
    pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
    description: "A tenant's name",
    examples: ['globex'],
  }),
});
export const SessionParams = Type.Object({
  loginName: Name(256, 'The login name of a user of your tenant', 'carol'),
  id: Type.String({
    pattern: '^[0-9a-f]{64}$',
    description: 'A session id as the session list answers it',
    examples: ['9f2c4e8a1b7d3f60c5e4a2b9d8c7f6e5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9'],
  }),
});

const UserFieldsSchema = {
  email: Type.Optional(Type.String({ maxLength: 320 })),
  firstName: Type.Optional(Type.String({ maxLength: 256 })),
  lastName: Type.Optional(Type.String({ maxLength: 256 })),
  organisations: Type.Optional(List('Organisations the user belongs to')),
  inactiveOrganisations: Type.Optional(List('Organisations that do not count for access now')),
  roles: Type.Optional(List('Roles, e.g. ADMIN, FORMS_ADMIN, NOTIFICATION_ADMIN, TENANT_ADMIN')),
  rights: Type.Optional(List('Rights, e.g. PROCESS_USER_CHECK')),
  customData: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Any JSON object' })),
};

const Password = Type.String({ minLength: ADMIN_PASSWORD_MIN, maxLength: 1024 });

export const NewUserBody = Type.Object(
  {
    loginName: Name(256, 'The name the user logs in with'),
    password: Type.Optional(Password),
    ...UserFieldsSchema,
    active: Type.Optional(Type.Boolean({ default: true })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        loginName: 'carol',
        password: 'a long secret',
        email: 'carol@example.com',
        firstName: 'Carol',
        organisations: ['sales'],
        roles: ['FORMS_ADMIN'],
      },
    ],
  },
);

export const UserUpdateBody = Type.Object(
  {
    ...UserFieldsSchema,
    active: Type.Optional(Type.Boolean({ description: 'false: the user cannot log in and its sessions end now' })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ roles: ['FORMS_ADMIN', 'TENANT_ADMIN'], organisations: ['sales', 'support'] }, { active: false }],
  },
);

export const PasswordBody = Type.Object(
  { password: Password },
  { additionalProperties: false, examples: [{ password: 'another long secret' }] },
);

export const UserSchema = Type.Object(
  {
    loginName: Type.String(),
    email: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    organisations: Type.Array(Type.String()),
    inactiveOrganisations: Type.Array(Type.String()),
    roles: Type.Array(Type.String()),
    rights: Type.Array(Type.String()),
    customData: Type.Record(Type.String(), Type.Unknown()),
    active: Type.Boolean(),
    hasPassword: Type.Boolean({ description: 'Whether the user has a password (it is never answered)' }),
    createdOn: Type.String({ format: 'date-time' }),
    updatedOn: Type.String({ format: 'date-time' }),
  },
  {
    description: 'A user of your tenant',
    examples: [
      {
        loginName: 'carol',
        email: 'carol@example.com',
        firstName: 'Carol',
        lastName: '',
        organisations: ['sales'],
        inactiveOrganisations: [],
        roles: ['FORMS_ADMIN'],
        rights: [],
        customData: {},
        active: true,
        hasPassword: true,
        createdOn: '2026-12-01T09:00:00.000Z',
        updatedOn: '2026-12-01T09:00:00.000Z',
      },
    ],
  },
);

export const UserPageSchema = Type.Object({ total: Type.Integer(), items: Type.Array(UserSchema) });

export const SessionsEndedSchema = Type.Object(
  { sessionsEnded: Type.Integer({ description: 'Sessions ended, on every instance' }) },
  { examples: [{ sessionsEnded: 2 }] },
);

export const SessionSchema = Type.Object({
  id: Type.String({ description: 'The session id as the server stores it (a hash: never the cookie value)' }),
  createdOn: Type.String({ format: 'date-time' }),
  expiresOn: Type.String({ format: 'date-time' }),
  remoteAddress: Type.String(),
  userAgent: Type.String(),
});

const ExpiresOn = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
  description: 'When the key stops working (ISO 8601 date-time); null: never',
});

export const NewApiKeyBody = Type.Object(
  {
    name: Name(256, "The key's name (its loginName in the principal)"),
    organisations: Type.Optional(List("Organisations of the key's caller")),
    roles: Type.Optional(List("Roles of the key's caller")),
    rights: Type.Optional(List("Rights of the key's caller")),
    expiresOn: Type.Optional(ExpiresOn),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'nightly-export', roles: ['READER'], expiresOn: '2027-06-30T00:00:00Z' }],
  },
);

export const ExpiryBody = Type.Object(
  { expiresOn: ExpiresOn },
  { additionalProperties: false, examples: [{ expiresOn: '2027-01-01T00:00:00Z' }, { expiresOn: null }] },
);

export const ApiKeySchema = Type.Object(
  {
    name: Type.String(),
    organisations: Type.Array(Type.String()),
    roles: Type.Array(Type.String()),
    rights: Type.Array(Type.String()),
    expiresOn: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    createdOn: Type.String({ format: 'date-time' }),
    updatedOn: Type.String({ format: 'date-time' }),
  },
  { description: 'An API key of your tenant, without its secret' },
);

export const CreatedApiKeySchema = Type.Object(
  {
    key: Type.String({ description: 'The key to send in X-APIKey; answered only now, only its hash is stored' }),
    apiKey: ApiKeySchema,
  },
  {
    examples: [
      {
        key: 'sk-3q2Vn8m0c1yX0bqgQ0p5Wf7B6o2mI3dY4sKf9hL1tQe',
        apiKey: {
          name: 'nightly-export',
          organisations: [],
          roles: ['READER'],
          rights: [],
          expiresOn: '2027-06-30T00:00:00.000Z',
          createdOn: '2026-12-01T09:00:00.000Z',
          updatedOn: '2026-12-01T09:00:00.000Z',
        },
      },
    ],
  },
);

export const TenantSchema = Type.Object(
  { name: Type.String(), active: Type.Boolean(), createdOn: Type.String({ format: 'date-time' }) },
  { examples: [{ name: 'globex', active: true, createdOn: '2026-12-01T09:00:00.000Z' }] },
);

export const NewTenantBody = Type.Object(
  {
    name: TenantParams.properties.name,
    admin: Type.Optional(
      Type.Object(
        { loginName: Name(256, 'Its login name'), password: Password },
        { additionalProperties: false, description: 'A first user of the tenant, with role TENANT_ADMIN' },
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'globex', admin: { loginName: 'globex-admin', password: 'a long secret' } }],
  },
);

export const TenantUpdateBody = Type.Object(
  {
    active: Type.Boolean({
      description: "false: the tenant's users and keys stop authenticating and its sessions end",
    }),
  },
  { additionalProperties: false, examples: [{ active: false }] },
);

export const PageQuery = Type.Object({
  start: QueryInteger({ default: 0 }),
  limit: QueryInteger({ minimum: 1, maximum: 1000, default: 100 }),
});

export const UserListQuery = Type.Object({
  search: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'Text found, ignoring case, in the login name, e-mail address, first or last name',
    }),
  ),
  start: QueryInteger({ default: 0 }),
  limit: QueryInteger({ minimum: 1, maximum: 1000, default: 100 }),
});

const iso = (ms: number) => new Date(ms).toISOString();

export function userOut(u: AdminUser) {
  const { id: _id, createdOn, updatedOn, ...rest } = u;
  return { ...rest, createdOn: iso(createdOn), updatedOn: iso(updatedOn) };
}

export function apiKeyOut(k: AdminApiKey) {
  return {
    name: k.name,
    organisations: k.organisations,
    roles: k.roles,
    rights: k.rights,
    expiresOn: k.expiresOn === null ? null : iso(k.expiresOn),
    createdOn: iso(k.createdOn),
    updatedOn: iso(k.updatedOn),
  };
}

export const sessionOut = (s: SessionInfo) => ({ ...s, createdOn: iso(s.createdOn), expiresOn: iso(s.expiresOn) });
export const tenantOut = (t: AdminTenant) => ({ name: t.name, active: t.active, createdOn: iso(t.createdOn) });

/** The caller as administration sees it: its own tenant, its name for the audit log, its own login if a user. */
export function callerOf(request: FastifyRequest): AdminCaller {
  const p = request.principal;
  const meta = requestMeta(request);
  return {
    tenantId: p.tenantId,
    tenant: p.tenant,
    actor: p.loginName,
    selfLogin: p.kind === 'apiKey' ? undefined : p.loginName,
    remoteAddress: meta.ip,
    userAgent: meta.userAgent,
  };
}
