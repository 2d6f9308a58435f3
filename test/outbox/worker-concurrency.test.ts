import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { type JobHandler, OutboxWorker } from '../../packages/payonce/src/outbox/outbox-worker.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createEffectTable, effectCounts, writeEffect } from './outbox-fixtures.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from './sql-backends.js';

let topicSeq = 0;
const freshTopic = (name: string) => `${name}.${++topicSeq}`;

/** How many handlers run at once: `enter` waits until `target` are in (or until `giveUp` resolves), then leaves. */
function overlapProbe(target: number, giveUp: Promise<void>) {
  let running = 0;
  let most = 0;
  const waiters: (() => void)[] = [];
  return {
    get most() {
      return most;
    },
    async enter(): Promise<void> {
      running++;
      most = Math.max(most, running);
      if (running >= target) for (const wake of waiters.splice(0)) wake();
      else await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), giveUp]);
      running--;
    },
  };
}

for (const dialect of sqlDialectsFromEnv()) {
  describe(`${dialect}: outbox worker concurrency (issue 34 item 20)`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let outbox: Outbox<unknown>;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      outbox = new Outbox(store);
      await createEffectTable(store);
    });
    afterAll(async () => {
      await backend?.drop();
    });

    async function enqueue(topic: string, keys: readonly string[]): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        for (const key of keys) await outbox.enqueueOnce(trx, topic, key, { key });
      });
    }

    it('runs more than one job at a time by default, and `concurrency` jobs at once, never more', async () => {
      expect(new OutboxWorker(store, {}).options.concurrency).toBeGreaterThan(1);
      const topic = freshTopic('overlap');
      const keys = Array.from({ length: 12 }, (_, i) => `job-${i}`);
      await enqueue(topic, keys);
      // A worker that runs one job at a time never has 3 handlers in: each waits for the give-up timer instead.
      let giveUp!: () => void;
      const gaveUp = new Promise<void>((resolve) => {
        giveUp = resolve;
      });
      const timer = setTimeout(giveUp, 5_000);
      const probe = overlapProbe(3, gaveUp);
      const handler: JobHandler<unknown> = async (job, ctx) => {
        await probe.enter();
        await ctx.once(`overlap:${job.dedupeKey}`, (trx) => writeEffect(trx, `overlap:${job.dedupeKey}`, job.id));
      };
      const worker = new OutboxWorker(store, { [topic]: handler }, { concurrency: 3, pollIntervalMs: 20 });
      worker.start();
      try {
        for (let i = 0; i < 1_000; i++) {
          const states = await Promise.all(keys.map((key) => outbox.find(topic, key)));
          if (states.every((job) => job?.status === 'done')) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await worker.stop();
        clearTimeout(timer);
      }
      expect(probe.most).toBe(3);
      const effects = await effectCounts(store.db);
      for (const key of keys) expect(effects.get(`overlap:${key}`), key).toBe(1);
    });

    it('two workers with 4 lanes each on 60 jobs: every job runs once and takes effect once', async () => {
      const topic = freshTopic('lanes');
      const keys = Array.from({ length: 60 }, (_, i) => `job-${i}`);
      await enqueue(topic, keys);
      const runs = new Map<string, number>();
      const handler: JobHandler<unknown> = async (job, ctx) => {
        runs.set(job.dedupeKey, (runs.get(job.dedupeKey) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 2));
        await ctx.once(`lanes:${job.dedupeKey}`, (trx) => writeEffect(trx, `lanes:${job.dedupeKey}`, job.id));
      };
      const stores = [await backend.open(), await backend.open()];
      const workers = stores.map(
        (s, i) => new OutboxWorker(s, { [topic]: handler }, { workerId: `lanes-${i}`, concurrency: 4 }),
      );
      const counts = await Promise.all(workers.map((w) => w.drain()));
      expect(counts[0]! + counts[1]!).toBe(60);
      expect(runs.size).toBe(60);
      expect([...runs.values()].every((n) => n === 1)).toBe(true);
      const effects = await effectCounts(store.db);
      for (const key of keys) expect(effects.get(`lanes:${key}`), key).toBe(1);
      for (const key of keys) expect((await outbox.find(topic, key))?.status).toBe('done');
    });

    it('refuses a concurrency that is not a positive integer', () => {
      for (const concurrency of [0, -1, 1.5, Number.NaN]) {
        expect(() => new OutboxWorker(store, {}, { concurrency })).toThrow(InvalidOption);
      }
    });
  });
}
