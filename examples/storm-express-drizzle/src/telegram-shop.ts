import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import express, { type Router } from 'express';
import { InvalidOption } from 'payonce';
import type { JobHandler } from 'payonce/outbox';
import { OrderIdTaken, type PaymentProvider, Payments, ProviderDeclined, REFUND_TOPIC } from 'payonce/payments';
import type { ReceiptsDatabase } from 'payonce/sql';
import {
  botIdOfToken,
  TelegramPayments,
  type TelegramUpdate,
  telegramRedaction,
  telegramWebhook,
} from 'payonce/telegram';
import { createWebhookIntake, SqlDeliveryJournal } from 'payonce/webhooks';
import { expressWebhooks } from 'payonce/webhooks/express';
import { fulfilments, orders } from './schema.js';
import { customerOf, type Shop } from './shop.js';

/** The bot the shop sells through: its token, the Bot API it calls, the webhook's `secret_token`. */
export interface TelegramBot {
  /** The bot token (`<bot id>:<secret>`): in Bot API request URLs only, never logged. */
  readonly token: string;
  /** The Bot API root: `https://api.telegram.org`, or the storm's Telegram sandbox. */
  readonly apiUrl: string;
  /** The `secret_token` given to `setWebhook` (Telegram sends it in `X-Telegram-Bot-Api-Secret-Token`). */
  readonly webhookSecret: string;
}

/** What the shop's Telegram Stars part adds: payonce's engine, its webhook and its routes. */
export interface TelegramShop {
  readonly payments: Payments<ReceiptsDatabase>;
  readonly telegram: TelegramPayments<ReceiptsDatabase>;
  /** `POST /webhooks/telegram`. */
  readonly webhook: Router;
  /** `POST /orders/:id/telegram-invoice` `{ chatId }`, `POST /orders/:id/telegram-refund` `{ chargeId, userId? }`. */
  readonly routes: Router;
  /** The outbox jobs of Stars refunds, for the shop's worker: `refundStarPayment` once, then `order.refunded`. */
  readonly jobHandlers: Readonly<Record<string, JobHandler<ReceiptsDatabase>>>;
}

/** A Stars-only shop has no card checkout: `Payments` needs a provider, which a bot never calls. */
const noCheckout = (): Promise<never> => Promise.reject(new ProviderDeclined('Telegram orders are paid in Stars'));
const NO_CHECKOUT: PaymentProvider = {
  name: 'no-checkout',
  createPayment: noCheckout,
  getPaymentByReference: noCheckout,
  cancel: noCheckout,
};

/**
 * The shop's Telegram Stars payments, as docs/providers/telegram.md "Payments" shows them: an `XTR` order of the
 * shop (`POST /orders` `{ currency: 'XTR' }`) is sold through payonce's `TelegramPayments` on a `Payments` order of
 * the same id, opened when its invoice is sent (`POST /orders/:id/telegram-invoice`). `POST /webhooks/telegram` is
 * payonce's webhook intake in the default mode (`handleUpdate(update, null)`: the engine commits, then answers the
 * pre-checkout; the receipt keyed by bot id + `update_id` makes a redelivery a replay), so a `successful_payment` pays
 * the order once, whatever the number of deliveries, and enqueues its `order.fulfil` job once: the shop's worker
 * ships it as it ships the other providers' orders. `POST /orders/:id/telegram-refund` asks the Stars refund
 * (`requestStarRefund`: the outbox job calls `refundStarPayment` once per charge, however often it is asked).
 * `GET /orders/:id` reads a Telegram order's status, paid transitions and refund from `Payments`
 * (`telegramOrderView`).
 * `brokenNoReceipt` (STORM_EXAMPLE_BROKEN=telegram-no-receipt) is the broken variant: a plain route without the
 * intake that credits the order (ships it, instead of the outbox job) on every delivery of a `successful_payment`
 * the engine applied, ignoring that it was applied before (`duplicate`): Telegram's redelivery, or the same charge
 * in another update, ships it again.
 */
export function telegramShop(shop: Shop, bot: TelegramBot, brokenNoReceipt = false): TelegramShop {
  const onAlert = (alert: unknown) => console.warn('telegram payment needs review', alert);
  const payments = new Payments(shop.store, { provider: NO_CHECKOUT, onAlert });
  const telegram = new TelegramPayments(payments, { token: bot.token, apiBaseUrl: bot.apiUrl, onAlert });
  const intake = createWebhookIntake({
    guard: shop.guard,
    journal: new SqlDeliveryJournal(shop.store),
    redaction: telegramRedaction(),
    endpoints: {
      telegram: {
        ...telegramWebhook({ botId: botIdOfToken(bot.token), secretTokens: bot.webhookSecret }),
        handler: async (event, { receivedAtMs }) => {
          await telegram.handleUpdate(event.payload as TelegramUpdate, null, receivedAtMs);
        },
      },
    },
  });
  return {
    payments,
    telegram,
    webhook: brokenNoReceipt ? brokenWebhook(shop, telegram, bot) : expressWebhooks(intake),
    routes: orderRoutes(shop, payments, telegram),
    // The shop keeps nothing of its own to undo when a Stars order is refunded: `order.refunded` is acknowledged.
    jobHandlers: { ...telegram.jobHandlers(), [REFUND_TOPIC]: async () => undefined },
  };
}

/**
 * `POST /orders/:id/telegram-invoice` `{ chatId }`: opens the order's `Payments` order and sends its invoice (200
 * `{ sent }`); `POST /orders/:id/telegram-refund` `{ chargeId, userId? }`: asks the refund of the charge that paid it
 * (202, the same for a repeat; 400 for a charge that did not pay it or another payer). The customer's own XTR orders
 * only (404 otherwise).
 */
function orderRoutes(
  shop: Shop,
  payments: Payments<ReceiptsDatabase>,
  telegram: TelegramPayments<ReceiptsDatabase>,
): Router {
  const router = express.Router();
  router.post('/orders/:id/telegram-invoice', async (req, res) => {
    const id = String(req.params.id);
    const chatId = (req.body as { chatId?: unknown } | undefined)?.chatId;
    if (!Number.isSafeInteger(chatId)) {
      res.status(400).json({ error: 'chatId must be an integer' });
      return;
    }
    const customer = customerOf(req);
    const [order] = await shop.db
      .select()
      .from(orders)
      .where(and(eq(orders.id, id), eq(orders.customer, customer)));
    if (order === undefined || order.currency !== 'XTR') {
      res.status(404).json({ error: 'no such Stars order' });
      return;
    }
    try {
      // The same id, principal and money again answers the existing order: a repeated invoice opens nothing new.
      await payments.createOrder(customer, { amountMinor: order.amountMinor, currency: 'XTR' }, undefined, { id });
    } catch (error) {
      if (!(error instanceof OrderIdTaken)) throw error;
      res.status(409).json({ error: 'the order id is taken' });
      return;
    }
    const sent = await telegram.sendInvoice(chatId as number, id, { title: 'Shop order', description: `Order ${id}` });
    res.status(sent.ok ? 200 : 502).json({ sent: sent.ok });
  });
  router.post('/orders/:id/telegram-refund', async (req, res) => {
    const id = String(req.params.id);
    const { chargeId, userId } = (req.body ?? {}) as { chargeId?: unknown; userId?: unknown };
    const [order] = await shop.db
      .select()
      .from(orders)
      .where(and(eq(orders.id, id), eq(orders.customer, customerOf(req))));
    if (order === undefined || order.currency !== 'XTR') {
      res.status(404).json({ error: 'no such Stars order' });
      return;
    }
    if (typeof chargeId !== 'string' || (userId !== undefined && !Number.isSafeInteger(userId))) {
      res.status(400).json({ error: 'chargeId must be the telegram_payment_charge_id, userId an integer' });
      return;
    }
    const payer = userId === undefined ? {} : { userId: userId as number };
    try {
      await telegram.requestStarRefund({ orderId: id, chargeId, ...payer });
    } catch (error) {
      if (!(error instanceof InvalidOption)) throw error;
      res.status(400).json({ error: error.message });
      return;
    }
    res.status(202).json({ refund: 'requested' });
  });
  return router;
}

/** The broken variant's webhook: no receipt, and the order shipped on every `successful_payment` delivered. */
function brokenWebhook(shop: Shop, telegram: TelegramPayments<ReceiptsDatabase>, bot: TelegramBot): Router {
  const router = express.Router();
  router.post('/webhooks/telegram', express.json(), async (req, res) => {
    if (req.get('x-telegram-bot-api-secret-token') !== bot.webhookSecret) {
      res.status(401).json({ error: 'wrong secret token' });
      return;
    }
    const step = await telegram.handleUpdate(req.body as TelegramUpdate, null, Date.now());
    if (step.kind === 'successful_payment' && step.decision === 'applied' && step.orderId !== null) {
      // THE BROKEN VARIANT: credits (ships) the order for this delivery, ignoring that the charge was applied before.
      await shop.db.insert(fulfilments).values({ id: `ful_${randomUUID()}`, orderId: step.orderId, jobId: 'webhook' });
    }
    res.json({ received: true });
  });
  return router;
}

/**
 * A Telegram order as `GET /orders/:id` shows it: `Payments`' status in the shop's words, its paid transitions (the
 * journal's applied successes) and its refund (one when `Payments` shows it refunded).
 */
export async function telegramOrderView(
  payments: Payments<ReceiptsDatabase>,
  orderId: string,
  shipped: number,
): Promise<{ status: string; paidTransitions: number; refunds: number } | null> {
  const order = await payments.findOrder(orderId);
  if (order === null) return null;
  const journal = await payments.journalOf(orderId);
  const applied = (status: string) => journal.filter((e) => e.decision === 'applied' && e.status === status).length;
  const words: Readonly<Record<string, string>> = {
    draft: 'new',
    awaiting_payment: 'awaiting_payment',
    paid: shipped > 0 ? 'fulfilled' : 'paid',
    fulfilling: 'paid',
    completed: 'fulfilled',
    refunded: 'refunded',
    cancelled: 'cancelled',
  };
  return {
    status: words[order.status] ?? order.status,
    paidTransitions: applied('succeeded'),
    refunds: order.status === 'refunded' ? 1 : 0,
  };
}
