import { describe, expect, it } from 'vitest';
import {
  type BetterSqlite3DatabaseLike,
  betterSqlite3Transactions,
} from '../../../packages/payonce/src/tx/better-sqlite3.js';

// The opener's BEGIN IMMEDIATE / COMMIT / ROLLBACK, with a database that records what it is told to run.

function recordingDatabase(failOn?: string) {
  const calls: string[] = [];
  let open = false;
  const db: BetterSqlite3DatabaseLike = {
    get inTransaction() {
      return open;
    },
    prepare() {
      throw new Error('not used');
    },
    exec(source) {
      calls.push(source);
      if (source === failOn) throw new Error(`${source} failed`);
      open = source === 'BEGIN IMMEDIATE';
      return this;
    },
  };
  return { db, calls };
}

describe('betterSqlite3Transactions', () => {
  it('begins immediate, runs the work with the database, and commits', async () => {
    const { db, calls } = recordingDatabase();
    const result = await betterSqlite3Transactions(db).transaction(async (tx) => {
      expect(tx).toBe(db);
      return 'done';
    });
    expect(result).toBe('done');
    expect(calls).toEqual(['BEGIN IMMEDIATE', 'COMMIT']);
  });

  it('rolls back when the commit fails, and rethrows the commit error', async () => {
    const { db, calls } = recordingDatabase('COMMIT');
    await expect(betterSqlite3Transactions(db).transaction(async () => {})).rejects.toThrow('COMMIT failed');
    expect(calls).toEqual(['BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK']);
  });

  it("rethrows the work's error when the rollback fails too, and the next transaction still runs", async () => {
    const { db, calls } = recordingDatabase('ROLLBACK');
    const transactions = betterSqlite3Transactions(db);
    await expect(
      transactions.transaction(async () => {
        throw new Error('declined');
      }),
    ).rejects.toThrow('declined');
    await transactions.transaction(async () => {});
    expect(calls).toEqual(['BEGIN IMMEDIATE', 'ROLLBACK', 'BEGIN IMMEDIATE', 'COMMIT']);
  });
});
