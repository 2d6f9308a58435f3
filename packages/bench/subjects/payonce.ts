import { RequestInProgress } from 'payonce/internal/core/errors.js';
import { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import type { Store } from 'payonce/internal/core/store.js';
import type { PipeliningProbe } from 'payonce/internal/stores/redis/adaptive-pipelining.js';
import type { ReceiptsDatabase } from 'payonce/internal/stores/sql/receipts-table.js';
import type { BenchBackend, NamespaceInfo } from '../lib/namespaces.js';
import {
  type Deliverer,
  type DeliveryResult,
  HANDLER_RESPONSE,
  type HandlerCounter,
  payloadOf,
  type Subject,
} from '../lib/subject.js';

export { payloadOf };

/** A store of payonce on the namespace, and how to release it. */
export interface OpenedStore {
  readonly store: Store;
  close(): Promise<void>;
  /** What the store chose on its own while it ran (`pipelining` on Redis). */
  notes?(): Readonly<Record<string, string>>;
}

/**
 * Opens payonce's store for `ns` exactly as an application would (static factories, default options). The store's
 * module and its driver are imported here, so a row's process loads only its own backend.
 */
export async function openStore(
  ns: NamespaceInfo,
  options: { batched?: boolean; uncorked?: boolean } = {},
): Promise<OpenedStore> {
  const batching = options.batched === true;
  switch (ns.backend) {
    case 'memory': {
      const { MemoryStore } = await import('payonce/internal/stores/memory/memory-store.js');
      return { store: new MemoryStore(), close: async () => {} };
    }
    case 'sqlite':
    case 'sqlite-normal': {
      const { SqliteStore } = await import('payonce/internal/stores/sqlite/sqlite-store.js');
      const store = await SqliteStore.open(ns.sqlite!.path, { unsafeSynchronousNormal: ns.sqlite!.synchronousNormal });
      return { store, close: () => store.close() };
    }
    case 'postgres': {
      const { PostgresStore } = await import('payonce/internal/stores/postgres/postgres-store.js');
      const store = await PostgresStore.connect({ ...ns.postgres!, max: 10 }, { batching });
      return { store, close: () => store.close() };
    }
    case 'mysql': {
      const { MysqlStore } = await import('payonce/internal/stores/mysql/mysql-store.js');
      const store = await MysqlStore.connect({ uri: ns.mysqlUrl!, connectionLimit: 10 }, { batching });
      return { store, close: () => store.close() };
    }
    case 'redis': {
      const { Redis } = await import('ioredis');
      const { RedisStore } = await import('payonce/internal/stores/redis/redis-store.js');
      const client = new Redis(ns.redis!.url);
      // 'auto': corks a tick's commands into one write only while that measures faster on this host
      // (AdaptivePipelining; notes/redis.md). `uncorked`: the store's default (`pipelining: false`), for the row
      // that shows what 'auto' earns.
      const pipelining = options.uncorked === true ? false : 'auto';
      const store = new RedisStore({ client, prefix: ns.redis!.prefix, pipelining });
      return {
        store,
        close: async () => {
          await client.quit();
        },
        notes: () => pipeliningNotes(store.pipeliningProbe),
      };
    }
  }
}

/**
 * The Redis store's choice for the side's timed run: `pipelining` "corked" or "uncorked (disputed)", and the last
 * probe's pair ratios corked ÷ uncorked (the warm-up holds the first probe; a choice holds 30 s).
 */
function pipeliningNotes(probe: PipeliningProbe | null): Record<string, string> {
  if (probe === null) return { pipelining: 'not probed yet' };
  return {
    pipelining: `${probe.corking ? 'corked' : 'uncorked'}${probe.disputed ? ' (disputed)' : ''}`,
    probeRatios: probe.ratios.map((ratio) => ratio.toFixed(2)).join(' '),
  };
}

/** Runs one delivery through `guard.run`, mapping the outcome to a `DeliveryResult`. */
export async function guardedDelivery(
  guard: IdempotencyGuard,
  id: string,
  counter: HandlerCounter,
): Promise<DeliveryResult> {
  try {
    const outcome = await guard.run(
      new RequestKey('bench', id),
      () => {
        counter.runs++;
        return HANDLER_RESPONSE;
      },
      { payload: payloadOf(id) },
    );
    return outcome.isReplay ? 'replayed' : 'ran';
  } catch (error) {
    if (error instanceof RequestInProgress) return 'in-progress';
    throw error;
  }
}

/**
 * payonce's `IdempotencyGuard.run` on the store of `backend`; `batched` makes the SQL stores batch concurrent
 * claims and completions, with the id `<backend>/payonce-batched`; `uncorked` runs the Redis store with its default
 * `pipelining: false` instead of `'auto'`, with the id `redis/payonce-uncorked`.
 */
export function payonceSubject(
  backend: BenchBackend,
  options: { batched?: boolean; uncorked?: boolean } = {},
): Subject {
  const batched = options.batched === true;
  const uncorked = options.uncorked === true;
  return {
    id: `${backend}/payonce${batched ? '-batched' : ''}${uncorked ? '-uncorked' : ''}`,
    backend,
    kind: 'payonce',
    label: batched
      ? 'payonce guard.run, batched claims and completions'
      : uncorked
        ? 'payonce guard.run, pipelining off (the store default)'
        : 'payonce guard.run',
    async open(ns, counter): Promise<Deliverer> {
      const opened = await openStore(ns, { batched, uncorked });
      const guard = new IdempotencyGuard(opened.store);
      return {
        deliver: (id) => guardedDelivery(guard, id, counter),
        close: () => opened.close(),
        ...(opened.notes ? { notes: opened.notes } : {}),
      };
    },
  };
}

/** The receipts table plus the business table the transactional row writes to. */
interface LedgerDatabase extends ReceiptsDatabase {
  bench_ledger: { event_id: string; amount: number };
}

/**
 * `runInTransaction` on PostgreSQL: BEGIN, claim, a business INSERT into `bench_ledger`, completion, COMMIT — one
 * commit per delivery where the bare minimum has two (and no business write at all).
 */
export function payonceTransactionSubject(): Subject {
  return {
    id: 'postgres/payonce-tx',
    backend: 'postgres',
    kind: 'payonce',
    label: 'payonce runInTransaction (+ business INSERT, 1 commit)',
    async open(ns, counter): Promise<Deliverer> {
      const { PostgresStore } = await import('payonce/internal/stores/postgres/postgres-store.js');
      const store = await PostgresStore.connect<LedgerDatabase>({ ...ns.postgres!, max: 10 });
      const guard = new IdempotencyGuard(store);
      return {
        async deliver(id) {
          try {
            const outcome = await store.db.transaction().execute((tx) =>
              guard.runInTransaction(
                tx,
                new RequestKey('bench', id),
                async (trx) => {
                  await trx.insertInto('bench_ledger').values({ event_id: id, amount: 4200 }).execute();
                  counter.runs++;
                  return HANDLER_RESPONSE;
                },
                { payload: payloadOf(id) },
              ),
            );
            return outcome.isReplay ? 'replayed' : 'ran';
          } catch (error) {
            if (error instanceof RequestInProgress) return 'in-progress';
            throw error;
          }
        },
        close: () => store.close(),
      };
    },
  };
}
