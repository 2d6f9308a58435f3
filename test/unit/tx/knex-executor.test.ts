import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { type KnexTransactionLike, knexExecutor, knexTransactions } from '../../../packages/payonce/src/tx/knex.js';

// What payonce's Knex executor hands to `trx.raw` and how it reads each client's answer, with a recording `trx`
// (no database: test/stack runs the adapter on real servers).

/** A Knex-like trx on `driverName` that records each `raw` call and answers `answer`. */
function recordingTrx(driverName: string, answer: unknown) {
  const calls: { sql: string; bindings: readonly unknown[] }[] = [];
  const trx: KnexTransactionLike = {
    isTransaction: true,
    client: { driverName },
    raw: async (sql, bindings) => {
      calls.push({ sql, bindings });
      return answer;
    },
  };
  return { trx, calls };
}

/**
 * A Knex-like trx on `pg` whose client lends its one connection, as a Knex transaction's client does: the
 * connection records each `query`; `end()` completes the transaction.
 */
function lendingPgTrx() {
  const queries: { text: string; values: unknown[] }[] = [];
  let lent = 0;
  let completed = false;
  const connection = {
    async query(config: { text: string; values: unknown[] }) {
      queries.push(config);
      return config.text.startsWith('select')
        ? { rows: [{ a: 1 }], rowCount: 1, command: 'SELECT' }
        : { rows: [], rowCount: 2, command: 'UPDATE' };
    },
  };
  const trx: KnexTransactionLike = {
    isTransaction: true,
    client: {
      driverName: 'pg',
      transacting: true,
      acquireConnection: async () => {
        lent++;
        return connection;
      },
    },
    raw: async () => {
      throw new Error('trx.raw is not used on pg');
    },
    isCompleted: () => completed,
  };
  return {
    trx,
    queries,
    lent: () => lent,
    end: () => {
      completed = true;
    },
  };
}

describe('knexExecutor on pg, with the transaction lending its connection', () => {
  it("sends payonce's text and values to the transaction's connection as written, taking it once", async () => {
    const { trx, queries, lent } = lendingPgTrx();
    const executor = knexExecutor(trx);
    expect(executor.dialect).toBe('postgres');
    const text = `select '$1 ?' as l, data ? 'k' as has, $2::int[] as arr, $1 as one from t`;
    expect(await executor.execute(text, ['one', [1, 2]])).toEqual({ rows: [{ a: 1 }] });
    expect(await executor.execute('update t set a = $1', [1])).toEqual({ rows: [], numAffectedRows: 2n });
    expect(queries).toEqual([
      { text, values: ['one', [1, 2]] },
      { text: 'update t set a = $1', values: [1] },
    ]);
    expect(lent()).toBe(1);
  });

  it('refuses a statement once the Knex transaction has ended, sending nothing', async () => {
    const { trx, queries, end } = lendingPgTrx();
    const executor = knexExecutor(trx);
    await executor.execute('update t set a = $1', [1]);
    end();
    await expect(executor.execute('update t set a = $1', [2])).rejects.toThrow(/already committed or rolled back/);
    expect(queries).toHaveLength(1);
  });
});

describe('knexExecutor', () => {
  it('turns PostgreSQL $n into Knex ? bindings in order of appearance, escapes other ?, keeps quoted $1', async () => {
    const { trx, calls } = recordingTrx('pg', { rows: [{ a: 1 }], rowCount: 1, command: 'SELECT' });
    const executor = knexExecutor(trx);
    expect(executor.dialect).toBe('postgres');
    const result = await executor.execute(
      `select '$1 ?' as l, "x?" as q, data ? 'k' as has, $2::int[] as arr, $1 as one, $1 as again from t`,
      ['one', [1, 2]],
    );
    expect(calls).toEqual([
      {
        sql: `select '$1 \\?' as l, "x\\?" as q, data \\? 'k' as has, ?::int[] as arr, ? as one, ? as again from t`,
        bindings: [[1, 2], 'one', 'one'],
      },
    ]);
    expect(result).toEqual({ rows: [{ a: 1 }] });
  });

  it('reads a pg write as a count of changed rows', async () => {
    const { trx } = recordingTrx('pg', { rows: [], rowCount: 3, command: 'UPDATE' });
    expect(await knexExecutor(trx).execute('update t set a = $1', [1])).toEqual({ rows: [], numAffectedRows: 3n });
  });

  it('keeps MySQL/SQLite ? placeholders and binds a string literal holding a ? as a parameter', async () => {
    const { trx, calls } = recordingTrx('mysql2', [[{ a: 1 }], []]);
    const executor = knexExecutor(trx);
    expect(executor.dialect).toBe('mysql');
    expect(await executor.execute("select ? as a, 'it''s ?' as b, ? as c", [1, 2])).toEqual({ rows: [{ a: 1 }] });
    expect(calls).toEqual([{ sql: 'select ? as a, ? as b, ? as c', bindings: [1, "it's ?", 2] }]);
    await expect(executor.execute('select ? as a', [])).rejects.toThrow(/has no parameter/);
    await expect(executor.execute('select 1', [1])).rejects.toThrow(/1 parameters for 0 placeholders/);
    await expect(executor.execute('select `a?` from t', [])).rejects.toThrow(/identifier/);
  });

  it("reads mysql2's ResultSetHeader and better-sqlite3's run info as a count, their rows as rows", async () => {
    const mysql = recordingTrx('mysql2', [{ affectedRows: 2, insertId: 0 }, undefined]);
    expect(await knexExecutor(mysql.trx).execute('delete from t', [])).toEqual({ rows: [], numAffectedRows: 2n });
    const write = recordingTrx('better-sqlite3', { changes: 1, lastInsertRowid: 7 });
    const sqlite = knexExecutor(write.trx);
    expect(sqlite.dialect).toBe('sqlite');
    expect(await sqlite.execute('insert into t values (?)', [1])).toEqual({ rows: [], numAffectedRows: 1n });
    const read = recordingTrx('better-sqlite3', [{ a: 1 }]);
    expect(await knexExecutor(read.trx).execute('select 1 as a', [])).toEqual({ rows: [{ a: 1 }] });
  });

  it('refuses the knex instance, another client, and a plain object with InvalidOption naming the trx', () => {
    const knexInstance = Object.assign(() => {}, { client: { driverName: 'pg' }, raw: async () => ({}) });
    expect(() => knexExecutor(knexInstance as unknown as KnexTransactionLike)).toThrow(InvalidOption);
    expect(() => knexExecutor(knexInstance as unknown as KnexTransactionLike)).toThrow(/knex\.transaction/);
    expect(() => knexExecutor(recordingTrx('sqlite3', []).trx)).toThrow(/client sqlite3/);
    expect(() => knexExecutor({} as KnexTransactionLike)).toThrow(InvalidOption);
    expect(() => knexExecutor(null as unknown as KnexTransactionLike)).toThrow(InvalidOption);
  });

  it('knexTransactions refuses a trx and an unsupported client', () => {
    const { trx } = recordingTrx('pg', {});
    const asKnex = Object.assign(trx, { transaction: async () => undefined });
    expect(() => knexTransactions(asKnex as never)).toThrow(InvalidOption);
    const other = { client: { driverName: 'mssql' }, transaction: async () => undefined };
    expect(() => knexTransactions(other as never)).toThrow(/knex instance/);
  });
});
