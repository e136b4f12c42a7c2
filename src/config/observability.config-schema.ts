// Metrics and tracing: what the service tells its operators about itself.
import { Type } from '@sinclair/typebox';

export const MetricsConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: false,
      description:
        'Serve `GET /metrics` in the Prometheus text format (docs/operations.md, Metrics); off: the path answers 404.',
    }),
    token: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 1024,
        description:
          'A scraper that sends `Authorization: Bearer <token>` with this token may read `/metrics` from any address (compared in constant time).',
      }),
    ),
    allow: Type.Array(
      Type.String({
        pattern: '^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$',
        description: 'An address or a CIDR range (`10.0.0.0/8`, `::1/128`).',
      }),
      {
        default: [],
        maxItems: 256,
        description:
          'Addresses that may read `/metrics` without the token: the TCP peer of the connection, never a forwarded header. Empty and no `token`: nobody may (403).',
      },
    ),
  },
  {
    default: {},
    additionalProperties: false,
    description: 'Prometheus metrics of this instance: requests, the process, the database, streams, logins.',
  },
);

export const TracingConfigSchema = Type.Object(
  {
    otlpEndpoint: Type.Optional(
      Type.String({
        pattern: '^https?://',
        maxLength: 2048,
        description:
          'OpenTelemetry tracing (docs/operations.md, Tracing): the OTLP/HTTP collector base URL; spans go to `<url>/v1/traces`. Unset: no tracing, nothing of OpenTelemetry is loaded.',
      }),
    ),
    serviceName: Type.String({
      minLength: 1,
      maxLength: 256,
      default: 'svc-platform',
      description: 'The `service.name` of the spans.',
    }),
  },
  {
    default: {},
    additionalProperties: false,
    description: 'OpenTelemetry traces of requests and database statements, off unless `otlpEndpoint` is set.',
  },
);
