/**
 * Child process of the stack suite's kill -9 case: one delivery through a stack adapter that writes the business
 * row and the outbox row, then hangs until killed, either before its transaction commits or after.
 * argv: <adapter> <schema> <eventId> <before-commit|after-commit>
 */
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { PostgresStore } from '../../packages/payonce/src/stores/postgres/postgres-store.js';
import { POSTGRES_TEST_URL } from '../contract/backends/postgres.js';
import { STACK_ADAPTERS } from './stack-adapters.js';

const [adapterName, schema, eventId, when] = process.argv.slice(2) as [string, string, string, string];
const store = await PostgresStore.connect({
  connectionString: POSTGRES_TEST_URL,
  options: `-c search_path=${schema}`,
});
const guard = new IdempotencyGuard(store);
const outbox = new Outbox(store);
const make = STACK_ADAPTERS[adapterName];
if (make === undefined) throw new Error(`no adapter ${adapterName}`);
const adapter = make(schema);
const hang = () => new Promise<never>(() => setInterval(() => {}, 1_000));
await adapter.deliver(guard, new RequestKey('stack', eventId), async (ops, payonceTx) => {
  await ops.writeEffect(eventId);
  await outbox.enqueueOnce(payonceTx, 'order.fulfil', eventId, { eventId });
  if (when === 'before-commit') {
    process.stdout.write('in-handler\n');
    await hang();
  }
});
process.stdout.write('committed\n');
await hang();
