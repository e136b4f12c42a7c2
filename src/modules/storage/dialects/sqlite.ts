import type { StorageSql } from './storage-sql.js';

/** SQLite: every storage statement is portable SQL; its writes are local, so one transaction of several is cheap. */
export const sqliteStorageSql: StorageSql = {};
