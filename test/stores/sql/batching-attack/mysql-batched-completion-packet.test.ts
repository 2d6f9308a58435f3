import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../../packages/payonce/src/core/request-key.js';
import { MysqlStore } from '../../../../packages/payonce/src/stores/mysql/mysql-store.js';
import { createMysqlNamespace, type MysqlNamespace } from '../../../contract/backends/mysql.js';

// Attack finding (issue #17): a batch of completions once had a cap per row but none per statement: enough responses
// (hex-escaped by mysql2) exceed MariaDB's default max_allowed_packet (16 MiB). The server answered errno 1153 and
// closed the connection, the batch was split into single-row statements, and one ran on the closed connection:
// ECONNRESET → StoreUnavailable for a caller whose row was fine, its receipt left `processing`. Now a statement
// carries at most MAX_BATCH_STATEMENT_RESPONSE_BYTES of responses: 700 batchable 15 000-byte bodies in batches of up
// to 1 000 (≈ 21 MB hex-escaped in one statement without that cap) all complete.
describe('mysql batched completion larger than max_allowed_packet', () => {
  let ns: MysqlNamespace;
  beforeAll(async () => {
    ns = await createMysqlNamespace();
    const store = await MysqlStore.connect(ns.url);
    await store.migrate();
    await store.close();
  });
  afterAll(async () => {
    await ns.drop();
  });

  it('completes every delivery (each response is within the batchable limit)', async () => {
    const store = await MysqlStore.connect(ns.url, { batching: { maxBatchSize: 1_000 } });
    try {
      const guard = new IdempotencyGuard(store);
      const count = 700;
      let release!: () => void;
      const together = new Promise<void>((resolve) => (release = resolve));
      let started = 0;
      const outcomes = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          guard
            .run(new RequestKey('attack-packet', `k${i}`), async () => {
              if (++started === count) release();
              await together;
              return { body: randomBytes(15_000) };
            })
            .then(
              () => 'ok',
              (error: Error) => error.name,
            ),
        ),
      );
      expect(outcomes.filter((o) => o !== 'ok')).toEqual([]);
      for (let i = 0; i < count; i++) {
        expect((await store.find(new RequestKey('attack-packet', `k${i}`)))?.status).toBe('completed');
      }
    } finally {
      await store.close();
    }
  });
});
