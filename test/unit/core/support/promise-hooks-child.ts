/**
 * Child of nested-claim.test.ts: runs one `guard.run` (guard-level `waitForInFlightMs` = argv[2] ms) in a process
 * with the NODE_ENV it was given, then prints whether promise hooks are on (two awaits in a row get different async
 * ids only when they are) and the guard's resolved `nestedClaimDetection`, as one JSON line.
 */
import { executionAsyncId } from 'node:async_hooks';
import { IdempotencyGuard } from '../../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../../packages/payonce/src/core/request-key.js';
import { MemoryStore } from '../../../../packages/payonce/src/stores/memory/memory-store.js';

async function promiseHooksOn(): Promise<boolean> {
  await null;
  const first = executionAsyncId();
  await null;
  return executionAsyncId() !== first;
}

const before = await promiseHooksOn();
const guard = new IdempotencyGuard(new MemoryStore(), { waitForInFlightMs: Number(process.argv[2] ?? '0') });
await guard.run(new RequestKey('stripe', 'evt_hooks_1'), async () => ({ body: 'ok' }));
process.stdout.write(
  `${JSON.stringify({ before, after: await promiseHooksOn(), detection: guard.options.nestedClaimDetection })}\n`,
);
