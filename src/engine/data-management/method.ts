// What every method of the data management API shares: its handler shape, the parameter check by schema and the
// answer as JSON text (stored documents are spliced into answers, not parsed and serialised again).
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { isUniqueViolation } from '../../platform/db/db-errors.js';
import { DM_ERRORS } from './dm.errors.js';

/** An answer already serialised: `{...}` JSON text of the method's response fields. */
export class JsonText {
  constructor(readonly text: string) {}
}

export type MethodResult = Record<string, unknown> | JsonText;

/** The engine user who calls (HTTP Basic, group DataManagement). */
export interface Caller {
  name: string;
  groups: string[];
  roles: string[];
}

/**
 * What one HTTP request's calls may spend together (a batch's calls share it): the caller's regular expressions'
 * program instructions and matching work (assets/group-patterns.ts PATTERN_LIMITS).
 */
export interface RequestBudget {
  patternProgram: number;
  patternWork: number;
}

export const newRequestBudget = (): RequestBudget => ({ patternProgram: 0, patternWork: 0 });

export type MethodHandler<Db = Kysely<any>> = ((
  db: Db,
  parameters: unknown,
  caller: Caller,
  budget: RequestBudget,
) => Promise<MethodResult>) & {
  /** Calls out (a webhook): runs without a transaction, so no database lock waits on another system; not in batches. */
  callsOut?: boolean;
  /** Only reads, in one statement (or reads whose mix needs no snapshot): alone, it needs no transaction. */
  readOnly?: boolean;
  /**
   * Whether the call, with these parameters, writes at most one statement, guarded by what it read (StaleRead when
   * that changed): alone, where each write is its own transaction anyway (PostgreSQL), it runs without one.
   */
  singleGuardedWrite?: (parameters: unknown) => boolean;
};

export type MethodTable<Db = Kysely<any>> = Record<string, MethodHandler<Db>>;

/** Marks a handler as reading only. */
export const reading = <Db>(handler: MethodHandler<Db>): MethodHandler<Db> =>
  Object.assign(handler, { readOnly: true });

/** Marks a handler whose calls write one guarded statement at most when `when` says so (MethodHandler.singleGuardedWrite). */
export const guardedWrite = <Db>(
  when: (parameters: unknown) => boolean,
  handler: MethodHandler<Db>,
): MethodHandler<Db> => Object.assign(handler, { singleGuardedWrite: when });

/** Marks a handler as calling another system (run alone, outside a transaction). */
export const callingOut = <Db>(handler: MethodHandler<Db>): MethodHandler<Db> =>
  Object.assign(handler, { callsOut: true });

export const resultText = (result: MethodResult): string =>
  result instanceof JsonText ? result.text : JSON.stringify(result);

/** A compiled check of the schema; make one per schema, where the schema is defined. */
export const checkerOf = <S extends TSchema>(schema: S): TypeCheck<S> => TypeCompiler.Compile(schema);

/** The method's parameters checked against its schema (absent parameters are `{}`); 400 naming the first problem. */
export function parse<S extends TSchema>(check: TypeCheck<S>, parameters: unknown, method: string): Static<S> {
  const value = parameters ?? {};
  if (!check.Check(value)) {
    const first = check.Errors(value).First();
    throw DM_ERRORS.invalidCall(`${method}: parameters${first?.path ?? ''}: ${first?.message ?? 'invalid'}`, {
      path: `parameters${first?.path ?? ''}`,
    });
  }
  return value as Static<S>;
}

/** Runs a write whose unique constraint (a customId) may refuse it; that refusal becomes the error `taken` makes (409). */
export async function uniquely<T>(dialect: Dialect, work: () => Promise<T>, taken: () => Error): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err, dialect)) throw taken();
    throw err;
  }
}
