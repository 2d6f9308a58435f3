import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../src/core/idempotency-guard.js';
import { RequestKey } from '../../src/core/request-key.js';
import { MysqlStore } from '../../src/stores/mysql/mysql-store.js';
import { createMysqlNamespace, type MysqlNamespace } from '../contract/backends/mysql.js';

// Attack finding (p-attack): on MariaDB 10.11 a derived table `select ? as b union all select ? …` truncates a
// binary value longer than 65 535 bytes modulo 65 536 (65 536 → 0 bytes, 70 000 → 4 464). The batched MySQL
// completion carries the body through such a derived table and MAX_BATCHED_RESPONSE_BYTES is inclusive (65 536), so
// a body of exactly 64 KiB completed in a batch is stored EMPTY while the caller is told it completed.
describe('mysql batched completion: a 65 536-byte body', () => {
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

  it('is stored and replayed byte for byte when it shares a batch', async () => {
    const store = await MysqlStore.connect(ns.url, { batching: true });
    try {
      const guard = new IdempotencyGuard(store);
      const body = randomBytes(65_536);
      let release!: () => void;
      const together = new Promise<void>((resolve) => (release = resolve));
      let started = 0;
      const keys = ['a', 'b', 'c'].map((id) => new RequestKey('attack-64k', id));
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
        expect(Buffer.from(stored!.response!.body).equals(body)).toBe(true); // fails: stored body is 0 bytes
      }
    } finally {
      await store.close();
    }
  });
});
