import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import type { AppError } from '../../platform/errors/app-error.js';
import type { AuditTrail } from '../../platform/audit/audit-trail.js';
import { requestMeta } from '../../platform/http/request-meta.js';
import { FLOW_ERRORS } from './flow.errors.js';
import { parseFlowTarget, upstreamPath } from './flow-target.js';
import type { FlowInstance, FlowInstances } from './flow-instances.js';
import { forwardedHeader } from './forwarded-header.js';
import { errorCode, type FlowHealth } from './flow-health.js';
import type { OwnCookies } from './upstream-cookies.js';
import type { Telemetry } from '../../platform/metrics/index.js';

/** Headers that describe one connection, not the message (RFC 9110 section 7.6.1), and never travel on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** The caller's credentials: they open this platform, never the instance (decisions.md section 8). */
const CALLER_CREDENTIALS = new Set(['cookie', 'x-apikey', 'x-csrf-token', 'authorization']);
/**
 * Set by the proxy itself, or what an instance would take for the proxy's word about the caller (its address, scheme,
 * host, port or path prefix): a caller's own copy never passes. X-Forwarded-* go by their prefix.
 */
const OWN = new Set(['host', 'forwarded', 'x-real-ip', 'x-svc-user']);
const OWN_PREFIX = 'x-forwarded-';
/** Every caller's header that never travels on (but for X-Forwarded-*): one lookup per header. */
const NOT_FORWARDED = new Set([...HOP_BY_HOP, ...CALLER_CREDENTIALS, ...OWN]);
/** The call a response carries, for the response's `close` listener. */
const CALL = Symbol('flow call');

export type AuditLevel = 'off' | 'errors' | 'all';

/** Forwards one call to its instance and streams the answer back, both bodies unbuffered. */
export class FlowProxy {
  /** The last Forwarded value and the hop it describes: callers on kept-alive connections send the same one again. */
  private lastHop: { ip: string; proto: string; host: string | undefined; value: string } | undefined;

  constructor(
    private readonly instances: FlowInstances,
    private readonly audit: AuditTrail,
    private readonly auditLevel: AuditLevel,
    readonly ownCookies: OwnCookies,
    private readonly health: FlowHealth,
    private readonly telemetry?: Telemetry,
  ) {}

  /**
   * Starts the call; the answer is written on the raw response, or, when the instance fails before its answer's head,
   * an error answer is sent through the reply. A target the proxy refuses throws at once.
   */
  forward(request: FastifyRequest, reply: FastifyReply): void {
    const parsed = parseFlowTarget(request.raw.url ?? '');
    if (!parsed.ok) throw FLOW_ERRORS.invalidTarget(parsed.reason);
    const { target } = parsed;
    const instance = this.instances.get(target.instanceId);
    if (!instance) throw FLOW_ERRORS.instanceNotFound(target.instanceId);
    const path = upstreamPath(instance.base, target);
    if (!path) throw FLOW_ERRORS.invalidTarget('the target leaves the instance URL');

    const hasBody =
      request.headers['content-length'] !== undefined
        ? request.headers['content-length'] !== '0'
        : request.headers['transfer-encoding'] !== undefined;
    const call = new ProxiedCall(this, request, reply, instance, path, this.telemetry?.flowCallStarted(instance.id));
    instance.pool.dispatch(
      {
        path,
        method: request.method as Dispatcher.HttpMethod,
        headers: this.forwardHeaders(request, instance.authorization),
        body: hasBody ? request.raw : undefined,
      },
      call,
    );
  }

  /**
   * A call has ended with `status` (499: the caller left): counted, recorded, and when it failed before the answer's
   * head, answered with `error`. `failure`: the instance failed the call (unreachable, timed out, answer cut off).
   */
  ended(call: ProxiedCall, status: number, error?: AppError, failure?: string): void {
    const { request, instance, path } = call;
    call.finished?.();
    if (failure) this.telemetry?.flowUpstreamError(instance.id);
    // The instance's failures and its own server errors (a caller who left, 499, is none).
    if (failure || status >= 500)
      this.health.recordError(instance.id, request.principal.tenantId, {
        at: new Date().toISOString(),
        method: request.method,
        path: path.split('?')[0].slice(0, 1000),
        status,
        ...(failure ? { error: failure } : {}),
      });
    this.record(request, instance.id, path, status);
    if (error) call.reply.send(error);
  }

  private forwardHeaders(
    request: FastifyRequest,
    authorization: string | undefined,
  ): Record<string, string | string[]> {
    const headers: IncomingHttpHeaders = request.headers;
    const named = connectionNamed(headers.connection);
    const out: Record<string, string | string[]> = {};
    for (const name in headers) {
      const value = headers[name];
      if (value === undefined || NOT_FORWARDED.has(name) || name.startsWith(OWN_PREFIX) || named?.has(name)) continue;
      out[name] = value;
    }
    if (authorization) out.authorization = authorization;
    // Fastify's getters work these out on every read (behind a trusted proxy, from the X-Forwarded-* chain).
    const ip = request.ip;
    const proto = request.protocol;
    const host = headers.host;
    out['x-forwarded-for'] = ip;
    out['x-forwarded-proto'] = proto;
    if (host) out['x-forwarded-host'] = host;
    out.forwarded = this.forwarded(ip, proto, host);
    out['x-svc-user'] = headerSafe(request.principal.loginName);
    return out;
  }

  private forwarded(ip: string, proto: string, host: string | undefined): string {
    const last = this.lastHop;
    if (last && last.ip === ip && last.proto === proto && last.host === host) return last.value;
    const value = forwardedHeader({ ip, proto, host });
    this.lastHop = { ip, proto, host, value };
    return value;
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

/**
 * One call in flight, as undici's dispatch handler: the upstream's answer is written straight into the caller's
 * response, with backpressure both ways (a full response pauses the upstream's body until it drains), and a caller
 * who hangs up aborts the upstream call at once. Before the answer's head has arrived, failures become our own
 * error answers (502, 504); after it, the answer is cut off, never completed wrongly.
 */
class ProxiedCall implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private callerLeft = false;
  /** The call has ended (answered, failed or abandoned): a later `close` of the response is no news. */
  private over = false;
  private readonly res: ServerResponse & { [CALL]?: ProxiedCall };

  constructor(
    private readonly proxy: FlowProxy,
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
    readonly instance: FlowInstance,
    /** The upstream path and query. */
    readonly path: string,
    /** Ends the call's count in the metrics. */
    readonly finished: (() => void) | undefined,
  ) {
    this.res = reply.raw;
    this.res[CALL] = this;
    this.res.on('close', onCallerClose);
  }

  // `writableEnded`, not `writableFinished`: once the answer is complete, bytes still in the socket are no abort.
  callerClosed(): void {
    if (this.over || this.res.writableEnded) return;
    this.callerLeft = true;
    this.controller?.abort(new Error('the caller left'));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.callerLeft) controller.abort(new Error('the caller left'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // informational answers (100 Continue) are the connection's business
    this.status = statusCode;
    this.reply.hijack();
    const res = this.res;
    res.statusCode = statusCode;
    const cookies = this.proxy.ownCookies;
    for (const name in headers) {
      const value = headers[name];
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      if (name === 'set-cookie') {
        const kept = cookies.filter(value);
        if (kept.length) res.setHeader(name, kept);
      } else res.setHeader(name, value);
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.res.write(chunk)) {
      controller.pause();
      this.res.once('drain', () => controller.resume());
    }
  }

  onResponseEnd(): void {
    this.over = true;
    this.res.end();
    this.proxy.ended(this, this.status);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.over = true;
    if (this.status !== 0 || this.callerLeft) {
      if (this.status === 0) this.reply.hijack();
      this.res.destroy();
      if (this.callerLeft) this.proxy.ended(this, 499);
      else this.proxy.ended(this, 502, undefined, errorCode(err));
      return;
    }
    const timedOut =
      err instanceof undiciErrors.HeadersTimeoutError ||
      err instanceof undiciErrors.ConnectTimeoutError ||
      err instanceof undiciErrors.BodyTimeoutError;
    const { id, timeoutSeconds } = this.instance;
    this.proxy.ended(
      this,
      timedOut ? 504 : 502,
      timedOut ? FLOW_ERRORS.upstreamTimeout(id, timeoutSeconds) : FLOW_ERRORS.upstreamUnreachable(id),
      errorCode(err),
    );
  }
}

/** The `close` listener of every proxied response (one function, no closure per call). */
function onCallerClose(this: ServerResponse & { [CALL]?: ProxiedCall }): void {
  this[CALL]?.callerClosed();
}

/** Headers the caller's `Connection` header names as hop-by-hop (RFC 9110 section 7.6.1); none for the usual values. */
function connectionNamed(connection: string | undefined): Set<string> | undefined {
  if (!connection) return undefined;
  const lower = connection.toLowerCase();
  if (lower === 'keep-alive' || lower === 'close') return undefined;
  return new Set(
    lower
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
  );
}

/** A header value as sent: printable ASCII as it is, anything else percent-encoded. */
function headerSafe(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value);
}
