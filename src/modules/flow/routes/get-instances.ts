import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { requireRoleOrRight } from '../../../platform/auth/auth-plugin.js';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import type { FlowContext } from '../flow.context.js';
import { ERRORS_SHOWN, PROBE_CACHE_MS, PROBE_TIMEOUT_MS } from '../flow-health.js';

/** Who may read the instances: the platform's administrators, or a caller given just this right. */
export const FLOW_INSTANCES_ROLE = 'ADMIN';
export const FLOW_INSTANCES_RIGHT = 'FLOW_INSTANCES_READ';

const UpstreamErrorSchema = Type.Object(
  {
    at: Type.String({ format: 'date-time', description: 'When the call ended' }),
    method: Type.String(),
    path: Type.String({ description: 'The path called on the instance, without the query string' }),
    status: Type.Integer({ description: "What the caller was answered: the instance's 5xx, or the proxy's 502 / 504" }),
    error: Type.Optional(
      Type.String({ description: 'Why the instance failed the call when it did not answer: ECONNREFUSED, ...' }),
    ),
  },
  { additionalProperties: false },
);

const InstanceSchema = Type.Object(
  {
    id: Type.String(),
    origin: Type.String({ description: "The instance URL's scheme, host and port (never its path nor credentials)" }),
    reachable: Type.Boolean({ description: 'Whether the probe got an HTTP answer (any status)' }),
    checkedAt: Type.String({ format: 'date-time', description: 'When the probe ran (answers are reused for 5 s)' }),
    probeStatus: Type.Optional(Type.Integer({ description: "The probe's HTTP status, when it got one" })),
    probeError: Type.Optional(Type.String({ description: "The probe's error code, when it got no answer" })),
    latencyMs: Type.Integer({ description: "The probe's duration" }),
    lastErrors: Type.Array(UpstreamErrorSchema, {
      description: `The newest upstream errors of calls by your tenant's callers (at most ${ERRORS_SHOWN}), newest first`,
    }),
  },
  { additionalProperties: false },
);

const example = {
  instances: [
    {
      id: 'main',
      origin: 'http://127.0.0.1:9000',
      reachable: true,
      checkedAt: '2026-11-27T12:00:00.000Z',
      probeStatus: 200,
      latencyMs: 3,
      lastErrors: [
        {
          at: '2026-11-27T11:58:10.512Z',
          method: 'POST',
          path: '/base/engine-rest/process-definition/key/invoice/start',
          status: 502,
          error: 'ECONNREFUSED',
        },
      ],
    },
  ],
};

/** `GET /cxf/svc-flow/instances`: the configured instances with reachability and their last upstream errors. */
export function getInstancesRoute(app: FastifyInstance, ctx: FlowContext): void {
  app.get(
    '/instances',
    {
      preHandler: requireRoleOrRight(FLOW_INSTANCES_ROLE, FLOW_INSTANCES_RIGHT),
      schema: {
        tags: ['flow'],
        summary: `The flow instances, reachable or not, with their last errors (role ${FLOW_INSTANCES_ROLE} or right ${FLOW_INSTANCES_RIGHT})`,
        description:
          "Every configured instance in the config's order. `reachable` comes from a HEAD of the instance URL with " +
          `the instance's credentials, waiting at most ${PROBE_TIMEOUT_MS / 1000} s: any HTTP answer counts. A probe's ` +
          `result is reused for ${PROBE_CACHE_MS / 1000} s and concurrent readers share one probe, so reading this ` +
          "cannot hammer an instance. `lastErrors` are the proxy's failed calls (the instance unreachable, too slow, " +
          "cut off, or answering 5xx), kept in this process's memory (100 per instance); you see those of your " +
          "tenant's callers only.",
        response: {
          200: answer(
            Type.Object({ instances: Type.Array(InstanceSchema) }, { additionalProperties: false }),
            'The instances',
            example,
          ),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) => {
      const tenantId = request.principal.tenantId;
      const instances = await Promise.all(
        ctx.instances.all().map(async (instance) => {
          const probe = await ctx.health.reachability(instance);
          return {
            id: instance.id,
            origin: instance.base.origin,
            reachable: probe.reachable,
            checkedAt: probe.checkedAt,
            ...(probe.status !== undefined ? { probeStatus: probe.status } : {}),
            ...(probe.error !== undefined ? { probeError: probe.error } : {}),
            latencyMs: probe.latencyMs,
            lastErrors: ctx.health.recentErrors(instance.id, tenantId),
          };
        }),
      );
      return { instances };
    },
  );
}
