import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { PayloadMismatch, ReceiptCorrupted } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import type { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { Store } from '../../packages/payonce/src/core/store.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import type { BackendName, TestBackend } from './backend.js';
import { backendFactories, backendsFromEnv } from './backends/index.js';
import { uniqueKey } from './helpers.js';

/** What an operator (or a bad migration) does to a receipt outside payonce: its fingerprint set to NULL or ''. */
async function setStoredFingerprint(name: BackendName, store: Store, key: RequestKey, value: null | ''): Promise<void> {
  if (name === 'memory') {
    // MemoryStore keeps one mutable entry per receipt, by provider then external id.
    const providers = (store as unknown as { providers: Map<string, Map<string, { fingerprint: string | null }>> })
      .providers;
    providers.get(key.provider)!.get(key.externalId)!.fingerprint = value;
    return;
  }
  if (name === 'redis') {
    const raw = store as unknown as {
      client: { call(...args: string[]): Promise<unknown> };
      receiptKey(k: RequestKey): string;
    };
    // The fingerprint is the last part of the packed claim field `status` (src/stores/redis/receipt-fields.ts).
    const hash = raw.receiptKey(key);
    const claim = String(await raw.client.call('hget', hash, 'status'));
    const head = /^\d+:[pf]:\d+:/.exec(claim)?.[0];
    expect(head).toBeDefined();
    await raw.client.call('hset', hash, 'status', `${head}${value === null ? '-' : `=${value}`}`);
    return;
  }
  const sql = store as SqlStore<{
    payonce_receipts: { provider: unknown; external_id: unknown; fingerprint: string | null };
  }>;
  const part = (text: string) => (sql.dialect.binaryKeys ? Buffer.from(text, 'utf8') : text);
  const result = await sql.db
    .updateTable('payonce_receipts')
    .set({ fingerprint: value })
    .where('provider', '=', part(key.provider))
    .where('external_id', '=', part(key.externalId))
    .executeTakeFirst();
  expect(Number(result.numUpdatedRows)).toBe(1);
}

for (const backendName of backendsFromEnv()) {
  describe(`${backendName}: a stored receipt without its fingerprint is corruption (issue 11 item 4)`, () => {
    let backend: TestBackend;
    let store: Store;

    beforeAll(async () => {
      backend = await (await backendFactories[backendName]())();
      store = await backend.open();
    });
    afterAll(async () => {
      await backend?.cleanup();
    });

    for (const [label, value] of [
      ['NULL (missing)', null],
      ['empty', ''],
    ] as const) {
      it(`completed receipt, stored fingerprint ${label}, caller sends one: ReceiptCorrupted, no replay, no run`, async () => {
        const guard = new IdempotencyGuard(store, { clock: new ManualClock() });
        const corrupted: unknown[] = [];
        guard.on('receipt:corrupted', (event) => corrupted.push(event));
        const key = uniqueKey('fp-corrupt');
        let runs = 0;
        const handler = async () => {
          runs++;
          return { status: 201, body: 'first' };
        };
        await guard.run(key, handler, { payload: '{"amount":100}' });
        await setStoredFingerprint(backendName, store, key, value);

        for (const payload of ['{"amount":999}', '{"amount":100}']) {
          const error = await guard.run(key, handler, { payload }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(ReceiptCorrupted);
          expect(error).not.toBeInstanceOf(PayloadMismatch);
          expect((error as ReceiptCorrupted).code).toBe('RECEIPT_CORRUPTED');
        }
        expect(runs).toBe(1);
        expect(corrupted).toHaveLength(2);
        expect(corrupted[0]).toMatchObject({ problem: value === null ? 'fingerprint-missing' : 'fingerprint-empty' });
        // A caller without a fingerprint compares nothing and still gets the stored answer.
        const plain = await guard.run(key, handler);
        expect(plain.isReplay).toBe(true);
        expect(runs).toBe(1);
      });
    }

    it('a failed receipt whose fingerprint was removed is not run again either', async () => {
      const guard = new IdempotencyGuard(store, { clock: new ManualClock() });
      const key = uniqueKey('fp-corrupt-failed');
      let runs = 0;
      await guard
        .run(
          key,
          async () => {
            runs++;
            throw new Error('boom');
          },
          { payload: 'a' },
        )
        .catch(() => {});
      await setStoredFingerprint(backendName, store, key, null);
      const error = await guard.run(key, async () => void runs++, { payload: 'b' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReceiptCorrupted);
      expect(runs).toBe(1);
    });
  });
}
