import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption, NestedClaim, RequestInProgress } from '../../../src/core/errors.js';
import { defaultNestedClaimDetection } from '../../../src/core/guard-options.js';
import { IdempotencyGuard } from '../../../src/core/idempotency-guard.js';
import { RequestKey } from '../../../src/core/request-key.js';
import { MemoryStore } from '../../../src/stores/memory/memory-store.js';
import { SqliteStore } from '../../../src/stores/sqlite/sqlite-store.js';
import { createWebhookIntake } from '../../../src/webhooks/intake.js';
import { MemoryDeliveryJournal } from '../../../src/webhooks/journal/memory-delivery-journal.js';
import { stripeProfile } from '../../../src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../../src/webhooks/verify/stripe-scheme.js';
import { createSqliteNamespace } from '../../contract/backends/sqlite.js';
import { invoicePaidBody, STRIPE_SECRET, signedStripeHeaders } from '../../webhooks/support/stripe-deliveries.js';

// Issue 13 item 2: a claim of the key the running handler already holds is a misuse, reported as NestedClaim
// (naming the mistake) before any store call — not a 409 "held by another worker", and not a wait on itself.

describe('a nested claim of the held key', () => {
  it('raises NestedClaim from run inside run (memory), and the outer receipt is failed, not completed', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const key = new RequestKey('stripe', 'evt_nested_1');
    let inner: unknown;
    await expect(
      guard.run(key, async () => {
        inner = await guard.run(key, async () => ({ body: 'inner' })).catch((error: unknown) => error);
        throw inner;
      }),
    ).rejects.toBeInstanceOf(NestedClaim);
    expect(inner).toBeInstanceOf(NestedClaim);
    expect(inner).not.toBeInstanceOf(RequestInProgress);
    expect((inner as NestedClaim).code).toBe('NESTED_CLAIM');
    expect((inner as Error).message).toMatch(/already claimed by the handler that is running/);
    expect((await guard.find(key))?.status).toBe('failed');
  });

  it('still lets the handler claim other keys, and work left running after the handler is not mistaken for nesting', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const key = new RequestKey('stripe', 'evt_nested_2');
    let later: Promise<unknown> = Promise.resolve();
    const outcome = await guard.run(key, async () => {
      await guard.run(new RequestKey('stripe', 'evt_other'), async () => ({ body: 'other' }));
      later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => guard.run(key, async () => ({ body: 'x' })));
      return { body: 'outer' };
    });
    expect(outcome.isReplay).toBe(false);
    const replay = (await later) as { isReplay: boolean };
    expect(replay.isReplay).toBe(true); // after the outer handler finished: an ordinary replay
  });

  describe('on SQLite, in transactions (the intake handler reusing the event key)', () => {
    let ns: { path: string; drop(): Promise<void> };
    let store: SqliteStore;
    beforeAll(async () => {
      ns = await createSqliteNamespace();
      store = await SqliteStore.open(ns.path);
      await store.migrate();
    });
    afterAll(async () => {
      await store.close();
      await ns.drop();
    });

    it('raises NestedClaim from runInTransaction inside run, and from runInTransaction inside runInNewTransaction', async () => {
      const guard = new IdempotencyGuard(store);
      const key = new RequestKey('stripe', 'evt_nested_sql');
      const viaRun = guard.run(key, async () => {
        await store.db.transaction().execute((tx) => guard.runInTransaction(tx, key, async () => ({ body: 'inner' })));
      });
      await expect(viaRun).rejects.toBeInstanceOf(NestedClaim);
      const key2 = new RequestKey('stripe', 'evt_nested_sql_2');
      const viaTx = guard.runInNewTransaction(key2, async (tx) => {
        await guard.runInTransaction(tx, key2, async () => ({}));
      });
      await expect(viaTx).rejects.toBeInstanceOf(NestedClaim);
      expect(await guard.find(key2)).toBeNull(); // rolled back: no receipt
      const ok = await guard.runInNewTransaction(key2, async () => ({ status: 201, body: 'done' }));
      expect([ok.isReplay, ok.response.status]).toEqual([false, 201]);
    });

    it("answers the intake handler that reuses the event's own key inside runInTransaction 500 NESTED_CLAIM, not 409", async () => {
      const guard = new IdempotencyGuard(store);
      const journal = new MemoryDeliveryJournal();
      const intake = createWebhookIntake({
        guard,
        journal,
        endpoints: {
          stripe: {
            profile: stripeProfile(),
            scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
            handler: async (event) => {
              if (event.key === null) return;
              const key = event.key;
              await store.db.transaction().execute((tx) => guard.runInTransaction(tx, key, async () => ({})));
            },
          },
        },
      });
      const body = invoicePaidBody('evt_nested_intake', 'in_nested');
      const rawBody = Buffer.from(body);
      for (let delivery = 0; delivery < 2; delivery++) {
        const answer = await intake.receive({ endpoint: 'stripe', rawBody, headers: signedStripeHeaders(body) });
        expect(answer.status).toBe(500); // the handler's mistake, every time — never "held by another worker" (409)
      }
      expect(
        journal.all().map((row) => row.error?.startsWith('NestedClaim') || row.error?.includes('NESTED_CLAIM')),
      ).toEqual([true, true]);
    });
  });

  describe('detectNestedClaims (a development check on Node.js < 24: promise hooks cost every promise)', () => {
    const child = fileURLToPath(new URL('./support/promise-hooks-child.ts', import.meta.url));
    const runChild = async (nodeEnv: string) => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child], {
        env: { ...process.env, NODE_ENV: nodeEnv },
      });
      return JSON.parse(stdout) as { before: boolean; after: boolean; detect: boolean };
    };

    it('defaults on outside production and on Node.js ≥ 24, off for NODE_ENV=production before 24', () => {
      expect(defaultNestedClaimDetection('20.20.2', 'production')).toBe(false);
      expect(defaultNestedClaimDetection('22.11.0', 'production')).toBe(false);
      expect(defaultNestedClaimDetection('24.0.0', 'production')).toBe(true);
      expect(defaultNestedClaimDetection('20.20.2', 'test')).toBe(true);
      expect(defaultNestedClaimDetection('20.20.2', undefined)).toBe(true);
      expect(new IdempotencyGuard(new MemoryStore(), { detectNestedClaims: true }).options.detectNestedClaims).toBe(
        true,
      );
      expect(() => new IdempotencyGuard(new MemoryStore(), { detectNestedClaims: 'yes' as never })).toThrow(
        InvalidOption,
      );
    });

    it.runIf(Number.parseInt(process.versions.node, 10) < 24)(
      'leaves promise hooks off in a production process that ran a claim, and turns them on in a test process',
      async () => {
        expect(await runChild('production')).toEqual({ before: false, after: false, detect: false });
        expect(await runChild('test')).toEqual({ before: false, after: true, detect: true });
      },
    );

    it('switched off, a nested claim is answered as held elsewhere (RequestInProgress), and nothing is claimed twice', async () => {
      const guard = new IdempotencyGuard(new MemoryStore(), { detectNestedClaims: false });
      const key = new RequestKey('stripe', 'evt_nested_off');
      let runs = 0;
      let inner: unknown;
      const outcome = await guard.run(key, async () => {
        runs++;
        inner = await guard.run(key, async () => ({ body: 'inner' })).catch((error: unknown) => error);
        return { body: 'outer' };
      });
      expect(inner).toBeInstanceOf(RequestInProgress);
      expect(outcome.isReplay).toBe(false);
      expect(runs).toBe(1);
      expect((await guard.find(key))?.status).toBe('completed');
    });
  });
});
