// What one client may hold open: connections per address (every socket costs a file descriptor, and a few thousand
// idle ones made every other request fail), and long-lived answers (live streams) per address and per caller.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { ERRORS } from '../errors/error-catalogue.js';
import { rawErrorResponse } from './transport.js';

/** What a refused client is told to wait: connections and streams free up as others close. */
const RETRY_AFTER_SECONDS = 5;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers with a stream that stays open (Server-Sent Events): it counts against limits.streamsPerCaller. */
    longLived?: boolean;
  }
}

/** Counts per key; a key leaves the map at 0, so the map holds only keys with something open. */
class OpenCounts {
  private readonly counts = new Map<string, number>();
  /** Counts one more for `key` unless it holds `max` already; true when counted. */
  take(key: string, max: number): boolean {
    const n = this.counts.get(key) ?? 0;
    if (n >= max) return false;
    this.counts.set(key, n + 1);
    return true;
  }
  release(key: string): void {
    const n = (this.counts.get(key) ?? 1) - 1;
    if (n <= 0) this.counts.delete(key);
    else this.counts.set(key, n);
  }
}

/**
 * At most `max` open connections per remote address of the socket (behind a trusted proxy that is the proxy's: its
 * operator raises the limit or sets 0). One more is answered 429 with the error object and closed at once, before
 * Node reads a request from it. 0: no limit.
 */
export function limitConnectionsPerAddress(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new OpenCounts();
  const refusal = rawErrorResponse(ERRORS.tooManyConnections(max, RETRY_AFTER_SECONDS));
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return; // closed already
    if (!open.take(address, max)) {
      socket.end(refusal, () => socket.destroy());
      return;
    }
    socket.once('close', () => open.release(address));
  });
}

/** Who holds a stream: the caller when the route has one (a principal), and the address in any case. */
function holders(request: FastifyRequest): string[] {
  const principal = (
    request as FastifyRequest & { principal?: { kind: string; tenantId: string; loginName: string } | null }
  ).principal;
  const keys = [`address ${request.ip}`];
  if (principal) keys.push(`${principal.kind} ${principal.tenantId} ${principal.loginName}`);
  return keys;
}

/**
 * At most `max` open long-lived answers (routes with `config.longLived`) per address and per caller; one more is 429.
 * Counted from the route's handler on (after authentication: an unknown caller never holds a slot) until the
 * connection closes. 0: no limit. The hook is added to those routes alone (onRoute sees every route registered after
 * this call), so no other request pays a hook and a `routeOptions` object for it.
 */
export function limitLongLivedAnswers(app: FastifyInstance, max: number): void {
  if (max <= 0) return;
  const open = new OpenCounts();
  const limit: preHandlerHookHandler = (request, reply, done) => {
    const keys = holders(request);
    const taken: string[] = [];
    for (const key of keys) {
      if (!open.take(key, max)) {
        for (const k of taken) open.release(k);
        return done(ERRORS.tooManyStreams(max, RETRY_AFTER_SECONDS));
      }
      taken.push(key);
    }
    reply.raw.once('close', () => {
      for (const k of taken) open.release(k);
    });
    done();
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.longLived) return;
    const own = route.preHandler;
    route.preHandler = own === undefined ? [limit] : [limit, ...(Array.isArray(own) ? own : [own])];
  });
}
