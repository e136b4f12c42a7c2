// Operator's metrics: the per-app counts parts of the service keep (Telemetry) and GET /metrics (prom-client).
export { Telemetry } from './telemetry.js';
export { installMetrics, type MetricsConfig } from './metrics-plugin.js';
export type { MetricsSources } from './metrics-registry.js';
