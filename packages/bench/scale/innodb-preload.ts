/**
 * Reads a seeded MariaDB receipts table into the InnoDB buffer pool before the first pair of the scale targets, so
 * the pool that `innodb-pool.ts` sized to hold the table also holds it.
 *
 * Why: right after `SET GLOBAL innodb_buffer_pool_size` grows the pool, the new pages are empty, and the seeding
 * itself went through the old 128 MB pool, so most of the table is on disk only. InnoDB reads with `O_DIRECT` (no
 * kernel page cache), so every claim that lands on a leaf not read yet waits on the disk, until the random keys of
 * the deliveries have read the whole table in. The first pairs of the row paid that (a full run at
 * 13:45 UTC: 0.82× and 0.69× in pairs 1–2, 0.92–0.93× in pairs 4–5; notes/limits.md). A live server whose
 * pool holds its table has read it long ago; the row measures that state, as it measures PostgreSQL after the
 * full-page writes of a checkpoint (`wal-settle.ts`).
 *
 * How: one full scan of each of the table's indexes (`SELECT COUNT(*) … FORCE INDEX (…)`: the clustered index holds
 * the rows, each secondary index its own pages), untimed.
 */
import mysql from 'mysql2/promise';
import { BENCH_URLS } from '../lib/namespaces.js';

/** What the preload read: the pool's data pages before and after, and how long it took. */
export interface Preload {
  readonly pagesBefore: number;
  readonly pagesAfter: number;
  readonly seconds: number;
}

async function dataPages(connection: mysql.Connection): Promise<number> {
  const [rows] = await connection.query<mysql.RowDataPacket[]>(
    "show global status like 'Innodb_buffer_pool_pages_data'",
  );
  return Number(rows[0]?.Value ?? 0);
}

/** Scans every index of `database`.payonce_receipts once, reading its pages into the buffer pool. */
export async function preloadInnodbTable(database: string, log: (line: string) => void): Promise<Preload> {
  const connection = await mysql.createConnection({ uri: BENCH_URLS.mysql });
  try {
    const started = performance.now();
    const pagesBefore = await dataPages(connection);
    const [indexes] = await connection.query<mysql.RowDataPacket[]>(
      `select distinct index_name as name from information_schema.statistics
       where table_schema = ? and table_name = 'payonce_receipts'`,
      [database],
    );
    for (const { name } of indexes) {
      await connection.query(`select count(*) from ??.payonce_receipts force index (??)`, [database, String(name)]);
    }
    const pagesAfter = await dataPages(connection);
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    log(
      `  mysql: read ${indexes.length} indexes of ${database}.payonce_receipts into the buffer pool in ${seconds} s (data pages ${pagesBefore} → ${pagesAfter})`,
    );
    return { pagesBefore, pagesAfter, seconds };
  } finally {
    await connection.end();
  }
}
