import type { RowDataPacket } from 'mysql2/promise';
import type { BenchBackend, NamespaceInfo } from '../lib/namespaces.js';
import {
  type Deliverer,
  type DeliveryResult,
  HANDLER_RESPONSE,
  type HandlerCounter,
  type Subject,
} from '../lib/subject.js';

/**
 * The bare minimum a guarded delivery cannot avoid, hand-written on the raw driver with no library: (1) the atomic
 * claim — one INSERT relying on the primary key of the same `payonce_receipts` table (HSETNX on Redis) — then the
 * handler, then (2) the completion storing the response (status, headers JSON, body bytes). A lost claim reads the
 * row once to replay the stored response (or to answer "in progress"). No fencing, no takeover, no retries, no
 * fingerprint: that is what a library adds, and what the ratio prices.
 *
 * Each opener imports its own driver when it runs, so a row's process loads only the driver that row needs
 * (workloads (a) and (b) run every row in a child process of its own; see `lib/child-rows.ts`).
 */

const PROVIDER = 'bench';
const HEADERS_JSON = JSON.stringify(HANDLER_RESPONSE.headers);
const BODY = Buffer.from(HANDLER_RESPONSE.body, 'utf8');

const outcomeOf = (status: unknown): DeliveryResult => (String(status) === 'completed' ? 'replayed' : 'in-progress');

const PG_CLAIM = `insert into payonce_receipts (provider, external_id, status, attempts, claimed_at, created_at)
values ($1, $2, 'processing', 1, $3, $3) on conflict (provider, external_id) do nothing`;
const PG_COMPLETE = `update payonce_receipts set status = 'completed', finished_at = $3, response_status = $4,
response_headers = $5, response_body = $6 where provider = $1 and external_id = $2 and status = 'processing'`;
const PG_READ = `select status, response_status, response_headers, response_body from payonce_receipts
where provider = $1 and external_id = $2`;

async function openPostgres(ns: NamespaceInfo, counter: HandlerCounter): Promise<Deliverer> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ ...ns.postgres, max: 10 });
  return {
    async deliver(id) {
      const now = Date.now();
      const claimed = await pool.query(PG_CLAIM, [PROVIDER, id, now]);
      if (claimed.rowCount !== 1) {
        const { rows } = await pool.query<{ status: string }>(PG_READ, [PROVIDER, id]);
        return outcomeOf(rows[0]?.status);
      }
      counter.runs++;
      await pool.query(PG_COMPLETE, [PROVIDER, id, Date.now(), HANDLER_RESPONSE.status, HEADERS_JSON, BODY]);
      return 'ran';
    },
    close: () => pool.end(),
  };
}

/**
 * The one-commit design written by hand on raw `pg`, what `runInTransaction` does: BEGIN, the claim INSERT, the
 * business INSERT into `bench_ledger`, the completion UPDATE, COMMIT — five round trips and one commit. A concurrent
 * claimer of the same key waits on the uncommitted unique-index entry, then finds the row (replay or in progress).
 * Its ratio to the two-commit bare minimum is the most any one-commit design can reach with a driver that sends one
 * statement at a time (pg has no pipelining).
 */
async function openPostgresTransaction(ns: NamespaceInfo, counter: HandlerCounter): Promise<Deliverer> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ ...ns.postgres, max: 10 });
  return {
    async deliver(id) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const now = Date.now();
        const claimed = await client.query(PG_CLAIM, [PROVIDER, id, now]);
        if (claimed.rowCount !== 1) {
          const { rows } = await client.query<{ status: string }>(PG_READ, [PROVIDER, id]);
          await client.query('rollback');
          return outcomeOf(rows[0]?.status);
        }
        await client.query('insert into bench_ledger (event_id, amount) values ($1, $2)', [id, 4200]);
        counter.runs++;
        await client.query(PG_COMPLETE, [PROVIDER, id, Date.now(), HANDLER_RESPONSE.status, HEADERS_JSON, BODY]);
        await client.query('commit');
        return 'ran';
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** The hand-written one-commit row on PostgreSQL (see `openPostgresTransaction`). */
export function bareTransactionSubject(): Subject {
  return {
    id: 'postgres/bare-tx',
    backend: 'postgres',
    kind: 'bare',
    label: 'bare minimum in one transaction (pg: BEGIN, claim, business INSERT, completion, COMMIT)',
    open: openPostgresTransaction,
  };
}

const MY_CLAIM = `insert into payonce_receipts (provider, external_id, status, attempts, claimed_at, created_at)
values (?, ?, 'processing', 1, ?, ?)`;
const MY_COMPLETE = `update payonce_receipts set status = 'completed', finished_at = ?, response_status = ?,
response_headers = ?, response_body = ? where provider = ? and external_id = ? and status = 'processing'`;
const MY_READ = `select status, response_status, response_headers, response_body from payonce_receipts
where provider = ? and external_id = ?`;

async function openMysql(ns: NamespaceInfo, counter: HandlerCounter): Promise<Deliverer> {
  const { default: mysql } = await import('mysql2/promise');
  const pool = mysql.createPool({ uri: ns.mysqlUrl!, connectionLimit: 10 });
  return {
    async deliver(id) {
      const now = Date.now();
      try {
        await pool.query(MY_CLAIM, [PROVIDER, id, now, now]);
      } catch (error) {
        if ((error as { errno?: number }).errno !== 1062) throw error;
        const [rows] = await pool.query<RowDataPacket[]>(MY_READ, [PROVIDER, id]);
        return outcomeOf(rows[0]?.status);
      }
      counter.runs++;
      await pool.query(MY_COMPLETE, [Date.now(), HANDLER_RESPONSE.status, HEADERS_JSON, BODY, PROVIDER, id]);
      return 'ran';
    },
    close: () => pool.end(),
  };
}

async function openSqlite(ns: NamespaceInfo, counter: HandlerCounter): Promise<Deliverer> {
  const { path, synchronousNormal } = ns.sqlite!;
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path, { timeout: 5_000 });
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronousNormal ? 'NORMAL' : 'FULL'}`);
  const claim =
    db.prepare(`insert into payonce_receipts (provider, external_id, status, attempts, claimed_at, created_at)
values (?, ?, 'processing', 1, ?, ?) on conflict (provider, external_id) do nothing`);
  const complete = db.prepare(`update payonce_receipts set status = 'completed', finished_at = ?, response_status = ?,
response_headers = ?, response_body = ? where provider = ? and external_id = ? and status = 'processing'`);
  const read = db.prepare<[string, string], { status: string }>(
    'select status, response_status, response_headers, response_body from payonce_receipts where provider = ? and external_id = ?',
  );
  return {
    async deliver(id) {
      const now = Date.now();
      if (claim.run(PROVIDER, id, now, now).changes !== 1) return outcomeOf(read.get(PROVIDER, id)?.status);
      // The handler runs after an await, as in the guarded rows, so concurrent deliveries interleave.
      await Promise.resolve(counter.runs++);
      complete.run(Date.now(), HANDLER_RESPONSE.status, HEADERS_JSON, BODY, PROVIDER, id);
      return 'ran';
    },
    close: async () => {
      db.close();
    },
  };
}

async function openRedis(ns: NamespaceInfo, counter: HandlerCounter): Promise<Deliverer> {
  const { url, prefix } = ns.redis!;
  const { Redis } = await import('ioredis');
  const client = new Redis(url);
  return {
    async deliver(id) {
      const key = `${prefix}bare:${id}`;
      if ((await client.hsetnx(key, 'status', 'processing')) !== 1) {
        const [status] = await client.hmget(key, 'status', 'response_status', 'response_headers', 'response_body');
        return outcomeOf(status);
      }
      counter.runs++;
      await client.hset(key, {
        status: 'completed',
        finished_at: Date.now(),
        response_status: HANDLER_RESPONSE.status,
        response_headers: HEADERS_JSON,
        response_body: BODY,
      });
      return 'ran';
    },
    close: async () => {
      await client.quit();
    },
  };
}

interface MemoryEntry {
  status: 'processing' | 'completed';
  response: { status: number; headers: string; body: Buffer } | null;
}

async function openMemory(_ns: NamespaceInfo, counter: HandlerCounter): Promise<Deliverer> {
  const entries = new Map<string, MemoryEntry>();
  return {
    async deliver(id) {
      const existing = entries.get(id);
      if (existing) return outcomeOf(existing.status);
      const entry: MemoryEntry = { status: 'processing', response: null };
      entries.set(id, entry);
      await Promise.resolve(counter.runs++);
      entry.status = 'completed';
      entry.response = { status: HANDLER_RESPONSE.status, headers: HEADERS_JSON, body: BODY };
      return 'ran';
    },
    close: async () => entries.clear(),
  };
}

const OPENERS: Record<BenchBackend, (ns: NamespaceInfo, counter: HandlerCounter) => Promise<Deliverer>> = {
  memory: openMemory,
  sqlite: openSqlite,
  'sqlite-normal': openSqlite,
  postgres: openPostgres,
  mysql: openMysql,
  redis: openRedis,
};

const DRIVER: Record<BenchBackend, string> = {
  memory: 'Map',
  sqlite: 'better-sqlite3, synchronous=FULL',
  'sqlite-normal': 'better-sqlite3, synchronous=NORMAL',
  postgres: 'pg',
  mysql: 'mysql2',
  redis: 'ioredis HSETNX + HSET',
};

/** The bare-minimum row of `backend`. */
export function bareSubject(backend: BenchBackend): Subject {
  return {
    id: `${backend}/bare`,
    backend,
    kind: 'bare',
    label: `bare minimum (${DRIVER[backend]})`,
    open: OPENERS[backend],
  };
}

/** Opens the bare minimum directly (used by the HTTP bare routes). */
export function openBare(ns: NamespaceInfo, counter: HandlerCounter): Promise<Deliverer> {
  return OPENERS[ns.backend](ns, counter);
}
