/**
 * Sizes MariaDB's InnoDB buffer pool to the seeded receipts table for the scale targets (issue #17 item 5), and
 * gives the old size back afterwards.
 *
 * Why: the target measures what 1 M stored receipts cost payonce's statements, not how the server's cache is sized.
 * PostgreSQL reads its table through the kernel's page cache, so on this 24 GiB machine a 465 MB table is served
 * from memory whatever `shared_buffers` says. InnoDB reads with `O_DIRECT` and caches only in its own pool, whose
 * default (128 MB) holds about a quarter of the ~480 MB table: random keys then wait on the disk. A production
 * MariaDB is given a pool for its working set (the MariaDB manual suggests most of a dedicated server's memory).
 * Measured in session 6 (bench/notes/limits.md): 0.87× at 128 MB, 1.04× at 1 GB, with the same code.
 *
 * MariaDB resizes the pool online (`SET GLOBAL innodb_buffer_pool_size`, 10.2+) in chunks of
 * `innodb_buffer_pool_chunk_size`; the resize runs in the background, so this waits until
 * `Innodb_buffer_pool_resize_status` says it is done. The pool only grows here; it is given back to the size found
 * only when nobody changed it meanwhile. A run killed before its cleanup leaves the pool grown: harmless (it is
 * memory the server may use, no setting a test depends on), and the next run then finds it large enough.
 */
import mysql from 'mysql2/promise';
import { BENCH_URLS } from '../lib/namespaces.js';

/** Head room over the table's measured size (data + indexes): its pages, the undo log, the adaptive hash index. */
const HEADROOM = 1.5;
/** How long the online resize may take before the bench goes on; the log line then shows the size it reached. */
const RESIZE_WAIT_MS = 60_000;

/** What `growInnodbPool` did: the pool's size before and after, and how to give the old size back. */
export interface PoolChange {
  readonly beforeBytes: number;
  readonly afterBytes: number;
  /** Shrinks the pool back to `beforeBytes` if it is still at `afterBytes`; never throws (it logs). */
  restore(): Promise<void>;
}

async function poolBytes(connection: mysql.Connection): Promise<number> {
  const [rows] = await connection.query<mysql.RowDataPacket[]>('select @@global.innodb_buffer_pool_size as size');
  return Number(rows[0]!.size);
}

async function resizeTo(connection: mysql.Connection, bytes: number): Promise<number> {
  await connection.query('set global innodb_buffer_pool_size = ?', [bytes]);
  const deadline = Date.now() + RESIZE_WAIT_MS;
  for (;;) {
    const [rows] = await connection.query<mysql.RowDataPacket[]>(
      "show global status like 'Innodb_buffer_pool_resize_status'",
    );
    const status = String(rows[0]?.Value ?? '');
    // Empty before any resize; "Completed resizing buffer pool at …" (or "… is not needed") once done.
    if (status === '' || /completed|not needed/i.test(status) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return poolBytes(connection);
}

/**
 * Grows the buffer pool to hold `tableBytes` (× 1.5 head room) when it is smaller; otherwise changes nothing.
 * @throws the driver's error when the server refuses the statement (needs SUPER or SYSTEM_VARIABLES_ADMIN).
 */
export async function growInnodbPool(tableBytes: number, log: (line: string) => void): Promise<PoolChange> {
  const connection = await mysql.createConnection({ uri: BENCH_URLS.mysql });
  try {
    const beforeBytes = await poolBytes(connection);
    const wanted = Math.ceil(tableBytes * HEADROOM);
    if (beforeBytes >= wanted) {
      return { beforeBytes, afterBytes: beforeBytes, restore: async () => {} };
    }
    const afterBytes = await resizeTo(connection, wanted);
    log(`  mysql: InnoDB buffer pool ${mib(beforeBytes)} → ${mib(afterBytes)} for a ${mib(tableBytes)} table`);
    return { beforeBytes, afterBytes, restore: () => shrinkBack(beforeBytes, afterBytes, log) };
  } finally {
    await connection.end();
  }
}

async function shrinkBack(beforeBytes: number, afterBytes: number, log: (line: string) => void): Promise<void> {
  try {
    const connection = await mysql.createConnection({ uri: BENCH_URLS.mysql });
    try {
      if ((await poolBytes(connection)) !== afterBytes) return;
      const now = await resizeTo(connection, beforeBytes);
      log(`  mysql: InnoDB buffer pool back to ${mib(now)}`);
    } finally {
      await connection.end();
    }
  } catch (error) {
    log(`  mysql: buffer pool not restored: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const mib = (bytes: number): string => `${Math.round(bytes / 1_048_576)} MB`;
