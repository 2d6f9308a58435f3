import type { StackSide } from '../stack-side.js';
import { LEDGER_AMOUNT, searchPathOf } from '../stack-side.js';

/**
 * Prisma's interactive-transaction limits (defaults: maxWait 2 s for a connection, timeout 5 s for the transaction),
 * raised as test/stack/adapters/prisma.ts does: 16 callers queue for 10 connections on a busy 2-core host, and a
 * transaction Prisma abandons would be a failed delivery, not a slower one.
 */
const TRANSACTION_OPTIONS = { maxWait: 20_000, timeout: 20_000 };

/**
 * Prisma 7 with its driver adapter `@prisma/adapter-pg` (a pg Pool): `prisma.$transaction(async (tx) =>
 * runInPrismaTransaction(guard, tx, …))`; the business row is `tx.benchLedger.create` on the client generated from
 * `stack/prisma/schema.prisma` (into `stack/prisma/generated/` by the bench's prebench).
 */
export const prismaSide: StackSide = {
  label: 'Prisma 7 (@prisma/adapter-pg), prisma.$transaction + runInPrismaTransaction',
  backend: 'postgres',
  async open(_ns, work) {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    const { PrismaClient } = await import('../prisma/generated/client.js');
    const { runInPrismaTransaction } = await import('payonce/tx/prisma');
    const prisma = new PrismaClient({ adapter: new PrismaPg({ ...work.pool }, { schema: searchPathOf(work.pool) }) });
    const amount = BigInt(LEDGER_AMOUNT);
    return {
      deliver: (id) =>
        prisma.$transaction(
          (own) =>
            runInPrismaTransaction(
              work.guard,
              own,
              work.key(id),
              async (tx, _claim, payonceTx) => {
                await tx.benchLedger.create({ data: { eventId: id, amount } });
                return await work.finish(payonceTx, id);
              },
              work.options(id),
            ),
          TRANSACTION_OPTIONS,
        ),
      close: () => prisma.$disconnect(),
    };
  },
};
