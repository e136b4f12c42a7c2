import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Kysely } from 'kysely';
import { DM_ERRORS } from './dm.errors.js';
import type { DmTables } from './dm.tables.js';
import type { MethodHandler } from './templates/template-methods.js';

const Call = Type.Object({ context: Type.String(), method: Type.String(), parameters: Type.Optional(Type.Unknown()) }, { additionalProperties: false });
const Batch = Type.Object({ requests: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 1000 }) }, { additionalProperties: false });

/**
 * Routes `{context, method, parameters}` to the method's handler; a batch `{"requests":[...]}` runs every call in one
 * transaction and answers `{"responses":[...]}` (one failing call rolls all back). Every call of a request runs inside
 * one transaction, so a failed call leaves nothing half-written.
 */
export class Dispatcher {
  constructor(
    private readonly db: Kysely<DmTables>,
    private readonly contexts: Record<string, Record<string, MethodHandler>>,
  ) {}

  async handle(body: unknown): Promise<Record<string, unknown>> {
    if (Value.Check(Batch, body)) {
      return this.db.transaction().execute(async (trx) => {
        const responses = [];
        for (const [i, call] of body.requests.entries()) {
          try {
            const handler = this.handlerOf(call);
            if (handler.callsOut) throw DM_ERRORS.invalidCall('a method that calls out (executeAction) runs alone, not in a batch');
            responses.push(await handler(trx, (call as { parameters?: unknown }).parameters));
          } catch (err) {
            if (err && typeof err === 'object' && 'body' in err) (err as { body: { properties: Record<string, unknown> } }).body.properties.request = i;
            throw err;
          }
        }
        return { responses };
      });
    }
    const handler = this.handlerOf(body);
    const parameters = (body as { parameters?: unknown }).parameters;
    if (handler.callsOut || handler.readOnly) return handler(this.db, parameters);
    return this.db.transaction().execute((trx) => handler(trx, parameters));
  }

  private handlerOf(call: unknown): MethodHandler {
    if (!Value.Check(Call, call)) {
      const first = Value.Errors(Call, call).First();
      throw DM_ERRORS.invalidCall(`the call${first?.path ?? ''}: ${first?.message ?? 'invalid'}; expected {context, method, parameters} or {requests: [...]}`);
    }
    const handlers = Object.hasOwn(this.contexts, call.context) ? this.contexts[call.context] : undefined;
    if (!handlers) throw DM_ERRORS.invalidCall(`unknown context ${call.context.slice(0, 100)} (Template, Asset)`, { context: call.context.slice(0, 100) });
    const handler = Object.hasOwn(handlers, call.method) ? handlers[call.method] : undefined;
    if (!handler) throw DM_ERRORS.unknownMethod(call.context, call.method);
    return handler;
  }
}
