#!/usr/bin/env node
// Writes docs/configuration.md from the config schema's descriptions and the environment variables' table
// (src/config/config-reference.ts, run from dist/ after compiling if a source changed).
// --check: write nothing; exit 1 if the checked-in file differs (test/platform/config-reference.test.ts checks it too).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIfChanged } from './build-if-changed.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs', 'configuration.md');
const built = buildIfChanged(root);
if (built !== 0) process.exit(built);
const { configReference } = await import(pathToFileURL(join(root, 'dist', 'config', 'config-reference.js')).href);
const text = configReference();
let current = '';
try {
  current = readFileSync(target, 'utf8');
} catch {
  // not written yet
}
if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error('docs/configuration.md differs from the config schema: run npm run docs:config');
    process.exit(1);
  }
  console.log('docs/configuration.md is current');
} else if (current === text) {
  console.log('docs/configuration.md is current');
} else {
  writeFileSync(target, text);
  console.log('docs/configuration.md written');
}
