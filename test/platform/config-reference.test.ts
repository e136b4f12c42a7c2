// docs/configuration.md is generated from the config schema (npm run docs:config): it must be what the generator
// makes today, and the generator must have something to say about every key and every variable.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configReference, configRows, undescribedKeys } from '../../src/config/config-reference.js';
import { ENVIRONMENT_VARIABLES } from '../../src/config/load-config.js';

const ROOT = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('docs/configuration.md', () => {
  it('is what the generator makes from the schema (else: npm run docs:config)', () => {
    const checkedIn = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    // One assertion on the whole text: the diff vitest prints shows which lines went stale.
    expect(checkedIn, 'docs/configuration.md is stale: run npm run docs:config and commit it').toBe(configReference());
  });

  it('describes every key of the schema', () => {
    expect(undescribedKeys()).toEqual([]);
    const text = configReference();
    // Every key has its row; a section (server, database...) has its paragraph instead.
    for (const row of configRows())
      if (row.key.includes('.') || row.type !== 'object') expect(text).toContain(`| \`${row.key}\` |`);
    expect(configRows().length).toBeGreaterThan(100);
  });

  it('lists every environment variable the service reads', () => {
    const read = new Set<string>();
    for (const file of sources(join(ROOT, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\b(?:process\.)?env\.([A-Z][A-Z0-9_]*)\b/g)) read.add(m[1]);
    }
    const listed = ENVIRONMENT_VARIABLES.map((v) => v.name);
    for (const name of read) expect(listed).toContain(name);
    const text = configReference();
    for (const name of listed) expect(text).toContain(`| \`${name}\` |`);
  });
});
