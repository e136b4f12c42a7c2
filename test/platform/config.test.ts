import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load-config.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('config file', () => {
  it('fills the defaults of decisions.md section 0', () => {
    const c = loadConfig({});
    expect(c.server).toMatchObject({ host: '127.0.0.1', port: 8080 });
    expect(c.database.dataDir).toBe('./data');
    expect(c.identity).toMatchObject({ provider: 'local', sessionTtlSeconds: 1800 });
    expect(Object.isFrozen(c.server)).toBe(true);
  });

  it('applies HOST, PORT, SVC_DATA_DIR, DATABASE_URL and SVC_ADMIN_PASSWORD over the file', () => {
    const p = file('a.yaml', 'server:\n  port: 9000\ndatabase:\n  dataDir: /x\n');
    const c = loadConfig({
      SVC_CONFIG: p,
      HOST: '0.0.0.0',
      PORT: '9100',
      SVC_DATA_DIR: '/y',
      DATABASE_URL: 'postgres://h/db',
      SVC_ADMIN_PASSWORD: 'pw',
    });
    expect(c.server).toMatchObject({ host: '0.0.0.0', port: 9100 });
    expect(c.database).toMatchObject({ dataDir: '/y', url: 'postgres://h/db' });
    expect(c.identity.bootstrapAdminPassword).toBe('pw');
  });

  it('reads JSON and YAML alike', () => {
    const yaml = file(
      't.yaml',
      'tenants:\n  - name: acme\n    users:\n      - loginName: alice\n        password: pw\n        roles: [A]\n',
    );
    const json = file(
      't.json',
      JSON.stringify({ tenants: [{ name: 'acme', users: [{ loginName: 'alice', password: 'pw', roles: ['A'] }] }] }),
    );
    expect(loadConfig({ SVC_CONFIG: yaml }).tenants).toEqual(loadConfig({ SVC_CONFIG: json }).tenants);
  });

  it.each([
    [
      { tenants: [{ name: 'a', users: [{ loginName: 'x' }, { loginName: 'y' }, { loginName: 'z', roles: 'ADMIN' }] }] },
      'tenants[0].users[2].roles: expected array',
    ],
    [
      { tenants: [{ name: 'a', users: [{ password: 'p' }] }] },
      'tenants[0].users[0].loginName: expected required property',
    ],
    [{ server: { port: 'eighty' } }, 'server.port: expected integer'],
    [{ database: { sqliteCacheMiB: 1 } }, 'database.sqliteCacheMiB'],
    [{ server: { shutdownGraceSeconds: -1 } }, 'server.shutdownGraceSeconds'],
    [{ identity: { provider: 'ldap' } }, 'identity.provider'],
    [{ tenants: [{ name: 'a', surprise: 1 }] }, 'tenants[0].surprise: unexpected property'],
    [
      { tenants: [{ name: 'a', apiKeys: [{ name: 'k', key: 'k-12345678', expiresOn: 'tomorrow' }] }] },
      'tenants[0].apiKeys[0].expiresOn',
    ],
  ])('names the bad path of %j', (raw, message) => {
    expect(() => parseConfig(raw, 'svc.yaml')).toThrow(ConfigError);
    expect(() => parseConfig(raw, 'svc.yaml')).toThrow(message);
  });

  it("validates the log level against pino's levels, naming the path", () => {
    expect(() => parseConfig({ server: { logLevel: 'verbose' } }, 'svc.yaml')).toThrow(
      'svc.yaml: server.logLevel: expected one of fatal, error, warn, info, debug, trace, silent',
    );
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(
      'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent',
    );
    expect(loadConfig({ LOG_LEVEL: 'debug' }).server.logLevel).toBe('debug');
  });

  it('validates the file whatever the environment overrides', () => {
    const p = file('eighty.yaml', 'server:\n  port: eighty\n');
    expect(() => loadConfig({ SVC_CONFIG: p, PORT: '9000' })).toThrow(`${p}: server.port: expected integer`);
    const level = file('verbose.yaml', 'server:\n  logLevel: verbose\n');
    expect(() => loadConfig({ SVC_CONFIG: level, LOG_LEVEL: 'info' })).toThrow(`${level}: server.logLevel`);
  });

  it('turns tracing on with OTEL_EXPORTER_OTLP_ENDPOINT, named by OTEL_SERVICE_NAME', () => {
    expect(loadConfig({}).tracing).toEqual({ serviceName: 'svc-platform' });
    const c = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SERVICE_NAME: 'svc-a' });
    expect(c.tracing).toEqual({ otlpEndpoint: 'http://collector:4318', serviceName: 'svc-a' });
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /^OTEL_EXPORTER_OTLP_ENDPOINT: /,
    );
  });

  it('names the environment variable whose value is bad', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow('PORT: expected an integer from 0 to 65535');
    expect(() => loadConfig({ PORT: '70000' })).toThrow('PORT: expected an integer from 0 to 65535');
  });

  it.each(['mysql://u@db.example/app', 'sqlite:./data/svc.sqlite', 'postgress://h/db', 'db.example:5432'])(
    'refuses DATABASE_URL=%s, a scheme it does not serve',
    (url) => {
      expect(() => loadConfig({ DATABASE_URL: url })).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_URL: url })).toThrow(
        /^DATABASE_URL: unsupported database URL .*postgres:\/\/ or postgresql:\/\//,
      );
      expect(() => parseConfig({ database: { url } }, 'svc.yaml')).toThrow(
        /^svc\.yaml: database\.url: unsupported database URL/,
      );
    },
  );

  it('accepts postgres:// and postgresql:// in any case, and an empty URL as the embedded SQLite', () => {
    for (const url of ['postgres://h/db', 'postgresql://u@h:5432/db', 'POSTGRES://h/db'])
      expect(loadConfig({ DATABASE_URL: url }).database.url).toBe(url);
    expect(parseConfig({ database: { url: '' } }).database.url).toBe('');
  });

  it('reports unreadable and unparsable files by name', () => {
    expect(() => loadConfig({ SVC_CONFIG: join(dir, 'missing.yaml') })).toThrow(/missing\.yaml: cannot be read/);
    expect(() => loadConfig({ SVC_CONFIG: file('bad.json', '{"tenants": [') })).toThrow(/bad\.json: not valid JSON/);
    expect(() => loadConfig({ SVC_CONFIG: file('bad.yaml', 'tenants: [a, b\n  c: :') })).toThrow(
      /bad\.yaml: not valid YAML/,
    );
    expect(() => loadConfig({ SVC_CONFIG: file('list.yaml', '- a\n- b\n') })).toThrow(/\(root\): expected object/);
  });

  it('stops the start with a one-line message and no stack trace', async () => {
    const p = file(
      'start.yaml',
      'tenants:\n  - name: acme\n    users:\n      - loginName: a\n      - loginName: b\n      - loginName: c\n        roles: ADMIN\n',
    );
    const r = await runCli(['start'], { SVC_CONFIG: p, SVC_DATA_DIR: join(dir, 'data'), PORT: '0' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`config error: ${p}: tenants[0].users[2].roles: expected array`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('stops the start on a DATABASE_URL of another engine instead of running on SQLite', async () => {
    const data = join(dir, 'mysql-data');
    for (const command of ['start', 'migrate']) {
      const r = await runCli([command], {
        DATABASE_URL: 'mysql://u:secret@db.example/app',
        SVC_DATA_DIR: data,
        PORT: '0',
      });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^config error: DATABASE_URL: unsupported database URL "mysql:\/\/\.\.\."/);
      expect(r.stderr).not.toContain('secret');
    }
    expect(existsSync(data)).toBe(false);
  });
});
