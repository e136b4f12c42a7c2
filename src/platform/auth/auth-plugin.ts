import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { ERRORS } from '../errors/error-catalogue.js';
import type { AppError } from '../errors/app-error.js';
import type { CredentialResolver } from './credentials.js';
import { hasRoleOrRight, type Principal } from './principal.js';
import { safeEqual } from '../crypto/secrets.js';
import { requestMeta } from '../http/request-meta.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every non-public route; deny by default. */
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Routes that authenticate themselves (login, session check) or need none. */
    public?: boolean;
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** Resolves the caller from X-APIKey, Authorization: Bearer or the session cookie, in that order. */
export async function resolvePrincipal(request: FastifyRequest, resolver: CredentialResolver): Promise<Principal> {
  const meta = requestMeta(request);
  const apiKey = request.headers['x-apikey'];
  if (apiKey !== undefined) {
    const principal =
      typeof apiKey === 'string' && apiKey.length <= 1024 ? await resolver.fromApiKey(apiKey, meta) : null;
    if (!principal) throw ERRORS.authenticationFailed();
    return principal;
  }
  const authorization = request.headers.authorization;
  if (authorization !== undefined && /^bearer /i.test(authorization)) {
    const token = authorization.slice(7).trim();
    const principal = resolver.fromBearer && token.length <= 16384 ? await resolver.fromBearer(token, meta) : null;
    if (!principal) throw ERRORS.authenticationFailed();
    return principal;
  }
  const sessionId = request.cookies?.[resolver.sessionCookie];
  if (sessionId) {
    const principal = sessionId.length <= 256 ? await resolver.fromSession(sessionId, meta) : null;
    if (!principal) throw ERRORS.authenticationFailed();
    if (UNSAFE_METHODS.has(request.method)) {
      const sent = request.headers['x-csrf-token'];
      if (typeof sent !== 'string' || !principal.csrfToken || !safeEqual(sent, principal.csrfToken)) {
        throw ERRORS.csrfTokenInvalid();
      }
    }
    return principal;
  }
  throw ERRORS.authenticationFailed();
}

/**
 * Registers the deny-by-default hook in the scope it is registered in (with fastify-plugin: the caller's scope).
 * Every route of that scope needs a credential unless its config says `public: true`.
 */
export const authPlugin = fp<{ resolver: CredentialResolver }>(async (app: FastifyInstance, { resolver }) => {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.routeOptions.config?.public || !request.routeOptions.url) return;
    request.principal = await resolvePrincipal(request, resolver);
  });
});

/**
 * Guard: the principal must hold the role or one of the rights.
 * `denied` lets a module pick its answer (the forms API answers 401, storage and notifications 403).
 */
export function requireRoleOrRight(
  role: string,
  rights: string | string[],
  denied: () => AppError = () =>
    ERRORS.forbidden(
      [rights].flat().length
        ? `Requires role ${role} or right ${[rights].flat().join(' or ')}`
        : `Requires role ${role}`,
    ),
): preHandlerAsyncHookHandler {
  const list = [rights].flat();
  return async function guard(request: FastifyRequest, _reply: FastifyReply) {
    if (!hasRoleOrRight(request.principal, role, ...list)) throw denied();
  };
}
