import type { ScenarioContext } from '../scenario-context.js';
import { describeAnswer, expectAttempt, fulfilJobOf } from './steps.js';

/** How many paid orders a kill-mid-fulfilment scenario tries before it reports that no job could be caught running. */
export const CATCH_TRIES = 3;

/** A paid order whose fulfilment job was seen `running` with no fulfilment written yet: the window a kill needs. */
export interface CaughtRunning {
  readonly orderId: string;
  readonly attemptId: string | null;
  readonly running: NonNullable<ReturnType<typeof fulfilJobOf>>;
  /** The job states seen for this order while polling, in order (e.g. `queued → running`). */
  readonly seen: readonly string[];
}

/**
 * Pays fresh orders until one's fulfilment job is seen `running` with no fulfilment written (scenarios 12 and 21
 * kill the service there). On a loaded machine the poll may first see a job already done — no violation, but no
 * test either — so it tries again with a new order, up to {@link CATCH_TRIES} (each order is judged like any other).
 * Returns `null` once a try failed outright or all tries missed; a miss of every try is recorded as a failure: the
 * scenario never passes without its kill.
 */
export async function fulfilmentCaughtRunning(ctx: ScenarioContext): Promise<CaughtRunning | null> {
  const missed: string[] = [];
  for (let attempt = 1; attempt <= CATCH_TRIES; attempt += 1) {
    const orderId = await ctx.newOrder();
    const first = await ctx.checkout(orderId, ctx.key(`pay-${attempt}`));
    ctx.note(`checkout ${attempt}: ${describeAnswer(first)}`);
    const attemptId = expectAttempt(ctx, first, 'checkout');
    const seen: string[] = [];
    const caught = await ctx.waitFor(
      'the fulfilment job to start',
      async () => {
        const view = await ctx.view(orderId);
        const job = fulfilJobOf(view);
        if (job !== undefined && seen.at(-1) !== job.status) seen.push(job.status);
        return job !== undefined && job.status !== 'queued' ? { job, fulfilments: view.fulfilments.length } : null;
      },
      5,
    );
    if (caught === null) return null;
    if (caught.job.status === 'running' && caught.fulfilments === 0) {
      return { orderId, attemptId, running: caught.job, seen };
    }
    missed.push(`${caught.job.status} with ${caught.fulfilments} fulfilment(s)`);
    ctx.note(`order ${attempt}: its job was already ${missed.at(-1)} when first seen; trying a new order`);
  }
  ctx.expect(
    false,
    `the kill could not land mid-fulfilment: ${CATCH_TRIES} jobs were already ${missed.join('; ')} ` +
      '(start the service with --fulfil-delay-ms of 100 or more)',
  );
  return null;
}
