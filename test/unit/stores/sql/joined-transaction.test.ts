import { CompiledQuery, type Transaction } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { joinTransaction, type SqlExecutor } from '../../../../packages/payonce/src/stores/sql/joined-transaction.js';
import { executeCompiled } from '../../../../packages/payonce/src/stores/sql/transaction-connection.js';

/** An executor that answers every statement with one row and records what it was sent (no database). */
function recordingExecutor(): SqlExecutor & { sent: { sql: string; parameters: readonly unknown[] }[] } {
  const sent: { sql: string; parameters: readonly unknown[] }[] = [];
  return {
    dialect: 'postgres',
    sent,
    async execute(sql, parameters) {
      sent.push({ sql, parameters });
      return { rows: [{ one: 1 }], numAffectedRows: 1n };
    },
  };
}

const ONE = CompiledQuery.raw('select $1 as one', [1]);

describe('joinTransaction: fixed statements on the joined view', () => {
  it("go straight to the executor while the work runs, taking Kysely's connection once", async () => {
    const executor = recordingExecutor();
    await joinTransaction(executor, async (trx: Transaction<unknown>) => {
      const provide = vi.spyOn(trx.getExecutor(), 'provideConnection');
      const first = await executeCompiled(trx, ONE);
      const second = await executeCompiled(trx, ONE);
      expect([first.rows, second.rows]).toEqual([[{ one: 1 }], [{ one: 1 }]]);
      expect(provide).toHaveBeenCalledTimes(1);
    });
    expect(executor.sent).toEqual([
      { sql: 'select $1 as one', parameters: [1] },
      { sql: 'select $1 as one', parameters: [1] },
    ]);
  });

  it('sends nothing of its own (no BEGIN or COMMIT) and refuses a statement once the work settled', async () => {
    const executor = recordingExecutor();
    const trx = await joinTransaction(executor, async (trx: Transaction<unknown>) => {
      await executeCompiled(trx, ONE);
      return trx;
    });
    expect(executor.sent.map((s) => s.sql)).toEqual(['select $1 as one']);
    await expect(async () => executeCompiled(trx, ONE)).rejects.toThrow(/already committed/);
  });
});
