import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { StaleRead } from '../../platform/db/db-errors.js';
import type { WriteBatcher } from '../../platform/db/write-batcher.js';
import { DM_ERRORS } from './dm.errors.js';
import { checkerOf, newRequestBudget, resultText, type Caller, type MethodHandler } from './method.js';

const Call = Type.Object(
  { context: Type.String(), method: Type.String(), parameters: Type.Optional(Type.Unknown()) },
  { additionalProperties: false },
);
const Batch = Type.Object(
  { requests: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 1000 }) },
  { additionalProperties: false },
);
const isCall = checkerOf(Call);
/** Attempts of a call whose guarded write keeps finding its row changed. */
const MAX_ATTEMPTS = 8;
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
      return this.retrying(() =>
        this.writes.run(async (trx) => {
          const budget = newRequestBudget();
          const responses: string[] = [];
          for (const [i, call] of body.requests.entries()) {
            try {
              const handler = this.handlerOf(call);
              if (handler.callsOut)
                throw DM_ERRORS.invalidCall('a method that calls out (executeAction) runs alone, not in a batch');
              responses.push(
                resultText(await handler(trx, (call as { parameters?: unknown }).parameters, caller, budget)),
              );
            } catch (err) {
              if (err && typeof err === 'object' && 'body' in err)
                (err as { body: { properties: Record<string, unknown> } }).body.properties.request = i;
              throw err;
            }
          }
          return `{"responses":[${responses.join(',')}]}`;
        }),
      );
    }
    const handler = this.handlerOf(body);
    const parameters = (body as { parameters?: unknown }).parameters;
    const budget = newRequestBudget();
    if (handler.callsOut || handler.readOnly) return resultText(await handler(this.db, parameters, caller, budget));
    // One guarded statement is a transaction of its own: where transactions are not shared (PostgreSQL), BEGIN and
    // COMMIT would only add two round trips, and the reads before it batch with other calls' reads.
    if (!this.writes.groups && handler.singleGuardedWrite?.(parameters))
      return resultText(await this.retrying(() => handler(this.db, parameters, caller, newRequestBudget())));
    return resultText(
      await this.retrying(() => this.writes.run((trx) => handler(trx, parameters, caller, newRequestBudget()))),
    );
  }

  /** Runs the call again, reading afresh, when a guarded write found its row changed by a concurrent call. */
  private async retrying<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (!(err instanceof StaleRead)) throw err;
        if (attempt >= MAX_ATTEMPTS)
          throw DM_ERRORS.conflict('the asset kept changing while this call wrote it; try again', {});
        await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
      }
    }
  }

  private handlerOf(call: unknown): MethodHandler {
    if (!isCall.Check(call)) {
      const first = isCall.Errors(call).First();
      throw DM_ERRORS.invalidCall(
        `the call${first?.path ?? ''}: ${first?.message ?? 'invalid'}; expected {context, method, parameters} or {requests: [...]}`,
      );
    }
    const handlers = Object.hasOwn(this.contexts, call.context) ? this.contexts[call.context] : undefined;
    if (!handlers)
      throw DM_ERRORS.invalidCall(`unknown context ${call.context.slice(0, 100)} (Template, Asset)`, {
        context: call.context.slice(0, 100),
      });
    const handler = Object.hasOwn(handlers, call.method) ? handlers[call.method] : undefined;
    if (!handler) throw DM_ERRORS.unknownMethod(call.context, call.method);
    return handler;
  }
}
