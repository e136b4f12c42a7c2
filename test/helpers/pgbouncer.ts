// A real PgBouncer in transaction pooling mode in front of the test server, started by the tests themselves (never
// as a system service): a pgbouncer.ini of its own (any user, trust towards the server, a free port), the binary as a
// child process, stopped with the tests. Debian's package (`apt-get install pgbouncer`; `.ci/run` installs it).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCi } from './global-setup.js';
import { freePort } from './service-process.js';

export interface PgBouncer {
  /** `url` (a database on the test server) as reached through PgBouncer. */
  through(url: string): string;
  /** Everything PgBouncer wrote (its log), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const BINARIES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

/** The installed binary, or undefined: then the caller skips with a banner (and fails under CI). */
export function pgbouncerBinary(): string | undefined {
  return BINARIES.find((b) => existsSync(b));
}

/** Throws under CI, where PgBouncer must be installed (`.ci/run` does it); otherwise prints the banner once. */
export function reportMissingPgBouncer(what: string): void {
  if (isCi(process.env)) throw new Error(`CI=${process.env.CI}: pgbouncer is required for ${what} but not installed`);
  console.warn(`\n*** ${what} SKIPPED: pgbouncer is not installed (apt-get install pgbouncer).\n`);
}

/** Starts PgBouncer (transaction pooling) in front of the server of `serverUrl`; resolves once it accepts. */
export async function startPgBouncer(serverUrl: string): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error('pgbouncer is not installed');
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pgbouncer-'));
  chmodSync(dir, 0o755);
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      // Every database name goes to the same name on the test server, logged in as its user.
      `* = host=${server.hostname} port=${server.port || 5432} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 20',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  // PgBouncer refuses to run as root: as root (CI), it runs as the postgres user.
  const asUser = process.getuid?.() === 0 ? ownerOfServer() : {};
  const child: ChildProcess = spawn(binary, [ini], { stdio: ['ignore', 'pipe', 'pipe'], ...asUser });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 15_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited at start: ${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not listen within 15 s: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    through(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function ownerOfServer(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
