// The data management API of the process engine: one POST address for Template and Asset calls, by engine users of
// group DataManagement. This part holds the protocol endpoint and context Template; it owns dm_templates.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ERRORS } from '../../platform/errors/error-catalogue.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { sendJsonText } from '../../platform/http/json-text.js';
import type { ModuleDeps, PlatformModule } from '../../platform/module.js';
import { basicCredentials, EngineUsers, type CredentialGuard, type EngineUserConfig } from '../rest/index.js';
import { Dispatcher } from './dispatcher.js';
import { WriteBatcher } from '../../platform/db/write-batcher.js';
import type { Caller } from './method.js';
import type { DmTables } from './dm.tables.js';
import { templateMethods } from './templates/template-methods.js';
import { TemplatesRepository } from './templates/templates.repository.js';
import { AssetsRepository } from './assets/assets.repository.js';
import { assetMethods, templateAssets } from './assets/asset-methods.js';
import { SavedQueriesRepository } from './assets/saved-queries.repository.js';
import type { ActionWebhook } from './actions/action-runner.js';

export { dmMigrations } from './dm.migrations.js';

export const DATA_MANAGEMENT_GROUP = 'DataManagement';
export const API_PROTOCOL_PATH = '/engine/servlet/UploadServlet/api_protocol';

export interface DataManagementConfig {
  users: EngineUserConfig[];
  actionWebhooks: ActionWebhook[];
  /** The 'inactive versions' feature: a new asset version may stay inactive (activationPolicy). */
  inactiveVersions: boolean;
}

/** The engine's scope in the data management tables (one engine per deployment today). */
const SCOPE = 'engine';

/** `guard`: the credential throttle every engine user's password check goes through (shared with /engine/rest). */
export type DataManagementDeps = ModuleDeps<DmTables, DataManagementConfig> & { guard: CredentialGuard };

export function createDataManagementModule(deps: DataManagementDeps): PlatformModule {
  const users = new EngineUsers(deps.config.users, deps.guard);
  const webhooks = new Map(deps.config.actionWebhooks.map((w) => [w.name, w]));
  const templates = new TemplatesRepository(deps.db, SCOPE, deps.dialect);
  const assets = new AssetsRepository(deps.db, SCOPE, deps.dialect);
  const dispatcher = new Dispatcher(deps.db, new WriteBatcher(deps.db, deps.traits.singleWriter ? 64 : 1), {
    Template: templateMethods(templates, deps.dialect, webhooks, templateAssets(assets)),
    Asset: assetMethods(assets, templates, new SavedQueriesRepository(SCOPE, deps.dialect), deps.dialect, { inactiveVersions: deps.config.inactiveVersions, webhooks }),
  });
  // The engine user of each request, from its credential check to its handler.
  const callers = new WeakMap<object, Caller>();
  return {
    name: 'engine-data-management',
    routes(app: FastifyInstance) {
      app.post(
        API_PROTOCOL_PATH,
        {
          // Engine users of group DataManagement only: no or wrong credentials 401, other users 403 (decisions section 9);
          // the engine users' accounts of /engine/rest, under the same credential throttle (429 with Retry-After).
          onRequest: async (request) => {
            const basic = basicCredentials(request.headers.authorization);
            const user = basic && (await users.check(basic.name, basic.password, request.ip));
            if (!user) throw ERRORS.authenticationFailed();
            if (!user.groups.includes(DATA_MANAGEMENT_GROUP)) throw ERRORS.forbidden(`Requires group ${DATA_MANAGEMENT_GROUP}`);
            callers.set(request, { name: user.name, groups: user.groups, roles: user.roles ?? [] });
          },
          schema: {
            tags: ['engine'],
            summary: 'Data management API call {context, method, parameters}, or a batch {requests: [...]} in one transaction',
            security: [{ basic: [] }],
            body: Type.Unknown({ description: '{"context","method","parameters"} or {"requests":[...]}' }),
            response: { 200: Type.Record(Type.String(), Type.Unknown()), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
          },
        },
        async (request, reply) => sendJsonText(reply, await dispatcher.handle(request.body, callers.get(request)!)),
      );
    },
    start: () => users.start(),
  };
}
