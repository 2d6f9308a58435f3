import { randomBytes } from 'node:crypto';
import { TelegramBotError } from './telegram-bot-error.js';
import type { TelegramSandboxState } from './telegram-state.js';
import { unixNow } from './telegram-state.js';

/** A random tag of this process's sandbox charges (hex), so charge ids never repeat across runs. */
const CHARGE_RUN = randomBytes(6).toString('hex');

/** Telegram's pre-checkout deadline: the Bot API must receive the answer within 10 seconds. */
export const PRE_CHECKOUT_DEADLINE_MS = 10_000;

/** What became of one payment attempt of the simulated customer. */
export interface CustomerPayResult {
  /** `paid`: a `successful_payment` was sent; `refused`: the bot answered ok:false; `timeout`: no answer in time. */
  readonly outcome: 'paid' | 'refused' | 'timeout';
  readonly invoiceRef: string;
  readonly payload: string;
  readonly queryId: string | null;
  readonly chargeId: string | null;
  readonly errorMessage: string | null;
}

/** Who pays and which invoice. */
export interface CustomerPayOptions {
  /** The invoice's `ref` (`msg:<message_id>` or a link's slug). @default the latest invoice */
  readonly invoiceRef?: string;
  /** The paying user's id (a private chat's id is the user's). @default the invoice's chat, else 700000001 */
  readonly userId?: number;
}

/**
 * The simulated customer: pays an invoice as Telegram's client does — a `pre_checkout_query` update, then waits for
 * the bot's `answerPreCheckoutQuery` up to the deadline (10 s; the `slow-pre-checkout` fault shortens it), and on
 * `ok: true` a message with `successful_payment` (`telegram_payment_charge_id` from the sandbox, recorded in the
 * ledger). With the `cancelled-order` fault the pre-checkout is skipped and the payment arrives regardless.
 * @throws {TelegramBotError} 409 no invoice was sent yet (none named); 404 no invoice `invoiceRef`.
 * @see https://core.telegram.org/bots/api#answerprecheckoutquery, #successfulpayment.
 */
export async function customerPays(
  state: TelegramSandboxState,
  options: CustomerPayOptions = {},
): Promise<CustomerPayResult> {
  const invoice =
    options.invoiceRef === undefined ? [...state.invoices.values()].at(-1) : state.invoices.get(options.invoiceRef);
  if (invoice === undefined && options.invoiceRef === undefined) {
    throw new TelegramBotError(
      409,
      'Conflict: no invoice sent yet: the bot sends one first (sendInvoice, createInvoiceLink)',
    );
  }
  if (invoice === undefined) throw new TelegramBotError(404, `Not Found: no invoice ${String(options.invoiceRef)}`);
  const userId = options.userId ?? invoice.chatId ?? 700_000_001;
  const from = { id: userId, is_bot: false, first_name: 'Sandbox customer' };
  const base = { invoiceRef: invoice.ref, payload: invoice.payload };
  let queryId: string | null = null;
  if (state.faults.skipPreCheckout) {
    state.ledger.note('cancelled-order', `paid ${invoice.payload} without a pre-checkout`);
  } else {
    queryId = `sandbox-pcq-${state.counter++}`;
    const deadlineMs = state.faults.preCheckoutDeadlineMs ?? PRE_CHECKOUT_DEADLINE_MS;
    const answer = new Promise<{ ok: boolean; errorMessage: string | null } | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), deadlineMs);
      state.preCheckouts.set(queryId as string, {
        id: queryId as string,
        deadlineMs: Date.now() + deadlineMs,
        settle: (a) => {
          clearTimeout(timer);
          resolve(a);
        },
      });
    });
    const { currency, totalAmount: total_amount, payload: invoice_payload } = invoice;
    state.feed.push('pre_checkout_query', { id: queryId, from, currency, total_amount, invoice_payload });
    const answered = await answer;
    if (answered === null) return { ...base, outcome: 'timeout', queryId, chargeId: null, errorMessage: null };
    if (!answered.ok)
      return { ...base, outcome: 'refused', queryId, chargeId: null, errorMessage: answered.errorMessage };
  }
  // Charge ids are unique across sandbox runs, as Telegram's are: a merchant database that outlives one sandbox (a
  // second demo on the same database) must never see a new payment under an old payment's charge id.
  const n = `${CHARGE_RUN}${state.counter++}`;
  const chargeId = invoice.currency === 'XTR' ? `stxSandbox${n}` : `sandbox-charge-${n}`;
  const providerCharge = invoice.currency === 'XTR' ? '' : `sandbox-provider-${n}`;
  state.ledger.paid({
    chargeId,
    userId,
    payload: invoice.payload,
    currency: invoice.currency,
    amount: invoice.totalAmount,
  });
  state.feed.push('message', {
    message_id: state.counter++,
    from,
    chat: { id: userId, type: 'private', first_name: 'Sandbox customer' },
    date: unixNow(),
    successful_payment: {
      currency: invoice.currency,
      total_amount: invoice.totalAmount,
      invoice_payload: invoice.payload,
      telegram_payment_charge_id: chargeId,
      provider_payment_charge_id: providerCharge,
    },
  });
  return { ...base, outcome: 'paid', queryId, chargeId, errorMessage: null };
}
