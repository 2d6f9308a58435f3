/**
 * Child process of the Payme kill -9 test: one PerformTransaction through the engine, whose fulfilment enqueues an
 * outbox row, then hangs until killed — either inside the fulfilment (before the commit) or after the commit,
 * before its answer would be sent. argv: <backend> <target> <paymeId> <nowMs> <before-commit|after-commit>
 */
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { Outbox } from '../../../packages/payonce/src/outbox/outbox.js';
import { createPaymeMerchant } from '../../../packages/payonce/src/providers/payme/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { openCrashStore } from '../../contract/crash-stores.js';
import { GOOD_HEADERS, KEY } from './payme-fixtures.js';
import { FULFIL_TOPIC } from './payme-harness.js';

const [backend, target, paymeId, nowMs, when] = process.argv.slice(2) as [string, string, string, string, string];
const store = (await openCrashStore(backend, target)) as unknown as SqlStore<unknown>;
const clock = new ManualClock(Number(nowMs));
const outbox = new Outbox(store, { clock });
const hang = () => new Promise<never>(() => setInterval(() => {}, 1_000));
const merchant = createPaymeMerchant({
  store,
  keys: KEY,
  clock,
  findOrder: async () => null,
  onPerformed: async (trx, tx) => {
    await outbox.enqueueOnce(trx, FULFIL_TOPIC, `${tx.paymeId}:${randomUUID()}`, { orderId: tx.orderId });
    if (when === 'before-commit') {
      process.stdout.write('in-fulfilment\n');
      await hang();
    }
  },
});
const rawBody = JSON.stringify({ id: 1, method: 'PerformTransaction', params: { id: paymeId } });
await merchant.handle({ rawBody, headers: GOOD_HEADERS });
process.stdout.write('committed\n');
await hang();
