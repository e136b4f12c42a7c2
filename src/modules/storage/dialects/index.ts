// The storage module's engine-specific SQL, chosen by the platform dialect's name.
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import type { StorageSql } from './storage-sql.js';
import { postgresStorageSql } from './postgres.js';
import { sqliteStorageSql } from './sqlite.js';

export type { CreateItemsArgs, StorageSql } from './storage-sql.js';

const BY_ENGINE: Record<Dialect['name'], StorageSql> = { sqlite: sqliteStorageSql, postgres: postgresStorageSql };

export const storageSqlFor = (dialect: Dialect): StorageSql => BY_ENGINE[dialect.name];
