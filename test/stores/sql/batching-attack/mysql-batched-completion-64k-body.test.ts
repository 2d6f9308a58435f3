import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../../packages/payonce/src/core/request-key.js';
import { MysqlStore } from '../../../../packages/payonce/src/stores/mysql/mysql-store.js';
import { createMysqlNamespace, type MysqlNamespace } from '../../../contract/backends/mysql.js';

// Attack finding (issue #17): on MariaDB 10.11 a derived table `select ? as b union all select ? …` truncates a
// binary value longer than 65 535 bytes modulo 65 536 (65 536 → 0 bytes, 70 000 → 4 464). The batched MySQL
// completion carries bodies through such a derived table, and batched bodies of up to 64 KiB were allowed: a body of
// exactly 64 KiB completed in a batch was stored EMPTY while the caller was told it completed. Now only responses
// under MAX_BATCHED_RESPONSE_BYTES (16 KiB) share a batch; bodies on both sides of every limit round-trip exactly.
describe('mysql batched completion: bodies around the batching limits', () => {
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

  it.each([16_000, 16_384, 65_535, 65_536, 70_000])(
    'a %d-byte body is stored byte for byte when completions queue together',
    async (size) => {
      const store = await MysqlStore.connect(ns.url, { batching: true });
      try {
        const guard = new IdempotencyGuard(store);
        const body = randomBytes(size);
        let release!: () => void;
        const together = new Promise<void>((resolve) => (release = resolve));
        let started = 0;
        const keys = ['a', 'b', 'c'].map((id) => new RequestKey('attack-64k', `${id}-${size}`));
        await Promise.all(
          keys.map((key) =>
            guard.run(key, async () => {
              if (++started === keys.length) release();
              await together; // the three completions queue together → one multi-row UPDATE
              return { body };
            }),
          ),
        );
        for (const key of keys) {
          const stored = await store.find(key);
          expect(stored?.status).toBe('completed');
          expect(Buffer.from(stored!.response!.body).equals(body)).toBe(true);
        }
      } finally {
        await store.close();
      }
    },
  );
});
