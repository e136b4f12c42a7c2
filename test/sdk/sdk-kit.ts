// What the SDK's tests share: a service on a real socket (the SDK talks HTTP, not inject) with a tenant whose users
// and keys cover every auth mode, and clients of the SDK made from source.
import type { Engine } from '../helpers/test-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

export const TENANT = 'sdk';
export const ALICE = { username: 'alice', password: 'alice-sdk-pass-1' };
export const ROBOT_KEY = 'k-sdk-robot-0123456789';
export const READER_KEY = 'k-sdk-reader-0123456789';
export const DM_USER = { username: 'dm', password: 'dm-sdk-pass-1' };

export const SDK_CONFIG = {
  tenants: [
    {
      name: TENANT,
      users: [{ loginName: ALICE.username, password: ALICE.password, roles: ['clerk'], organisations: ['sales'] }],
      apiKeys: [
        { name: 'robot', key: ROBOT_KEY, roles: ['ADMIN', 'NOTIFICATION_ADMIN'], organisations: ['sales'] },
        { name: 'reader', key: READER_KEY, roles: ['reader'] },
      ],
    },
  ],
  engine: {
    users: [{ name: DM_USER.username, password: DM_USER.password, groups: ['DataManagement'], roles: ['ops'] }],
  },
};

export interface ListeningApp {
  t: TestApp;
  baseUrl: string;
}

/** The app on an ephemeral port of 127.0.0.1. */
export async function startListening(engine: Engine, raw: Record<string, any> = SDK_CONFIG): Promise<ListeningApp> {
  const t = await startTestApp(engine, raw);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, baseUrl: `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}` };
}

/** A store id no other test uses. */
export const uniqueStore = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** A store item body readable and writable by the organisation `sales`. */
export const salesItem = (value: unknown) => ({
  value,
  readRestriction: { organisations: ['sales'] },
  writeRestriction: { organisations: ['sales'] },
});
