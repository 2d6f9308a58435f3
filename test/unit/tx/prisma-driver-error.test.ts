import { describe, expect, it } from 'vitest';
import { isDuplicateKeyError, isStatementError } from '../../../packages/payonce/src/stores/sql/driver-error.js';
import { PrismaDriverError, unwrapPrismaError } from '../../../packages/payonce/src/tx/prisma-driver-error.js';

/** The shape of Prisma 7's raw-query error (P2010) around a driver adapter's error. */
function prismaError(originalCode: string, originalMessage: string) {
  return Object.assign(new Error('Raw query failed'), {
    code: 'P2010',
    meta: { driverAdapterError: { cause: { originalCode, originalMessage, kind: 'UniqueConstraintViolation' } } },
  });
}

describe('unwrapPrismaError: the database code of a Prisma raw-query error', () => {
  it('gives MySQL/MariaDB errno 1062 as the number payonce reads as "exists"', () => {
    const original = prismaError('1062', "Duplicate entry 'a' for key 'PRIMARY'");
    const error = unwrapPrismaError(original, true);
    expect(error).toBeInstanceOf(PrismaDriverError);
    expect(error).toMatchObject({ code: '1062', errno: 1062, message: "Duplicate entry 'a' for key 'PRIMARY'" });
    expect((error as Error).cause).toBe(original);
    expect(isDuplicateKeyError(error)).toBe(true);
    expect(isStatementError(error)).toBe(true);
  });

  it('gives PostgreSQL SQLSTATE and SQLite result codes as `code`, without errno', () => {
    const pg = unwrapPrismaError(prismaError('23505', 'duplicate key value'), false);
    expect(pg).toMatchObject({ code: '23505' });
    expect((pg as PrismaDriverError).errno).toBeUndefined();
    expect(isDuplicateKeyError(pg)).toBe(true);
    expect(isDuplicateKeyError(unwrapPrismaError(prismaError('SQLITE_CONSTRAINT_PRIMARYKEY', 'UNIQUE'), false))).toBe(
      true,
    );
    expect(isDuplicateKeyError(unwrapPrismaError(prismaError('22P02', 'invalid input'), false))).toBe(false);
  });

  it('leaves any other error unchanged', () => {
    const plain = new Error('connection lost');
    expect(unwrapPrismaError(plain, true)).toBe(plain);
    const noCode = Object.assign(new Error('x'), { meta: { driverAdapterError: { cause: {} } } });
    expect(unwrapPrismaError(noCode, false)).toBe(noCode);
    expect(unwrapPrismaError(undefined, false)).toBeUndefined();
  });
});
