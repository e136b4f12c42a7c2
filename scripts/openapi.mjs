#!/usr/bin/env node
// Writes the OpenAPI document (what /docs/json serves) without starting a server: builds dist/ if a source changed,
// then makes the document from it (scripts/openapi-document.mjs: the app on a throw-away SQLite database) and prints
// it as JSON, or writes it to the file given as the first argument.
//   npm run openapi                      # to stdout
//   npm run openapi -- openapi.json      # to a file
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfChanged } from './build-if-changed.mjs';
import { openapiDocument } from './openapi-document.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = buildIfChanged(root);
if (built !== 0) process.exit(built);
const text = `${JSON.stringify(await openapiDocument(root), null, 2)}\n`;
const target = process.argv[2];
if (target) writeFileSync(resolve(target), text);
else process.stdout.write(text);
