import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../http/schemas.js';
import { metricsAccess, type MetricsAccessConfig } from './metrics-access.js';
import { ServiceMetrics, type MetricsSources } from './metrics-registry.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route may answer on the raw response (`reply.hijack()`: the flow proxy, live streams), where no `onResponse`
     * hook runs: metrics count its answer when the response closes.
     */
    rawAnswer?: boolean;
  }
}

export interface MetricsConfig extends MetricsAccessConfig {
  enabled: boolean;
}

const EXAMPLE = [
  '# HELP svc_http_requests_total HTTP requests answered, by method, route pattern and status class.',
  '# TYPE svc_http_requests_total counter',
  'svc_http_requests_total{method="GET",route="/cxf/svc-core/storage/store/:storeId/:itemId",status_class="2xx"} 1042',
].join('\n');

/**
 * With `metrics.enabled`: counts every answered request (an `onResponse` hook on the root, so every module's routes
 * are seen, labelled with their route pattern) and serves `GET /metrics` in the Prometheus text format to the callers
 * `metrics.token` and `metrics.allow` admit. Off: nothing is counted and the path is an unknown route (404).
 * Call before the modules' plugins are registered: hooks reach the scopes made after them.
 */
export function installMetrics(
  app: FastifyInstance,
  config: MetricsConfig,
  sources: MetricsSources,
): ServiceMetrics | undefined {
  if (!config.enabled) return undefined;
  const metrics = new ServiceMetrics(sources);
  const refusal = metricsAccess(config);
  if (config.token === undefined && config.allow.length === 0)
    app.log.warn('metrics.enabled without metrics.token or metrics.allow: every scrape is refused (403)');

  // Requests of raw-answer routes not yet counted by onResponse; counted when their response closes. The hook is
  // added to those routes alone (onRoute sees every route registered after this call), not to every request.
  const raw = new WeakSet<object>();
  const countWhenClosed: onRequestHookHandler = (request, reply, done) => {
    raw.add(request);
    reply.raw.once('close', () => {
      if (!raw.delete(request)) return;
      const seconds = reply.elapsedTime / 1000;
      metrics.observeRequest(request.method, request.routeOptions.url, reply.raw.statusCode, seconds);
    });
    done();
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.rawAnswer) return;
    const own = route.onRequest;
    route.onRequest = own === undefined ? [countWhenClosed] : [countWhenClosed, ...(Array.isArray(own) ? own : [own])];
  });
  app.addHook('onResponse', (request, reply, done) => {
    raw.delete(request);
    metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        summary: 'Metrics in the Prometheus text format',
        description:
          'Requests by method, route pattern and status class, the Node process, the database (pool or SQLite threads), the change feed, live streams, the flow proxy and logins (docs/operations.md, Metrics). Readable with `Authorization: Bearer <metrics.token>` or from an address in `metrics.allow`; 404 unless `metrics.enabled`.',
        security: [],
        response: {
          200: Type.String({ description: 'text/plain; version=0.0.4 (Prometheus text format)', examples: [EXAMPLE] }),
          ...errorResponses(401, 403, 500),
        },
      },
    },
    async (request, reply) => {
      const refused = refusal(request.socket.remoteAddress, request.headers.authorization);
      if (refused) throw refused;
      const text = await metrics.metrics();
      return reply.header('cache-control', 'no-store').type(metrics.contentType).send(text);
    },
  );
  return metrics;
}
