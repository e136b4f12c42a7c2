// The calls of the Flow and Engine data pages. Flow instances go through the session client of api.ts; data
// management is the process engine's API, which takes HTTP Basic as an engine user of group DataManagement, so that
// page makes its own SDK client with the engine user's credentials: held in the page's memory only (never stored,
// gone on reload or log out), and a refusal there never ends the console session.
import { type components, createClient, isApiError, unwrap } from '@svc-platform/client';
import { client } from './api';

type Schemas = components['schemas'];
export type FlowInstance = Awaited<ReturnType<typeof flowApi.instances>>['instances'][number];
export type DmAsset = Schemas['DataManagement.Asset'];

export const flowApi = {
  instances: () => unwrap(client.GET('/cxf/svc-flow/instances')),
};

export interface EngineCredentials {
  username: string;
  password: string;
}

/** Read-only data management calls as one engine user; the SDK's typed `dm.call` for each. */
export function engineData(credentials: EngineCredentials) {
  const dm = createClient({ baseUrl: window.location.origin, auth: { basic: credentials } }).dm;
  return {
    /** Proves the credentials with a cheap call (401: wrong, 403: not in group DataManagement). */
    check: () => dm.call('Template', 'query', { limit: 0 }),
    templates: () =>
      dm.call('Template', 'query', { sorters: [{ property: 'customId', direction: 'ASC' }], limit: 200 }),
    /** The template's image as a data: URL, or null when it has none. */
    image: async (customId: string) => {
      try {
        const { image } = await dm.call('Template', 'getImage', { customId });
        return `data:image/png;base64,${image}`;
      } catch (err) {
        if (isApiError(err, 'DM_ERROR_IMAGE_NOT_FOUND')) return null;
        throw err;
      }
    },
    assets: (templateCustomId: string) =>
      dm.call('Asset', 'query', {
        filters: [{ property: 'template.customId', operator: 'eq', value: templateCustomId }],
        sorters: [{ property: 'customId', direction: 'ASC' }],
        limit: 200,
        verbosity: 1,
      }),
    /** The asset with its version history (`other` HEAD: every version's metadata). */
    asset: (id: number) => dm.call('Asset', 'get', { id, other: 'HEAD' }),
    children: (parentId: number) =>
      dm.call('Asset', 'query', {
        filters: [{ property: 'parentId', operator: 'eq', value: parentId }],
        sorters: [{ property: 'customId', direction: 'ASC' }],
        limit: 200,
      }),
  };
}

export type EngineData = ReturnType<typeof engineData>;
