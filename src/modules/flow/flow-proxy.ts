import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import type { AuditTrail } from '../../platform/audit/audit-trail.js';
import { requestMeta } from '../../platform/http/request-meta.js';
import { FLOW_ERRORS } from './flow.errors.js';
import { parseFlowTarget, upstreamPath } from './flow-target.js';
import type { FlowInstances } from './flow-instances.js';

/** Headers that describe one connection, not the message (RFC 9110 section 7.6.1), and never travel on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** The caller's credentials: they open this platform, never the instance (decisions.md section 8). */
const CALLER_CREDENTIALS = new Set(['cookie', 'x-apikey', 'x-csrf-token', 'authorization']);
/** Set by the proxy itself. */
const OWN = new Set(['host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-svc-user']);

export type AuditLevel = 'off' | 'errors' | 'all';

/** Forwards one call to its instance and streams the answer back, both bodies unbuffered. */
export class FlowProxy {
  constructor(
    private readonly instances: FlowInstances,
    private readonly audit: AuditTrail,
    private readonly auditLevel: AuditLevel,
  ) {}

  async forward(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const parsed = parseFlowTarget(request.raw.url ?? '');
    if (!parsed.ok) throw FLOW_ERRORS.invalidTarget(parsed.reason);
    const { target } = parsed;
    const instance = this.instances.get(target.instanceId);
    if (!instance) throw FLOW_ERRORS.instanceNotFound(target.instanceId);
    const path = upstreamPath(instance.base, target);
    if (!path) throw FLOW_ERRORS.invalidTarget('the target leaves the instance URL');

    const abort = new AbortController();
    const res = reply.raw;
    // A caller that hangs up takes the upstream call with it, at once. (`writableEnded`, not `writableFinished`:
    // once the answer is complete, bytes still in the socket are no abort.)
    const onClose = () => {
      if (!res.writableEnded) abort.abort();
    };
    res.on('close', onClose);
    const hasBody = request.headers['content-length'] !== undefined ? request.headers['content-length'] !== '0' : request.headers['transfer-encoding'] !== undefined;
    let status = 0;
    try {
      // undici writes the upstream body straight into the caller's response, with backpressure both ways.
      await instance.pool.stream(
        {
          path,
          method: request.method as Dispatcher.HttpMethod,
          headers: this.forwardHeaders(request, instance.authorization),
          body: hasBody ? request.raw : undefined,
          signal: abort.signal,
        },
        ({ statusCode, headers }) => {
          status = statusCode;
          reply.hijack();
          res.statusCode = statusCode;
          for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
          return res;
        },
      );
      this.record(request, target.instanceId, path, status);
    } catch (err) {
      if (status !== 0 || abort.signal.aborted) {
        // The upstream broke off mid-body, or the caller left: the answer is cut, never completed wrongly.
        if (status === 0) reply.hijack();
        res.destroy();
        return void this.record(request, target.instanceId, path, abort.signal.aborted ? 499 : 502);
      }
      const timedOut = err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.ConnectTimeoutError || err instanceof undiciErrors.BodyTimeoutError;
      this.record(request, target.instanceId, path, timedOut ? 504 : 502);
      throw timedOut ? FLOW_ERRORS.upstreamTimeout(instance.id, instance.timeoutSeconds) : FLOW_ERRORS.upstreamUnreachable(instance.id);
    } finally {
      res.off('close', onClose);
    }
  }

  private forwardHeaders(request: FastifyRequest, authorization: string | undefined): Record<string, string | string[]> {
    const headers: IncomingHttpHeaders = request.headers;
    const named = new Set(String(headers.connection ?? '').toLowerCase().split(',').map((h) => h.trim()).filter(Boolean));
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined || HOP_BY_HOP.has(name) || named.has(name) || CALLER_CREDENTIALS.has(name) || OWN.has(name)) continue;
      out[name] = value;
    }
    if (authorization) out.authorization = authorization;
    out['x-forwarded-for'] = request.ip;
    out['x-forwarded-proto'] = request.protocol;
    if (headers.host) out['x-forwarded-host'] = headers.host;
    out['x-svc-user'] = headerSafe(request.principal.loginName);
    return out;
  }

  private record(request: FastifyRequest, instanceId: string, path: string, status: number): void {
    if (this.auditLevel === 'off' || (this.auditLevel === 'errors' && status < 400)) return;
    const meta = requestMeta(request);
    void this.audit.record({
      tenantId: request.principal.tenantId,
      actor: request.principal.loginName,
      action: 'flow.proxy',
      outcome: status < 400 ? 'success' : 'failure',
      remoteAddress: meta.ip,
      userAgent: meta.userAgent,
      detail: { instance: instanceId, method: request.method, path: path.split('?')[0].slice(0, 1000), status },
    });
  }
}

/** A header value as sent: printable ASCII as it is, anything else percent-encoded. */
function headerSafe(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value);
}
