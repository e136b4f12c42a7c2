#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config/load-config.js';
import { CLI_USAGE, CommandError, UsageError, runAdminCommand } from './cli/admin-cli.js';
import { DatabaseInUseError } from './platform/db/database.js';
import { BackupError } from './cli/backup.js';
import { keepTickShape } from './platform/runtime/tick-shape.js';

/** Exit codes an operator's script can tell apart: 2 config, 3 database in use by another process, 64 usage. */
const EXIT_DATABASE_IN_USE = 3;

async function start(): Promise<void> {
  // Kept for the process's life: the signal listeners below hold it (see keepTickShape).
  const tickShape = keepTickShape();
  const config = loadConfig(process.env);
  const built = await buildApp(config);
  const { app } = built;
  if (built.bootstrapPassword) {
    app.log.warn(
      `created tenant "default" with user "admin"; its generated password (shown only now) is: ${built.bootstrapPassword}`,
    );
  }
  // SIGTERM (an orchestrator, a deploy) drains first: readiness turns 503 and the service serves on for
  // server.drainSeconds while the load balancer stops sending. SIGINT (Ctrl-C at a terminal) skips the drain, also
  // when it comes during one. A second identical signal ends the process at once (the listener is gone).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void tickShape;
      const drainMs = signal === 'SIGTERM' ? config.server.drainSeconds * 1000 : 0;
      app.log.info(`${signal}: shutting down${drainMs > 0 ? `, draining for ${drainMs / 1000} s` : ''}`);
      built.shutdown(drainMs).then(
        () => process.exit(0),
        (err: unknown) => {
          app.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  // Ready means ready: SQLite's threads run before the first request (else the first write waited for its thread).
  await built.database.openThreads?.();
  await app.listen({ host: config.server.host, port: config.server.port });
  app.log.info(`database: ${built.database.describe}`);
}

/** `name version` of package.json, read when asked: it sits beside src/ and dist/, one level above this file. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
  };
  return `${pkg.name} ${pkg.version}`;
}

async function main(argv: string[]): Promise<void> {
  const [command = 'start'] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    console.log(CLI_USAGE);
    return;
  }
  if (command === 'version' || command === '--version' || command === '-v') {
    console.log(packageVersion());
    return;
  }
  if (command === 'start') return start();
  await runAdminCommand(argv, loadConfig(process.env), (line) => console.log(line));
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`config error: ${err.message}`);
    process.exit(2);
  }
  if (err instanceof DatabaseInUseError) {
    console.error(err.message);
    process.exit(EXIT_DATABASE_IN_USE);
  }
  if (err instanceof UsageError || (err as { code?: string })?.code?.startsWith?.('ERR_PARSE_ARGS')) {
    console.error(`${(err as Error).message}\n\n${CLI_USAGE}`);
    process.exit(64);
  }
  if (err instanceof BackupError) {
    console.error(`backup failed: ${err.message}`);
    process.exit(1);
  }
  if (err instanceof CommandError) {
    console.error(err.message);
    process.exit(1);
  }
  // Never a stack trace on the console for an operator mistake; the message names the problem.
  console.error(`start failed: ${(err as Error)?.message ?? String(err)}`);
  process.exit(1);
});
