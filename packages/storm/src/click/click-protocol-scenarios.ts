import { CLICK_CODES, type ClickCallSpec, clickAmountOf } from '@payonce/sandbox/click';
import { payCharged } from '../provider/pay-scenarios.js';
import { CLICK_PAY_WORDS } from './click-pay-scenarios.js';
import type { ClickContext, ClickScenario } from './click-scenario.js';
import { clickErrorOf, describeClickExchange } from './click-storm-context.js';
import type { ClickStormOrder } from './click-storm-target.js';

/** The Prepare of `order` under `clickTransId` (another amount or order id when given). */
export function prepareOf(
  order: ClickStormOrder,
  clickTransId: number,
  amountTiyin = order.amountTiyin,
): ClickCallSpec {
  return { action: 0, clickTransId, merchantTransId: order.merchantTransId, amount: clickAmountOf(amountTiyin) };
}

/** The Complete following `prepare`, with the `merchant_prepare_id` it was answered and Click's `error`. */
export function completeOf(prepare: ClickCallSpec, merchantPrepareId: unknown, error = 0): ClickCallSpec {
  return { ...prepare, action: 1, merchantPrepareId: Number(merchantPrepareId), error };
}

/** Prepares `order` with a single call; records a failure unless it answered 0. @returns the Prepare and its id. */
export async function prepared(ctx: ClickContext, order: ClickStormOrder) {
  const spec = prepareOf(order, ctx.newTransId());
  const answer = await ctx.call(spec);
  ctx.expectError(answer, 'Prepare', [CLICK_CODES.success]);
  return { spec, prepareId: answer.answer?.merchant_prepare_id };
}

/** Click storm scenario 5: Complete before Prepare, Complete repeated, Prepare of a paid order. */
export const clickOutOfOrder: ClickScenario = {
  id: 5,
  name: 'out-of-order calls: Complete before Prepare',
  defends: 'repeated business effect',
  criterion:
    'a Complete of a payment never prepared → -6 and nothing paid; then Prepare → Complete → 0, the Complete ' +
    'repeated answers the same merchant_confirm_id (or -4), a new Prepare for the paid order → -4; one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const early = prepareOf(order, ctx.newTransId());
    ctx.expectError(
      await ctx.call(completeOf(early, 2_000_000_000 + (ctx.newTransId() % 1_000_000))),
      'Complete before Prepare',
      [CLICK_CODES.transactionNotFound],
    );
    const { spec, prepareId } = await prepared(ctx, order);
    const first = await ctx.call(completeOf(spec, prepareId));
    ctx.expectError(first, 'Complete', [CLICK_CODES.success]);
    const again = await ctx.call(completeOf(spec, prepareId));
    ctx.expect(
      clickErrorOf(again) === CLICK_CODES.alreadyPaid || describeClickExchange(again) === describeClickExchange(first),
      `the repeated Complete answered ${describeClickExchange(again)} after ${describeClickExchange(first)}`,
    );
    ctx.expectError(await ctx.call(prepareOf(order, ctx.newTransId())), 'Prepare of the paid order', [
      CLICK_CODES.alreadyPaid,
    ]);
    return ctx.conclude();
  },
};

/** Click storm scenario 6: Prepare and Complete signed with a wrong SECRET_KEY. */
export const clickForgedAuth: ClickScenario = {
  id: 6,
  name: 'forged auth: wrong sign_string',
  defends: 'repeated business effect',
  criterion:
    'Prepare, Complete and a failed-payment Complete signed with a wrong key → -1 each; nothing is prepared, ' +
    'completed or cancelled by them: the real Complete then answers 0, one paid transition, one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const forgedPrepare: ClickCallSpec = { ...prepareOf(order, ctx.newTransId()), signWith: 'wrong-secret' };
    ctx.expectError(await ctx.call(forgedPrepare), 'Prepare with a wrong sign_string', [CLICK_CODES.signCheckFailed]);
    const { spec, prepareId } = await prepared(ctx, order);
    for (const error of [0, -5017]) {
      const forged: ClickCallSpec = { ...completeOf(spec, prepareId, error), signWith: 'wrong-secret' };
      ctx.expectError(await ctx.call(forged), `Complete (error=${error}) with a wrong sign_string`, [
        CLICK_CODES.signCheckFailed,
      ]);
    }
    ctx.expectError(await ctx.call(completeOf(spec, prepareId)), 'the real Complete after the forged ones', [
      CLICK_CODES.success,
    ]);
    return ctx.conclude();
  },
};

/** Click storm scenario 7: another amount, an unknown merchant_trans_id. */
export const clickForeignAmountAccount: ClickScenario = {
  id: 7,
  name: 'foreign amount and unknown order',
  defends: 'repeated payment attempt',
  criterion:
    'Prepare with ±1 sum → -2, with a merchant_trans_id naming no order → -5; none of them prepares anything; the ' +
    'order is then paid with its own amount once',
  async run(ctx) {
    const order = await ctx.newOrder();
    for (const amount of [order.amountTiyin + 100, order.amountTiyin - 100]) {
      ctx.expectError(
        await ctx.call(prepareOf(order, ctx.newTransId(), amount)),
        `Prepare of ${clickAmountOf(amount)} instead of ${clickAmountOf(order.amountTiyin)}`,
        [CLICK_CODES.incorrectAmount],
      );
    }
    const foreign = { ...order, merchantTransId: `storm-no-such-order-${ctx.newTransId()}` };
    ctx.expectError(await ctx.call(prepareOf(foreign, ctx.newTransId())), 'Prepare of an unknown order', [
      CLICK_CODES.userNotFound,
    ]);
    await payCharged(ctx, CLICK_PAY_WORDS, order, 'then with its own amount', 'the order with its own amount');
    return ctx.conclude();
  },
};
