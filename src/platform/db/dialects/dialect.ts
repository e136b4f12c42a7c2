import type { Kysely } from 'kysely';

/**
 * Everything that differs between SQLite and PostgreSQL lives behind this interface.
 * Services and repositories never branch on the engine themselves.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** Column type for JSON documents (TEXT on SQLite, jsonb on PostgreSQL). */
  readonly jsonColumnType: 'text' | 'jsonb';
  /** Column type for epoch-millisecond timestamps and other 64-bit integers. */
  readonly bigintColumnType: 'integer' | 'bigint';
  /** Serialises a value for a JSON column. */
  toJson(value: unknown): string;
  /** Reads a JSON column as returned by the driver. */
  fromJson<T>(value: unknown): T;
  /** Reads a boolean column as returned by the driver (SQLite answers 0/1). */
  fromBool(value: unknown): boolean;
  toBool(value: boolean): number | boolean;
  /** True when a driver error is a unique-constraint violation. */
  isUniqueViolation(err: unknown): boolean;
  /** True when a driver error is a serialization/deadlock failure worth retrying. */
  isRetryableConflict(err: unknown): boolean;
  /** The schema that unqualified table names resolve to (PostgreSQL's search_path); undefined on SQLite. */
  currentSchema(db: Kysely<any>): Promise<string | undefined>;
}
