import { CompiledQuery } from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import type { SqlExecutor } from './joined-transaction.js';
import { POSTGRES_PROBE, readSessionFacts, type SessionFacts } from './session-facts.js';
import type { SqlDialectName } from './sql-dialect.js';

/** The part of a SQL store (`PostgresStore`, `MysqlStore`, `SqliteStore`) the check reads. */
export interface CheckedStore {
  readonly dialect: { readonly name: SqlDialectName };
  /** The store's own pool, as a Kysely instance: its session facts are read once. */
  readonly db?: { executeQuery(query: CompiledQuery): Promise<{ readonly rows: readonly unknown[] }> };
  /** The store's PostgreSQL schema or MySQL database; `null`/absent: the connection's own. */
  readonly schema?: string | null;
  /** What the store's table names start with (`SqlStoreOptions.tablePrefix`); absent: `payonce_`. */
  readonly tablePrefix?: string | null;
}

const ENDED =
  'is not inside an open transaction: its transaction has already ended (committed or rolled back), or was never ' +
  'begun. Call payonce inside the transaction and await it there; a statement run on an ended transaction ' +
  "commits on its own, or lands in another request's transaction on the same pooled connection";

/**
 * Errors the stacks throw themselves for a statement on a transaction that has ended: Kysely ("Transaction is
 * already committed" / "rolled back"), Knex ("Transaction query already complete"), Prisma (P2028 "Transaction
 * already closed"), TypeORM (`QueryRunnerAlreadyReleasedError`).
 */
function isEndedTransactionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ((error as { code?: unknown }).code === 'P2028') return true;
  return (
    error.name === 'QueryRunnerAlreadyReleasedError' ||
    /Transaction is already (committed|rolled back)|Transaction query already complete|Transaction already closed/.test(
      error.message,
    )
  );
}

/** The store's own session facts, read once per store (not kept when the read fails: the store may be down). */
const storeFacts = new WeakMap<object, Promise<SessionFacts>>();

function factsOfStore(store: CheckedStore): Promise<SessionFacts> | null {
  const db = store.db;
  if (db === undefined || typeof db.executeQuery !== 'function') return null;
  let facts = storeFacts.get(store);
  if (facts === undefined) {
    facts = readSessionFacts(
      store.dialect.name,
      (sql, parameters) => db.executeQuery(CompiledQuery.raw(sql, [...parameters])),
      store.schema ?? null,
      store.tablePrefix ?? undefined,
    );
    facts.catch(() => storeFacts.delete(store));
    storeFacts.set(store, facts);
  }
  return facts;
}

/** Origins (see `SqlExecutor.origin`) whose database was found to be the store's, per store. */
const checkedOrigins = new WeakMap<object, WeakSet<object>>();

/**
 * Compares where the caller's session and the store's see payonce's receipts table.
 * @returns `false` when it could not be compared: the store's own facts could not be read (it may be down: its own
 *   calls say so); `true` when compared, or when a side cannot be told (an in-memory SQLite database).
 * @throws {InvalidOption} (`where`) the two sessions see different copies of the table.
 */
async function checkSamePlace(store: CheckedStore, facts: SessionFacts, where: string): Promise<boolean> {
  const own = await factsOfStore(store)?.catch(() => null);
  if (own === null || own === undefined) return false;
  if (own.place === null || facts.place === null) return true;
  if (own.place !== facts.place) {
    throw new InvalidOption(
      where,
      `runs on ${facts.described}, but the guard's store on ${own.described}: payonce's receipts would be split ` +
        "between two copies of its tables. Point the store at the transaction's database (and the same schema)",
    );
  }
  return true;
}

/** Remembers that `member` was checked against `store`. */
function remember(checked: WeakMap<object, WeakSet<object>>, store: object, member: object): void {
  let members = checked.get(store);
  if (members === undefined) {
    members = new WeakSet();
    checked.set(store, members);
  }
  members.add(member);
}

/**
 * Checks a transaction the application opened, before payonce writes to it through `executor`: that it is still
 * open (a statement on an ended transaction would commit on its own, or land in another request's transaction on
 * the same pooled connection), and that it sees the same payonce tables as the guard's store (the same database,
 * and the same schema or search_path). Where the adapter tells both from the stack's own state (`isOpen` and
 * `origin`: node-postgres, Knex, TypeORM, better-sqlite3) and the tables cannot move (the store names its schema,
 * or SQLite) nothing is run after the first transaction of an origin; otherwise one statement (MariaDB: `@@in_transaction` with the database; PostgreSQL through Kysely or Prisma, which
 * refuse an ended transaction themselves: the database), or two where PostgreSQL must be asked (postgres.js: a
 * transaction-local setting, then the database). A MySQL server (no `@@in_transaction`) cannot be asked: only its
 * database is checked there. A connection that went back to its pool and was lent to another transaction cannot be
 * told from that transaction by any of these: never keep a transaction object past its transaction.
 * @throws {InvalidOption} (`where`) the transaction has ended, or is on another database or schema.
 * @throws the driver's error of a check statement otherwise (the connection is lost: the caller rolls back).
 */
export async function checkJoinedTransaction(store: CheckedStore, executor: SqlExecutor, where = 'tx'): Promise<void> {
  const open = executor.isOpen?.();
  if (open === false) throw new InvalidOption(where, ENDED);
  // A connection's search_path (PostgreSQL) or database (MySQL `USE`) can change between its transactions (a
  // tenant's `SET LOCAL search_path`): only names the store qualifies itself, or SQLite's one file, stay put.
  const settled = executor.dialect === 'sqlite' || (store.schema !== null && store.schema !== undefined);
  const origin = open === true && settled ? executor.origin : undefined;
  if (origin !== undefined && checkedOrigins.get(store)?.has(origin) === true) return;
  const run = (sql: string, parameters: readonly unknown[]) => executor.execute(sql, parameters);
  let facts: SessionFacts;
  try {
    if (open === undefined && executor.dialect === 'postgres') await run(POSTGRES_PROBE, []);
    facts = await readSessionFacts(executor.dialect, run, store.schema ?? null, store.tablePrefix ?? undefined);
  } catch (error) {
    if (isEndedTransactionError(error)) throw new InvalidOption(where, ENDED);
    throw error;
  }
  if (open === undefined && facts.inTransaction === false) throw new InvalidOption(where, ENDED);
  // The transaction may have ended while the check ran (a COMMIT queued before it on the connection).
  if (executor.isOpen?.() === false) throw new InvalidOption(where, ENDED);
  const compared = await checkSamePlace(store, facts, where);
  if (compared && origin !== undefined) remember(checkedOrigins, store, origin);
}

/** Openers (see `StackTransactions`) whose database was found to be the store's, per store. */
const checkedOpeners = new WeakMap<object, WeakSet<object>>();

/**
 * Checks, on the first transaction a `StackTransactions` opener gives payonce (and until one passes), that the
 * opener's database holds the same payonce tables as the guard's store: a pool on another database (or search_path)
 * with its own copy of the tables would split the receipts. payonce began that transaction, so it is open.
 * @throws {InvalidOption} (`where`) the opener's transactions run on another database or schema than the store.
 */
export async function checkOpenerDatabase(
  store: CheckedStore,
  opener: object,
  executor: SqlExecutor,
  where: string,
): Promise<void> {
  if (checkedOpeners.get(store)?.has(opener) === true) return;
  const facts = await readSessionFacts(
    executor.dialect,
    (sql, parameters) => executor.execute(sql, parameters),
    store.schema ?? null,
    store.tablePrefix ?? undefined,
  );
  if (await checkSamePlace(store, facts, where)) remember(checkedOpeners, store, opener);
}
