/**
 * Child process of the stack suite's kill -9 case: one delivery through a stack adapter that writes the business
 * row and the outbox row, then hangs until killed, either before its transaction commits or after.
 * argv: <adapter> <target as JSON> <eventId> <before-commit|after-commit>
 */
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { STACK_ADAPTERS } from './adapters/index.js';
import { connectStackStore, type StackTarget } from './stack-target.js';

const [adapterName, targetJson, eventId, when] = process.argv.slice(2) as [string, string, string, string];
const target = JSON.parse(targetJson) as StackTarget;
const store = await connectStackStore(target);
const guard = new IdempotencyGuard(store);
const outbox = new Outbox(store);
const definition = STACK_ADAPTERS[adapterName];
if (definition === undefined) throw new Error(`no adapter ${adapterName}`);
const adapter = await definition.make(target);
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
