// The OpenTelemetry side of tracing, imported by startTracing only (index.ts): with tracing off, none of it loads.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import fastifyOtel from '@fastify/otel';
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import type { StatementSpans, TracedEngine } from '../db/statement-spans.js';
import type { Tracing, TracingConfig, TracingOptions } from './tracing.types.js';

const SERVICE_VERSION = '0.1.0';

export function openTelemetryTracing(config: TracingConfig, options: TracingOptions): Tracing {
  // Context follows async work through AsyncLocalStorage; incoming `traceparent` headers continue a caller's trace.
  // Both are process-wide in OpenTelemetry's API: a second app in the process finds them set, which is fine.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());

  const injected = options.exporter as SpanExporter | undefined;
  const exporter =
    injected ??
    // The exporter reads the other OTEL_EXPORTER_OTLP_* variables itself (headers, timeout, compression).
    new OTLPTraceExporter({ url: `${(config.otlpEndpoint ?? '').replace(/\/+$/, '')}/v1/traces` });
  // The provider is this app's, not registered globally: two apps in one process (tests) keep their spans apart.
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': SERVICE_VERSION }),
    spanProcessors: [injected ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)],
  });

  const instrumentation = new fastifyOtel.FastifyOtelInstrumentation({
    // One span for the request and one for its handler; no span per hook (a dozen per request, little to learn).
    instrumentHooks: false,
    requestHook(span: Span, request: FastifyRequest) {
      // The route pattern, never the raw URL: no ids in span names; the path without its query string.
      const route = request.routeOptions.url;
      span.updateName(route ? `${request.method} ${route}` : request.method);
      span.setAttribute('url.path', request.url.split('?')[0] ?? '');
    },
  });
  instrumentation.setTracerProvider(provider);

  return {
    spans: statementSpans(provider.getTracer('svc-platform.database', SERVICE_VERSION)),
    plugin: instrumentation.plugin() as FastifyPluginCallback,
    shutdown: () => provider.shutdown(),
  };
}

const KINDS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'WITH', 'BEGIN', 'COMMIT', 'ROLLBACK', 'MERGE']);

/** The statement's kind (its first keyword): the span's name; the text goes in `db.query.text` (values never do). */
function statementKind(sql: string): string {
  const word = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase();
  return word && KINDS.has(word) ? word : 'SQL';
}

function statementSpans(tracer: ReturnType<BasicTracerProvider['getTracer']>): StatementSpans {
  return {
    run<T>(engine: TracedEngine, sql: string, run: () => T): T {
      const parent = context.active();
      // Only statements of a traced request: background work (the change feed, upkeep) would be a root span each.
      if (!trace.getSpan(parent)) return run();
      const kind = statementKind(sql);
      const span = tracer.startSpan(
        kind,
        {
          kind: SpanKind.CLIENT,
          attributes: { 'db.system.name': engine, 'db.operation.name': kind, 'db.query.text': sql },
        },
        parent,
      );
      const failed = (err: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
        span.end();
      };
      let out: T;
      try {
        out = context.with(trace.setSpan(parent, span), run);
      } catch (err) {
        failed(err);
        throw err;
      }
      if (out instanceof Promise) {
        return out.then(
          (value) => {
            span.end();
            return value;
          },
          (err) => {
            failed(err);
            throw err;
          },
        ) as T;
      }
      span.end();
      return out;
    },
  };
}
