#!/usr/bin/env node
// The service's OpenAPI document without a running server: builds the app from dist/ (npm run build first) on a
// throw-away SQLite database, waits for it to be ready and asks @fastify/swagger for the document. The document does
// not depend on the database or on listening, only on the routes and their schemas.
// `npm run openapi` (scripts/openapi.mjs) prints it; scripts/sdk-generate.mjs generates the SDK's types from it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
