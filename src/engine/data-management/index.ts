// The data management API of the process engine: one POST address for Template and Asset calls, by engine users of
// group DataManagement. This part holds the protocol endpoint and context Template; it owns dm_templates.
import { Type } from '@sinclair/typebox';
import { ERRORS } from '../../platform/errors/error-catalogue.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { sendJsonText } from '../../platform/http/json-text.js';
import { defineModule, type ModuleDeps } from '../../platform/module.js';
import { basicCredentials, type EngineUsers } from '../rest/index.js';
import { Dispatcher } from './dispatcher.js';
import type { WriteBatcher } from '../../platform/db/write-batcher.js';
import type { Caller } from './method.js';
import type { DmTables } from './dm.tables.js';
import { templateMethods } from './templates/template-methods.js';
import { TemplatesRepository } from './templates/templates.repository.js';
import { AssetsRepository } from './assets/assets.repository.js';
import { assetMethods } from './assets/asset-methods.js';
import { templateAssets } from './assets/template-assets.js';
import { SavedQueriesRepository } from './assets/saved-queries.repository.js';
import type { ActionWebhook } from './actions/action-runner.js';
import { dmMigrations } from './dm.migrations.js';
import {
  DATA_MANAGEMENT_METHODS,
  dataManagementAnswer,
  dataManagementBody,
  dataManagementComponents,
} from './dm.openapi.js';

/** Every method the dispatcher runs is in the OpenAPI document, and nothing else (dm.openapi.ts). */
function checkDocumented(contexts: Record<string, Record<string, unknown>>): void {
  const run = Object.entries(contexts).flatMap(([c, m]) => Object.keys(m).map((k) => `${c}.${k}`));
  const documented = Object.entries(DATA_MANAGEMENT_METHODS).flatMap(([c, m]) =>
    Object.keys(m).map((k) => `${c}.${k}`),
  );
  if (run.sort().join() !== documented.sort().join())
    throw new Error(`data management methods and their document differ: ${run.join()} / ${documented.join()}`);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The engine user of a data management call, from its credential check to its handler (this module's scope only). */
    dmCaller: Caller;
  }
}

export const DATA_MANAGEMENT_GROUP = 'DataManagement';
export const API_PROTOCOL_PATH = '/engine/servlet/UploadServlet/api_protocol';

export interface DataManagementConfig {
  actionWebhooks: ActionWebhook[];
  /** The 'inactive versions' feature: a new asset version may stay inactive (activationPolicy). */
  inactiveVersions: boolean;
}

/** The engine's scope in the data management tables (one engine per deployment today). */
const SCOPE = 'engine';

/**
 * `engineUsers`: the engine's users, shared with /engine/rest and under the same credential throttle; `writes`: the
 * service's write batcher (shared with storage: on SQLite, concurrent writes of both share a commit).
 */
export type DataManagementDeps = ModuleDeps<DmTables, DataManagementConfig> & {
  engineUsers: EngineUsers;
  writes: WriteBatcher<DmTables>;
};

/** The data management face: one POST address in a scope of its own, which checks its engine users itself. */
export const dataManagementModule = defineModule({
  name: 'engine-data-management',
  migrations: dmMigrations,
  create(deps: DataManagementDeps) {
    const users = deps.engineUsers;
    const webhooks = new Map(deps.config.actionWebhooks.map((w) => [w.name, w]));
    const templates = new TemplatesRepository(deps.data, SCOPE, deps.dialect);
    const assets = new AssetsRepository(deps.data, SCOPE, deps.dialect);
    const contexts = {
      Template: templateMethods(templates, deps.dialect, webhooks, templateAssets(assets)),
      Asset: assetMethods(assets, templates, new SavedQueriesRepository(SCOPE, deps.dialect), deps.dialect, {
        inactiveVersions: deps.config.inactiveVersions,
        webhooks,
      }),
    };
    checkDocumented(contexts);
    const dispatcher = new Dispatcher(deps.data.db, deps.writes, contexts);
    return {
      credentials: 'own' as const,
      async plugin(app) {
        app.decorateRequest('dmCaller', null as never);
        app.post(
          API_PROTOCOL_PATH,
          {
            // Engine users of group DataManagement only: no or wrong credentials 401, other users 403 (decisions section 9);
            // the engine users' accounts of /engine/rest, under the same credential throttle (429 with Retry-After).
            onRequest: async (request) => {
              const basic = basicCredentials(request.headers.authorization);
              const user = basic && (await users.check(basic.name, basic.password, request.ip));
              if (!user) throw ERRORS.authenticationFailed();
              if (!user.groups.includes(DATA_MANAGEMENT_GROUP))
                throw ERRORS.forbidden(`Requires group ${DATA_MANAGEMENT_GROUP}`);
              request.dmCaller = { name: user.name, groups: user.groups, roles: user.roles ?? [] };
            },
            // The dispatcher checks each call with its method's schema and answers the protocol's own errors, so the
            // route validates nothing; the document shows the calls (dm.openapi.ts).
            config: {
              openapi: {
                schema: { body: dataManagementBody, response: { 200: dataManagementAnswer } },
                components: dataManagementComponents(),
              },
            },
            schema: {
              tags: ['engine'],
              summary:
                'Data management API call {context, method, parameters}, or a batch {requests: [...]} in one transaction',
              description:
                'Every call is one of `#/components/schemas/DataManagement.<Context>.<method>.Call` and answers ' +
                '`DataManagement.<Context>.<method>.Answer`. HTTP Basic as an engine user of group DataManagement.',
              security: [{ basic: [] }],
              body: Type.Unknown({ description: '{"context","method","parameters"} or {"requests":[...]}' }),
              response: {
                200: Type.Record(Type.String(), Type.Unknown(), { description: "The call's answer" }),
                ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 502),
              },
            },
          },
          async (request, reply) => sendJsonText(reply, await dispatcher.handle(request.body, request.dmCaller)),
        );
      },
    };
  },
});
