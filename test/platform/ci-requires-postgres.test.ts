import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import setup, { isCi } from '../helpers/global-setup.js';

/** A loopback port with nothing listening on it: bound, read, released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('test run without PostgreSQL', () => {
  it('fails in CI instead of skipping the PostgreSQL half', async () => {
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`;
    const provided: Record<string, unknown> = {};
    const project = { provide: (k: string, v: unknown) => (provided[k] = v) } as never;
    await expect(setup(project, { SVC_TEST_PG_URL: url, CI: 'true' })).rejects.toThrow(/PostgreSQL is required/);
    expect(provided).toEqual({});
  });

  it('outside CI skips the PostgreSQL half with a banner', async () => {
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`;
    const provided: Record<string, unknown> = {};
    const project = { provide: (k: string, v: unknown) => (provided[k] = v) } as never;
    const teardown = await setup(project, { SVC_TEST_PG_URL: url });
    expect(provided).toEqual({ pgUrl: '' });
    await (teardown as () => Promise<void>)();
  });

  it('reads CI as CI systems set it', () => {
    expect([
      isCi({ CI: 'true' }),
      isCi({ CI: '1' }),
      isCi({ CI: 'TRUE' }),
      isCi({ CI: 'false' }),
      isCi({ CI: '0' }),
      isCi({}),
    ]).toEqual([true, true, true, false, false, false]);
  });
});
