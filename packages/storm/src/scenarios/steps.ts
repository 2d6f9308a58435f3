import type { PaymentPlan } from '@payonce/sandbox/internal/payment-plan.js';
import type { SandboxSigning } from '@payonce/sandbox/internal/webhook-signer.js';
import { type AnyAppAnswer, attemptFieldOf, attemptIdOf, outcomeOf } from '../app/app-answers.js';
import type { AppPaymentAnswer } from '../app/storm-app-adapter.js';
import type { OrderView, ViewJob } from '../order-view.js';
import type { StormDelivery } from '../sandbox-api.js';
import type { ScenarioContext } from '../scenario-context.js';

/** `201 created pending` — a short description of a checkout or create answer for the notes. */
export function describeAnswer(answer: AnyAppAnswer): string {
  const parts = [String(answer.status)];
  const outcome = outcomeOf(answer);
  if (outcome !== null) parts.push(outcome);
  const status = attemptFieldOf(answer, 'status');
  if (status !== null) parts.push(status);
  if (answer.headers['idempotent-replayed'] === 'true') parts.push('(replayed)');
  return parts.join(' ');
}

/**
 * The statuses the storm accepts from the app's pay route (`startPayment`) when its body names the attempt (and
 * outcome) as {@link AppPaymentAnswer} says: 200, 201, and 202 (accepted: e.g. the provider's outcome is not known
 * yet). Any other status fails the checkout, whatever the body.
 */
export const PAY_STATUSES: readonly number[] = Object.freeze([200, 201, 202]);

/** {@link PAY_STATUSES} as the failure messages name them. */
export const PAY_STATUSES_TEXT = '200, 201 or 202';

/** True for a status of {@link PAY_STATUSES}. */
export const isPayAnswer = (status: number | null): boolean => status !== null && PAY_STATUSES.includes(status);

/** True for 2xx. */
export const isSuccess = (status: number | null): boolean => status !== null && status >= 200 && status < 300;
/** True for 4xx. */
export const isClientError = (status: number | null): boolean => status !== null && status >= 400 && status < 500;

/** The order's fulfilment job (`order.fulfil`), if any. */
export function fulfilJobOf(view: OrderView): ViewJob | undefined {
  return view.jobs.find((job) => job.topic === 'order.fulfil');
}

/**
 * Checks a checkout answer is one of {@link PAY_STATUSES} (200, 201, 202) and names an attempt; returns the attempt id or `null` (failure recorded).
 * With `raced` (a checkout sent beside others for the same order: double click, two tabs, two replicas) an answer
 * that says `already-paid` without naming an attempt is also right: the webhook of the other checkout's payment can
 * mark the order paid before this one locks it, and an app may then answer "already paid" on its own
 * ({@link AppPaymentAnswer}); one attempt and one payment are still checked by {@link expectOneAttempt}.
 */
export function expectAttempt(
  ctx: ScenarioContext,
  answer: AppPaymentAnswer,
  what: string,
  raced = false,
): string | null {
  const ok = ctx.expect(
    isPayAnswer(answer.status),
    `${what} answered ${describeAnswer(answer)}, expected ${PAY_STATUSES_TEXT} naming the attempt`,
  );
  const attemptId = attemptIdOf(answer);
  if (ok && attemptId === null && raced && outcomeOf(answer) === 'already-paid') {
    ctx.note(`${what}: already paid by the other checkout's payment`);
  } else if (ok) ctx.expect(attemptId !== null, `${what} named no attempt: ${answer.text.slice(0, 200)}`);
  return attemptId;
}

/**
 * The defence of "one active attempt per order" seen from outside: every answer named the same attempt, the service
 * shows one attempt, and the provider saw one payment for the order.
 */
export async function expectOneAttempt(
  ctx: ScenarioContext,
  orderId: string,
  answers: readonly AppPaymentAnswer[],
): Promise<void> {
  const ids = new Set(answers.map(attemptIdOf).filter((id) => id !== null));
  ctx.expect(ids.size <= 1, `the answers named ${ids.size} different attempts (${[...ids].join(', ')})`);
  const view = await ctx.view(orderId);
  ctx.expect(view.attempts.length === 1, `the order has ${view.attempts.length} payment attempts, expected 1`);
  const ledger = await ctx.sandbox.orderLedger(orderId);
  ctx.expect(
    ledger.paymentIds.length === 1,
    `the provider received ${ledger.paymentIds.length} payments for the order, expected 1`,
  );
}

/** Creates an order, arms `plan` for it (if any) and checks out once with a fresh key (must be 200, 201 or 202). */
export async function orderAndCheckout(
  ctx: ScenarioContext,
  plan?: PaymentPlan,
): Promise<{ orderId: string; answer: AppPaymentAnswer; attemptId: string | null }> {
  const orderId = await ctx.newOrder();
  if (plan !== undefined) await ctx.sandbox.plan(orderId, plan);
  const answer = await ctx.checkout(orderId, ctx.key('pay'));
  ctx.note(`checkout: ${describeAnswer(answer)}`);
  return { orderId, answer, attemptId: expectAttempt(ctx, answer, 'checkout') };
}

/** An order whose provider payment is held (`outcome: 'hold'`): its ids, the PaymentIntent and the signing in use. */
export interface HeldPayment {
  readonly orderId: string;
  readonly paymentId: string;
  readonly intent: Record<string, unknown>;
  readonly signing: SandboxSigning;
}

/** {@link orderAndCheckout} with a held payment (plus `plan`), and what a crafted event about it needs. */
export async function heldPayment(ctx: ScenarioContext, plan: PaymentPlan = {}): Promise<HeldPayment> {
  const { orderId } = await orderAndCheckout(ctx, { ...plan, outcome: 'hold' });
  const paymentId = await ctx.paymentOf(orderId);
  const [intent, signing] = await Promise.all([ctx.sandbox.paymentIntent(paymentId), ctx.sandbox.signing()]);
  return { orderId, paymentId, intent, signing };
}

/** Waits until the order shows a fulfilment and no outbox job is queued or running; returns that view. */
export function fulfilled(ctx: ScenarioContext, orderId: string): Promise<OrderView | null> {
  return ctx.waitFor(`order ${orderId.slice(0, 8)} to be fulfilled`, async () => {
    const view = await ctx.view(orderId);
    const busy = view.jobs.some((job) => job.status === 'queued' || job.status === 'running');
    return view.fulfilments.length > 0 && !busy ? view : null;
  });
}

/** Waits until every genuine `eventType` event of the payment has a delivery that got an answer; returns the log. */
export function delivered(
  ctx: ScenarioContext,
  paymentId: string,
  eventType: string,
  minEvents = 1,
): Promise<StormDelivery[] | null> {
  return ctx.waitFor(`the ${eventType} event of ${paymentId} to be delivered`, async () => {
    const events = (await ctx.sandbox.events(paymentId)).filter((e) => e.type === eventType);
    if (events.length < minEvents) return null;
    const log = await ctx.sandbox.deliveries(paymentId);
    const answered = events.every((e) =>
      log.some((d) => d.eventId === e.id && d.kind === 'attempt' && isSuccess(d.status)),
    );
    return answered ? log : null;
  });
}

/** The view says the order is not (yet) paid: status before `paid`, no paid transition, no fulfilment. */
export function expectUnpaid(ctx: ScenarioContext, view: OrderView, after: string): void {
  const unpaid = ['draft', 'awaiting_payment'].includes(view.order.status);
  ctx.expect(
    unpaid && view.paidTransitions === 0 && view.fulfilments.length === 0,
    `after ${after} order ${view.order.id.slice(0, 8)} is ${view.order.status} with ${view.paidTransitions} paid ` +
      `transition(s) and ${view.fulfilments.length} fulfilment(s); it must be untouched`,
  );
}
