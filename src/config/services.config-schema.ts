// The platform modules' settings: the change feed, storage, notifications and the flow proxy.
import { Type } from '@sinclair/typebox';

export const EventsConfigSchema = Type.Object(
  {
    retentionHours: Type.Number({
      minimum: 0.01,
      maximum: 8760,
      default: 24,
      description: 'How long the change feed keeps events for subscribers that resume (`Last-Event-ID`).',
    }),
  },
  {
    default: {},
    additionalProperties: false,
    description: 'The change feed, which carries changes to live streams and between instances.',
  },
);

export const StorageConfigSchema = Type.Object(
  {
    streamHeartbeatSeconds: Type.Number({
      minimum: 0.05,
      maximum: 3600,
      default: 15,
      description:
        'A comment line on a store stream silent this long (none while events flow), so proxies and clients see the connection alive.',
    }),
    streamRetryMs: Type.Integer({
      minimum: 0,
      maximum: 600000,
      default: 3000,
      description: 'The reconnection delay a store stream asks EventSource clients for.',
    }),
    streamMaxQueuedBytes: Type.Integer({
      minimum: 1024,
      maximum: 1073741824,
      default: 1048576,
      description: 'Bytes a store stream may have waiting for a slow client before it is closed (the client resumes).',
    }),
    exportPageSize: Type.Integer({
      minimum: 10,
      maximum: 10000,
      default: 500,
      description:
        'Items an export reads per statement; it holds about one page in memory and waits for the client between pages.',
    }),
    listCacheSeconds: Type.Number({
      minimum: 0,
      maximum: 3600,
      default: 60,
      description:
        "How long a list answer may be reused for the same list asked again; it is reused only while the store's change count is the one it was read at (any instance); 0: never.",
    }),
    listCacheMegabytes: Type.Number({
      minimum: 1,
      maximum: 4096,
      default: 32,
      description:
        'The kept list answers together, in units of 1,048,576 characters of JSON text; the oldest go first, and an answer over a sixteenth of it is not kept.',
    }),
  },
  {
    default: {},
    additionalProperties: false,
    description:
      'Storage: the live store streams (`/cxf/svc-core/storage/store/{storeId}/stream`), the exports (`.../export`) and the kept list answers.',
  },
);

export const NotificationsConfigSchema = Type.Object(
  {
    heartbeatSeconds: Type.Number({
      minimum: 0.05,
      maximum: 3600,
      default: 15,
      description:
        'A comment line on a stream silent this long (none while events flow), so proxies and clients see the connection alive.',
    }),
    retryMs: Type.Integer({
      minimum: 0,
      maximum: 600000,
      default: 3000,
      description: 'The reconnection delay the stream asks EventSource clients for.',
    }),
    maxQueuedBytes: Type.Integer({
      minimum: 1024,
      maximum: 1073741824,
      default: 1048576,
      description: 'Bytes a stream may have waiting for a slow client before it is closed (the client resumes).',
    }),
    listCacheSeconds: Type.Number({
      minimum: 0,
      maximum: 3600,
      default: 60,
      description:
        'How long a list answer may be reused while no notification of its tenant changes (any instance); 0: never.',
    }),
  },
  {
    default: {},
    additionalProperties: false,
    description: 'The notifications API and its live stream (`/cxf/svc-core/notification/stream`).',
  },
);

export const FlowConfigSchema = Type.Object(
  {
    instances: Type.Array(
      Type.Object(
        {
          id: Type.String({
            minLength: 1,
            maxLength: 128,
            pattern: '^[A-Za-z0-9._~-]+$',
            description: "The `{instanceId}` of the proxy's paths.",
          }),
          url: Type.String({
            pattern: '^https?://[^\\s]+$',
            description: "The instance's http(s) base URL; a call's `{targetPath}` is appended to its path.",
          }),
          auth: Type.Union(
            [
              Type.Object(
                { type: Type.Literal('none') },
                { additionalProperties: false, description: 'No credentials.' },
              ),
              Type.Object(
                {
                  type: Type.Literal('basic'),
                  username: Type.String({ description: 'User name of HTTP Basic.' }),
                  password: Type.String({ description: 'Password of HTTP Basic.' }),
                },
                { additionalProperties: false, description: 'HTTP Basic.' },
              ),
              Type.Object(
                {
                  type: Type.Literal('bearer'),
                  token: Type.String({ minLength: 1, description: 'The token of `Authorization: Bearer`.' }),
                },
                { additionalProperties: false, description: 'A fixed bearer token.' },
              ),
            ],
            {
              default: { type: 'none' },
              description: "The credentials the proxy sends to the instance (the caller's own are never forwarded).",
            },
          ),
          timeoutSeconds: Type.Number({
            exclusiveMinimum: 0,
            maximum: 86400,
            default: 180,
            description:
              "Time to the instance's response headers, and between body chunks: 504 (or a cut body) past it.",
          }),
        },
        { additionalProperties: false, description: 'A process engine instance.' },
      ),
      { default: [], description: 'The instances the proxy forwards to; a call to another id is 404.' },
    ),
    connectionsPerInstance: Type.Integer({
      minimum: 1,
      maximum: 4096,
      default: 128,
      description: 'Open connections to one instance at most.',
    }),
    audit: Type.Union([Type.Literal('off'), Type.Literal('errors'), Type.Literal('all')], {
      default: 'off',
      description: 'Which proxied calls the audit log records: `errors` those answered 400 or more, `all` every one.',
    }),
  },
  {
    default: {},
    additionalProperties: false,
    description: 'The flow proxy, `/cxf/svc-flow/flow/{instanceId}{targetPath}` (docs/api/flow.md).',
  },
);
