// OpenTelemetry tracing, off unless `tracing.otlpEndpoint` is set: the server span of each request (@fastify/otel)
// and a span per database statement. Nothing of OpenTelemetry is imported until startTracing runs (open-telemetry.ts).
import type { FastifyPluginCallback } from 'fastify';
import type { AppConfig } from '../../config/config.schema.js';
import type { StatementSpans } from '../db/statement-spans.js';

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

/** Loads OpenTelemetry and starts tracing to `config.otlpEndpoint` (or `options.exporter`). */
export async function startTracing(config: AppConfig['tracing'], options: TracingOptions = {}): Promise<Tracing> {
  const { openTelemetryTracing } = await import('./open-telemetry.js');
  return openTelemetryTracing(config, options);
}
