/**
 * The database's own error code inside a Prisma 7 raw-query error. Prisma wraps a driver adapter's error in a
 * `PrismaClientKnownRequestError` (code `P2010`, "raw query failed") whose `meta.driverAdapterError.cause` holds the
 * database's code as `originalCode` (PostgreSQL SQLSTATE `23505`, MySQL/MariaDB errno `1062`, SQLite
 * `SQLITE_CONSTRAINT_PRIMARYKEY`) and `kind` (`UniqueConstraintViolation`, …). payonce reads the code as its own
 * drivers give it (`code` / `errno`): on MySQL a duplicate key on its claim or outbox INSERT means "exists".
 */

/** The part of Prisma's error payonce reads (observed on Prisma 7.10 with adapter-pg, -mariadb, -better-sqlite3). */
interface PrismaRawErrorLike {
  readonly meta?: {
    readonly driverAdapterError?: { readonly cause?: { originalCode?: unknown; originalMessage?: unknown } };
  };
}

/**
 * A database error of a statement payonce ran through Prisma, with the database's code where payonce's drivers put
 * it: `code` (PostgreSQL SQLSTATE, SQLite result code name, MySQL errno as text) and, on MySQL/MariaDB, `errno` (a
 * number). `cause` is Prisma's own error, unchanged.
 */
export class PrismaDriverError extends Error {
  /**
   * The database's code: PostgreSQL SQLSTATE (`23505`), SQLite result code (`SQLITE_CONSTRAINT_PRIMARYKEY`), MySQL
   * errno as text (`1062`).
   */
  readonly code: string;
  /** MySQL/MariaDB only: the server's errno as a number (`1062` duplicate key), as mysql2 gives it. */
  readonly errno?: number;
  constructor(code: string, message: string, errno: number | undefined, cause: unknown) {
    super(message, { cause });
    this.name = 'PrismaDriverError';
    this.code = code;
    if (errno !== undefined) this.errno = errno;
  }
}

/**
 * `error` as a {@link PrismaDriverError} when it is Prisma's wrapper of a database error (it carries the database's
 * `originalCode`), else `error` unchanged. `mysql`: the code is an errno, also set as the number `errno`.
 */
export function unwrapPrismaError(error: unknown, mysql: boolean): unknown {
  const cause = (error as PrismaRawErrorLike | null)?.meta?.driverAdapterError?.cause;
  const code = cause?.originalCode;
  if (typeof code !== 'string' && typeof code !== 'number') return error;
  const text = String(code);
  const message = typeof cause?.originalMessage === 'string' ? cause.originalMessage : String(error);
  const errno = mysql && /^\d+$/.test(text) ? Number(text) : undefined;
  return new PrismaDriverError(text, message, errno, error);
}
