import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS } from '../../platform/errors/error-catalogue.js';
import type { EngineUsers } from './engine-users.js';
import type { ProcessUserServer } from './process-user-server.js';

export type UserType = 'processEngineUser' | 'processUser';

/** Who calls the REST interface, as the credential rules of the spec's table established it. */
export interface RestCaller {
  name: string;
  userType: UserType;
  roles: string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    restCaller: RestCaller;
  }
}

/**
 * `Authorization: Basic ...` as name and password; undefined when absent or malformed. Text no user can have (a NUL,
 * an unpaired surrogate) never gets here: the input-integrity hook answers 400 for it on every route.
 */
export function basicCredentials(header: string | undefined): { name: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  return { name: text.slice(0, colon), password: text.slice(colon + 1) };
}

/**
 * The credential rules of /engine/rest (interface-spec, Process-engine REST interface; decisions sections 10 and 11),
 * enforced by `userType`: process-engine users by Basic; process users by Basic against the Process User Server, or by
 * `X-AUTH-TOKEN: Bearer <token>` where that server supports tokens. Credentials are checked only where `userType` says:
 * no or wrong credentials there answer 401 with the error object, even when they would verify as the other user type
 * (an answer must not reveal that). Every password check passes the credential throttle (429 with Retry-After).
 */
export function restAuth(engineUsers: EngineUsers, server: ProcessUserServer) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const userType = (request.query as { userType?: unknown }).userType;
    if (userType === 'processEngineUser') {
      const basic = basicCredentials(request.headers.authorization);
      const user = basic && (await engineUsers.check(basic.name, basic.password, request.ip));
      if (!user) throw ERRORS.authenticationFailed();
      request.restCaller = { name: user.name, userType, roles: user.roles };
      return;
    }
    if (userType === 'processUser') {
      const tokenHeader = request.headers['x-auth-token'];
      let user;
      if (tokenHeader !== undefined) {
        const m = /^Bearer\s+(\S+)\s*$/i.exec(String(tokenHeader));
        if (!m || !server.supportsTokens) throw ERRORS.authenticationFailed();
        user = await server.byToken(m[1]);
      } else {
        const basic = basicCredentials(request.headers.authorization);
        user = basic && (await server.byPassword(basic.name, basic.password, request.ip));
      }
      if (!user) throw ERRORS.authenticationFailed();
      request.restCaller = { name: user.name, userType, roles: user.roles };
      return;
    }
    throw ERRORS.authenticationFailed();
  };
}
