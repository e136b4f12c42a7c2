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

/**
 * Resolves the caller from X-APIKey, Authorization: Bearer or the session cookie, in that order. An API key whose
 * lookup is cached answers at once, without a promise; a refused credential throws (or rejects) the error.
 */
export function resolvePrincipal(
  request: FastifyRequest,
  resolver: CredentialResolver,
): Principal | Promise<Principal> {
  const apiKey = request.headers['x-apikey'];
  if (apiKey === undefined) return resolveOtherCredential(request, resolver);
  if (typeof apiKey !== 'string' || apiKey.length > 1024) throw ERRORS.authenticationFailed();
  const found = resolver.fromApiKey(apiKey, requestMeta(request));
  return found instanceof Promise ? found.then(known) : known(found);
}

function known(principal: Principal | null): Principal {
  if (!principal) throw ERRORS.authenticationFailed();
  return principal;
}

async function resolveOtherCredential(request: FastifyRequest, resolver: CredentialResolver): Promise<Principal> {
  const meta = requestMeta(request);
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
  // A callback hook, not an async one: a cached API key passes without a promise (machine clients call often).
  app.addHook('onRequest', (request, _reply, done) => {
    // `routeOptions` is made anew on every read.
    const route = request.routeOptions;
    if (route.config?.public || !route.url) return done();
    let found: Principal | Promise<Principal>;
    try {
      found = resolvePrincipal(request, resolver);
    } catch (err) {
      return done(err as Error);
    }
    if (!(found instanceof Promise)) {
      request.principal = found;
      return done();
    }
    found.then((principal) => {
      request.principal = principal;
      done();
    }, done);
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
