// `backup --to FILE` while the service runs and writes: the copy is whole (integrity check) and serves as a database.
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { makeWorkDir, startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import { ITEM, keyed, OPS_CONFIG, processPlace, type ProcessPlace } from './process-kit.js';

// Each test starts the built service (one or two processes): generous limits for a loaded machine.
const PROCESS_TEST_MS = 120_000;

const STORE = '/cxf/svc-core/storage/store/backup-store';

describeEachEngine('backup --to FILE', (engine) => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups.length = 0;
  });

  async function running(place: ProcessPlace, env: Record<string, string> = place.env): Promise<ServiceProcess> {
    const service = await startServiceProcess({ config: OPS_CONFIG, workDir: place.dir, env });
    cleanups.push(() => service.kill());
    return service;
  }

  it(
    'copies the database while the service writes, and the copy starts as a service',
    async () => {
      const place = await processPlace(engine);
      cleanups.push(() => place.cleanup());
      const service = await running(place);
      const first = (await (await fetch(`${service.url}${STORE}`, keyed(ITEM))).json()) as { id: string };

      // Four writers create items until the backup is done.
      let writing = true;
      let written = 0;
      cleanups.push(() => (writing = false));
      const writers = [0, 1, 2, 3].map(async () => {
        while (writing) {
          const res = await fetch(`${service.url}${STORE}`, keyed(ITEM));
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`a write failed during the backup: ${res.status}`);
          written++;
        }
      });
      while (written < 20) await new Promise((r) => setTimeout(r, 20));
      const to = join(place.dir, 'backup.copy');
      const backup = await runCli(['backup', '--to', to], place.env);
      const writtenDuring = written;
      writing = false;
      await Promise.all(writers);
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(existsSync(`${to}.partial`)).toBe(false);

      if (engine === 'postgres') {
        expect(backup.stdout).toContain(`written to ${to} (custom format; restore with pg_restore)`);
        expect(readFileSync(to).subarray(0, 5).toString()).toBe('PGDMP');
        return;
      }
      expect(backup.stdout).toMatch(/written to .*backup\.copy: \d+ pages, integrity ok/);
      expect(writtenDuring).toBeGreaterThan(20); // the service went on writing while the copy was made
      const copy = new SQLite(to, { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        const { n } = copy.prepare('select count(*) as n from storage_items').get() as { n: number };
        expect(n).toBeGreaterThanOrEqual(21);
      } finally {
        copy.close();
      }
      // A service on the copy serves what was written before it.
      const restored = makeWorkDir();
      cleanups.push(() => restored.cleanup());
      mkdirSync(join(restored.dir, 'data'));
      copyFileSync(to, join(restored.dir, 'data', 'svc.sqlite'));
      const second = await running({ ...place, dir: restored.dir }, { SVC_DATA_DIR: join(restored.dir, 'data') });
      const read = await fetch(`${second.url}${STORE}/${first.id}`, keyed());
      expect(read.status).toBe(200);
      expect(((await read.json()) as { value: number }).value).toBe(1);
    },
    PROCESS_TEST_MS,
  );

  it(
    'never overwrites a file, and needs --to',
    async () => {
      const place = await processPlace(engine);
      cleanups.push(() => place.cleanup());
      await running(place);
      const to = join(place.dir, 'taken');
      mkdirSync(to);
      const taken = await runCli(['backup', '--to', to], place.env);
      expect(taken.code).toBe(1);
      expect(taken.stderr).toBe(`backup failed: ${to} exists; a backup never overwrites a file\n`);
      const usage = await runCli(['backup'], place.env);
      expect(usage.code).toBe(64);
      expect(usage.stderr).toContain('--to is required');
    },
    PROCESS_TEST_MS,
  );

  if (engine === 'sqlite') {
    it(
      'runs beside the service, whose lock still refuses the commands that write',
      async () => {
        const place = await processPlace(engine);
        cleanups.push(() => place.cleanup());
        await running(place);
        const list = await runCli(['user', 'list'], place.env);
        expect(list.code).toBe(3);
        const backup = await runCli(['backup', '--to', join(place.dir, 'b.sqlite')], place.env);
        expect(backup.code).toBe(0);
      },
      PROCESS_TEST_MS,
    );
  } else {
    it(
      'says how to back up when pg_dump is not on PATH',
      async () => {
        const place = await processPlace(engine);
        cleanups.push(() => place.cleanup());
        const to = join(place.dir, 'dump');
        const res = await runCli(['backup', '--to', to], { ...place.env, PATH: join(place.dir, 'no-bin') });
        expect(res.code).toBe(1);
        expect(res.stderr).toContain('PostgreSQL is backed up with pg_dump, which is not on PATH here; run: pg_dump');
        expect(existsSync(to)).toBe(false);
      },
      PROCESS_TEST_MS,
    );
  }
});
