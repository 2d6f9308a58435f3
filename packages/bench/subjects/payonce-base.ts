import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchBackend } from '../lib/namespaces.js';
import { type Deliverer, HANDLER_RESPONSE, payloadOf, type Subject } from '../lib/subject.js';

/** The environment variable naming the baseline build's `packages/payonce/dist` (set by targets/otel.ts). */
export const OTEL_BASE_DIST_ENV = 'BENCH_OTEL_BASE_DIST';

/** The parts of the baseline build a side calls (its own classes: `instanceof` must use them). */
interface BaseModules {
  readonly IdempotencyGuard: new (
    store: unknown,
  ) => { run(key: unknown, handler: () => unknown, options: { payload: string }): Promise<{ isReplay: boolean }> };
  readonly RequestKey: new (provider: string, id: string) => unknown;
  readonly RequestInProgress: abstract new (...args: never[]) => Error;
}

async function baseModule<T>(dist: string, path: string): Promise<T> {
  return (await import(pathToFileURL(join(dist, path)).href)) as T;
}

/**
 * `<backend>/payonce-base` (PostgreSQL or Redis): the `<backend>/payonce` row run on the BASELINE build of the
 * library, the commit before OpenTelemetry (`BENCH_OTEL_BASE`, built by targets/otel.ts `prepare` into
 * `$BENCH_OTEL_BASE_DIST`), loaded by file URL: `guard.run` on the same store with the same options
 * (PostgreSQL pool of 10; Redis `pipelining: 'auto'`). Side A of `otel-guard-none-vs-before-*` is this build's row.
 * @throws {Error} `BENCH_OTEL_BASE_DIST` is not set, or `backend` is neither `postgres` nor `redis`.
 */
export function payonceBaseSubject(backend: BenchBackend): Subject {
  const dist = process.env[OTEL_BASE_DIST_ENV];
  if (!dist) throw new Error(`${OTEL_BASE_DIST_ENV} is not set: targets/otel.ts builds the baseline in prepare()`);
  if (backend !== 'postgres' && backend !== 'redis') throw new Error(`no baseline row on ${backend}`);
  return {
    id: `${backend}/payonce-base`,
    backend,
    kind: 'payonce',
    label: 'payonce guard.run, the build before OpenTelemetry',
    async open(ns, counter): Promise<Deliverer> {
      const modules: BaseModules = {
        ...(await baseModule<Pick<BaseModules, 'IdempotencyGuard'>>(dist, 'core/idempotency-guard.js')),
        ...(await baseModule<Pick<BaseModules, 'RequestKey'>>(dist, 'core/request-key.js')),
        ...(await baseModule<Pick<BaseModules, 'RequestInProgress'>>(dist, 'core/errors.js')),
      };
      let store: unknown;
      let close: () => Promise<void>;
      if (backend === 'postgres') {
        const { PostgresStore } = await baseModule<{
          PostgresStore: {
            connect(pool: object, options: object): Promise<{ close(): Promise<void> }>;
          };
        }>(dist, 'stores/postgres/postgres-store.js');
        const opened = await PostgresStore.connect({ ...ns.postgres!, max: 10 }, { batching: false });
        store = opened;
        close = () => opened.close();
      } else {
        const { Redis } = await import('ioredis');
        const { RedisStore } = await baseModule<{ RedisStore: new (options: object) => object }>(
          dist,
          'stores/redis/redis-store.js',
        );
        const client = new Redis(ns.redis!.url);
        store = new RedisStore({ client, prefix: ns.redis!.prefix, pipelining: 'auto' });
        close = async () => {
          await client.quit();
        };
      }
      const guard = new modules.IdempotencyGuard(store);
      return {
        async deliver(id) {
          try {
            const outcome = await guard.run(
              new modules.RequestKey('bench', id),
              () => {
                counter.runs++;
                return HANDLER_RESPONSE;
              },
              { payload: payloadOf(id) },
            );
            return outcome.isReplay ? 'replayed' : 'ran';
          } catch (error) {
            if (error instanceof modules.RequestInProgress) return 'in-progress';
            throw error;
          }
        },
        close: () => close(),
      };
    },
  };
}
