/**
 * Child process of the POST /orders crash test (issue 11 item 1): the reference service on the given database,
 * with a store whose completion of `Idempotency-Key` receipts (provider `http`) prints `completing` and then
 * hangs — the moment between the order insert and the receipt completion — until the parent SIGKILLs it.
 * argv: <dialect> <target>; prints `listening <url>`.
 */

import type { FinishRequest, Store } from '../../packages/payonce/src/core/store.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { SqlDialectName } from '../../packages/payonce/src/stores/sql/sql-dialect.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createService } from '../../packages/service/src/create-service.js';
import { openTarget } from '../outbox/sql-backends.js';

const [dialect, target] = process.argv.slice(2);
const store = await openTarget(dialect as SqlDialectName, target ?? '');

const hang = (): Promise<never> => {
  process.stdout.write('completing\n');
  return new Promise(() => {
    setInterval(() => {}, 1_000);
  });
};

/** `real` with `complete` of HTTP receipts replaced by a hang. */
function hangingOnHttpCompletion<T extends Store>(real: T): T {
  return new Proxy(real, {
    get(object, name, receiver) {
      if (name === 'complete') {
        return (request: FinishRequest & { response: unknown }) =>
          request.key.provider === 'http' ? hang() : object.complete(request as never);
      }
      if (name === 'withTransaction') {
        return (tx: unknown) =>
          hangingOnHttpCompletion((object as unknown as SqlStore<unknown>).withTransaction(tx as never));
      }
      const value = Reflect.get(object, name, receiver);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

const service = await createService({
  port: 0,
  logLevel: 'silent',
  worker: false,
  store: hangingOnHttpCompletion(store),
  provider: new InMemoryPaymentProvider(),
  providerTimeoutMs: 100,
  idempotencyStaleAfterMs: 500,
});
process.stdout.write(`listening ${service.url}\n`);
