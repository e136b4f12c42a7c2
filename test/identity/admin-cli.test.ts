import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig, parseConfig } from '../../src/config/load-config.js';
import { CommandError, runAdminCommand, UsageError } from '../../src/cli/admin-cli.js';
import { createDatabase } from '../../src/platform/db/database.js';
import { describeEachEngine, login, type TestApp } from '../helpers/test-app.js';
import { runCli } from '../helpers/cli.js';

/** The CLI and the app must see one database: a SQLite dir, or a PostgreSQL schema named in the URL. */
async function cliTarget(engine: 'sqlite' | 'postgres') {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    return {
      env: { SVC_DATA_DIR: dir } as Record<string, string>,
      open: () => createDatabase({ logError: () => {}, dataDir: dir }),
      drop: async () => {},
    };
  }
  const base = inject('pgUrl');
  const schema = `cli_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = `${base}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    env: { DATABASE_URL: url } as Record<string, string>,
    open: () => createDatabase({ logError: () => {}, url, dataDir: '' }),
    // Left to the run's database drop, as in openTestDatabase (a schema dropped mid-run broke other files' migrations).
    drop: async () => undefined,
  };
}

/**
 * An admin command as main.ts runs it (runAdminCommand on loadConfig of the environment), in this process: for the
 * commands whose process-level part (exit codes, stderr, stdin) a spawned run of the built CLI in the same test
 * already covers. A spawn of dist/main.js costs about a second on a loaded machine; this file made 12 per engine.
 */
async function inProcess(args: string[], env: Record<string, string>): Promise<{ stdout: string }> {
  const lines: string[] = [];
  await runAdminCommand(args, loadConfig({ LOG_LEVEL: 'warn', ...env }), (line) => lines.push(line));
  return { stdout: lines.map((line) => `${line}\n`).join('') };
}

describeEachEngine('admin CLI', (engine) => {
  let target: Awaited<ReturnType<typeof cliTarget>>;
  beforeAll(async () => {
    target = await cliTarget(engine);
  });
  afterAll(() => target.drop());

  /** The service as `npm start` would build it, on the CLI's database, for one request. */
  async function withApp<T>(fn: (t: TestApp) => Promise<T>): Promise<T> {
    const database = target.open();
    const built = await buildApp(parseConfig({ server: { logLevel: 'silent' } }), { database, logger: false });
    try {
      return await fn({ ...built, engine, request: (o) => built.app.inject(o) } as TestApp);
    } finally {
      await built.close();
      await database.destroy();
    }
  }

  it('creates a user, changes it, sets its password and lists it', async () => {
    const cli = (...args: string[]) => runCli(args, target.env);
    let r = await cli(
      'user',
      'set',
      '--tenant',
      'acme',
      '--login',
      'carol',
      '--password',
      'first-pw',
      '--roles',
      'FORMS_ADMIN,X',
      '--email',
      'c@example.com',
      '--organisations',
      'o1',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await inProcess(['user', 'set', '--tenant', 'acme', '--login', 'carol', '--first-name', 'Carol'], target.env);
    r = await runCli(
      ['user', 'passwd', '--tenant', 'acme', '--login', 'carol', '--password-stdin'],
      target.env,
      'second-pw\n',
    );
    expect(r.code).toBe(0);
    const listed = await inProcess(['user', 'list', '--tenant', 'acme'], target.env);
    expect(listed.stdout).toContain('acme\tcarol\tactive\troles=FORMS_ADMIN,X');

    await withApp(async (t) => {
      const s = await login(t, 'acme', 'carol', 'second-pw');
      expect(s.record).toMatchObject({
        firstName: 'Carol',
        email: 'c@example.com',
        organisations: ['o1'],
        roles: ['FORMS_ADMIN', 'X'],
      });
    });
  });

  it('creates an API key, prints it once, and stores only its hash', async () => {
    const r = await inProcess(
      [
        'apikey',
        'create',
        '--tenant',
        'acme',
        '--name',
        'robot',
        '--roles',
        'R1',
        '--expires-on',
        '2999-01-01T00:00:00Z',
      ],
      target.env,
    );
    const key = r.stdout.trim().split('\n').pop()!;
    expect(key).toMatch(/^sk-/);
    const list = await inProcess(['apikey', 'list'], target.env);
    expect(list.stdout).toContain('acme\trobot\texpires=2999-01-01T00:00:00.000Z\troles=R1');
    expect(list.stdout).not.toContain(key);
    await withApp(async (t) => {
      const who = await t.request({
        method: 'GET',
        url: '/cxf/svc-core/authentication/principal',
        headers: { 'x-apikey': key },
      });
      expect(who.statusCode).toBe(200);
      expect(who.json()).toMatchObject({ loginName: 'robot', roles: ['R1'], kind: 'apiKey' });
      const rows = await t.database.db.selectFrom('api_keys').select('key_hash').execute();
      expect(JSON.stringify(rows)).not.toContain(key);
    });
  });

  it('migrate says which migrations it applied, and "up to date" only when none', async () => {
    const fresh = await cliTarget(engine);
    try {
      const first = await runCli(['migrate'], fresh.env);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      const [head, ...names] = first.stdout.trim().split('\n');
      const count = Number(/^applied (\d+) migrations to \S+:$/.exec(head)?.[1]);
      expect(count).toBeGreaterThan(20);
      expect(names).toHaveLength(count);
      expect(names).toContain('  2026-11-22-identity-001-initial');
      expect(first.stdout).not.toContain('up to date');
      const again = await inProcess(['migrate'], fresh.env);
      expect(again.stdout.trim()).toMatch(/^schema of \S+ is up to date: no migration to apply$/);
    } finally {
      await fresh.drop();
    }
  });

  it('deletes a user, revokes a key and ends sessions, through the services of the HTTP administration', async () => {
    await inProcess(['user', 'set', '--tenant', 'cli', '--login', 'dora', '--password', 'dora-pw-123'], target.env);
    await inProcess(['user', 'set', '--tenant', 'cli', '--login', 'eve', '--password', 'eve-pw-1234'], target.env);
    const created = await inProcess(['apikey', 'create', '--tenant', 'cli', '--name', 'bot'], target.env);
    const key = created.stdout.trim().split('\n').pop()!;
    // Sessions made by the service, then ended by the CLI with the service stopped (SQLite: one process at a time).
    const { cookies, ids } = await withApp(async (t) => {
      const made = [
        (await login(t, 'cli', 'dora', 'dora-pw-123')).cookie,
        (await login(t, 'cli', 'eve', 'eve-pw-1234')).cookie,
        (await login(t, 'cli', 'eve', 'eve-pw-1234')).cookie,
      ];
      const rows = await t.database.db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select('s.id_hash')
        .where('u.login_name', '=', 'eve')
        .execute();
      return { cookies: made, ids: rows.map((r) => r.id_hash) };
    });
    expect(ids).toHaveLength(2);

    let r = await runCli(['session', 'end', '--tenant', 'cli', '--login', 'eve', '--id', ids[0]], target.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 session(s) of user eve of tenant cli ended');
    expect((await inProcess(['session', 'end', '--tenant', 'cli', '--login', 'eve'], target.env)).stdout).toContain(
      '1 session(s)',
    );
    expect((await inProcess(['user', 'delete', '--tenant', 'cli', '--login', 'dora'], target.env)).stdout).toContain(
      'user dora of tenant cli deleted; 1 session(s) ended',
    );
    expect((await inProcess(['apikey', 'revoke', '--tenant', 'cli', '--name', 'bot'], target.env)).stdout).toContain(
      'api key bot of tenant cli revoked',
    );

    // Unknown targets: a message and exit code 1, no stack trace.
    r = await runCli(['user', 'delete', '--tenant', 'cli', '--login', 'dora'], target.env);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('No user dora in this tenant');
    await expect(inProcess(['apikey', 'revoke', '--tenant', 'cli', '--name', 'bot'], target.env)).rejects.toThrow(
      CommandError,
    );
    await expect(inProcess(['session', 'end', '--tenant', 'nope', '--login', 'x'], target.env)).rejects.toThrow(
      /No tenant nope/,
    );

    await withApp(async (t) => {
      for (const cookie of cookies) {
        const who = await t.request({
          method: 'GET',
          url: '/cxf/svc-core/authentication/principal',
          headers: { cookie },
        });
        expect(who.statusCode).toBe(401);
      }
      const bot = await t.request({
        method: 'GET',
        url: '/cxf/svc-core/authentication/principal',
        headers: { 'x-apikey': key },
      });
      expect(bot.statusCode).toBe(401);
      const audit = await t.database.db
        .selectFrom('audit_log')
        .select(['action', 'actor'])
        .where('action', 'like', 'admin.%')
        .execute();
      expect(audit.map((a) => a.action).sort()).toEqual([
        'admin.apikey.revoke',
        'admin.sessions.end',
        'admin.sessions.end',
        'admin.user.delete',
      ]);
      for (const a of audit) expect(a.actor).toBe('(admin CLI)');
    });
    // Two spawns of the built CLI, several service builds and password hashes: seconds alone, more on a loaded machine.
  }, 300_000);

  it('answers a usage error for unknown commands and missing flags', async () => {
    const r = await runCli(['user', 'frobnicate'], target.env);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(/unknown command: user frobnicate/);
    // The exit code of a usage error is the spawned run's above; the message of another, in this process.
    const m = inProcess(['user', 'passwd', '--tenant', 'acme'], target.env);
    await expect(m).rejects.toThrow(UsageError);
    await expect(m).rejects.toThrow(/--login is required/);
  });
});
