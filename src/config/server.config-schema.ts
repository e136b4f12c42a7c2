// The HTTP listener and the per-address limits: what an operator sets for the socket in front of everything.
import { Type } from '@sinclair/typebox';

/** Pino's levels, most severe first; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const ServerConfigSchema = Type.Object(
  {
    host: Type.String({ default: '127.0.0.1', description: 'Listen address; `0.0.0.0` for every IPv4 interface.' }),
    port: Type.Integer({
      minimum: 0,
      maximum: 65535,
      default: 8080,
      description: 'Listen port; 0 takes a free one.',
    }),
    trustProxy: Type.Boolean({
      default: false,
      description:
        "Behind a reverse proxy: take the client's address, protocol and host from its `X-Forwarded-*` headers.",
    }),
    bodyLimitBytes: Type.Integer({
      minimum: 1024,
      default: 1048576,
      description: 'Largest request body, 413 beyond it; storage items take up to 5 MiB, form-encoded logins 16 KiB.',
    }),
    logLevel: Type.Union(
      LOG_LEVELS.map((level) => Type.Literal(level)),
      {
        default: 'info',
        description:
          'Log level (pino, on stdout, in the form `logFormat` says). The headers `authorization`, `cookie`, `x-apikey`, `x-auth-token`, `x-csrf-token` and `set-cookie` are redacted.',
      },
    ),
    logFormat: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], {
      default: 'auto',
      description:
        '`auto`: readable lines (pino-pretty) when stdout is a terminal, JSON lines otherwise; `json`: always JSON lines; `pretty`: always readable lines.',
    }),
    drainSeconds: Type.Number({
      minimum: 0,
      maximum: 600,
      default: 5,
      description:
        'On SIGTERM, how long the service goes on serving while `GET /readyz` answers 503, so that load balancers stop sending to it; then live streams end with a `reconnect` event and the shutdown proceeds. SIGINT skips it.',
    }),
    shutdownGraceSeconds: Type.Number({
      minimum: 0,
      maximum: 600,
      default: 10,
      description:
        'On SIGTERM or SIGINT, how long requests already running may take to finish before the database closes.',
    }),
    requestTimeoutSeconds: Type.Number({
      exclusiveMinimum: 0,
      maximum: 3600,
      default: 30,
      description:
        'Time a client has to send a whole request, headers and body (408 past it, and the connection closes): a body that trickles in byte by byte must not hold a socket for ever. Bounds uploads through the flow proxy too.',
    }),
    headersTimeoutSeconds: Type.Number({
      exclusiveMinimum: 0,
      maximum: 3600,
      default: 10,
      description: 'Time a client has to send the request line and headers; at most `requestTimeoutSeconds`.',
    }),
    keepAliveTimeoutSeconds: Type.Number({
      exclusiveMinimum: 0,
      maximum: 3600,
      default: 5,
      description:
        'How long an idle keep-alive connection stays open for a next request (behind a load balancer: above its own).',
    }),
  },
  { default: {}, additionalProperties: false, description: 'The HTTP listener.' },
);

export const LimitsConfigSchema = Type.Object(
  {
    connectionsPerAddress: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      default: 256,
      description:
        "Open connections from one address (the socket's, also behind a trusted proxy, whose own address it then is); more are answered 429 and closed. 0: no limit.",
    }),
    streamsPerCaller: Type.Integer({
      minimum: 0,
      maximum: 100_000,
      default: 16,
      description: 'Open live streams (Server-Sent Events) per address and per caller; one more is 429. 0: no limit.',
    }),
    headerCount: Type.Integer({
      minimum: 16,
      maximum: 10_000,
      default: 200,
      description: 'Header lines a request may carry; more is 431 (never a silent cut).',
    }),
  },
  {
    default: {},
    additionalProperties: false,
    description: 'What one client may hold or send; beyond it, the error object (decisions.md section 4).',
  },
);
