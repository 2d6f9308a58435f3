import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_URLS } from '../lib/namespaces.js';
import { growInnodbPool } from '../scale/innodb-pool.js';

/**
 * The MariaDB scale target's buffer pool sizing (scale/innodb-pool.ts): it grows the pool only when the table
 * would not fit, and gives the size it found back afterwards. Runs against the machine's MariaDB, whose pool it
 * grows by one step for a few seconds (growing never disturbs other clients).
 */
describe('growInnodbPool', () => {
  let connection: mysql.Connection;
  const poolBytes = async (): Promise<number> => {
    const [rows] = await connection.query<mysql.RowDataPacket[]>('select @@global.innodb_buffer_pool_size as size');
    return Number(rows[0]!.size);
  };
  beforeAll(async () => {
    connection = await mysql.createConnection({ uri: BENCH_URLS.mysql });
  });
  afterAll(() => connection.end());

  it('leaves a pool that already holds the table alone', async () => {
    const before = await poolBytes();
    const lines: string[] = [];
    const change = await growInnodbPool(1_000_000, (line) => lines.push(line));
    expect(change).toMatchObject({ beforeBytes: before, afterBytes: before });
    await change.restore();
    expect(await poolBytes()).toBe(before);
    expect(lines).toEqual([]);
  });

  it('grows a pool that is too small for the table, then gives the old size back', async () => {
    const before = await poolBytes();
    const table = Math.ceil((before + 64 * 1_048_576) / 1.5); // needs 64 MB more than the pool has
    const lines: string[] = [];
    const change = await growInnodbPool(table, (line) => lines.push(line));
    try {
      expect(change.beforeBytes).toBe(before);
      expect(change.afterBytes).toBeGreaterThanOrEqual(table * 1.5);
      expect(await poolBytes()).toBe(change.afterBytes);
      expect(lines.join('\n')).toMatch(/InnoDB buffer pool \d+ MB → \d+ MB/);
    } finally {
      await change.restore();
    }
    expect(await poolBytes()).toBe(before);
  }, 120_000);

  it('makes a second grow wait until the first has given the old size back, so neither shrinks it under the other', async () => {
    const before = await poolBytes();
    const table = Math.ceil((before + 64 * 1_048_576) / 1.5);
    const first = await growInnodbPool(table, () => {});
    let second: Awaited<ReturnType<typeof growInnodbPool>> | undefined;
    const waiting = growInnodbPool(table, () => {}).then((change) => {
      second = change;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(second).toBeUndefined(); // still waiting for the lock
      expect(await poolBytes()).toBe(first.afterBytes);
      await first.restore();
      await waiting;
      expect(second!.beforeBytes).toBe(before); // it saw the size the first run gave back
      expect(await poolBytes()).toBe(second!.afterBytes);
    } finally {
      await first.restore();
      await waiting;
      await second?.restore();
    }
    expect(await poolBytes()).toBe(before);
  }, 120_000);
});
