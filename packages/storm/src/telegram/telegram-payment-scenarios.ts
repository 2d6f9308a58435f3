import { randomUUID } from 'node:crypto';
import { waitForFulfilment } from '../provider/base-storm-context.js';
import { expectCharged, payCharged } from '../provider/pay-scenarios.js';
import type { TelegramScenario } from './telegram-scenario.js';
import {
  asNewUpdate,
  craftedPayment,
  describeTelegramPay,
  paymentUpdateOf,
  statusText,
  TELEGRAM_PAY_WORDS,
} from './telegram-steps.js';

/** Telegram storm scenario 3: the customer pays an order that is already paid. */
export const telegramPaidPreCheckout: TelegramScenario = {
  id: 3,
  name: 'pre-checkout for a paid order refused',
  defends: 'repeated payment attempt',
  criterion:
    'the customer pays the invoice of an order already paid and fulfilled: the bot answers the pre-checkout ' +
    'ok: false, Telegram charges nothing more; one charge, one paid transition, one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    if (!(await payCharged(ctx, TELEGRAM_PAY_WORDS, order, 'first payment', 'the first payment'))) {
      return ctx.conclude();
    }
    await waitForFulfilment(ctx, () => ctx.target.readOrder(order.orderId));
    const again = await ctx.pay(order);
    ctx.note(`second payment: ${describeTelegramPay(again)}`);
    ctx.expect(again.outcome === 'refused', `a pre-checkout of a paid order: expected refused, got ${again.outcome}`);
    return ctx.conclude();
  },
};

/** Telegram storm scenario 4: the same charge delivered again, in the same and in other updates. */
export const telegramPaymentTwice: TelegramScenario = {
  id: 4,
  name: 'successful_payment twice (same charge)',
  defends: 'repeated business effect',
  criterion:
    'after the payment, its successful_payment comes again in two new updates (other update_id, same ' +
    'telegram_payment_charge_id), two at once: each answered 200, still one paid transition, one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    if (!(await payCharged(ctx, TELEGRAM_PAY_WORDS, order, 'payment', 'the payment'))) return ctx.conclude();
    const update = await paymentUpdateOf(ctx, order);
    if (!ctx.expect(update !== null, 'the successful_payment update never came from Telegram')) return ctx.conclude();
    const copies = [asNewUpdate(ctx, update as NonNullable<typeof update>), asNewUpdate(ctx, update as never)];
    ctx.injected(copies.length);
    const statuses = await Promise.all(copies.map((u) => ctx.redeliver(u)));
    const last = statuses.map((s) => s.at(-1) ?? null);
    ctx.note(`the charge in new updates answered ${statusText(last)}`);
    ctx.expect(
      last.every((s) => s === 200),
      `the repeated charge was answered ${statusText(last)}, expected 200`,
    );
    return ctx.conclude();
  },
};

/** Telegram storm scenario 5: payments Telegram never made for this order: another amount, currency, payload. */
export const telegramForeignPayment: TelegramScenario = {
  id: 5,
  name: 'a foreign amount declined',
  defends: 'repeated payment attempt',
  criterion:
    'successful_payment updates naming an unpaid order with another amount, another currency, and one naming ' +
    'no order: each acknowledged (200, Telegram must not repeat), none pays anything; the order is then paid once',
  async run(ctx) {
    const order = await ctx.newOrder();
    const tag = randomUUID().slice(0, 8);
    const foreign = [
      craftedPayment(ctx, order, { chargeId: `stxStormAmount${tag}`, amount: order.stars + 1 }),
      craftedPayment(ctx, order, { chargeId: `stxStormCurrency${tag}`, currency: 'USD' }),
      craftedPayment(ctx, order, { chargeId: `stxStormNoOrder${tag}`, payload: `storm-no-such-order-${tag}` }),
    ];
    ctx.injected(foreign.length);
    const statuses = [];
    for (const update of foreign) statuses.push((await ctx.redeliver(update)).at(-1) ?? null);
    ctx.note(`foreign payments answered ${statusText(statuses)}`);
    ctx.expect(
      statuses.every((s) => s === 200),
      `a foreign payment was answered ${statusText(statuses)}, expected 200`,
    );
    const before = await ctx.target.readOrder(order.orderId);
    ctx.expect(
      before.paidTransitions === 0,
      `a foreign payment paid the order (${before.paidTransitions} transitions)`,
    );
    const paid = await ctx.pay(order);
    ctx.note(`then the real payment: ${describeTelegramPay(paid)}`);
    expectCharged(ctx, TELEGRAM_PAY_WORDS, paid, 'the real payment after the foreign ones');
    return ctx.conclude();
  },
};

/** Telegram storm scenario 6: a Stars refund asked twice at once. */
export const telegramRefundTwice: TelegramScenario = {
  id: 6,
  name: 'refund twice, applied once',
  defends: 'repeated business effect',
  criterion:
    'a paid and fulfilled order is refunded twice at once: refundStarPayment moves the stars back once, the ' +
    'order shows one refund, the stars held drop to 0',
  async run(ctx) {
    const refund = ctx.target.requestRefund?.bind(ctx.target);
    if (refund === undefined) {
      return ctx.skip(ctx.target.missing?.refund ?? 'the target cannot refund (no requestRefund)');
    }
    const order = await ctx.newOrder();
    const paid = await ctx.pay(order);
    if (!expectCharged(ctx, TELEGRAM_PAY_WORDS, paid, 'the payment to refund') || paid.chargeId === null) {
      return ctx.conclude();
    }
    await waitForFulfilment(ctx, () => ctx.target.readOrder(order.orderId));
    ctx.injected(1);
    const asks = await Promise.all([1, 2].map(() => refund(order.orderId, order.userId, paid.chargeId as string)));
    ctx.note(`refund requests answered ${asks.map((a) => a.status).join(' ')}`);
    ctx.expect(
      asks.some((a) => a.status >= 200 && a.status < 300),
      'no refund request was accepted',
    );
    return ctx.conclude();
  },
};
