// The data management API of the process engine: one POST address for Template and Asset calls, by engine users of
// group DataManagement. This part holds the protocol endpoint and context Template; it owns dm_templates.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ERRORS } from '../../platform/errors/error-catalogue.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { sendJsonText } from '../../platform/http/json-text.js';
import type { ModuleDeps, PlatformModule } from '../../platform/module.js';
import { basicCredentials, EngineUsers, type EngineUserConfig } from '../rest/index.js';
import { Dispatcher } from './dispatcher.js';
import type { DmTables } from './dm.tables.js';
import { templateMethods } from './templates/template-methods.js';
import { TemplatesRepository } from './templates/templates.repository.js';
import type { ActionWebhook } from './actions/action-runner.js';

export { dmMigrations } from './dm.migrations.js';

export const DATA_MANAGEMENT_GROUP = 'DataManagement';
export const API_PROTOCOL_PATH = '/engine/servlet/UploadServlet/api_protocol';

export interface DataManagementConfig {
  users: EngineUserConfig[];
  actionWebhooks: ActionWebhook[];
}

export type DataManagementDeps = ModuleDeps<DmTables, DataManagementConfig>;

export function createDataManagementModule(deps: DataManagementDeps): PlatformModule {
  const users = new EngineUsers(deps.config.users);
  const dispatcher = new Dispatcher(deps.db, {
    Template: templateMethods(new TemplatesRepository(deps.db, 'engine', deps.dialect), deps.dialect, new Map(deps.config.actionWebhooks.map((w) => [w.name, w]))),
    // Context Asset is the second part of this API (its methods answer 400 "no method ... in context Asset" until then).
    Asset: {},
  });
  return {
    name: 'engine-data-management',
    routes(app: FastifyInstance) {
      app.post(
        API_PROTOCOL_PATH,
        {
          // Engine users of group DataManagement only: no or wrong credentials 401, other users 403 (decisions section 9).
          onRequest: async (request) => {
            const basic = basicCredentials(request.headers.authorization);
            const user = basic && (await users.check(basic.name, basic.password));
            if (!user) throw ERRORS.authenticationFailed();
            if (!user.groups.includes(DATA_MANAGEMENT_GROUP)) throw ERRORS.forbidden(`Requires group ${DATA_MANAGEMENT_GROUP}`);
          },
          schema: {
            tags: ['engine'],
            summary: 'Data management API call {context, method, parameters}, or a batch {requests: [...]} in one transaction',
            security: [{ basic: [] }],
            body: Type.Unknown({ description: '{"context","method","parameters"} or {"requests":[...]}' }),
            response: { 200: Type.Record(Type.String(), Type.Unknown()), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
          },
        },
        async (request, reply) => sendJsonText(reply, await dispatcher.handle(request.body)),
      );
    },
    start: () => users.start(),
  };
}
