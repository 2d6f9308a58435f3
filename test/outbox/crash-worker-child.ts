/**
 * Child process of the outbox crash test: runs ONE job of topic `crash.topic` whose handler writes its effect
 * through the effect ledger, prints `effect-done`, then hangs until it is killed (SIGKILL) before the job is
 * marked done. argv: <dialect> <target> <leaseMs>
 */
import { OutboxWorker } from '../../packages/payonce/src/outbox/outbox-worker.js';
import type { SqlDialectName } from '../../packages/payonce/src/stores/sql/sql-dialect.js';
import { writeEffect } from './outbox-fixtures.js';
import { openTarget } from './sql-backends.js';

const [dialect, target, leaseMs] = process.argv.slice(2);
const store = await openTarget(dialect as SqlDialectName, target ?? '');
const worker = new OutboxWorker(
  store,
  {
    'crash.topic': async (job, ctx) => {
      await ctx.once(`effect:${job.dedupeKey}`, (trx) => writeEffect(trx, `effect:${job.dedupeKey}`, job.id));
      process.stdout.write('effect-done\n');
      await new Promise(() => {
        setInterval(() => {}, 1_000);
      });
    },
  },
  { workerId: 'doomed-child', leaseMs: Number(leaseMs) },
);
const claimed = await worker.runOnce();
process.stdout.write(`unexpected-finish ${JSON.stringify(claimed)}\n`);
