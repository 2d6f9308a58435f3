import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption, NestedClaim, RequestInProgress } from '../../../packages/payonce/src/core/errors.js';
import { everywhereByDefault } from '../../../packages/payonce/src/core/guard-options.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { MemoryStore } from '../../../packages/payonce/src/stores/memory/memory-store.js';
import { SqliteStore } from '../../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createWebhookIntake } from '../../../packages/payonce/src/webhooks/intake.js';
import { MemoryDeliveryJournal } from '../../../packages/payonce/src/webhooks/journal/memory-delivery-journal.js';
import { stripeProfile } from '../../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { createSqliteNamespace } from '../../contract/backends/sqlite.js';
import { tsChildArgs } from '../../support/ts-child.js';
import { invoicePaidBody, STRIPE_SECRET, signedStripeHeaders } from '../../webhooks/support/stripe-deliveries.js';

// Issue 13 item 2: a claim of the key the running handler already holds is a misuse, reported as NestedClaim
// (naming the mistake) before any store call — not a 409 "held by another worker", and not a wait on itself.

/** A migrated SQLite store for the enclosing describe block: opened before its tests, closed and removed after. */
function migratedSqliteStore(): { readonly store: SqliteStore } {
  let ns: { path: string; drop(): Promise<void> } | undefined;
  let opened: SqliteStore | undefined;
  beforeAll(async () => {
    ns = await createSqliteNamespace();
    opened = await SqliteStore.open(ns.path);
    await opened.migrate();
  });
  afterAll(async () => {
    await opened?.close();
    await ns?.drop();
  });
  return {
    get store(): SqliteStore {
      if (opened === undefined) throw new Error('the SQLite store is opened in beforeAll');
      return opened;
    },
  };
}

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
    const sqlite = migratedSqliteStore();

    it('raises NestedClaim from runInTransaction inside run, and from runInTransaction inside runInNewTransaction', async () => {
      const guard = new IdempotencyGuard(sqlite.store);
      const key = new RequestKey('stripe', 'evt_nested_sql');
      const viaRun = guard.run(key, async () => {
        await sqlite.store.db
          .transaction()
          .execute((tx) => guard.runInTransaction(tx, key, async () => ({ body: 'inner' })));
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
      const guard = new IdempotencyGuard(sqlite.store);
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
              await sqlite.store.db.transaction().execute((tx) => guard.runInTransaction(tx, key, async () => ({})));
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

  describe('detectNestedClaims: where the check runs (promise hooks cost every promise on Node.js < 24)', () => {
    const child = fileURLToPath(new URL('./support/promise-hooks-child.ts', import.meta.url));
    const runChild = async (nodeEnv: string, waitForInFlightMs: number) => {
      const { stdout } = await promisify(execFile)(process.execPath, tsChildArgs(child, [String(waitForInFlightMs)]), {
        env: { ...process.env, NODE_ENV: nodeEnv },
      });
      return JSON.parse(stdout) as { before: boolean; after: boolean; detection: string };
    };
    /** A guard constructed as in a production process of this Node.js (the default is read at construction). */
    const productionGuard = <S extends MemoryStore | SqliteStore>(store: S, waitForInFlightMs = 0) => {
      const saved = process.env.NODE_ENV;
      process.env.NODE_ENV = 'production';
      try {
        return new IdempotencyGuard(store, { waitForInFlightMs });
      } finally {
        // Assigning undefined to process.env would store the string 'undefined'.
        if (saved === undefined) delete process.env.NODE_ENV;
        else process.env.NODE_ENV = saved;
      }
    };
    const before24 = Number.parseInt(process.versions.node, 10) < 24;

    it('checks around every handler outside production and on Node.js ≥ 24; true / false override; bad values throw', () => {
      expect(everywhereByDefault('20.20.2', 'production')).toBe(false);
      expect(everywhereByDefault('22.11.0', 'production')).toBe(false);
      expect(everywhereByDefault('24.0.0', 'production')).toBe(true);
      expect(everywhereByDefault('20.20.2', 'test')).toBe(true);
      expect(everywhereByDefault('20.20.2', 'Production')).toBe(true);
      expect(everywhereByDefault('20.20.2', undefined)).toBe(true);
      const mode = (detectNestedClaims?: boolean) =>
        new IdempotencyGuard(new MemoryStore(), { detectNestedClaims }).options.nestedClaimDetection;
      expect([mode(true), mode(false), mode(undefined)]).toEqual(['everywhere', 'off', 'everywhere']);
      expect(() => new IdempotencyGuard(new MemoryStore(), { detectNestedClaims: 'yes' as never })).toThrow(
        InvalidOption,
      );
      expect(productionGuard(new MemoryStore()).options.nestedClaimDetection).toBe(
        before24 ? 'waiting-or-transactional' : 'everywhere',
      );
    });

    it.runIf(before24)(
      'production: a plain run of a guard that never waits leaves promise hooks off; a waiting guard turns them on',
      async () => {
        expect(await runChild('production', 0)).toEqual({
          before: false,
          after: false,
          detection: 'waiting-or-transactional',
        });
        expect(await runChild('production', 50)).toEqual({
          before: false,
          after: true,
          detection: 'waiting-or-transactional',
        });
        expect(await runChild('test', 0)).toEqual({ before: false, after: true, detection: 'everywhere' });
      },
    );

    it.runIf(before24)(
      'production: a nested plain run is answered RequestInProgress at once; with waits it is NestedClaim',
      async () => {
        for (const [wait, expected] of [
          [0, RequestInProgress],
          [5_000, NestedClaim], // unchecked, the inner call would wait on its own outer claim (or take it over)
        ] as const) {
          const guard = productionGuard(new MemoryStore(), wait);
          const key = new RequestKey('stripe', `evt_nested_prod_${wait}`);
          let inner: unknown;
          let runs = 0;
          const started = performance.now();
          await guard.run(key, async () => {
            runs++;
            inner = await guard.run(key, async () => ({ body: 'inner' })).catch((error: unknown) => error);
            return { body: 'outer' };
          });
          expect(inner).toBeInstanceOf(expected);
          expect(performance.now() - started).toBeLessThan(1_000);
          expect(runs).toBe(1);
        }
      },
    );

    describe.runIf(before24)('production, in transactions on SQLite (unchecked, these would hang for ever)', () => {
      const sqlite = migratedSqliteStore();

      it('raises NestedClaim from runInNewTransaction inside runInNewTransaction, and from run inside it', async () => {
        const guard = productionGuard(sqlite.store);
        expect(guard.options.nestedClaimDetection).toBe('waiting-or-transactional');
        for (const nested of ['newTx', 'run'] as const) {
          const key = new RequestKey('stripe', `evt_nested_prod_tx_${nested}`);
          const attempt = guard.runInNewTransaction(key, async () => {
            if (nested === 'newTx') await guard.runInNewTransaction(key, async () => ({}));
            else await guard.run(key, async () => ({}));
            return {};
          });
          await expect(attempt).rejects.toBeInstanceOf(NestedClaim);
          expect(await guard.find(key)).toBeNull(); // rolled back with the outer transaction
        }
      });
    });

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
