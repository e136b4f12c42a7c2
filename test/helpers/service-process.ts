// The real service as an operator runs it: `node dist/main.js start` in its own process (npm test builds dist first),
// with a config file, a data directory or a PostgreSQL database of its own, and signals from outside.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { MAIN } from './cli.js';

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGKILL: no shutdown hook runs, nothing is flushed by the service. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit (the graceful path). */
  stop(): Promise<void>;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts `node dist/main.js start` and resolves once /health answers. */
export async function startServiceProcess(opts: {
  config: unknown;
  workDir: string;
  env?: Record<string, string>;
}): Promise<ServiceProcess> {
  const configFile = join(opts.workDir, `config-${randomBytes(4).toString('hex')}.json`);
  // No drain on SIGTERM unless the test asks for one (server.drainSeconds): stop() would wait its 5 s default.
  const config = opts.config as { server?: Record<string, unknown> };
  writeFileSync(configFile, JSON.stringify({ ...config, server: { drainSeconds: 0, ...config.server } }));
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, 'start'], {
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'warn',
      SVC_CONFIG: configFile,
      HOST: '127.0.0.1',
      PORT: String(port),
      SVC_DATA_DIR: join(opts.workDir, 'data'),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  // A hang guard: on a busy machine a start has taken over 10 s.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`service exited during start-up: ${out}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not answer /health within 90 s: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    url,
    child,
    output: () => out,
    async kill() {
      if (!gone()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!gone()) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A working directory for config files and the SQLite data of one test; removed by `cleanup`. */
export function makeWorkDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-proc-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A PostgreSQL database of its own for processes that cannot be handed a schema, made beside the run's database
 * (`pgUrl` of the global setup) and dropped with `drop`.
 */
export async function createProcessDatabase(runUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_proc_${randomBytes(5).toString('hex')}`;
  const admin = new URL(runUrl);
  admin.pathname = '/postgres';
  const exec = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await exec(`CREATE DATABASE ${name}`);
  const url = new URL(runUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
