import type { PaymeExchange, PaymePayResult } from '@payonce/sandbox/payme';
import { describeExchange, type PaymeStormContext } from './payme-storm-context.js';
import type { PaymeStormOrder } from './payme-storm-target.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `{ id, time, amount, account }` of a CreateTransaction for `order` (Payme's `time` from the context's clock). */
export function createParams(ctx: PaymeStormContext, id: string, order: PaymeStormOrder, amount = order.amount) {
  return { id, time: ctx.now(), amount, account: order.account };
}

/** A short text of how a payment ended, for the notes. */
export function describePay(result: PaymePayResult): string {
  const refused = result.refusedWith === undefined ? '' : ` with ${result.refusedWith}`;
  return `${result.paymeId.slice(0, 8)} ${result.outcome}${refused} (state ${result.state})`;
}

/** Records a failure unless the payment ended performed (state 2). */
export function expectPerformed(ctx: PaymeStormContext, result: PaymePayResult, what: string): boolean {
  return ctx.expect(result.outcome === 'performed', `${what}: expected performed, got ${describePay(result)}`);
}

/** Records a failure unless `exchange` answered a result with `state`. */
export function expectState(ctx: PaymeStormContext, exchange: PaymeExchange, state: number, what: string): boolean {
  const got = exchange.answer?.result?.state;
  return ctx.expect(got === state, `${what}: expected state ${state}, got ${describeExchange(exchange)}`);
}

/** Waits until the target shows a fulfilment of the order (or the deadline); records a failure on timeout. */
export async function waitForFulfilment(ctx: PaymeStormContext, order: PaymeStormOrder): Promise<boolean> {
  for (;;) {
    const counts = await ctx.target.readOrder(order.account);
    if (counts.fulfilments > 0) return true;
    if (ctx.timeLeftMs() === 0) return ctx.expect(false, 'timed out waiting for the fulfilment');
    await sleep(40);
  }
}
