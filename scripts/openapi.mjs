#!/usr/bin/env node
// Writes the OpenAPI document (what /docs/json serves) without starting a server: builds the app from dist/ (compiled
// first if a source changed) on a throw-away SQLite database with the default config, asks @fastify/swagger for the
// document and prints it as JSON, or writes it to the file given as the first argument.
//   npm run openapi                      # to stdout
//   npm run openapi -- openapi.json      # to a file
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIfChanged } from './build-if-changed.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = buildIfChanged(root);
if (built !== 0) process.exit(built);
const dist = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { buildApp } = await dist('app.js');
const { parseConfig } = await dist('config/load-config.js');

const dataDir = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
let service;
try {
  const config = parseConfig({
    database: { dataDir },
    server: { logLevel: 'silent' },
    // The throw-away database's admin; never used, never printed.
    identity: { bootstrapAdminPassword: randomBytes(18).toString('base64url') },
  });
  service = await buildApp(config, { logger: false });
  await service.app.ready();
  const text = `${JSON.stringify(service.app.swagger(), null, 2)}\n`;
  const target = process.argv[2];
  if (target) writeFileSync(resolve(target), text);
  else process.stdout.write(text);
} finally {
  await service?.close();
  rmSync(dataDir, { recursive: true, force: true });
}
