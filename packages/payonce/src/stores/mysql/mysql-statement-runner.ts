import type { QueryResult } from 'kysely';

/** What a `mysql2` (callback) pool's `query` hands its callback: rows for a SELECT, an OK packet otherwise. */
type MysqlQueryReply = unknown;

/** The part of a `mysql2` callback pool (`mysql.createPool`) the statement runner uses. */
export interface MysqlQueryPool {
  query(sql: string, values: unknown[], callback: (error: Error | null, result: MysqlQueryReply) => void): unknown;
}

interface OkPacket {
  readonly insertId?: number | string | bigint | null;
  readonly affectedRows?: number | string | bigint | null;
  readonly changedRows?: number | string | bigint | null;
}

function isOkPacket(value: unknown): value is OkPacket {
  return typeof value === 'object' && value !== null && 'insertId' in value && 'affectedRows' in value;
}

const toBigInt = (value: number | string | bigint | null | undefined): bigint | undefined =>
  value === undefined || value === null ? undefined : BigInt(value);

/** A driver reply in the shape Kysely's MySQL driver gives it. */
function queryResultOf(reply: MysqlQueryReply): QueryResult<unknown> {
  if (!isOkPacket(reply)) return { rows: Array.isArray(reply) ? (reply as unknown[]) : [] };
  const insertId = reply.insertId;
  return {
    rows: [],
    insertId: insertId !== undefined && insertId !== null && insertId.toString() !== '0' ? BigInt(insertId) : undefined,
    numAffectedRows: toBigInt(reply.affectedRows),
    numChangedRows: toBigInt(reply.changedRows),
  };
}

/**
 * Runs one of the store's fixed statements (SQL text already compiled by Kysely, fresh parameters) straight on the
 * `mysql2` pool with `pool.query` (one checkout, the statement, one release; the same text protocol and client-side
 * parameter escaping Kysely's MySQL driver uses). The result has the shape that driver gives (`rows`, or
 * `numAffectedRows` / `numChangedRows` / `insertId` as bigints for an OK packet), so the store reads it the same either
 * way; errors are the driver's, unchanged (errno 1062 stays the duplicate-key signal). Used only by stores that own
 * their pool (`MysqlStore.connect`) and never inside a caller's transaction: it skips the Kysely executor's layers
 * (packages/bench/notes/batched.md).
 */
export function mysqlStatementRunner(pool: MysqlQueryPool) {
  return (sql: string, parameters: readonly unknown[]): Promise<QueryResult<unknown>> =>
    new Promise((resolve, reject) => {
      // `parametersOf` built a fresh array for this run: the driver may read it as its own.
      pool.query(sql, parameters as unknown[], (error, reply) => {
        if (error) reject(error);
        else resolve(queryResultOf(reply));
      });
    });
}
