/**
 * Sizes MariaDB's InnoDB buffer pool to the seeded receipts table for the scale targets, and
 * gives the old size back afterwards.
 *
 * Why: the target measures what 1 M stored receipts cost payonce's statements, not how the server's cache is sized.
 * PostgreSQL reads its table through the kernel's page cache, so on this 24 GiB machine a 465 MB table is served
 * from memory whatever `shared_buffers` says. InnoDB reads with `O_DIRECT` and caches only in its own pool, whose
 * default (128 MB) holds about a quarter of the ~480 MB table: random keys then wait on the disk. A production
 * MariaDB is given a pool for its working set (the MariaDB manual suggests most of a dedicated server's memory).
 * Measured (notes/limits.md): 0.87× at 128 MB, 1.04× at 1 GB, with the same code.
 *
 * MariaDB resizes the pool online (`SET GLOBAL innodb_buffer_pool_size`, 10.2+) in chunks of
 * `innodb_buffer_pool_chunk_size`; the resize runs in the background, so this waits until
 * `Innodb_buffer_pool_resize_status` says it is done. The pool only grows here; it is given back to the size found
 * only when nobody changed it meanwhile, and two bench runs take turns (`growInnodbPool`). A run killed before its cleanup leaves the pool grown: harmless (it is
 * memory the server may use, no setting a test depends on), and the next run then finds it large enough.
 */
import { totalmem } from 'node:os';
import mysql from 'mysql2/promise';
import { BENCH_URLS } from '../lib/namespaces.js';

/** Head room over the table's measured size (data + indexes): its pages, the undo log, the adaptive hash index. */
const HEADROOM = 1.5;
/** The server-side lock one bench run holds from growing the pool until it gives the old size back. */
const POOL_LOCK = 'payonce_bench_innodb_pool';
/** How long a run waits for another run's scale targets to give the pool back (they take about 5 minutes). */
const LOCK_WAIT_SECONDS = 1_800;
/** How long the online resize may take before the bench goes on; the log line then shows the size it reached. */
const RESIZE_WAIT_MS = 60_000;

/** What `growInnodbPool` did: the pool's size before and after, and how to give the old size back. */
export interface PoolChange {
  readonly beforeBytes: number;
  readonly afterBytes: number;
  /**
   * Shrinks the pool back to `beforeBytes` if it is still at `afterBytes`, then releases the lock; never throws (it
   * logs). Calls after the first do nothing more.
   */
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
 * Grows the buffer pool to hold `tableBytes` (× 1.5 head room, at most half this machine's memory) when it is
 * smaller; otherwise changes nothing. Either way it first takes the server-side lock `payonce_bench_innodb_pool`
 * (`GET_LOCK`) on a connection of its own and keeps it until `restore()`: a second bench run on the same server waits
 * here until the first has given its size back, so neither shrinks the pool under the other. A run that dies loses
 * its connection, and the server releases the lock.
 * @throws the driver's error when the server refuses the statement (needs SUPER or SYSTEM_VARIABLES_ADMIN), and
 *   an `Error` when the lock is not free within 30 minutes (nothing is changed then).
 */
export async function growInnodbPool(tableBytes: number, log: (line: string) => void): Promise<PoolChange> {
  const connection = await mysql.createConnection({ uri: BENCH_URLS.mysql });
  // It stays open, idle, until restore(): a dropped session must not become an unhandled 'error' event.
  connection.on('error', () => {});
  try {
    const [locked] = await connection.query<mysql.RowDataPacket[]>('select get_lock(?, ?) as held', [
      POOL_LOCK,
      LOCK_WAIT_SECONDS,
    ]);
    if (Number(locked[0]?.held) !== 1)
      throw new Error(`another bench run held ${POOL_LOCK} for ${LOCK_WAIT_SECONDS} s`);
    const beforeBytes = await poolBytes(connection);
    const wanted = Math.min(Math.ceil(tableBytes * HEADROOM), Math.floor(totalmem() / 2));
    const afterBytes = beforeBytes >= wanted ? beforeBytes : await resizeTo(connection, wanted);
    if (afterBytes !== beforeBytes) {
      log(`  mysql: InnoDB buffer pool ${mib(beforeBytes)} → ${mib(afterBytes)} for a ${mib(tableBytes)} table`);
    }
    return { beforeBytes, afterBytes, restore: once(() => shrinkBack(connection, beforeBytes, afterBytes, log)) };
  } catch (error) {
    await connection.end();
    throw error;
  }
}

/** `run` on the first call; every later call gets the first call's promise. */
function once(run: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () => {
    done ??= run();
    return done;
  };
}

/** Gives the old size back if the pool is still at the size we set, then releases the lock and the connection. */
async function shrinkBack(
  connection: mysql.Connection,
  beforeBytes: number,
  afterBytes: number,
  log: (line: string) => void,
): Promise<void> {
  try {
    if (afterBytes !== beforeBytes && (await poolBytes(connection)) === afterBytes) {
      const now = await resizeTo(connection, beforeBytes);
      log(`  mysql: InnoDB buffer pool back to ${mib(now)}`);
    }
  } catch (error) {
    log(`  mysql: buffer pool not restored: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await connection.end().catch(() => {}); // ending the session releases the lock
  }
}

const mib = (bytes: number): string => `${Math.round(bytes / 1_048_576)} MB`;
