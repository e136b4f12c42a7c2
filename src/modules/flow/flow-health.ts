import { SingleFlight } from '../../platform/async/single-flight.js';
import type { FlowInstance } from './flow-instances.js';

/** One failed proxied call, as the instances endpoint shows it. */
export interface UpstreamError {
  at: string;
  method: string;
  /** The path called on the instance, without its query string. */
  path: string;
  /** What the caller was answered: the instance's own 5xx, or the proxy's 502 / 504. */
  status: number;
  /** Why the instance failed the call when it did not answer (a socket or undici code), e.g. ECONNREFUSED. */
  error?: string;
}

export interface Reachability {
  reachable: boolean;
  checkedAt: string;
  /** The probe's HTTP status when the instance answered. */
  status?: number;
  /** The probe's error code when it did not. */
  error?: string;
  latencyMs: number;
}

/** Errors kept per instance (all tenants together), and how many of the caller's tenant an answer shows. */
export const ERRORS_KEPT = 100;
export const ERRORS_SHOWN = 20;
/** A probe's answer is reused for this long, so that the endpoint cannot be used to hammer an instance. */
export const PROBE_CACHE_MS = 5_000;
/** A probe waits at most this long for the instance's response headers (less when the instance's timeout is less). */
export const PROBE_TIMEOUT_MS = 3_000;

/**
 * What the flow instances endpoint tells about each instance: the last upstream errors of the proxy (a bounded ring
 * per instance, in this process's memory: each instance of a cluster shows the calls it proxied itself), and
 * reachability from a short HEAD probe of the instance URL, cached a few seconds and shared by concurrent readers.
 */
export class FlowHealth {
  private readonly errors = new Map<string, Array<UpstreamError & { tenantId: string }>>();
  private readonly probes = new Map<string, { until: number; value: Reachability }>();
  private readonly running = new SingleFlight<string, Reachability>();

  recordError(instanceId: string, tenantId: string, error: UpstreamError): void {
    let ring = this.errors.get(instanceId);
    if (!ring) this.errors.set(instanceId, (ring = []));
    ring.push({ ...error, tenantId });
    if (ring.length > ERRORS_KEPT) ring.splice(0, ring.length - ERRORS_KEPT);
  }

  /** The newest errors of calls made by the tenant's callers, newest first. */
  recentErrors(instanceId: string, tenantId: string): UpstreamError[] {
    const ring = this.errors.get(instanceId) ?? [];
    const out: UpstreamError[] = [];
    for (let i = ring.length - 1; i >= 0 && out.length < ERRORS_SHOWN; i--) {
      const { tenantId: owner, ...error } = ring[i];
      if (owner === tenantId) out.push(error);
    }
    return out;
  }

  reachability(instance: FlowInstance, now = Date.now()): Promise<Reachability> {
    const cached = this.probes.get(instance.id);
    if (cached && cached.until > now) return Promise.resolve(cached.value);
    return this.running.run(instance.id, async () => {
      const value = await probe(instance);
      this.probes.set(instance.id, { until: Date.now() + PROBE_CACHE_MS, value });
      return value;
    });
  }
}

/** HEAD of the instance URL with the instance's credentials: any HTTP answer means it is reachable. */
async function probe(instance: FlowInstance): Promise<Reachability> {
  const started = performance.now();
  const checkedAt = new Date().toISOString();
  const latency = () => Math.round(performance.now() - started);
  try {
    const res = await instance.pool.request({
      method: 'HEAD',
      path: instance.base.pathname + instance.base.search,
      headers: instance.authorization ? { authorization: instance.authorization } : {},
      signal: AbortSignal.timeout(Math.min(PROBE_TIMEOUT_MS, instance.timeoutMs)),
    });
    await res.body.dump();
    return { reachable: true, checkedAt, status: res.statusCode, latencyMs: latency() };
  } catch (err) {
    return { reachable: false, checkedAt, error: errorCode(err), latencyMs: latency() };
  }
}

/** A short, stable name for a failure: its code (ECONNREFUSED, UND_ERR_SOCKET), or the error's name. */
export function errorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  if (typeof code === 'string' && code) return code.slice(0, 64);
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'TIMEOUT';
  return typeof e?.name === 'string' && e.name ? e.name.slice(0, 64) : 'ERROR';
}
