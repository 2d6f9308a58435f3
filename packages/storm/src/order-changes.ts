import type { OrderView } from './order-view.js';
import { type StormTimelineEvent, timelineEvent } from './storm-timeline.js';

const jobsOf = (view: OrderView | null) =>
  new Map((view?.jobs ?? []).map((job) => [job.id, `${job.topic} ${job.status}`] as const));

/**
 * What changed in an order between two reads of the adapter's `readOrder` (`before` is `null` at the first read),
 * as `app` timeline events at `atMs`: its status, paid transitions, fulfilments, each job's status, attempts.
 * Pure; empty when nothing changed.
 */
export function orderChanges(orderId: string, before: OrderView | null, after: OrderView, atMs: number) {
  const events: StormTimelineEvent[] = [];
  const add = (what: string, detail: string | null = null) =>
    events.push(timelineEvent({ atMs, orderId, actor: 'app', what, detail }));
  if (before?.order.status !== after.order.status) {
    add(`status ${after.order.status}`, before === null ? 'first read' : `was ${before.order.status}`);
  }
  if ((before?.paidTransitions ?? 0) !== after.paidTransitions) add(`paid transitions ${after.paidTransitions}`);
  if ((before?.fulfilments.length ?? 0) !== after.fulfilments.length) add(`fulfilments ${after.fulfilments.length}`);
  const beforeAttempts = new Map((before?.attempts ?? []).map((a) => [a.id, a.status] as const));
  for (const attempt of after.attempts) {
    if (beforeAttempts.get(attempt.id) !== attempt.status) {
      add(`attempt ${attempt.status}`, [attempt.id, attempt.providerPaymentId].filter(Boolean).join(', '));
    }
  }
  const beforeJobs = jobsOf(before);
  for (const [id, text] of jobsOf(after)) if (beforeJobs.get(id) !== text) add(`job ${text}`, id);
  return events;
}
