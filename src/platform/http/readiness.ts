// Liveness and readiness for load balancers and orchestrators: /livez says the process serves, /readyz whether this
// instance should get traffic (the database answers, its schema is this build's, the change feed hears other instances,
// and no shutdown has begun).
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { Type } from '@sinclair/typebox';
import { SingleFlight } from '../async/single-flight.js';
import { ERRORS } from '../errors/error-catalogue.js';
import { ErrorResponseSchema } from './schemas.js';

export interface ReadinessDeps {
  db: Kysely<any>;
  /** The names of every schema step this build knows: all must be applied. */
  migrations: readonly string[];
  /** The change feed; `shared` where instances share the database and its listener connection matters. */
  feed: { readonly connected: boolean };
  sharedFeed: boolean;
  /** How long the database has to answer (1 s). */
  timeoutMs: number;
}

type CheckState = 'ok' | 'failing' | 'not used';
const CheckStateSchema = Type.Union([Type.Literal('ok'), Type.Literal('failing'), Type.Literal('not used')]);
const ChecksSchema = Type.Object(
  {
    database: CheckStateSchema,
    schema: CheckStateSchema,
    changeFeed: CheckStateSchema,
    shutdown: Type.Union([Type.Literal('ok'), Type.Literal('failing')], {
      description: '`failing` once a shutdown (SIGTERM) has begun: the instance drains and stops.',
    }),
  },
  {
    description:
      'Each check: `ok`, `failing` or `not used` (the change feed on SQLite: one process owns the database).',
  },
);

export interface Readiness {
  /** From now on /readyz answers 503 (a shutdown has begun); the service goes on serving. */
  startDraining(): void;
  readonly draining: boolean;
}

/**
 * Registers GET /livez and GET /readyz. The database check is one read of the migration table (it answers, and every
 * step of this build is applied), bounded to `timeoutMs`; probes that arrive while one runs share it, so a database
 * that hangs holds one pooled connection, not one per probe.
 */
export function registerReadiness(app: FastifyInstance, deps: ReadinessDeps): Readiness {
  let draining = false;
  let lastState: string | undefined;
  const running = new SingleFlight<'check', string[]>();
  const appliedSteps = async (): Promise<string[]> => {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(deps.db);
    return rows.map((r) => r.name);
  };

  async function check(): Promise<{ problems: string[]; checks: Record<string, CheckState> }> {
    const problems: string[] = [];
    const checks: Record<string, CheckState> = {
      database: 'ok',
      schema: 'ok',
      changeFeed: deps.sharedFeed ? 'ok' : 'not used',
      shutdown: 'ok',
    };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), deps.timeoutMs);
    });
    try {
      const applied = await Promise.race([running.run('check', appliedSteps), timeout]);
      if (applied === 'timeout') {
        checks.database = checks.schema = 'failing';
        problems.push(`the database did not answer within ${deps.timeoutMs} ms`);
      } else {
        const have = new Set(applied);
        const missing = deps.migrations.filter((name) => !have.has(name));
        if (missing.length > 0) {
          checks.schema = 'failing';
          problems.push(`the database schema lacks ${missing.length} step(s) of this version (first: ${missing[0]})`);
        }
      }
    } catch (err) {
      checks.database = checks.schema = 'failing';
      problems.push(`the database failed: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
    if (deps.sharedFeed && !deps.feed.connected) {
      checks.changeFeed = 'failing';
      problems.push("the change feed's listener connection is down (events of other instances are not heard)");
    }
    if (draining) {
      checks.shutdown = 'failing';
      problems.push('the instance is shutting down');
    }
    return { problems, checks };
  }

  app.get(
    '/livez',
    {
      logLevel: 'warn',
      schema: {
        tags: ['operations'],
        summary: 'Liveness: 200 while the process serves',
        description:
          'Checks no dependency: a load balancer or orchestrator restarts the process only when this fails. Also 200 during a shutdown.',
        security: [],
        response: {
          200: Type.Object(
            { status: Type.Literal('ok') },
            { description: 'The process serves requests', examples: [{ status: 'ok' }] },
          ),
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      schema: {
        tags: ['operations'],
        summary: 'Readiness: 200 when this instance should take traffic',
        description:
          'The database answers within 1 s and has every schema step of this version; on PostgreSQL the change feed listener is connected; no shutdown has begun. Otherwise 503 with the error object: its message names what is not ready, `properties.checks` the state of each check.',
        security: [],
        response: {
          200: Type.Object(
            { status: Type.Literal('ready'), checks: ChecksSchema },
            {
              description: 'This instance should take traffic; the state of each check',
              examples: [
                { status: 'ready', checks: { database: 'ok', schema: 'ok', changeFeed: 'ok', shutdown: 'ok' } },
              ],
            },
          ),
          503: ErrorResponseSchema,
        },
      },
    },
    async (request) => {
      const { problems, checks } = await check();
      // A change of state is logged once (a probe every few seconds would otherwise fill the log).
      const state = problems.join('; ');
      if (state !== lastState) {
        if (state) request.log.warn({ checks }, `not ready: ${state}`);
        else if (lastState !== undefined) request.log.warn({ checks }, 'ready again');
        lastState = state;
      }
      if (problems.length > 0) throw ERRORS.notReady(problems, checks);
      return { status: 'ready' as const, checks };
    },
  );

  return {
    startDraining: () => {
      draining = true;
    },
    get draining() {
      return draining;
    },
  };
}
