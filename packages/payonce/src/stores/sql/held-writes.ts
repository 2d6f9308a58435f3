import type { CompiledQuery, DatabaseConnection, QueryExecutor, QueryResult } from 'kysely';
import { combineWrites, splitCombined } from './combined-writes.js';

/** One write waiting to be sent, answered once the statement that carries it is answered. */
export interface GatheredWrite {
  readonly query: CompiledQuery;
  readonly resolve: (result: QueryResult<never>) => void;
  readonly reject: (error: unknown) => void;
}

type Execute = (query: CompiledQuery) => Promise<QueryResult<unknown>>;

/**
 * Sends `writes` through `execute` without waiting: a lone write as it is, several as ONE statement
 * (`combineWrites`), each answered with the rows it touched; when that statement fails, every one of them fails.
 */
export function sendWrites(execute: Execute, writes: readonly GatheredWrite[]): void {
  const [lone] = writes;
  if (lone !== undefined && writes.length === 1) {
    execute(lone.query).then(lone.resolve as (result: QueryResult<unknown>) => void, lone.reject);
  } else if (writes.length > 1) {
    const rejectAll = (error: unknown) => {
      for (const write of writes) write.reject(error);
    };
    execute(combineWrites(writes.map((write) => write.query)))
      .then((result) => splitCombined(result as QueryResult<Record<string, number>>, writes.length))
      .then((results) => {
        for (const [i, write] of writes.entries()) write.resolve(results[i]!);
      }, rejectAll);
  }
}

/** The connection's own methods, as they were before {@link HeldWrites} put its own in front of them. */
interface OwnMethods {
  readonly executeQuery: PropertyDescriptor | undefined;
  readonly streamQuery: PropertyDescriptor | undefined;
}

/**
 * The writes of one group-commit transaction on PostgreSQL (`GroupCommit`) held back from the database until the
 * next statement on its connection, whoever sends it (payonce's own statements, a handler's through Kysely: every
 * statement on the connection goes through its `executeQuery` or `streamQuery`, in front of which this puts the
 * sending of what it holds), or until the transaction's end (`settle`). So the closing writes of several deliveries
 * of one batch, each run one after another with no statement in between (their targets read ahead), go to the
 * database as ONE statement together with the batch's deferred completions and journal rows, instead of one
 * statement a delivery. The statements reach the connection in the order they were issued, as without holding: a
 * statement that reads what a held write writes is sent after it. What `together` started is tracked here: its
 * writes are answered once sent, and what it issues after them runs then; `settle` waits for all of it and throws
 * the first failure.
 * @see docs/design.md §11 "Fewer round trips" (held writes).
 */
export class HeldWrites {
  private pending: GatheredWrite[] = [];
  private readonly started = new Set<Promise<void>>();
  private failure: { readonly error: unknown } | null = null;
  private settling = false;
  private connection: DatabaseConnection | null = null;
  private own: OwnMethods | null = null;
  private execute: Execute | null = null;

  /** True once a write held here, or a statement issued after one, failed. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** True while a write waits to be sent. */
  get holding(): boolean {
    return this.pending.length > 0;
  }

  /** Holds `writes` (gathered on `connection`, the transaction's one connection) until the next statement on it. */
  hold(connection: DatabaseConnection, writes: readonly GatheredWrite[]): void {
    this.attach(connection);
    this.pending.push(...writes);
    if (this.settling) this.flush();
  }

  /** Tracks what `together` started: its failure is kept for `settle` (and for `failed`), never left unhandled. */
  track(work: Promise<unknown>): void {
    const tracked = work.then(
      () => {},
      (error: unknown) => {
        this.failure ??= { error };
      },
    );
    this.started.add(tracked);
    void tracked.then(() => this.started.delete(tracked));
  }

  /** Sends what is held now, as one statement, ahead of anything sent after this call. */
  flush(): void {
    if (this.pending.length === 0 || this.execute === null) return;
    const writes = this.pending;
    this.pending = [];
    sendWrites(this.execute, writes);
  }

  /**
   * Sends what is held and waits until every write tracked here, and every statement issued after it, is answered.
   * @throws the first failure of any of them (the transaction is then to be rolled back).
   */
  async settle(): Promise<void> {
    this.settling = true;
    this.flush();
    while (this.started.size > 0) await Promise.all([...this.started]);
    if (this.failure !== null) throw this.failure.error;
  }

  /**
   * Gives the connection its own methods back; a write still held (the transaction failed before `settle`) is never
   * sent and fails.
   */
  end(): void {
    const { connection, own } = this;
    if (connection !== null && own !== null) {
      restore(connection, 'executeQuery', own.executeQuery);
      restore(connection, 'streamQuery', own.streamQuery);
    }
    this.own = null;
    this.execute = null;
    const left = this.pending;
    this.pending = [];
    for (const write of left) write.reject(new Error('the transaction ended before its held writes were sent'));
  }

  /** Puts the sending of what is held in front of `connection`'s statements, once. */
  private attach(connection: DatabaseConnection): void {
    if (this.connection === connection) return;
    if (this.connection !== null) throw new Error('held writes of one transaction on two connections');
    this.connection = connection;
    const own = {
      executeQuery: Object.getOwnPropertyDescriptor(connection, 'executeQuery'),
      streamQuery: Object.getOwnPropertyDescriptor(connection, 'streamQuery'),
    };
    this.own = own;
    const executeQuery = connection.executeQuery.bind(connection);
    const streamQuery = connection.streamQuery.bind(connection);
    this.execute = executeQuery as Execute;
    const target = connection as { -readonly [K in keyof DatabaseConnection]: DatabaseConnection[K] };
    target.executeQuery = <R>(query: CompiledQuery) => {
      this.flush();
      return executeQuery<R>(query);
    };
    target.streamQuery = <R>(query: CompiledQuery, chunkSize?: number) => {
      this.flush();
      return streamQuery<R>(query, chunkSize);
    };
  }
}

function restore(connection: DatabaseConnection, name: keyof DatabaseConnection, own: PropertyDescriptor | undefined) {
  if (own === undefined) delete (connection as unknown as Record<string, unknown>)[name];
  else Object.defineProperty(connection, name, own);
}

/** The held writes of the group transactions that hold theirs, by executor. */
const held = new WeakMap<QueryExecutor, HeldWrites>();

/** The {@link HeldWrites} of the transaction whose executor is `executor`, when it holds its writes. */
export function heldWritesOf(executor: QueryExecutor): HeldWrites | undefined {
  return held.get(executor);
}

/**
 * Runs `work` with the writes `together` makes on the transaction of `executor` held ({@link HeldWrites}); once
 * `work` settles, nothing is held any more (`end`). `work` must `settle` what it held before it returns.
 */
export async function holdingWrites<T>(executor: QueryExecutor, work: (held: HeldWrites) => Promise<T>): Promise<T> {
  const writes = new HeldWrites();
  held.set(executor, writes);
  try {
    return await work(writes);
  } finally {
    held.delete(executor);
    writes.end();
  }
}
