// The SDK's generated types and the service's OpenAPI document cannot drift: the document of the app as the sources
// build it goes through scripts/sdk-generate.mjs --check, which fails when sdk/src/schema.ts differs from what
// openapi-typescript makes of it. Fix a failure with `npm run build && npm run sdk:generate`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/test-app.js';

const ROOT = join(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'sdk-drift-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sdk/src/schema.ts', () => {
  it('is what openapi-typescript generates from the current OpenAPI document', async () => {
    const t = await startTestApp('sqlite');
    let document: unknown;
    try {
      await t.app.ready();
      document = t.app.swagger();
    } finally {
      await t.close();
    }
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/sdk-generate.mjs'), '--check', '--document', file], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 180_000);

  it('the check fails on a document that differs', () => {
    const file = join(dir, 'other.json');
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'other', version: '1' },
        paths: { '/x': { get: { responses: { 200: { description: 'x' } } } } },
      }),
    );
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/sdk-generate.mjs'), '--check', '--document', file], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm run sdk:generate');
  }, 300_000);
});
