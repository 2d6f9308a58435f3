import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { claimJob } from '../../packages/payonce/src/outbox/claim-job.js';
import { effectApplied, runEffectOnce } from '../../packages/payonce/src/outbox/effect-ledger.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { type JobHandler, OutboxWorker } from '../../packages/payonce/src/outbox/outbox-worker.js';
import { PermanentJobFailure } from '../../packages/payonce/src/outbox/permanent-job-failure.js';
import type { SqlTarget } from '../../packages/payonce/src/outbox/sql-transaction.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { deferred } from '../contract/helpers.js';
import { tsChildArgs } from '../support/ts-child.js';
import { createEffectTable, effectCounts, writeEffect } from './outbox-fixtures.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from './sql-backends.js';

const child = fileURLToPath(new URL('./crash-worker-child.ts', import.meta.url));
let topicSeq = 0;
/** A topic no other test in this namespace uses, so workers only see this test's jobs. */
const freshTopic = (name: string) => `${name}.${++topicSeq}`;

async function enqueue(store: SqlStore<unknown>, outbox: Outbox<unknown>, topic: string, keys: string[]) {
  return store.db.transaction().execute(async (trx) => {
    const results = [];
    for (const key of keys) results.push(await outbox.enqueueOnce(trx, topic, key, { key }));
    return results;
  });
}

// The dialects run at once (each on its own namespace; most of the time is the SIGKILL test's lease), each
// dialect's tests in order.
for (const dialect of sqlDialectsFromEnv()) {
  describe.concurrent(dialect, () => {
    describe.sequential(`${dialect}: outbox`, () => {
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

      it('enqueueOnce answers duplicate explicitly, also after the job is done, and rolls back with the caller', async () => {
        const topic = freshTopic('dedupe');
        const [first, second] = await enqueue(store, outbox, topic, ['order:1', 'order:1']);
        expect(first?.kind).toBe('enqueued');
        expect(second).toEqual({ kind: 'duplicate', jobId: first?.jobId, status: 'queued' });

        await expect(
          store.db.transaction().execute(async (trx) => {
            await outbox.enqueueOnce(trx, topic, 'order:rolled-back', {});
            throw new Error('business write failed');
          }),
        ).rejects.toThrow('business write failed');
        expect(await outbox.find(topic, 'order:rolled-back')).toBeNull();

        const worker = new OutboxWorker(store, { [topic]: async () => {} });
        expect(await worker.drain()).toBe(1);
        const [again] = await enqueue(store, outbox, topic, ['order:1']);
        expect(again).toEqual({ kind: 'duplicate', jobId: first?.jobId, status: 'done' });
        expect(await worker.runOnce()).toBeNull();
      });

      it('two workers on 100 jobs: every job runs and takes effect exactly once', async () => {
        const topic = freshTopic('bulk');
        const keys = Array.from({ length: 100 }, (_, i) => `job-${i}`);
        const results = await enqueue(store, outbox, topic, keys);
        expect(results.every((r) => r.kind === 'enqueued')).toBe(true);
        const runs = new Map<string, number>();
        const handler: JobHandler<unknown> = async (job, ctx) => {
          runs.set(job.dedupeKey, (runs.get(job.dedupeKey) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, 1));
          await ctx.once(`bulk:${job.dedupeKey}`, (trx) => writeEffect(trx, `bulk:${job.dedupeKey}`, job.id));
        };
        // Each worker on its own connection, SQLite included: a connection waiting for the other's write lock retries
        // asynchronously (issue 11 item 6), so two connections in one process no longer stall each other.
        const stores = [await backend.open(), await backend.open()];
        const workers = stores.map((s, i) => new OutboxWorker(s, { [topic]: handler }, { workerId: `w${i}` }));
        const counts = await Promise.all(workers.map((w) => w.drain()));
        expect(counts[0]! + counts[1]!).toBe(100);
        // Both workers share the queue (MariaDB: the second one claimed 0 before the claim avoided a filesort).
        expect(counts[0], 'worker w0 claimed none').toBeGreaterThan(0);
        expect(counts[1], 'worker w1 claimed none').toBeGreaterThan(0);
        expect([...runs.values()].every((n) => n === 1)).toBe(true);
        expect(runs.size).toBe(100);
        const effects = await effectCounts(store.db);
        for (const key of keys) expect(effects.get(`bulk:${key}`), key).toBe(1);
        for (const key of keys) expect((await outbox.find(topic, key))?.status).toBe('done');
      });

      it.skipIf(dialect === 'sqlite')(
        "while one worker's claim transaction is open, a second worker claims another job (SKIP LOCKED)",
        async () => {
          const topic = freshTopic('held');
          await enqueue(store, outbox, topic, ['a', 'b', 'c']);
          const holder = await backend.open();
          const other = await backend.open();
          // The first worker's claim, paused after its statements and before its commit: its locks are held.
          const locked = deferred<void>();
          const release = deferred<void>();
          const paused: SqlTarget<unknown> = {
            dialect: holder.dialect,
            db: new Proxy(holder.db, {
              get(target, property, receiver) {
                if (property !== 'transaction') return Reflect.get(target, property, receiver);
                return () => ({
                  execute: <T>(fn: (trx: Transaction<unknown>) => Promise<T>) =>
                    target.transaction().execute(async (trx) => {
                      const out = await fn(trx);
                      locked.resolve(undefined);
                      await release.promise;
                      return out;
                    }),
                });
              },
            }),
          };
          const first = claimJob(paused, { topics: [topic], workerId: 'first', nowMs: Date.now(), leaseMs: 30_000 });
          await locked.promise;
          try {
            // MariaDB 10.11 answered null here: the claim's OR + ORDER BY ran as a filesort that locked every
            // matching row, so the second worker's SKIP LOCKED skipped them all and the queue looked empty.
            const second = await new OutboxWorker(other, { [topic]: async () => {} }, { workerId: 'second' }).runOnce();
            expect(second?.outcome).toBe('done');
          } finally {
            release.resolve(undefined);
          }
          const firstJob = await first;
          expect(firstJob).not.toBeNull();
        },
      );

      it('retries with exponential backoff and jitter, then dead-letters after maxAttempts with the last error', async () => {
        const topic = freshTopic('failing');
        const clock = new ManualClock(Date.now() + 60_000);
        const [job] = await enqueue(store, outbox, topic, ['always-fails']);
        let calls = 0;
        const worker = new OutboxWorker(
          store,
          {
            [topic]: async () => {
              calls++;
              throw new Error(`boom ${calls}`);
            },
          },
          { clock, maxAttempts: 3, backoffBaseMs: 1_000, backoffMaxMs: 60_000, random: () => 0.5 },
        );
        const first = await worker.runOnce();
        expect(first).toEqual({
          jobId: job?.jobId,
          outcome: 'retry',
          attempt: 1,
          error: 'Error: boom 1',
          nextAttemptAtMs: clock.now() + 750,
        });
        expect(await worker.runOnce()).toBeNull();
        clock.advance(749);
        expect(await worker.runOnce()).toBeNull();
        clock.advance(1);
        const second = await worker.runOnce();
        expect(second).toMatchObject({ outcome: 'retry', attempt: 2, nextAttemptAtMs: clock.now() + 1_500 });
        clock.advance(1_500);
        const third = await worker.runOnce();
        expect(third).toEqual({ jobId: job?.jobId, outcome: 'dead', attempt: 3, error: 'Error: boom 3' });
        clock.advance(3_600_000);
        expect(await worker.runOnce()).toBeNull();
        expect(calls).toBe(3);
        const dead = (await outbox.deadLetters()).find((j) => j.topic === topic);
        expect(dead).toMatchObject({
          status: 'dead',
          attempts: 3,
          lastError: 'Error: boom 3',
          dedupeKey: 'always-fails',
        });
      });

      it('a PermanentJobFailure dead-letters the job on its first run, whatever maxAttempts; requeue runs it again', async () => {
        const topic = freshTopic('permanent');
        const clock = new ManualClock(Date.now() + 60_000);
        const [job] = await enqueue(store, outbox, topic, ['refused']);
        let calls = 0;
        const worker = new OutboxWorker(
          store,
          {
            [topic]: async () => {
              calls++;
              if (calls === 1) throw new PermanentJobFailure('the provider refused the request (400)');
            },
          },
          { clock, maxAttempts: 5 },
        );
        expect(await worker.runOnce()).toEqual({
          jobId: job?.jobId,
          outcome: 'dead',
          attempt: 1,
          error: 'PermanentJobFailure: the provider refused the request (400)',
        });
        clock.advance(3_600_000);
        expect(await worker.runOnce()).toBeNull();
        expect((await outbox.deadLetters()).find((j) => j.topic === topic)).toMatchObject({ attempts: 1 });
        await outbox.requeue(job?.jobId as string);
        expect(await worker.runOnce()).toMatchObject({ outcome: 'done' });
        expect(calls).toBe(2);
      });

      it('a job that re-runs after failing once does not repeat its effect (effect ledger)', async () => {
        const topic = freshTopic('rerun');
        const clock = new ManualClock(Date.now() + 60_000);
        await enqueue(store, outbox, topic, ['rerun-1']);
        const answers: string[] = [];
        const worker = new OutboxWorker(
          store,
          {
            [topic]: async (job, ctx) => {
              const result = await ctx.once(`rerun:${job.dedupeKey}`, (trx) => writeEffect(trx, 'rerun', job.id));
              answers.push(result.kind);
              if (ctx.attempt === 1) throw new Error('crashed after the effect committed');
            },
          },
          { clock, backoffBaseMs: 10 },
        );
        expect((await worker.runOnce())?.outcome).toBe('retry');
        clock.advance(10);
        expect((await worker.runOnce())?.outcome).toBe('done');
        expect(answers).toEqual(['applied', 'already-applied']);
        expect((await effectCounts(store.db)).get('rerun')).toBe(1);
        expect(await effectApplied(store, 'rerun:rerun-1')).toBe(true);
        const direct = await runEffectOnce(store, 'rerun:rerun-1', async () => 'never');
        expect(direct).toEqual({ kind: 'already-applied', effectKey: 'rerun:rerun-1' });
      });

      it('requeue answers the job as the re-drive left it, even when a worker takes it before anyone reads it again', async () => {
        const topic = freshTopic('requeue');
        await enqueue(store, outbox, topic, ['requeue-1']);
        let runs = 0;
        const worker = new OutboxWorker(store, { [topic]: async () => void runs++ });
        expect(await worker.drain()).toBe(1);
        const job = await outbox.find(topic, 'requeue-1');
        expect(job?.status).toBe('done');
        // Every read after the first lets the worker claim and finish the job first: what a busy replica does between
        // the re-drive's UPDATE and a re-read (the demo's scenario 14 on 3 replicas waited for a re-run it never saw).
        class RacedOutbox extends Outbox<unknown> {
          reads = 0;
          override async findById(jobId: string) {
            if (this.reads++ > 0) await worker.runOnce();
            return super.findById(jobId);
          }
        }
        const raced = new RacedOutbox(store);
        const answer = await raced.requeue(job?.id ?? '');
        expect(answer.kind).toBe('requeued');
        expect(answer.kind === 'requeued' && answer.job).toMatchObject({
          id: job?.id,
          status: 'queued',
          attempts: 0,
          leaseOwner: null,
          finishedAtMs: null,
        });
        await worker.drain();
        expect(runs).toBe(2);
        expect(await outbox.findById(job?.id ?? '')).toMatchObject({ status: 'done', attempts: 1 });
        expect((await outbox.requeue('no-such-job')).kind).toBe('not-found');
      });

      it('requeue retries when the job it found finished was re-driven and finished again before its UPDATE', async () => {
        const topic = freshTopic('requeue-retry');
        await enqueue(store, outbox, topic, ['retry-1']);
        let runs = 0;
        const worker = new OutboxWorker(store, { [topic]: async () => void runs++ });
        await worker.drain();
        const jobId = (await outbox.find(topic, 'retry-1'))?.id ?? '';
        // The first read sees the job done, then another operator's re-drive lands before our UPDATE (refused: the job
        // is queued); a worker finishes the re-run before our second read, which sees it done again.
        class RacedOutbox extends Outbox<unknown> {
          reads = 0;
          override async findById(id: string) {
            const read = this.reads++;
            if (read === 1) await worker.runOnce();
            const job = await super.findById(id);
            if (read === 0) expect((await outbox.requeue(id)).kind).toBe('requeued');
            return job;
          }
        }
        const raced = new RacedOutbox(store);
        const answer = await raced.requeue(jobId);
        expect(raced.reads).toBe(2);
        expect(answer.kind === 'requeued' && answer.job).toMatchObject({ id: jobId, status: 'queued', attempts: 0 });
        await worker.drain();
        expect(runs).toBe(3);
        expect(await outbox.findById(jobId)).toMatchObject({ status: 'done', attempts: 1 });
        // A job found queued or running is not re-driven, and is reported as it was found.
        await outbox.requeue(jobId);
        expect(await outbox.requeue(jobId)).toMatchObject({ kind: 'not-finished', job: { status: 'queued' } });
        await worker.drain();
      });

      it('ids no stored job can have are not found, without a query the database would refuse', async () => {
        // NUL is refused by PostgreSQL's text; non-ASCII cannot be compared with MariaDB's ascii_bin id column.
        // On MariaDB's padding collation '<id> ' would also name the job '<id>'; on the others it names nothing.
        const topic = freshTopic('ids');
        await enqueue(store, outbox, topic, ['ids-1']);
        const jobId = (await outbox.find(topic, 'ids-1'))?.id ?? '';
        for (const id of ['a\u0000b', 'é', '\u{1F600}', 'x'.repeat(65), '', 'tab\there', `${jobId} `, ` ${jobId}`]) {
          expect(await outbox.findById(id)).toBeNull();
          expect((await outbox.requeue(id)).kind).toBe('not-found');
        }
      });

      it('a worker whose lease expired and was taken over cannot finish the job (fencing)', async () => {
        const topic = freshTopic('fenced');
        const clock = new ManualClock(Date.now() + 60_000);
        await enqueue(store, outbox, topic, ['slow']);
        const other = await backend.open();
        const rescuer = new OutboxWorker(other, { [topic]: async () => {} }, { clock, leaseMs: 1_000, workerId: 'B' });
        let rescued: unknown = null;
        const slow = new OutboxWorker(
          store,
          {
            [topic]: async () => {
              clock.advance(1_000);
              rescued = await rescuer.runOnce();
            },
          },
          { clock, leaseMs: 1_000, workerId: 'A' },
        );
        expect(await slow.runOnce()).toMatchObject({ outcome: 'lease-lost', attempt: 1 });
        expect(rescued).toMatchObject({ outcome: 'done', attempt: 2 });
        expect(await outbox.find(topic, 'slow')).toMatchObject({ status: 'done', attempts: 2 });
      });

      it('dead-letters a job whose runs all outlived the lease with a reason that does not claim a worker died', async () => {
        const topic = freshTopic('outlived');
        const clock = new ManualClock(Date.now() + 120_000);
        const [job] = await enqueue(store, outbox, topic, ['slow-each-time']);
        for (let run = 1; run <= 2; run++) {
          const claimed = await claimJob(store, {
            topics: [topic],
            workerId: `slow-${run}`,
            nowMs: clock.now(),
            leaseMs: 1_000,
          });
          expect(claimed?.attempts).toBe(run);
          clock.advance(1_001);
        }
        const worker = new OutboxWorker(store, { [topic]: async () => {} }, { clock, leaseMs: 1_000, maxAttempts: 2 });
        const result = await worker.runOnce();
        const reason =
          'the lease expired before the run finished on each of 2 runs: the worker died or the job ran longer than the lease';
        expect(result).toEqual({ jobId: job?.jobId, outcome: 'dead', attempt: 3, error: reason });
        expect((await outbox.deadLetters()).find((j) => j.topic === topic)?.lastError).toBe(reason);
      });

      it('start() polls for jobs committed later until stop()', async () => {
        const topic = freshTopic('polling');
        const seen: string[] = [];
        const worker = new OutboxWorker(
          store,
          { [topic]: async (job) => void seen.push(job.dedupeKey) },
          { pollIntervalMs: 20 },
        );
        worker.start();
        await enqueue(store, outbox, topic, ['late-1', 'late-2']);
        const deadline = Date.now() + 5_000;
        while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        await worker.stop();
        expect(seen.sort()).toEqual(['late-1', 'late-2']);
        await enqueue(store, outbox, topic, ['after-stop']);
        await new Promise((r) => setTimeout(r, 60));
        expect(seen).toHaveLength(2);
        expect((await outbox.find(topic, 'after-stop'))?.status).toBe('queued');
      });

      it('a worker killed with SIGKILL mid-job: the lease expires and another worker finishes it once', async () => {
        const leaseMs = 3_000;
        const [job] = await enqueue(store, outbox, 'crash.topic', ['crash-1']);
        const proc = spawn(process.execPath, tsChildArgs(child, [dialect, backend.target, String(leaseMs)]), {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let seen = '';
        await new Promise<void>((resolve, reject) => {
          proc.stdout?.on('data', (chunk: Buffer) => {
            seen += chunk.toString();
            if (seen.includes('effect-done')) resolve();
          });
          proc.once('exit', (code) => reject(new Error(`child exited with ${code} before its effect: ${seen}`)));
        });
        proc.kill('SIGKILL');
        await once(proc, 'exit');
        expect(proc.signalCode).toBe('SIGKILL');
        expect(await outbox.find('crash.topic', 'crash-1')).toMatchObject({
          status: 'running',
          leaseOwner: 'doomed-child',
        });

        const answers: string[] = [];
        const survivor = new OutboxWorker(
          store,
          {
            'crash.topic': async (j, ctx) => {
              const result = await ctx.once(`effect:${j.dedupeKey}`, (trx) =>
                writeEffect(trx, `effect:${j.dedupeKey}`, j.id),
              );
              answers.push(result.kind);
            },
          },
          { workerId: 'survivor', leaseMs },
        );
        expect(await survivor.runOnce()).toBeNull();
        const deadline = Date.now() + 10_000;
        let result = await survivor.runOnce();
        while (result === null && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100));
          result = await survivor.runOnce();
        }
        expect(result).toEqual({ jobId: job?.jobId, outcome: 'done', attempt: 2 });
        expect(answers).toEqual(['already-applied']);
        expect((await effectCounts(store.db)).get('effect:crash-1')).toBe(1);
      });
    });
  });
}
