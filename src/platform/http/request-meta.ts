import type { FastifyRequest } from 'fastify';
import type { RequestMeta } from '../auth/credentials.js';

/** Who is calling from where, as the audit trail records it: the client address and its user agent. */
export function requestMeta(request: FastifyRequest): RequestMeta {
  return { ip: request.ip, userAgent: String(request.headers['user-agent'] ?? '') };
}
