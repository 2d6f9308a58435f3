/**
 * Child process of the stack suite's kill -9 case: two deliveries through a stack adapter, each writing the business
 * row and the outbox row. The first commits (`committed`); the second hangs inside its transaction (`in-handler`)
 * until the process is killed. One child covers both sides of the commit, so the case costs one process start.
 * argv: <adapter> <target as JSON> <committed eventId> <in-handler eventId>
 */
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import type { StackAdapterDefinition } from './stack-adapter.js';
import { connectStackStore, type StackTarget } from './stack-target.js';

const [adapterName, targetJson, committedId, hangingId] = process.argv.slice(2) as [string, string, string, string];

/**
 * Loads only this adapter's file (`adapters/<name>.ts`, as adapters/index.ts names them), not every stack's
 * packages: the child starts in about half the time.
 */
async function loadAdapter(name: string): Promise<StackAdapterDefinition> {
  const module = (await import(`./adapters/${name}.js`)) as Record<string, Partial<StackAdapterDefinition>>;
  const found = Object.values(module).filter((value) => typeof value.make === 'function');
  if (found.length !== 1) throw new Error(`adapters/${name}.ts must export one adapter, found ${found.length}`);
  return found[0] as StackAdapterDefinition;
}

const target = JSON.parse(targetJson) as StackTarget;
const store = await connectStackStore(target);
const guard = new IdempotencyGuard(store);
const outbox = new Outbox(store);
const adapter = await (await loadAdapter(adapterName)).make(target);
const hang = () => new Promise<never>(() => setInterval(() => {}, 1_000));
const deliver = (eventId: string, inside: () => Promise<void>) =>
  adapter.deliver(guard, new RequestKey('stack', eventId), async (ops, payonceTx) => {
    await ops.writeEffect(eventId);
    await outbox.enqueueOnce(payonceTx, 'order.fulfil', eventId, { eventId });
    await inside();
  });

await deliver(committedId, async () => {});
process.stdout.write('committed\n');
await deliver(hangingId, async () => {
  process.stdout.write('in-handler\n');
  await hang();
});
