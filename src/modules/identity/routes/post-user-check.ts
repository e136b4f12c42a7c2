import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { requireRoleOrRight } from '../../../platform/auth/auth-plugin.js';
import { ERRORS } from '../../../platform/errors/error-catalogue.js';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import type { UserCheckService } from '../user-check.service.js';

const Body = Type.Union(
  [
    Type.Object(
      {
        username: Type.String({ minLength: 1, maxLength: 256 }),
        password: Type.String({ minLength: 1, maxLength: 1024 }),
      },
      { additionalProperties: false },
    ),
    Type.Object({ token: Type.String({ minLength: 1, maxLength: 16384 }) }, { additionalProperties: false }),
  ],
  { examples: [{ username: 'alice', password: 'alice-secret-1' }] },
);
const Checked = Type.Object({
  loginName: Type.String(),
  roles: Type.Array(Type.String()),
  organisations: Type.Array(Type.String()),
  rights: Type.Array(Type.String()),
});

/**
 * `POST /cxf/svc-core/authentication/check`: a user of the caller's tenant by password or access token, answered with
 * its current grants (401 for wrong credentials). For a process engine running apart, whose Process User Server is
 * this platform; the caller needs role ADMIN or right PROCESS_USER_CHECK.
 */
export function postUserCheckRoute(app: FastifyInstance, userCheck: UserCheckService): void {
  app.post<{ Body: Static<typeof Body> }>(
    '/authentication/check',
    {
      onRequest: requireRoleOrRight('ADMIN', 'PROCESS_USER_CHECK'),
      schema: {
        tags: ['authentication'],
        summary:
          "Checks a user's password or access token; answers its current grants (role ADMIN or right PROCESS_USER_CHECK)",
        body: Body,
        response: {
          200: answer(Checked, 'The user and its current grants', {
            loginName: 'alice',
            roles: ['USER'],
            organisations: ['org1'],
            rights: [],
          }),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const tenant = request.principal.tenant;
      const body = request.body;
      // The caller relays its own clients' credentials and throttles their addresses itself; here the account's
      // budget applies, not the relay's address (one client of the relay could use it up for all the others).
      const user =
        'token' in body
          ? await userCheck.byToken(tenant, body.token)
          : await userCheck.byPassword(tenant, body.username, body.password, undefined);
      if (!user) throw ERRORS.authenticationFailed();
      return user;
    },
  );
}
