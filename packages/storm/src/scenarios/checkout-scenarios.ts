import { randomBytes } from 'node:crypto';
import { attemptFieldOf, attemptIdOf, orderIdOf, outcomeOf } from '../app/app-answers.js';
import type { AppOrderAnswer } from '../app/storm-app-adapter.js';
import type { Scenario } from '../scenario.js';
import type { ScenarioContext } from '../scenario-context.js';
import type { StormMoney } from '../service-api.js';
import type { HttpAnswer } from '../storm-http.js';
import { expectPaid } from './expect-paid.js';
import { appMissedProviderAnswer } from './provider-answer.js';
import { replayProblem } from './replay-check.js';
import { describeAnswer, expectAttempt, expectOneAttempt, isPayAnswer, isSuccess, PAY_STATUSES_TEXT } from './steps.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `POST /orders` with a key, retrying a 409 (same key still running) after its Retry-After (capped at 250 ms). */
async function createOrder(ctx: ScenarioContext, money: StormMoney, key: string): Promise<AppOrderAnswer> {
  for (;;) {
    const answer = await ctx.service.createOrder(ctx.customer, money, key);
    if (answer.status !== 409 || answer.headers['retry-after'] === undefined || ctx.timeLeftMs() === 0) return answer;
    await sleep(Math.min(250, Number(answer.headers['retry-after']) * 1000 || 250));
  }
}

/** Pays a tracked order with one checkout (fresh key) and waits until it is charged, paid and fulfilled. */
async function pay(ctx: ScenarioContext, orderId: string): Promise<void> {
  const answer = await ctx.checkout(orderId, ctx.key('pay'));
  ctx.note(`checkout: ${describeAnswer(answer)}`);
  expectAttempt(ctx, answer, 'checkout');
  await expectPaid(ctx, orderId);
}

/** A fresh merchant reference for the direct provider calls (never a service attempt id). */
const storeReference = () => `storm-ref-${randomBytes(8).toString('hex')}`;

/** docs/design.md §9 scenario 1. */
export const doublePayClick: Scenario = {
  id: 1,
  name: 'double "Pay" click (same key, parallel)',
  defends: 'repeated HTTP request',
  criterion:
    'two checkouts with the same Idempotency-Key sent at once both end 200/201/202 naming the same attempt ' +
    '(a 409 "still running" is retried); one attempt, one provider payment, one charge',
  needs: ['attempts'],
  async run(ctx) {
    const orderId = await ctx.newOrder();
    const key = ctx.key('click');
    const answers = await Promise.all([ctx.checkout(orderId, key), ctx.checkout(orderId, key)]);
    ctx.note(`answers: ${answers.map(describeAnswer).join(' | ')}`);
    for (const [i, answer] of answers.entries()) expectAttempt(ctx, answer, `click ${i + 1}`, true);
    await expectOneAttempt(ctx, orderId, answers);
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 2. */
export const twoTabs: Scenario = {
  id: 2,
  name: 'checkout in two tabs (two keys, parallel)',
  defends: 'repeated payment attempt',
  criterion:
    'two checkouts of one order with DIFFERENT Idempotency-Keys sent at once both answer 200/201/202 with the same ' +
    'attempt (or already-paid, when the other payment paid the order first); the provider sees one payment and ' +
    'charges once',
  needs: ['attempts'],
  async run(ctx) {
    const orderId = await ctx.newOrder();
    const answers = await Promise.all([
      ctx.checkout(orderId, ctx.key('tab-a')),
      ctx.checkout(orderId, ctx.key('tab-b')),
    ]);
    ctx.note(`answers: ${answers.map(describeAnswer).join(' | ')}`);
    for (const [i, answer] of answers.entries()) expectAttempt(ctx, answer, `tab ${i + 1}`, true);
    await expectOneAttempt(ctx, orderId, answers);
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 3. */
export const parallelCreate: Scenario = {
  id: 3,
  name: 'two parallel create requests (same key)',
  defends: 'repeated HTTP request',
  criterion:
    'two POST /orders with the same Idempotency-Key and body sent at once end 201 with the SAME order id ' +
    '(one of them a replay; a 409 is retried); that order is then paid (charged, paid and fulfilled) once',
  async run(ctx) {
    const money = ctx.money();
    const key = ctx.key('create');
    const answers = await Promise.all([createOrder(ctx, money, key), createOrder(ctx, money, key)]);
    ctx.note(`answers: ${answers.map(describeAnswer).join(' | ')}`);
    const ids = new Set(answers.map(orderIdOf));
    for (const [i, a] of answers.entries()) {
      ctx.expect(a.status === 201, `create ${i + 1} answered ${a.status}: ${a.text.slice(0, 200)}`);
    }
    ctx.expect(ids.size === 1 && !ids.has(null), `the two creates returned ${ids.size} different orders`);
    for (const id of ids) if (id !== null) ctx.track(id);
    const [orderId] = [...ids];
    if (orderId) await pay(ctx, orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 4. */
export const refreshWhilePending: Scenario = {
  id: 4,
  name: 'refresh while pending',
  defends: 'repeated payment attempt',
  criterion:
    'while the payment is pending, GET /orders/:id shows the one pending attempt (or unknown, when a --faults rule ' +
    'took the provider answer from the app) and a new checkout (new key) answers "existing" (200/201/202) with ' +
    'that attempt; no second provider payment; paid once after settlement',
  needs: ['attempts'],
  async run(ctx) {
    const orderId = await ctx.newOrder();
    await ctx.sandbox.plan(orderId, { outcome: 'hold' });
    const first = await ctx.checkout(orderId, ctx.key('pay'));
    ctx.note(`first checkout: ${describeAnswer(first)}`);
    const attemptId = expectAttempt(ctx, first, 'first checkout');
    const view = await ctx.view(orderId);
    ctx.expect(
      view.attempts.length === 1 && view.attempts[0]?.id === attemptId,
      `the refreshed order shows ${view.attempts.length} attempts instead of the pending one`,
    );
    const attemptStatus = view.attempts[0]?.status ?? '';
    if (attemptStatus === 'unknown' && (await appMissedProviderAnswer(ctx, orderId))) {
      ctx.note('the attempt is unknown: a fault took the provider answer from the app (--faults), which is right');
    } else {
      ctx.expect(
        ['pending', 'requires_action'].includes(attemptStatus),
        `the attempt is ${view.attempts[0]?.status} while the provider holds the payment`,
      );
    }
    ctx.expect(view.order.status === 'awaiting_payment', `the pending order is ${view.order.status}`);
    const again = await ctx.checkout(orderId, ctx.key('reopen'));
    ctx.note(`re-checkout: ${describeAnswer(again)}`);
    ctx.expect(
      isPayAnswer(again.status) && outcomeOf(again) === 'existing' && attemptIdOf(again) === attemptId,
      `re-checkout while pending answered ${describeAnswer(again)} instead of ${PAY_STATUSES_TEXT} existing with ` +
        'the same attempt',
    );
    await expectOneAttempt(ctx, orderId, [first, again]);
    await ctx.sandbox.settle(await ctx.paymentOf(orderId));
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 5. */
export const lostResponse: Scenario = {
  id: 5,
  name: 'lost response after create',
  defends: 'repeated charge',
  criterion:
    'the provider creates the payment (held, no webhook yet) but its answer is lost (drop-after-commit): the ' +
    'attempt is never "failed"; while the outcome is unknown a retry with the same key gets the same attempt and a ' +
    'checkout with a new key answers "existing" with it; the provider has one payment for the order; once settled ' +
    'the webhook makes the order paid and fulfilled once',
  needs: ['attempts'],
  async run(ctx) {
    const orderId = await ctx.newOrder();
    // Held: nothing but the storm's own settle can pay the order, so the retries below run while the provider's
    // outcome is still unknown to the service, whatever the timing of webhooks and reconciliation.
    await ctx.sandbox.plan(orderId, { responseFault: 'drop-after-commit', outcome: 'hold' });
    const key = ctx.key('pay');
    const first = await ctx.checkout(orderId, key);
    ctx.note(`checkout with the lost provider answer: ${describeAnswer(first)}`);
    const attemptId = expectAttempt(ctx, first, 'checkout with the lost provider answer');
    ctx.expect(
      attemptFieldOf(first, 'status') !== 'failed',
      'a lost provider answer made the attempt "failed" (it must be unknown: the payment may exist)',
    );
    const retry = await ctx.checkout(orderId, key);
    const newKey = await ctx.checkout(orderId, ctx.key('retry'));
    ctx.note(`retry same key: ${describeAnswer(retry)}; retry new key: ${describeAnswer(newKey)}`);
    ctx.expect(
      isSuccess(retry.status) && attemptIdOf(retry) === attemptId,
      `the retry with the same key answered ${describeAnswer(retry)} instead of the same attempt`,
    );
    ctx.expect(
      isSuccess(newKey.status) && outcomeOf(newKey) === 'existing' && attemptIdOf(newKey) === attemptId,
      `a checkout with a new key while the provider's outcome was unknown answered ${describeAnswer(newKey)} ` +
        'instead of "existing" with the same attempt (a second attempt may charge the customer twice)',
    );
    await expectOneAttempt(ctx, orderId, [first, retry, newKey]);
    await ctx.sandbox.settle(await ctx.paymentOf(orderId));
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 6. */
export const sameKeySameParams: Scenario = {
  id: 6,
  name: 'retry with same key and same params',
  defends: 'repeated HTTP request',
  criterion:
    'a repeated POST /orders and a repeated checkout with the same key and body replay the first answer byte for ' +
    'byte with Idempotent-Replayed: true; the provider, given the same key and params twice, returns the same ' +
    'payment (replayed) and records one',
  needs: ['attempts'],
  async run(ctx) {
    const money = ctx.money();
    const key = ctx.key('order');
    const first = await ctx.service.createOrder(ctx.customer, money, key);
    const second = await ctx.service.createOrder(ctx.customer, money, key);
    const orderId = orderIdOf(first);
    if (!ctx.expect(first.status === 201 && orderId !== null, `POST /orders answered ${first.status}`) || !orderId) {
      return ctx.conclude();
    }
    ctx.track(orderId);
    const orderReplay = replayProblem(first, second, 201);
    ctx.expect(
      orderReplay === null,
      `the repeated POST /orders answered ${describeAnswer(second)}, not a byte-exact replay: ${orderReplay}`,
    );
    const payKey = ctx.key('pay');
    const pay1 = await ctx.checkout(orderId, payKey);
    const pay2 = await ctx.checkout(orderId, payKey);
    ctx.note(`checkout: ${describeAnswer(pay1)}; repeated: ${describeAnswer(pay2)}`);
    expectAttempt(ctx, pay1, 'checkout');
    const payReplay = replayProblem(pay1, pay2);
    ctx.expect(
      payReplay === null,
      `the repeated checkout answered ${describeAnswer(pay2)}, not a byte-exact replay: ${payReplay}`,
    );
    await expectOneAttempt(ctx, orderId, [pay1, pay2]);

    const reference = storeReference();
    const body = { amount: money.amountMinor, currency: 'eur', metadata: { merchant_reference: reference } };
    const providerKey = ctx.key('provider');
    const p1 = await ctx.sandbox.createPaymentIntent(body, providerKey, { outcome: 'hold' });
    const p2 = await ctx.sandbox.createPaymentIntent(body, providerKey, { outcome: 'hold' });
    const idOf = (a: HttpAnswer) => (a.json as { id?: unknown } | null)?.id;
    ctx.expect(
      p1.status === 200 && p2.status === 200 && p2.headers['idempotent-replayed'] === 'true' && idOf(p1) === idOf(p2),
      `the provider answered ${p1.status} then ${p2.status} (replayed: ${p2.headers['idempotent-replayed']}) ` +
        'for the same key and params',
    );
    const payments = await ctx.sandbox.referencePayments(reference);
    ctx.expect(payments.length === 1, `the provider created ${payments.length} payments for one key`);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 7. */
export const sameKeyDifferentAmount: Scenario = {
  id: 7,
  name: 'same key, different amount',
  defends: 'repeated HTTP request',
  criterion:
    'reusing an Idempotency-Key of POST /orders with another amount answers 422 and creates nothing (the first ' +
    'order keeps its amount); the provider answers the same reuse with 400 idempotency_error and creates no ' +
    'payment; the first order is then paid once, charged its first amount',
  async run(ctx) {
    const money = ctx.money();
    const key = ctx.key('order');
    const orderId = await ctx.service.expectOrder(ctx.customer, money, key);
    ctx.track(orderId);
    const other = { ...money, amountMinor: money.amountMinor + 1 };
    const reuse = await ctx.service.createOrder(ctx.customer, other, key);
    ctx.note(`reuse with another amount: ${describeAnswer(reuse)}`);
    ctx.expect(reuse.status === 422, `reusing the key with another amount answered ${reuse.status}, expected 422`);
    const view = await ctx.view(orderId);
    ctx.expect(
      view.order.amountMinor === money.amountMinor,
      `the order's amount changed from ${money.amountMinor} to ${view.order.amountMinor}`,
    );
    const reference = storeReference();
    const providerKey = ctx.key('provider');
    const body = (amount: number) => ({ amount, currency: 'eur', metadata: { merchant_reference: reference } });
    const p1 = await ctx.sandbox.createPaymentIntent(body(money.amountMinor), providerKey, { outcome: 'hold' });
    const p2 = await ctx.sandbox.createPaymentIntent(body(other.amountMinor), providerKey, { outcome: 'hold' });
    const errorType = (p2.json as { error?: { type?: unknown } } | null)?.error?.type;
    ctx.expect(
      p1.status === 200 && p2.status === 400 && errorType === 'idempotency_error',
      `the provider answered ${p1.status} then ${p2.status} ${String(errorType)} for the key reused with another amount`,
    );
    const payments = await ctx.sandbox.referencePayments(reference);
    ctx.expect(payments.length === 1, `the provider created ${payments.length} payments for one key`);
    await pay(ctx, orderId);
    for (const charge of (await ctx.sandbox.orderLedger(orderId)).charges) {
      ctx.expect(
        charge.amountMinor === money.amountMinor,
        `the order was charged ${charge.amountMinor}, not its first amount ${money.amountMinor}`,
      );
    }
    return ctx.conclude();
  },
};
