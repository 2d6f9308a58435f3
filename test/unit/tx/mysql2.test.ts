import { describe, expect, it } from 'vitest';
import type { SqlExecutorResult } from '../../../packages/payonce/src/stores/sql/joined-transaction.js';
import {
  type Mysql2PooledConnection,
  mysql2ResultOf,
  mysql2Transactions,
} from '../../../packages/payonce/src/tx/mysql2.js';

// mysql2 answers a SELECT with rows and a write with a ResultSetHeader; the executor maps both to what Kysely's
// MySQL driver gives. The opener's release-or-destroy rule, with a connection that records its calls.

describe('mysql2ResultOf', () => {
  it.each<[string, unknown, SqlExecutorResult]>([
    ['rows of a SELECT', [{ id: 1 }], { rows: [{ id: 1 }] }],
    ['no rows', [], { rows: [] }],
    ['a write without an auto-increment id', { affectedRows: 2, insertId: 0 }, { rows: [], numAffectedRows: 2n }],
    ['an INSERT with an id', { affectedRows: 1, insertId: 7 }, { rows: [], numAffectedRows: 1n, insertId: 7n }],
    [
      'big numbers as strings',
      { affectedRows: '3', insertId: '9007199254740993' },
      { rows: [], numAffectedRows: 3n, insertId: 9_007_199_254_740_993n },
    ],
    ['anything else', null, { rows: [] }],
  ])('%s', (_name, answer, expected) => expect(mysql2ResultOf(answer)).toEqual(expected));
});

/** A pooled connection that records its calls; `rollback` fails when `rollbackFails`. */
function recordingConnection(rollbackFails: boolean) {
  const calls: string[] = [];
  const connection: Mysql2PooledConnection = {
    async query() {
      calls.push('query');
      return [[], []];
    },
    async beginTransaction() {
      calls.push('begin');
    },
    async commit() {
      calls.push('commit');
    },
    async rollback() {
      calls.push('rollback');
      if (rollbackFails) throw new Error('connection lost');
    },
    release: () => calls.push('release'),
    destroy: () => calls.push('destroy'),
  };
  return { calls, pool: { getConnection: async () => connection } };
}

describe('mysql2Transactions', () => {
  it('commits and releases', async () => {
    const { calls, pool } = recordingConnection(false);
    expect(await mysql2Transactions(pool).transaction(async () => 'done')).toBe('done');
    expect(calls).toEqual(['begin', 'commit', 'release']);
  });

  it('rolls back a throw, rethrows it and releases', async () => {
    const { calls, pool } = recordingConnection(false);
    await expect(
      mysql2Transactions(pool).transaction(async () => {
        throw new Error('declined');
      }),
    ).rejects.toThrow('declined');
    expect(calls).toEqual(['begin', 'rollback', 'release']);
  });

  it('destroys the connection when its rollback fails, and rethrows the work error', async () => {
    const { calls, pool } = recordingConnection(true);
    await expect(
      mysql2Transactions(pool).transaction(async () => {
        throw new Error('declined');
      }),
    ).rejects.toThrow('declined');
    expect(calls).toEqual(['begin', 'rollback', 'destroy']);
  });
});
