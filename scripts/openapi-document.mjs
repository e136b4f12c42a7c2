#!/usr/bin/env node
// The service's OpenAPI document without a running server: builds the app from dist/ (npm run build first) on a
// throw-away SQLite database, waits for it to be ready and asks @fastify/swagger for the document. The document does
// not depend on the database or on listening, only on the routes and their schemas.
//
// usage: node scripts/openapi-document.mjs [output file, default: stdout]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The OpenAPI document of the built service (dist/), as an object. */
export async function openapiDocument(root = ROOT) {
  const { buildApp } = await import(pathToFileURL(join(root, 'dist/app.js')).href);
  const { parseConfig } = await import(pathToFileURL(join(root, 'dist/config/load-config.js')).href);
  const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
  try {
    const config = parseConfig({
      server: { logLevel: 'silent' },
      database: { dataDir: dir },
      identity: { bootstrapAdminPassword: 'openapi-document-only' },
    });
    const built = await buildApp(config, { logger: false });
    try {
      await built.app.ready();
      return built.app.swagger();
    } finally {
      await built.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = `${JSON.stringify(await openapiDocument(), null, 2)}\n`;
  if (process.argv[2]) writeFileSync(process.argv[2], text);
  else process.stdout.write(text);
}
