// One process per SQLite database (issue 40, finding 13): the service keeps sessions and credentials exact in memory
// on SQLite because it is the only process; a second `start` (or an admin command while it runs) on the same data
// directory is refused with a clear message and exit code 3. The lock goes with its process however it ends. On
// PostgreSQL, instances share the database by design and a second start runs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, DatabaseInUseError } from '../../src/platform/db/database.js';
import { runCli } from '../helpers/cli.js';
import {
  createProcessDatabase,
  freePort,
  makeWorkDir,
  startServiceProcess,
  type ServiceProcess,
} from '../helpers/service-process.js';

const CONFIG = { identity: { bootstrapAdminPassword: 'admin-pass-1' } };

describe('one process per SQLite database', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const workDir = () => {
    const w = makeWorkDir();
    cleanups.push(w.cleanup);
    return w.dir;
  };
  const start = async (dir: string, env: Record<string, string> = {}) => {
    const service = await startServiceProcess({ config: CONFIG, workDir: dir, env });
    cleanups.push(() => service.kill());
    return service;
  };
  /** `node dist/main.js <args>` on the data directory of `dir`, to its exit. */
  const run = async (dir: string, args: string[], env: Record<string, string> = {}) => {
    const config = join(dir, 'second.json');
    writeFileSync(config, JSON.stringify(CONFIG));
    return runCli(args, {
      SVC_CONFIG: config,
      SVC_DATA_DIR: join(dir, 'data'),
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      ...env,
    });
  };

  // One running service for the refusals (a service start costs seconds on a loaded machine); each refused process
  // must leave it serving, which the second start's test checks after its refusal.
  describe('while a service runs', () => {
    let dir: string;
    let first: ServiceProcess;
    let cleanup: () => void;
    beforeAll(async () => {
      const w = makeWorkDir();
      dir = w.dir;
      cleanup = w.cleanup;
      first = await startServiceProcess({ config: CONFIG, workDir: dir });
    });
    afterAll(async () => {
      await first?.kill();
      cleanup?.();
    });

    it("refuses a second start on the same data directory with exit code 3 and the first one's pid", async () => {
      const second = await run(dir, ['start']);
      expect(second.code).toBe(3);
      expect(second.stderr).toContain(
        `another process (pid ${first.child.pid}) is using ${join(dir, 'data', 'svc.sqlite')}`,
      );
      // The first one serves on, untouched.
      expect((await fetch(`${first.url}/health`)).status).toBe(200);
    });

    it('refuses admin commands that open the database while the service runs', async () => {
      const cli = await run(dir, ['user', 'list']);
      expect(cli.code).toBe(3);
      expect(cli.stderr).toContain(`another process (pid ${first.child.pid}) is using`);
      // Commands that open no database still work.
      expect((await run(dir, ['hash-password', '--password', 'x'])).code).toBe(0);
      expect((await fetch(`${first.url}/health`)).status).toBe(200);
    });
  });

  it('takes the database again after the holder was killed with SIGKILL, or stopped', async () => {
    const dir = workDir();
    const first = await start(dir);
    await first.kill();
    const second = await start(dir);
    expect((await fetch(`${second.url}/health`)).status).toBe(200);
    await second.stop();
    expect(second.child.exitCode).toBe(0);
    const cli = await run(dir, ['user', 'list']);
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
  });

  it('refuses a second open of the same file in one process, and allows it after the first closes', async () => {
    const dir = workDir();
    const first = createDatabase({
      logError: () => {},
      dataDir: dir,
      sqliteReaderThreads: 0,
      sqliteWriterThread: false,
    });
    let refused: unknown;
    try {
      createDatabase({ logError: () => {}, dataDir: dir, sqliteReaderThreads: 0, sqliteWriterThread: false });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(DatabaseInUseError);
    expect((refused as DatabaseInUseError).pid).toBe(process.pid);
    await first.destroy();
    const again = createDatabase({
      logError: () => {},
      dataDir: dir,
      sqliteReaderThreads: 0,
      sqliteWriterThread: false,
    });
    await again.destroy();
  });

  it.skipIf(!inject('pgUrl'))('lets two instances share one PostgreSQL database (scale-out)', async () => {
    const database = await createProcessDatabase(inject('pgUrl'));
    cleanups.push(() => database.drop());
    const dir = workDir();
    const env = { DATABASE_URL: database.url };
    const first = await start(dir, env);
    const second = await start(dir, env);
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    expect((await fetch(`${second.url}/health`)).status).toBe(200);
  });
});
