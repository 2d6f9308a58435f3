import type { MysqlPool, MysqlPoolConnection } from 'kysely';
import type { MysqlQueryPool } from './mysql-statement-runner.js';

type QueryCallback = (error: Error | null, result: unknown) => void;

/** The part of a `mysql2` callback pool connection the bound uses (`PoolConnection`). */
interface RawConnection extends Pick<MysqlPoolConnection, 'query' | 'release'> {
  /** Closes the socket at once and takes the connection out of its pool (never handed out again). */
  destroy(): void;
  /** Connects the connection (a pooled one is connected already). */
  connect(callback?: (error: unknown) => void): void;
  /** The connection's options. */
  readonly config: object;
  /** The server's id of the connection (`KILL QUERY` takes it). */
  readonly threadId: number;
}

/** The part of a `mysql2` callback pool (`mysql.createPool`) the bound wraps. */
export interface RawMysqlPool {
  getConnection(callback: (error: unknown, connection: RawConnection) => void): void;
  end(callback: (error: unknown) => void): void;
}

/** The error of a wait that outlived its bound: `fatal` (the connection is gone), like mysql2's connection errors. */
function timeoutError(what: string, ms: number): Error {
  return Object.assign(new Error(`mysql: ${what} got no answer within ${ms} ms; the connection was closed`), {
    code: 'PROTOCOL_SEQUENCE_TIMEOUT',
    fatal: true,
  });
}

/** `mysql2` pool errors that leave the server read-only (failover): the pool's own `query` destroys their connection. */
const READ_ONLY_ERRNOS = new Set([1290, 1792, 1836]);

/**
 * A `mysql2` pool whose every wait is bounded by `timeoutMs` (ms): lending a connection (mysql2 queues callers without
 * a limit) and each statement's answer (mysql2's pool has no statement timeout, and its `timeout` query option leaves
 * the connection busy and out of the pool). A statement that outlives the bound fails with a `fatal`
 * `PROTOCOL_SEQUENCE_TIMEOUT` error and its connection is destroyed, never reused: the server rolls back what that
 * connection had not committed (an open transaction; a single statement is atomic), so no half-written work is left
 * and the pool opens a fresh connection for the next caller. A connection lent after its caller gave up is given
 * back. The same bound as PostgreSQL's `connectionTimeoutMillis` / `query_timeout`.
 * `facade` is what Kysely's `MysqlDialect` takes; `query` runs one statement for the store's direct runner.
 */
export function boundedMysqlPool(
  pool: RawMysqlPool,
  timeoutMs: number,
  end: MysqlPool['end'],
): { readonly facade: MysqlPool; readonly query: MysqlQueryPool['query'] } {
  const wrapped = new WeakMap<RawConnection, MysqlPoolConnection>();

  const boundedQuery = (connection: RawConnection, sql: string, values: unknown[], callback: QueryCallback) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      connection.destroy();
      callback(timeoutError('a statement', timeoutMs), undefined);
    }, timeoutMs);
    const answer = (error: unknown, result: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      callback(error === null || error === undefined ? null : (error as Error), result);
    };
    try {
      connection.query(sql, values, answer);
    } catch (error) {
      answer(error, undefined);
    }
  };

  const wrap = (connection: RawConnection): MysqlPoolConnection => {
    let found = wrapped.get(connection);
    if (found === undefined) {
      // Kysely 0.29 also reads `config`, `threadId`, `connect` and `destroy` (to cancel a statement); a variable, not a
      // literal, so the same object type-checks against 0.28's narrower connection type.
      const made = {
        query: ((sql: string, values: unknown[], callback?: QueryCallback) =>
          // Without a callback Kysely streams the rows: not bounded here (the store never streams).
          callback === undefined
            ? connection.query(sql, values)
            : boundedQuery(connection, sql, values, callback)) as MysqlPoolConnection['query'],
        release: () => connection.release(),
        destroy: () => connection.destroy(),
        connect: (callback?: (error: unknown) => void) => connection.connect(callback),
        get config() {
          return connection.config;
        },
        get threadId() {
          return connection.threadId;
        },
      };
      found = made;
      wrapped.set(connection, made);
    }
    return found;
  };

  const lend = (callback: (error: unknown, connection: RawConnection | null) => void) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      callback(timeoutError('waiting for a pooled connection', timeoutMs), null);
    }, timeoutMs);
    pool.getConnection((error, connection) => {
      if (settled) {
        if (!error) connection.release();
        return;
      }
      settled = true;
      clearTimeout(timer);
      callback(error, error ? null : connection);
    });
  };

  const facade: MysqlPool = {
    getConnection: (callback) =>
      lend((error, connection) =>
        error || connection === null ? callback(error, undefined as never) : callback(null, wrap(connection)),
      ),
    end,
  };
  const query: MysqlQueryPool['query'] = (sql, values, callback) =>
    lend((error, connection) => {
      if (error || connection === null) return callback(error as Error, undefined);
      boundedQuery(connection, sql, values, (queryError, result) => {
        const errno = (queryError as { errno?: unknown } | null)?.errno;
        if (queryError !== null && typeof errno === 'number' && READ_ONLY_ERRNOS.has(errno)) connection.destroy();
        else connection.release();
        callback(queryError, result);
      });
    });
  return { facade, query };
}
