// The types of the data management protocol (`POST /engine/servlet/UploadServlet/api_protocol`): for each context
// and method, its parameters and its answer. They come from the OpenAPI document's components named
// `DataManagement.<Context>.<method>.Parameters` and `.Answer`; while the document has none (an older service), the
// method names below are checked and parameters and answers are plain JSON objects.
import type { components } from './schema.js';

type JsonObject = Record<string, unknown>;

/** The document's component schemas (none: an empty map, not `never`, whose keys would be every string). */
type Schemas = [components['schemas']] extends [never] ? Record<never, never> : components['schemas'];

type GeneratedNames = Extract<keyof Schemas, `DataManagement.${string}.${string}.Parameters`>;
type ContextOf<N> = N extends `DataManagement.${infer C}.${string}.Parameters` ? C : never;
type MethodOf<N, C extends string> = N extends `DataManagement.${C}.${infer M}.Parameters` ? M : never;
type SchemaOr<K, Fallback> = K extends keyof Schemas ? Schemas[K] : Fallback;

type GeneratedCalls = {
  [C in ContextOf<GeneratedNames>]: {
    [M in MethodOf<GeneratedNames, C>]: {
      parameters: SchemaOr<`DataManagement.${C}.${M}.Parameters`, JsonObject>;
      answer: SchemaOr<`DataManagement.${C}.${M}.Answer`, JsonObject>;
    };
  };
};

type Loose<Methods extends string> = { [M in Methods]: { parameters: JsonObject; answer: JsonObject } };

/** The methods the service serves (src/engine/data-management/*-methods.ts), for documents without the schemas. */
export interface FallbackDmCalls {
  Template: Loose<
    'create' | 'update' | 'delete' | 'get' | 'getImage' | 'setImage' | 'getActionAttributes' | 'executeAction' | 'query'
  >;
  Asset: Loose<
    | 'create'
    | 'update'
    | 'delete'
    | 'get'
    | 'query'
    | 'getActionAttributes'
    | 'executeAction'
    | 'saveQuery'
    | 'deleteQuery'
  >;
}

/** Context -> method -> { parameters, answer }: from the document when it has the schemas. */
export type DmCalls = [GeneratedNames] extends [never] ? FallbackDmCalls : GeneratedCalls;

export type DmContext = keyof DmCalls & string;
export type DmMethod<C extends DmContext> = keyof DmCalls[C] & string;
export type DmParameters<C extends DmContext, M extends DmMethod<C>> = DmCalls[C][M] extends { parameters: infer P }
  ? P
  : never;
export type DmAnswer<C extends DmContext, M extends DmMethod<C>> = DmCalls[C][M] extends { answer: infer A }
  ? A
  : never;

/** One call of a batch: every context and method with its own parameters (a union, checked member by member). */
export type DmRequest = {
  [C in DmContext]: {
    [M in DmMethod<C>]: { context: C; method: M; parameters?: DmParameters<C, M> };
  }[DmMethod<C>];
}[DmContext];

/** The answer of one call of a batch. */
export type DmAnswerOf<R> = R extends { context: infer C extends DmContext; method: infer M }
  ? M extends DmMethod<C>
    ? DmAnswer<C, M>
    : never
  : never;
