import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../src/core/idempotency-guard.js';
import { RequestKey } from '../../src/core/request-key.js';
import { MysqlStore } from '../../src/stores/mysql/mysql-store.js';
import { createMysqlNamespace, type MysqlNamespace } from '../contract/backends/mysql.js';

// Attack finding (p-attack): each batched response is capped at 64 KiB, but not the batch: 200 completions of 60 000
// bytes (hex-escaped ≈ 24 MB) exceed MariaDB's default max_allowed_packet (16 MiB). The server answers errno 1153
// and closes the connection; isStatementError() classes 1153 as a bad row, so the batch is split into single-row
// statements, and one of them runs on the connection the server closed: ECONNRESET → StoreUnavailable for a caller
// whose row was fine; its handler ran but its receipt stays `processing` (run again after the lease).
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
    const store = await MysqlStore.connect(ns.url, { batching: true });
    try {
      const guard = new IdempotencyGuard(store);
      const count = 200;
      let release!: () => void;
      const together = new Promise<void>((resolve) => (release = resolve));
      let started = 0;
      const outcomes = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          guard
            .run(new RequestKey('attack-packet', `k${i}`), async () => {
              if (++started === count) release();
              await together;
              return { body: randomBytes(60_000) };
            })
            .then(
              () => 'ok',
              (error: Error) => error.name,
            ),
        ),
      );
      expect(outcomes.filter((o) => o !== 'ok')).toEqual([]); // fails: [ 'StoreUnavailable' ]
      for (let i = 0; i < count; i++) {
        expect((await store.find(new RequestKey('attack-packet', `k${i}`)))?.status).toBe('completed');
      }
    } finally {
      await store.close();
    }
  });
});
