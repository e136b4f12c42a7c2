/**
 * Driver errors that mean something to users, as each dialect recognises them (Dialect.toDomainError): code
 * above the dialects tests these classes, never a driver's error codes.
 */
export abstract class DbError extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message, { cause });
  }
}

/** A unique constraint refused a row: the thing exists already (or a concurrent writer just made it). */
export class UniqueViolation extends DbError {
  constructor(cause: unknown) {
    super('unique constraint violated', cause);
  }
}

/** A concurrent transaction won (serialization failure, deadlock, busy database): the write may be run again. */
export class WriteConflict extends DbError {
  constructor(cause: unknown) {
    super('concurrent write conflict', cause);
  }
}

/**
 * Whether a failed write means a unique constraint refused a row: the repositories' own UniqueViolation, or a driver
 * error the dialect recognises as one.
 */
export function isUniqueViolation(
  err: unknown,
  dialect: { toDomainError(err: unknown): DbError | undefined },
): boolean {
  return err instanceof UniqueViolation || dialect.toDomainError(err) instanceof UniqueViolation;
}

/**
 * A guarded write (one statement that writes only if the row still is as it was read) found the row changed by a
 * concurrent writer and wrote nothing: read again and run the write again.
 */
export class StaleRead extends Error {
  constructor(what: string) {
    super(`${what} changed while it was written`);
  }
}
