import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { WriteBatcher } from '../../platform/db/write-batcher.js';
import { DM_ERRORS } from './dm.errors.js';
import { checkerOf, resultText, type Caller, type MethodHandler } from './method.js';

const Call = Type.Object({ context: Type.String(), method: Type.String(), parameters: Type.Optional(Type.Unknown()) }, { additionalProperties: false });
const Batch = Type.Object({ requests: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 1000 }) }, { additionalProperties: false });
const isCall = checkerOf(Call);
const isBatch = checkerOf(Batch);

/**
 * Routes `{context, method, parameters}` to the method's handler; a batch `{"requests":[...]}` runs every call in one
 * transaction and answers `{"responses":[...]}` (one failing call rolls all back). Every call that writes runs inside
 * one transaction, so a failed call leaves nothing half-written. Answers JSON text.
 */
export class Dispatcher {
  constructor(
    private readonly db: Kysely<any>,
    /** Transactions of writing calls; on SQLite, concurrent calls commit together (each in its own savepoint). */
    private readonly writes: WriteBatcher<any>,
    private readonly contexts: Record<string, Record<string, MethodHandler>>,
  ) {}

  async handle(body: unknown, caller: Caller): Promise<string> {
    if (isBatch.Check(body)) {
      return this.writes.run(async (trx) => {
        const responses: string[] = [];
        for (const [i, call] of body.requests.entries()) {
          try {
            const handler = this.handlerOf(call);
            if (handler.callsOut) throw DM_ERRORS.invalidCall('a method that calls out (executeAction) runs alone, not in a batch');
            responses.push(resultText(await handler(trx, (call as { parameters?: unknown }).parameters, caller)));
          } catch (err) {
            if (err && typeof err === 'object' && 'body' in err) (err as { body: { properties: Record<string, unknown> } }).body.properties.request = i;
            throw err;
          }
        }
        return `{"responses":[${responses.join(',')}]}`;
      });
    }
    const handler = this.handlerOf(body);
    const parameters = (body as { parameters?: unknown }).parameters;
    if (handler.callsOut || handler.readOnly) return resultText(await handler(this.db, parameters, caller));
    return resultText(await this.writes.run((trx) => handler(trx, parameters, caller)));
  }

  private handlerOf(call: unknown): MethodHandler {
    if (!isCall.Check(call)) {
      const first = isCall.Errors(call).First();
      throw DM_ERRORS.invalidCall(`the call${first?.path ?? ''}: ${first?.message ?? 'invalid'}; expected {context, method, parameters} or {requests: [...]}`);
    }
    const handlers = Object.hasOwn(this.contexts, call.context) ? this.contexts[call.context] : undefined;
    if (!handlers) throw DM_ERRORS.invalidCall(`unknown context ${call.context.slice(0, 100)} (Template, Asset)`, { context: call.context.slice(0, 100) });
    const handler = Object.hasOwn(handlers, call.method) ? handlers[call.method] : undefined;
    if (!handler) throw DM_ERRORS.unknownMethod(call.context, call.method);
    return handler;
  }
}
