// OpenTelemetry tracing, off unless `tracing.otlpEndpoint` is set: the server span of each request (@fastify/otel)
// and a span per database statement. Nothing of OpenTelemetry is imported until startTracing runs (open-telemetry.ts).
import type { Tracing, TracingConfig, TracingOptions } from './tracing.types.js';

export type { Tracing, TracingConfig, TracingOptions } from './tracing.types.js';

/** Loads OpenTelemetry and starts tracing to `config.otlpEndpoint` (or `options.exporter`). */
export async function startTracing(config: TracingConfig, options: TracingOptions = {}): Promise<Tracing> {
  const { openTelemetryTracing } = await import('./open-telemetry.js');
  return openTelemetryTracing(config, options);
}
