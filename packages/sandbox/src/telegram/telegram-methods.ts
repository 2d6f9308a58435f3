import { badRequest, TelegramBotError } from './telegram-bot-error.js';
import { invoiceOf } from './telegram-invoices.js';
import { type TelegramSandboxState, unixNow } from './telegram-state.js';

type Params = Readonly<Record<string, unknown>>;
/** One Bot API method of the sandbox: its parameters in, its `result` out, or a `TelegramBotError`. */
export type SandboxMethod = (state: TelegramSandboxState, params: Params) => unknown;

const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

const chatIdOf = (params: Params): number | string => {
  const chat = params.chat_id;
  if (typeof chat === 'number' || (typeof chat === 'string' && chat !== '')) return chat;
  throw badRequest('chat not found');
};

const botUser = (state: TelegramSandboxState) => ({
  id: state.botId,
  is_bot: true,
  first_name: 'payonce sandbox',
  username: state.username,
});

function getMe(state: TelegramSandboxState) {
  return {
    ...botUser(state),
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
  };
}

function setWebhook(state: TelegramSandboxState, params: Params) {
  const url = params.url;
  if (typeof url !== 'string') throw badRequest('url is required');
  const secret = params.secret_token;
  if (secret !== undefined && (typeof secret !== 'string' || !SECRET_TOKEN.test(secret))) {
    throw badRequest('secret_token must be 1-256 characters of A-Z, a-z, 0-9, _ and -');
  }
  const drop = params.drop_pending_updates === true;
  if (url === '') state.feed.deleteWebhook(drop);
  else state.feed.setWebhook({ url, secretToken: typeof secret === 'string' ? secret : null }, drop);
  return true;
}

function deleteWebhook(state: TelegramSandboxState, params: Params) {
  state.feed.deleteWebhook(params.drop_pending_updates === true);
  return true;
}

function getWebhookInfo(state: TelegramSandboxState) {
  const webhook = state.feed.webhook;
  return { url: webhook?.url ?? '', has_custom_certificate: false, pending_update_count: state.feed.pendingCount };
}

function sendMessage(state: TelegramSandboxState, params: Params) {
  const chatId = chatIdOf(params);
  const text = params.text;
  if (typeof text !== 'string' || text === '') throw badRequest('message text is empty');
  state.messages.push({ chatId, text });
  const message_id = state.counter++;
  return { message_id, from: botUser(state), chat: { id: chatId, type: 'private' }, date: unixNow(), text };
}

function sendInvoice(state: TelegramSandboxState, params: Params) {
  const chatId = chatIdOf(params);
  const message_id = state.counter++;
  const invoice = invoiceOf(params, `msg:${message_id}`, typeof chatId === 'number' ? chatId : null);
  state.invoices.set(invoice.ref, invoice);
  const { title, description, currency, totalAmount } = invoice;
  return {
    message_id,
    from: botUser(state),
    chat: { id: chatId, type: 'private' },
    date: unixNow(),
    invoice: { title, description, start_parameter: '', currency, total_amount: totalAmount },
  };
}

function createInvoiceLink(state: TelegramSandboxState, params: Params) {
  const slug = `sandbox-invoice-${state.counter++}`;
  state.invoices.set(slug, invoiceOf(params, slug, null));
  return `https://t.me/$${slug}`;
}

function answerPreCheckoutQuery(state: TelegramSandboxState, params: Params) {
  const id = params.pre_checkout_query_id;
  const open = typeof id === 'string' ? state.preCheckouts.get(id) : undefined;
  if (open === undefined || Date.now() > open.deadlineMs) {
    if (open !== undefined) state.preCheckouts.delete(open.id);
    throw badRequest('query is too old and response timeout expired or query ID is invalid');
  }
  const ok = params.ok === true;
  const errorMessage = typeof params.error_message === 'string' ? params.error_message : null;
  if (!ok && (errorMessage === null || errorMessage === ''))
    throw badRequest('error_message is required when ok is false');
  state.preCheckouts.delete(open.id);
  open.settle({ ok, errorMessage });
  return true;
}

function refundStarPayment(state: TelegramSandboxState, params: Params) {
  const charge = params.telegram_payment_charge_id;
  const payment = typeof charge === 'string' ? state.ledger.paymentOf(charge) : undefined;
  if (payment === undefined || payment.userId !== params.user_id) throw badRequest('CHARGE_NOT_FOUND');
  if (payment.currency !== 'XTR') throw badRequest('CHARGE_NOT_FOUND');
  if (state.ledger.refunded(payment.chargeId)) throw badRequest('CHARGE_ALREADY_REFUNDED');
  state.ledger.refund(payment);
  return true;
}

/**
 * The Bot API methods the sandbox implements, by name: `getMe`, `setWebhook`, `deleteWebhook`, `getWebhookInfo`,
 * `sendMessage`, `sendInvoice`, `createInvoiceLink`, `answerPreCheckoutQuery`, `refundStarPayment` (`getUpdates`
 * is the server's, since it long-polls). Refusal texts for the sandbox's checks are its own unless
 * fixtures/providers/telegram/protocol.json quotes Telegram's.
 * @see https://core.telegram.org/bots/api#available-methods
 */
export const SANDBOX_METHODS: Readonly<Record<string, SandboxMethod>> = Object.freeze({
  getMe,
  setWebhook,
  deleteWebhook,
  getWebhookInfo,
  sendMessage,
  sendInvoice,
  createInvoiceLink,
  answerPreCheckoutQuery,
  refundStarPayment,
});

export { TelegramBotError };
