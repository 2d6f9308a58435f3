import type { CustomerPayResult, SandboxUpdate } from '@payonce/sandbox/telegram';
import type { PayWords } from '../provider/pay-scenarios.js';
import type { TelegramContext, TelegramStormOrder } from './telegram-scenario.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A short text of how the sandbox customer's payment ended, for the notes. */
export function describeTelegramPay(result: CustomerPayResult): string {
  const why = result.errorMessage === null ? '' : ` (${result.errorMessage})`;
  return `${result.outcome}${why}`;
}

/** How the sandbox customer's payments read in the common pay steps. */
export const TELEGRAM_PAY_WORDS: PayWords<CustomerPayResult> = {
  noun: 'payment',
  charged: 'paid',
  isCharged: (r) => r.outcome === 'paid',
  describe: describeTelegramPay,
};

/** Statuses as text: `200 409 none`. */
export const statusText = (statuses: readonly (number | null)[]) => statuses.map((s) => s ?? 'none').join(' ');

/** The order's `successful_payment` update as the storm received it from the sandbox (waits for the pump). */
export async function paymentUpdateOf(ctx: TelegramContext, order: TelegramStormOrder): Promise<SandboxUpdate | null> {
  for (;;) {
    const update = ctx
      .updatesOf(order)
      .find((u) => (u.message as { successful_payment?: unknown })?.successful_payment);
    if (update !== undefined || ctx.timeLeftMs() === 0) return update ?? null;
    await sleep(20);
  }
}

/** A `successful_payment` update the storm crafts for `order` (another amount, currency or charge than Telegram's). */
export function craftedPayment(
  ctx: TelegramContext,
  order: TelegramStormOrder,
  payment: {
    readonly chargeId: string;
    readonly amount?: number;
    readonly currency?: string;
    readonly payload?: string;
  },
): SandboxUpdate {
  const updateId = ctx.newUpdateId();
  return {
    update_id: updateId,
    message: {
      message_id: updateId % 1_000_000_000,
      from: { id: order.userId, is_bot: false, first_name: 'Storm customer' },
      chat: { id: order.userId, type: 'private', first_name: 'Storm customer' },
      date: Math.floor(Date.now() / 1000),
      successful_payment: {
        currency: payment.currency ?? 'XTR',
        total_amount: payment.amount ?? order.stars,
        invoice_payload: payment.payload ?? order.orderId,
        telegram_payment_charge_id: payment.chargeId,
        provider_payment_charge_id: '',
      },
    },
  };
}

/** `update` with a new `update_id`: the same content in another update (a charge Telegram sends again). */
export function asNewUpdate(ctx: TelegramContext, update: SandboxUpdate): SandboxUpdate {
  return { ...update, update_id: ctx.newUpdateId() };
}

/** A deliverer whose deliveries can be awaited: `settled()` resolves once every delivery it started has ended. */
export function trackedDeliverer(deliver: (update: SandboxUpdate) => Promise<void>) {
  const started: Promise<void>[] = [];
  return {
    deliver: (update: SandboxUpdate) => {
      const delivery = deliver(update);
      started.push(delivery);
      return delivery;
    },
    settled: async () => {
      await Promise.allSettled(started);
    },
  };
}

/** Waits until the order's `successful_payment` reached the pump and every delivery of `tracked` ended. */
export async function deliveriesDone(
  ctx: TelegramContext,
  order: TelegramStormOrder,
  tracked: { settled(): Promise<void> },
): Promise<void> {
  await paymentUpdateOf(ctx, order);
  await tracked.settled();
}
