import { Type, type Static } from '@sinclair/typebox';
import { DatabaseConfigSchema } from './database.config-schema.js';
import { EngineConfigSchema } from './engine.config-schema.js';
import {
  ApiKeyConfigSchema,
  IdentityConfigSchema,
  TenantConfigSchema,
  UserConfigSchema,
} from './identity.config-schema.js';
import { MetricsConfigSchema, TracingConfigSchema } from './observability.config-schema.js';
import { LimitsConfigSchema, LOG_LEVELS, ServerConfigSchema } from './server.config-schema.js';
import {
  EventsConfigSchema,
  FlowConfigSchema,
  NotificationsConfigSchema,
  StorageConfigSchema,
} from './services.config-schema.js';

// Every key carries a `description`: docs/configuration.md is generated from them (npm run docs:config) and a test
// fails when a key has none or the file is stale. Notes for maintainers stay comments.
// The sections live in `*.config-schema.ts` beside this file, one per concern; this file composes them.

export { ApiKeyConfigSchema, LOG_LEVELS, TenantConfigSchema, UserConfigSchema };

export const ConfigSchema = Type.Object(
  {
    server: ServerConfigSchema,
    limits: LimitsConfigSchema,
    database: DatabaseConfigSchema,
    identity: IdentityConfigSchema,
    tenants: Type.Array(TenantConfigSchema, {
      default: [],
      description:
        'Tenants, users and API keys, applied at every start: what is missing is created, and of what exists only the fields the file states and that changed in the file since the start before are written, so changes made over HTTP or the CLI last (docs/operations.md, provisioning). Nothing is deleted, and a user or key deleted over HTTP is not brought back while its entry is unchanged.',
    }),
    events: EventsConfigSchema,
    storage: StorageConfigSchema,
    notifications: NotificationsConfigSchema,
    flow: FlowConfigSchema,
    metrics: MetricsConfigSchema,
    tracing: TracingConfigSchema,
    engine: EngineConfigSchema,
    platform: Type.Object(
      {
        enabled: Type.Boolean({
          default: true,
          description: "Serve the platform's face (`/cxf/...`) in this process; off for an engine deployed apart.",
        }),
      },
      { default: {}, additionalProperties: false, description: "The platform's APIs." },
    ),
    console: Type.Object(
      {
        enabled: Type.Boolean({
          default: true,
          description: 'Serve the admin console at `/console/` (docs/console.md); off: no `/console/` routes.',
        }),
        dir: Type.String({
          default: '',
          description:
            "The built console's folder (its index.html and assets/); empty: the project's `console/dist`, built by `npm run build`. Without a build, `/console/` answers 503.",
        }),
      },
      { default: {}, additionalProperties: false, description: 'The admin console, a web app served by the service.' },
    ),
    maintenance: Type.Boolean({
      default: false,
      description:
        'Notification endpoints answer 503 in every tenant until an ADMIN switches maintenance off at run time.',
    }),
  },
  { additionalProperties: false },
);

export type AppConfig = Static<typeof ConfigSchema>;
export type TenantConfig = Static<typeof TenantConfigSchema>;
export type UserConfig = Static<typeof UserConfigSchema>;
export type ApiKeyConfig = Static<typeof ApiKeyConfigSchema>;
