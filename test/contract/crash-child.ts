/**
 * Child process of the crash test: claims one key and hangs inside the handler until it is killed.
 * argv: <backend> <target> <externalId> <leaseMs> [heartbeatMs]
 *   sqlite   target = database file path
 *   postgres target = PostgreSQL schema name (on 127.0.0.1:5432, database test)
 *   redis    target = key prefix
 */
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { openCrashStore } from './crash-stores.js';

const [backend, target, externalId, leaseMs, heartbeatMs] = process.argv.slice(2);
const store = await openCrashStore(backend ?? '', target ?? '');
const guard = new IdempotencyGuard(store, {
  leaseMs: Number(leaseMs),
  ...(heartbeatMs === undefined ? {} : { heartbeatMs: Number(heartbeatMs) }),
});
await guard.run(new RequestKey('crash-test', externalId ?? ''), async () => {
  process.stdout.write('in-handler\n');
  await new Promise(() => {
    setInterval(() => {}, 1_000);
  });
  return { body: 'never' };
});
