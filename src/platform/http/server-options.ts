// The time limits of the HTTP server. Fastify's own defaults wait for a request body for ever (requestTimeout 0) and
// keep idle connections 72 s; a client could hold sockets until the process ran out of file descriptors.

/** The `server` section's time limits (config.schema.ts). */
export interface ServerTimeLimits {
  requestTimeoutSeconds: number;
  headersTimeoutSeconds: number;
  keepAliveTimeoutSeconds: number;
}

/** Fastify options (and the Node server options under `http`) for the configured time limits. */
export function serverTimeouts(server: ServerTimeLimits) {
  const requestTimeout = Math.round(server.requestTimeoutSeconds * 1000);
  // Node refuses a headers timeout above the request timeout; the request timeout covers the headers anyway.
  const headersTimeout = Math.min(Math.round(server.headersTimeoutSeconds * 1000), requestTimeout);
  return {
    requestTimeout,
    keepAliveTimeout: Math.round(server.keepAliveTimeoutSeconds * 1000),
    http: {
      requestTimeout,
      headersTimeout,
      // Node looks for requests past their time only this often (30 s by default, which would double a 30 s limit).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
      // Answered by checkRequestHead with the error object (Node's own answer is an empty 400).
      requireHostHeader: false,
    },
  };
}
