import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { betterSqlite3Transactions } from '../../packages/payonce/src/tx/better-sqlite3.js';
import { drizzleTransactions } from '../../packages/payonce/src/tx/drizzle.js';

// SQLite has one transaction per connection and no nested BEGIN: every opener payonce makes for one better-sqlite3
// connection (two drizzleTransactions of the same Drizzle db, and betterSqlite3Transactions of its $client) must
// take turns on ONE queue, or a second BEGIN meets the first ("cannot start a transaction within a transaction").

describe('openers of one better-sqlite3 connection share one queue', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payonce-sqlite-queue-'));
  const connection = new Database(join(dir, 'app.db'));
  connection.exec('create table turns (opener text not null, step integer not null)');
  const db = drizzle(connection);
  afterAll(() => {
    connection.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs their transactions one after another, each whole, a failing one included', async () => {
    const openers = [drizzleTransactions(db), drizzleTransactions(db), betterSqlite3Transactions(connection)];
    const settled = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        openers[i % openers.length]?.transaction(async () => {
          connection.prepare('insert into turns (opener, step) values (?, 1)').run(String(i));
          await new Promise((resolve) => setTimeout(resolve, 2));
          connection.prepare('insert into turns (opener, step) values (?, 2)').run(String(i));
          if (i === 5) throw new Error('declined');
          return i;
        }),
      ),
    );
    expect(settled.filter((result) => result.status === 'rejected').map((result) => String(result.reason))).toEqual([
      'Error: declined',
    ]);
    const rows = connection.prepare('select opener, step from turns order by rowid').all() as {
      opener: string;
      step: number;
    }[];
    // Each committed transaction's two rows are adjacent (no interleaving), and the failed one left none.
    expect(rows).toHaveLength(22);
    for (let i = 0; i < rows.length; i += 2) {
      expect(rows[i]?.opener).toBe(rows[i + 1]?.opener);
      expect([rows[i]?.step, rows[i + 1]?.step]).toEqual([1, 2]);
    }
    expect(rows.some((row) => row.opener === '5')).toBe(false);
    expect(db.get<{ n: number }>(sql`select count(*) as n from turns`).n).toBe(22);
  });
});
