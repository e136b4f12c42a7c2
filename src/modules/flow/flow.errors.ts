import { AppError } from '../../platform/errors/app-error.js';

/** The flow proxy's own errors (decisions.md section 8). */
export const FLOW_ERRORS = {
  instanceNotFound: (instanceId: string) =>
    new AppError(404, {
      messageKey: 'FLOW_ERROR_INSTANCE_NOT_FOUND',
      name: 'NOT_FOUND',
      message: `No flow instance ${instanceId.slice(0, 200)}`,
      properties: { instanceId: instanceId.slice(0, 200) },
    }),
  invalidTarget: (reason: string) =>
    new AppError(400, {
      messageKey: 'FLOW_ERROR_INVALID_TARGET',
      name: 'BAD_REQUEST',
      message: `The target is not a path under the instance: ${reason}`,
      properties: { reason },
    }),
  upstreamUnreachable: (instanceId: string) =>
    new AppError(502, {
      messageKey: 'FLOW_ERROR_UPSTREAM_UNREACHABLE',
      name: 'BAD_GATEWAY',
      message: `Flow instance ${instanceId} could not be reached`,
      properties: { instanceId },
    }),
  upstreamTimeout: (instanceId: string, seconds: number) =>
    new AppError(504, {
      messageKey: 'FLOW_ERROR_UPSTREAM_TIMEOUT',
      name: 'GATEWAY_TIMEOUT',
      message: `Flow instance ${instanceId} did not answer within ${seconds} s`,
      properties: { instanceId, timeoutSeconds: seconds },
    }),
} as const;
