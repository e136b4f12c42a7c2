// The console's size budget, read from Vite's manifest of the build: the JavaScript the login route loads (the entry
// and what it imports statically) at most 150 kB gzip, every script and stylesheet of the console at most 400 kB
// gzip. Sizes are the build's own .gz copies, the bytes the service sends.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../helpers/browser.js';

const DIST = resolve(import.meta.dirname, '../../console/dist');
const KB = 1000;
const LOGIN_JS_BUDGET = 150 * KB;
const CONSOLE_BUDGET = 400 * KB;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

function gzipSize(file: string): number {
  const gz = join(DIST, `${file}.gz`);
  return existsSync(gz) ? statSync(gz).size : gzipSync(readFileSync(join(DIST, file)), { level: 9 }).length;
}

describe('console size budget', () => {
  let manifest: Record<string, ManifestChunk>;
  beforeAll(() => {
    ensureConsoleBuilt();
    manifest = JSON.parse(readFileSync(join(DIST, '.vite/manifest.json'), 'utf8'));
  }, 300_000);

  it(`loads at most ${LOGIN_JS_BUDGET / KB} kB gzip of JavaScript for the login route`, () => {
    const entry = Object.entries(manifest).find(([, c]) => c.isEntry);
    expect(entry, 'the manifest has an entry').toBeDefined();
    // The entry and its static imports, transitively: what the browser loads before the login page shows.
    const files = new Set<string>();
    const visit = (key: string) => {
      const chunk = manifest[key];
      if (!chunk || files.has(chunk.file)) return;
      files.add(chunk.file);
      for (const next of chunk.imports ?? []) visit(next);
    };
    visit(entry![0]);
    const bytes = [...files].reduce((sum, file) => sum + gzipSize(file), 0);
    console.log(`console budget: login route JavaScript ${(bytes / KB).toFixed(1)} kB gzip (${[...files].join(', ')})`);
    expect(bytes).toBeLessThanOrEqual(LOGIN_JS_BUDGET);
    // The JSON editor is not part of it: it loads when an item is edited.
    expect([...files].some((f) => f.includes('json-editor'))).toBe(false);
  });

  it(`weighs at most ${CONSOLE_BUDGET / KB} kB gzip in all (every script and stylesheet)`, () => {
    const assets = readdirSync(join(DIST, 'assets')).filter((f) => /\.(js|css)$/.test(f));
    const bytes = assets.reduce((sum, f) => sum + gzipSize(join('assets', f)), 0);
    console.log(`console budget: whole console ${(bytes / KB).toFixed(1)} kB gzip in ${assets.length} files`);
    expect(bytes).toBeLessThanOrEqual(CONSOLE_BUDGET);
  });
});
