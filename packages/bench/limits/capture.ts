/**
 * What payonce actually sends for one delivery, captured from the drivers while `guard.run` delivers one unique key
 * on a real store — so the physical limits (`limits.ts`) replay the SAME statements and commands, whatever the
 * stores compile today (`src/stores/sql/insert-claim.ts`, `complete-receipt.ts`, `src/stores/redis/scripts/*`),
 * instead of a copy that would drift from them.
 *
 * The delivery's external id is `CAPTURE_KEY`, so a benchmark can find it in the SQL parameters / command
 * arguments and put a fresh key there on every transaction.
 */
import { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import type { Store } from 'payonce/internal/core/store.js';
import { HANDLER_RESPONSE, payloadOf } from '../lib/subject.js';

/** The external id of the captured delivery (provider `bench`, as in the bench rows). */
export const CAPTURE_KEY = 'payonce-limits-capture-key';

/** One SQL statement as the driver received it: text and parameter values (null when interpolated client-side). */
export interface CapturedStatement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** One Redis command as sent: name and arguments (Buffers kept). */
export interface CapturedCommand {
  readonly name: string;
  readonly args: readonly (string | Buffer | number)[];
}

async function deliverOnce(store: Store): Promise<void> {
  const guard = new IdempotencyGuard(store);
  const outcome = await guard.run(new RequestKey('bench', CAPTURE_KEY), () => HANDLER_RESPONSE, {
    payload: payloadOf(CAPTURE_KEY),
  });
  if (outcome.isReplay) throw new Error('the captured delivery was a replay: the namespace was not empty');
}

/** The receipts statements `PostgresStore` sends for one delivery (config: a pool config of a migrated schema). */
export async function capturePostgres(config: { connectionString: string; options: string }) {
  const { default: pg } = await import('pg');
  const { PostgresStore } = await import('payonce/internal/stores/postgres/postgres-store.js');
  const captured: CapturedStatement[] = [];
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const [text, values] = args;
    if (typeof text === 'string' && text.includes('payonce_receipts')) {
      captured.push({ text, values: Array.isArray(values) ? [...values] : [] });
    }
    return original.apply(this, args);
  };
  const store = await PostgresStore.connect({ ...config, max: 1 });
  try {
    await deliverOnce(store);
  } finally {
    proto.query = original;
    await store.close();
  }
  return captured;
}

/** What `mysql2` hands `Connection.query` for a pool's query: the query command, with its SQL text and values. */
interface QueryCommand {
  readonly sql?: string;
  readonly values?: unknown;
}

/** The receipts statements `MysqlStore` sends for one delivery (mysql2 interpolates values into the text). */
export async function captureMysql(url: string) {
  const { default: mysql } = await import('mysql2');
  const { MysqlStore } = await import('payonce/internal/stores/mysql/mysql-store.js');
  const captured: CapturedStatement[] = [];
  const proto = (mysql as unknown as { Connection: { prototype: Record<string, (...args: unknown[]) => unknown> } })
    .Connection.prototype;
  const originals = { query: proto.query!, execute: proto.execute! };
  for (const method of ['query', 'execute'] as const) {
    proto[method] = function (this: unknown, ...args: unknown[]) {
      const [text, values] = args;
      // A string with its values (a connection's own query), or a query command made by the pool (`pool.query`, as
      // MysqlStore.connect sends its statements) that carries its values itself.
      const command = typeof text === 'string' ? null : (text as QueryCommand | null);
      const sql = command === null ? text : command.sql;
      const bound = command === null ? values : command.values;
      if (typeof sql === 'string' && sql.includes('payonce_receipts')) {
        captured.push({ text: sql, values: Array.isArray(bound) ? [...bound] : [] });
      }
      return originals[method].apply(this, args);
    };
  }
  const store = await MysqlStore.connect({ uri: url, connectionLimit: 1 });
  try {
    await deliverOnce(store);
  } finally {
    proto.query = originals.query;
    proto.execute = originals.execute;
    await store.close();
  }
  return captured;
}

/** The commands `RedisStore` sends for one delivery under `prefix` (scripts as EVALSHA after a first EVAL). */
export async function captureRedis(url: string, prefix: string) {
  const { Redis } = await import('ioredis');
  const { RedisStore } = await import('payonce/internal/stores/redis/redis-store.js');
  const client = new Redis(url);
  const captured: CapturedCommand[] = [];
  const recorded = (name: string, send: (...args: (string | Buffer | number)[]) => Promise<unknown>) => {
    return (...args: (string | Buffer | number)[]) => {
      captured.push({ name, args: [...args] });
      return send(...args);
    };
  };
  const recording = {
    callBuffer: (command: string, ...args: (string | Buffer | number)[]) =>
      recorded(command.toUpperCase(), (...a) => client.callBuffer(command, ...a))(...args),
    evalshaBuffer: recorded('EVALSHA', (...args) => client.callBuffer('EVALSHA', ...args)),
    evalBuffer: recorded('EVAL', (...args) => client.callBuffer('EVAL', ...args)),
  };
  const store = new RedisStore({ client: recording, prefix });
  try {
    await deliverOnce(store);
  } finally {
    await store.close?.();
    await client.quit();
  }
  return captured;
}
