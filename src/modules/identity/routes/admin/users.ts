import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../../platform/http/schemas.js';
import { toLikePattern, containsPattern } from '../../../../platform/query/values.js';
import type { AdminService } from '../../admin/admin.service.js';
import {
  LoginNameParams,
  NewUserBody,
  PasswordBody,
  SessionsEndedSchema,
  UserListQuery,
  UserPageSchema,
  UserSchema,
  UserUpdateBody,
  callerOf,
  userOut,
} from '../../admin/admin.schemas.js';
import { ADMIN_TAG, requireTenantAdmin } from './admin-guard.js';

type Params = { Params: Static<typeof LoginNameParams> };

/** Users of the caller's tenant: list, read, create, change, delete, set a password, unlock. */
export function adminUserRoutes(app: FastifyInstance, admin: AdminService): void {
  const base = { onRequest: requireTenantAdmin };

  app.get<{ Querystring: Static<typeof UserListQuery> }>(
    '/admin/users',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: 'Lists the users of your tenant, by login name, with search and paging (TENANT_ADMIN)',
        querystring: UserListQuery,
        response: {
          200: answer(UserPageSchema, 'A page of the users, by login name', {
            total: 1,
            items: [UserSchema.examples[0]],
          }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => {
      const { search, start, limit } = request.query;
      const pattern =
        search === undefined
          ? undefined
          : containsPattern(toLikePattern(search, { literal: true }, 'querystring.search'));
      const page = await admin.listUsers(callerOf(request), pattern, start, limit);
      return { total: page.total, items: page.items.map(userOut) };
    },
  );

  app.post<{ Body: Static<typeof NewUserBody> }>(
    '/admin/users',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: 'Creates a user in your tenant (TENANT_ADMIN); 409 when the login name is taken',
        description: 'The password, if given, is stored as an scrypt hash and never answered.',
        body: NewUserBody,
        response: {
          201: answer(UserSchema, 'The user is created', UserSchema.examples[0]),
          ...errorResponses(400, 401, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const user = await admin.createUser(callerOf(request), request.body);
      reply.code(201);
      return userOut(user);
    },
  );

  app.get<Params>(
    '/admin/users/:loginName',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: 'A user of your tenant (TENANT_ADMIN)',
        params: LoginNameParams,
        response: { 200: UserSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => userOut(await admin.getUser(callerOf(request), request.params.loginName)),
  );

  app.patch<Params & { Body: Static<typeof UserUpdateBody> }>(
    '/admin/users/:loginName',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: "Changes a user's names, e-mail, organisations, roles, rights or active flag (TENANT_ADMIN)",
        description:
          'Fields left out keep their value; lists are replaced whole. `active: false` deactivates the user and ends its sessions on every instance; you cannot deactivate yourself (409).',
        params: LoginNameParams,
        body: UserUpdateBody,
        response: { 200: UserSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => userOut(await admin.updateUser(callerOf(request), request.params.loginName, request.body)),
  );

  app.delete<Params>(
    '/admin/users/:loginName',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: 'Deletes a user of your tenant and ends its sessions (TENANT_ADMIN); not yourself (409)',
        params: LoginNameParams,
        response: {
          200: answer(SessionsEndedSchema, 'The user is deleted; its sessions ended', { sessionsEnded: 1 }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => admin.deleteUser(callerOf(request), request.params.loginName),
  );

  app.put<Params & { Body: Static<typeof PasswordBody> }>(
    '/admin/users/:loginName/password',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: "Sets a user's password and ends all its sessions (TENANT_ADMIN)",
        description: 'At least 8 characters. Stored as an scrypt hash; never logged nor answered.',
        params: LoginNameParams,
        body: PasswordBody,
        response: {
          200: answer(SessionsEndedSchema, 'The password is set; the sessions of the user ended', { sessionsEnded: 0 }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => admin.setPassword(callerOf(request), request.params.loginName, request.body.password),
  );

  app.post<Params>(
    '/admin/users/:loginName/unlock',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: "Lifts the login throttle's hold on a user's account, from every address (TENANT_ADMIN)",
        description:
          "The account's failed attempts are forgotten, so its next login is allowed at once. Limits on an address across accounts stay.",
        params: LoginNameParams,
        response: {
          200: Type.Object(
            { wasHeld: Type.Boolean({ description: 'Whether the throttle counted failures of the account' }) },
            { description: 'The account is free to log in', examples: [{ wasHeld: true }] },
          ),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => admin.unlock(callerOf(request), request.params.loginName),
  );
}
