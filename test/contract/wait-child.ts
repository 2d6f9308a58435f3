/**
 * Process A of the two-process wait test: claims one key and reports `in-handler <epoch ms>` on stdout while its
 * handler holds the claim; the handler returns when a line arrives on stdin (the test's signal, sent once B waits),
 * and `done <epoch ms>` is reported when `guard.run` returned (the response stored and committed), then it exits.
 * argv: <backend> <target> <externalId>   (backend/target as in crash-stores.ts; `redis-cluster`:
 * target = `<prefix>|<host:port,host:port,…>`)
 */
import { once } from 'node:events';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { openWaitStore } from './wait-stores.js';

const [backend, target, externalId] = process.argv.slice(2);
const store = await openWaitStore(backend ?? '', target ?? '');
const guard = new IdempotencyGuard(store, { staleAfterMs: 60_000 });
let runs = 0;
await guard.run(new RequestKey('wait-test', externalId ?? ''), async () => {
  runs++;
  process.stdout.write(`in-handler ${Date.now()}\n`);
  await once(process.stdin, 'data');
  return { status: 201, headers: { 'content-type': 'text/plain' }, body: `from A, run ${runs}` };
});
process.stdout.write(`done ${Date.now()}\n`);
await store.close();
process.stdin.destroy();
process.exit(0);
