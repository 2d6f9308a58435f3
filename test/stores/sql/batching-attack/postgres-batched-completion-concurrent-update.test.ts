import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../../../packages/payonce/src/core/request-key.js';
import { PostgresStore } from '../../../../packages/payonce/src/stores/postgres/postgres-store.js';
import { createPostgresNamespace, type PostgresNamespace } from '../../../contract/backends/postgres.js';

// Attack finding (issue #17), fixed: the batched
// PostgreSQL completion reaches rows by `ctid = any(array(…))`, collected before it waits: when a concurrent
// UPDATE that keeps the row `processing` at the same attempt commits while the batch waits for its lock, the row's
// ctid has moved and the batch silently skips it — the legitimate holder is told `false` (ClaimLost) and the row
// stayed `processing`. Now every row the batch did not change is tried again by the single-row fenced UPDATE, which
// answers `true` here as the non-batched store does.
describe('postgres batched completion racing an update that keeps the claim', () => {
  let ns: PostgresNamespace;
  beforeAll(async () => {
    ns = await createPostgresNamespace();
    const store = await PostgresStore.connect(ns.config);
    await store.migrate();
    await store.close();
  });
  afterAll(async () => {
    await ns.drop();
  });

  for (const batching of [false, true]) {
    it(`completes the holder's row (batching: ${batching})`, async () => {
      const store = await PostgresStore.connect(ns.config, { batching });
      const other = new pg.Client(ns.config);
      await other.connect();
      try {
        const now = Date.now();
        const keys = ['n0', 'n1', 'free'].map((id) => new RequestKey(`race-${batching}`, id));
        for (const key of keys) await store.insertClaim({ key, nowMs: now, fingerprint: null });
        await other.query('begin');
        await other.query(
          `update payonce_receipts set claimed_at = claimed_at where provider = $1 and external_id in ('n0', 'n1')`,
          [`race-${batching}`],
        );
        const completing = Promise.all(
          keys.map((key) =>
            store.complete({
              key,
              attempt: 1,
              nowMs: now + 1,
              response: { status: 200, headers: {}, body: new Uint8Array(1) },
            }),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        await other.query('commit');
        expect(await completing).toEqual([true, true, true]); // batching: true gives [false, false, true]
      } finally {
        await other.end();
        await store.close();
      }
    });
  }
});
