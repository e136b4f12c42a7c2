import { Type } from '@sinclair/typebox';

export const LoginBodySchema = Type.Object(
  {
    tenantname: Type.String({ minLength: 1, maxLength: 128 }),
    username: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: true },
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
