import { PAYONCE_ATTRIBUTES as A } from '../../otel/attributes.js';
import type { ProviderSpanSpec } from '../provider-span.js';
import type { PreCheckoutAnswer } from './telegram-pre-checkout.js';
import type { SuccessfulPaymentResult } from './telegram-successful-payment.js';

/** How a Bot API call ended, as its span reads it (the shape of `TelegramCallResult`). */
type ApiCallEnd = { readonly ok: true } | { readonly ok: false; readonly status: number | null };

/**
 * The span of one Bot API call: `telegram <method>` (`answerPreCheckoutQuery`, `refundStarPayment`, `getUpdates`,
 * …), kind client, with OpenTelemetry's HTTP client attributes `http.request.method` (`POST`), `server.address` and
 * `server.port` (never the URL: it holds the bot token). A failed call (Telegram's `ok: false`, a network error)
 * marks the span failed and sets `payonce.provider.error_code` to Telegram's `error_code` (or the HTTP status).
 * @see docs/observability.md "Spans"; https://core.telegram.org/bots/api#making-requests
 */
export function telegramApiSpan(method: string, server: URL): ProviderSpanSpec<ApiCallEnd> {
  return {
    provider: 'telegram',
    method,
    kind: 'client',
    attributes: () => ({
      'http.request.method': 'POST',
      'server.address': server.hostname,
      'server.port': Number(server.port || (server.protocol === 'https:' ? 443 : 80)),
    }),
    describe(result, scope) {
      if (result.ok) return;
      scope.set(A.providerErrorCode, result.status);
      scope.fail(`telegram: ${method} failed${result.status === null ? '' : ` (${result.status})`}`);
    },
  };
}

/**
 * The span of a `pre_checkout_query` update's decision: `telegram pre_checkout_query`, internal, with the order
 * (`invoice_payload`) and `payonce.provider.state` = `ok` or `refused` (the answer decided).
 */
export function preCheckoutSpan(orderId: string | null): ProviderSpanSpec<PreCheckoutAnswer> {
  return {
    provider: 'telegram',
    method: 'pre_checkout_query',
    kind: 'internal',
    attributes: () => (orderId === null ? {} : { [A.orderId]: orderId }),
    describe: (answer, scope) => scope.set(A.providerState, answer.ok ? 'ok' : 'refused'),
  };
}

/**
 * The span of a `successful_payment` update: `telegram successful_payment`, internal, with the order, the charge
 * (`telegram_payment_charge_id`, as `payonce.provider.transaction.id`) and `payonce.provider.state` = the
 * engine's decision (`applied`, `unchanged`, `rejected`, `parked`, `declined`).
 */
export function successfulPaymentSpan(
  chargeId: string,
  orderId: string | null,
): ProviderSpanSpec<SuccessfulPaymentResult> {
  return {
    provider: 'telegram',
    method: 'successful_payment',
    kind: 'internal',
    attributes: () => ({ [A.providerTransactionId]: chargeId, ...(orderId === null ? {} : { [A.orderId]: orderId }) }),
    describe: (result, scope) => scope.set(A.providerState, result.decision),
  };
}
