/**
 * Process A of the two-process wait test: claims one key, runs a handler for <handlerMs> ms, and reports on stdout
 * `in-handler <epoch ms>` when the claim is held and `done <epoch ms>` when `guard.run` returned (the response
 * stored and committed), then exits.
 * argv: <backend> <target> <externalId> <handlerMs>   (backend/target as in crash-stores.ts; `redis-cluster`:
 * target = `<prefix>|<host:port,host:port,…>`)
 */
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { openWaitStore } from './wait-stores.js';

const [backend, target, externalId, handlerMs] = process.argv.slice(2);
const store = await openWaitStore(backend ?? '', target ?? '');
const guard = new IdempotencyGuard(store, { staleAfterMs: 60_000 });
let runs = 0;
await guard.run(new RequestKey('wait-test', externalId ?? ''), async () => {
  runs++;
  process.stdout.write(`in-handler ${Date.now()}\n`);
  await new Promise((resolve) => setTimeout(resolve, Number(handlerMs)));
  return { status: 201, headers: { 'content-type': 'text/plain' }, body: `from A, run ${runs}` };
});
process.stdout.write(`done ${Date.now()}\n`);
await store.close();
process.exit(0);
