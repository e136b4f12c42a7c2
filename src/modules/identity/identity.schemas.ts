import { Type } from '@sinclair/typebox';

export const LoginBodySchema = Type.Object(
  {
    tenantname: Type.String({ minLength: 1, maxLength: 128 }),
    username: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: true, examples: [{ tenantname: 'acme', username: 'alice', password: 'alice-secret-1' }] },
);

export const SessionRecordSchema = Type.Object(
  {
    loginName: Type.String(),
    email: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    organisations: Type.Array(Type.String()),
    inactiveOrganisations: Type.Array(Type.String()),
    roles: Type.Array(Type.String()),
    rights: Type.Array(Type.String()),
    principals: Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'X-Csrf-Token: [token] and svc.core.UserPrincipal: [loginName]',
    }),
    customData: Type.Record(Type.String(), Type.Unknown()),
    expirationDate: Type.Integer({ description: 'Session expiry, epoch milliseconds' }),
  },
  { description: 'The session record' },
);

/** A session record as answered, for the document's examples. */
export const SESSION_EXAMPLE = {
  loginName: 'alice',
  email: 'alice@example.com',
  firstName: 'Alice',
  lastName: 'Example',
  organisations: ['org1'],
  inactiveOrganisations: [],
  roles: ['USER'],
  rights: [],
  principals: { 'X-Csrf-Token': ['3f9c0d1e6b2a4c8d9e7f1a2b3c4d5e6f'], 'svc.core.UserPrincipal': ['alice'] },
  customData: {},
  expirationDate: 1795763074357,
};
