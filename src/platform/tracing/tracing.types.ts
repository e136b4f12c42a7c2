// What tracing is to the rest of the service (index.ts starts it; open-telemetry.ts makes it).
import type { FastifyPluginCallback } from 'fastify';
import type { StatementSpans } from '../db/statement-spans.js';

/** config.tracing: where spans go (unset: no tracing) and the service's name in them. */
export interface TracingConfig {
  otlpEndpoint?: string;
  serviceName: string;
}

export interface Tracing {
  /** Wraps each database statement in a span, a child of the active request's (createDatabase `spans`). */
  spans: StatementSpans;
  /** The Fastify plugin that opens a server span per request, named by its route pattern; registered at the root. */
  plugin: FastifyPluginCallback;
  /** Exports the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /**
   * Where spans go instead of the OTLP exporter (the tests' in-memory exporter); each span is handed over as it
   * ends. Typed loosely so that this file imports no OpenTelemetry type: a `SpanExporter` of sdk-trace-base.
   */
  exporter?: unknown;
}
