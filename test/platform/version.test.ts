import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
  name: string;
  version: string;
};

describe('version', () => {
  it.each([['--version'], ['-v'], ['version']])('%s prints the package version, reading no config', async (arg) => {
    // A config that would stop any other command: the version needs none of it.
    const r = await runCli([arg], { DATABASE_URL: 'mysql://h/db', SVC_CONFIG: '/nonexistent/svc.yaml' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.name} ${pkg.version}\n`);
  });

  it('is listed in the usage', async () => {
    const r = await runCli(['help'], {});
    expect(r.stdout).toMatch(/^ {2}version, --version +print the version$/m);
  });
});
