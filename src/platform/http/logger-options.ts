// How the service logs: pino on stdout, JSON lines for machines, readable lines (pino-pretty, in a worker thread of
// pino's transports, loaded only then) for a person at a terminal.

export type LogFormat = 'auto' | 'json' | 'pretty';

/** Headers that carry secrets: never logged. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-apikey"]',
  'req.headers["x-auth-token"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
];

/** Whether the lines are readable ones: `pretty`, or `auto` with stdout a terminal. */
export function prettyLogs(format: LogFormat, stdoutIsTTY: boolean): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTTY);
}

/** Pino options for the configured level and format. */
export function loggerOptions(server: { logLevel: string; logFormat: LogFormat }, stdoutIsTTY: boolean) {
  const base = { level: server.logLevel, redact: { paths: REDACT, censor: '[redacted]' } };
  if (!prettyLogs(server.logFormat, stdoutIsTTY)) return base;
  return {
    ...base,
    transport: {
      target: 'pino-pretty',
      options: {
        colorize: stdoutIsTTY,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,reqId',
        // The request id leads the line, so that one request's lines are easy to follow.
        messageFormat: '{if reqId}[{reqId}] {end}{msg}',
      },
    },
  };
}
