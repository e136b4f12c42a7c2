// How the service serves the console's files: pre-compressed copies, caching by kind of file, the security headers,
// the 503 without a build, and none of it in the OpenAPI document. Static files do not touch the database: one engine.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/console/assets/index-AbCd1234.js"></script></head></html>';
const SCRIPT = `export const answer = ${JSON.stringify('x'.repeat(2000))};\n`;

function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'console-build-'));
  mkdirSync(join(dir, 'assets'));
  mkdirSync(join(dir, '.vite'));
  const files: Record<string, string> = {
    'index.html': INDEX,
    'assets/index-AbCd1234.js': SCRIPT,
    '.vite/manifest.json': '{}',
  };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, name), text);
    if (!name.startsWith('.')) {
      writeFileSync(join(dir, `${name}.gz`), gzipSync(text));
      writeFileSync(join(dir, `${name}.br`), brotliCompressSync(text));
    }
  }
  return dir;
}

function expectSecurityHeaders(headers: Record<string, unknown>): void {
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  expect(csp).not.toMatch(/unsafe-eval/);
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
}

describe('console files [sqlite]', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = fakeBuild();
    t = await startTestApp('sqlite', { console: { dir } });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at /console/, never cached, with the security headers', async () => {
    const res = await t.request({ method: 'GET', url: '/console/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe(INDEX);
    expectSecurityHeaders(res.headers);
  });

  it('sends /console and / to /console/', async () => {
    const bare = await t.request({ method: 'GET', url: '/console' });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/console/');
    expect(bare.headers['x-frame-options']).toBe('DENY');
    const root = await t.request({ method: 'GET', url: '/' });
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/console/');
  });

  it('sends the brotli or gzip copy the browser accepts, and the plain file to one that accepts neither', async () => {
    const url = '/console/assets/index-AbCd1234.js';
    const br = await t.request({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(SCRIPT);
    const gz = await t.request({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(SCRIPT);
    const plain = await t.request({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
    for (const res of [br, gz, plain]) {
      expect(res.headers['content-type']).toMatch(/javascript/);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expectSecurityHeaders(res.headers);
    }
  });

  it('sends index.html compressed too, still never cached', async () => {
    const res = await t.request({ method: 'GET', url: '/console/', headers: { 'accept-encoding': 'br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(INDEX);
  });

  it('answers 404 with the error object for a file the build does not have, and hides dot files', async () => {
    for (const url of [
      '/console/assets/nope-12345678.js',
      '/console/.vite/manifest.json',
      '/console/../package.json',
    ]) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error).toMatchObject({ code: 404, messageKey: 'CORE_ERROR_ROUTE_NOT_FOUND' });
    }
  });

  it('keeps the console out of the OpenAPI document', async () => {
    const doc = (await t.request({ method: 'GET', url: '/docs/json' })).json();
    const paths = Object.keys(doc.paths);
    expect(paths.filter((p) => p.startsWith('/console'))).toEqual([]);
    expect(paths.length).toBeGreaterThan(10);
  });
});

describe('console not built [sqlite]', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { console: { dir: join(tmpdir(), 'no-console-build-here') } });
  });
  afterAll(async () => t?.close());

  it('starts, and answers 503 with the error object at /console/ and below', async () => {
    for (const url of ['/console/', '/console/assets/index-AbCd1234.js']) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(503);
      expect(res.json().error).toMatchObject({ code: 503, messageKey: 'CORE_ERROR_SERVICE_UNAVAILABLE' });
      expect(res.json().error.message).toMatch(/npm run build/);
      expectSecurityHeaders(res.headers);
    }
    expect((await t.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});

describe('console switched off [sqlite]', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { console: { enabled: false } });
  });
  afterAll(async () => t?.close());

  it('has no /console/ routes, and / goes to the API UI', async () => {
    expect((await t.request({ method: 'GET', url: '/console/' })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/' })).headers.location).toBe('/docs');
  });
});
