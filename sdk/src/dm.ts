// Typed calls of the data management protocol: one endpoint takes every call as {context, method, parameters} and
// a batch as {requests: [...]} (one transaction; a failing call rolls back all and names its index in
// `properties.request`). The process engine's endpoints take HTTP Basic: create the client with `auth: { basic }`.
import type { ClientCore } from './client.js';
import type { DmAnswer, DmAnswerOf, DmContext, DmMethod, DmParameters, DmRequest } from './dm-types.js';
import { ApiError } from './errors.js';

export const API_PROTOCOL_PATH = '/engine/servlet/UploadServlet/api_protocol';

export interface DmHelpers {
  /** One call; answers the method's answer or throws ApiError. */
  call<C extends DmContext, M extends DmMethod<C>>(
    context: C,
    method: M,
    parameters?: DmParameters<C, M>,
  ): Promise<DmAnswer<C, M>>;
  /** Calls run in one transaction; answers each call's answer in order or throws the first failure's ApiError. */
  batch<const R extends readonly DmRequest[]>(requests: R): Promise<{ -readonly [K in keyof R]: DmAnswerOf<R[K]> }>;
}

async function post(core: ClientCore, body: unknown): Promise<unknown> {
  const request = new Request(`${core.baseUrl}${API_PROTOCOL_PATH}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const response = await core.send(request);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: ApiError.from shows the text
  }
  if (!response.ok) throw ApiError.from(parsed, response);
  return parsed;
}

export function createDm(core: ClientCore): DmHelpers {
  return {
    async call(context, method, parameters) {
      return (await post(core, { context, method, parameters: parameters ?? {} })) as never;
    },
    async batch(requests) {
      const answer = (await post(core, { requests })) as { responses: unknown[] };
      return answer.responses as never;
    },
  };
}
