import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Transaction } from 'kysely';
import { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { type TelegramPaymentStep, TelegramPayments } from 'payonce/internal/providers/telegram/telegram-payments.js';
import { telegramRedaction } from 'payonce/internal/providers/telegram/telegram-redaction.js';
import type { TelegramUpdate } from 'payonce/internal/providers/telegram/telegram-update.js';
import { telegramWebhook } from 'payonce/internal/providers/telegram/telegram-webhook.js';
import { createWebhookIntake, type WebhookIntake } from 'payonce/internal/webhooks/intake.js';
import { bodyBuffer } from 'payonce/internal/webhooks/webhook-body.js';
import type { ServiceContext } from './service-context.js';
import { serviceNestedClaims } from './service-nested-claims.js';

export { TELEGRAM_PROVIDER } from 'payonce/internal/providers/telegram/telegram-update.js';

/** The route Telegram delivers the bot's updates to (give `<service>/telegram/webhook` to `setWebhook`). */
export const TELEGRAM_WEBHOOK_PATH = '/telegram/webhook';

/** The intake endpoint name of the bot's updates (receipts `telegram` / `<bot id>:<update_id>`, journal rows). */
const ENDPOINT = 'telegram';

/**
 * The reference service's Telegram Payments engine: `TelegramPayments` on the service's `payments` (`config.telegram`:
 * the bot token, used in Bot API request URLs only, and the Bot API base URL), so the service's orders are what the
 * bot's invoices sell: the payload is the order id, a pre-checkout is answered from the order's state, a
 * `successful_payment` pays it once (keyed by `telegram_payment_charge_id`), Stars refunds run through the outbox.
 * Alerts (a payment for no order of ours) and late pre-checkout answers are logged, never with the token.
 * @see docs/service.md "Telegram"; docs/providers/telegram.md "Payments".
 */
export function serviceTelegramPayments(ctx: ServiceContext): TelegramPayments<unknown> {
  const config = ctx.config.telegram;
  if (config === null) throw new Error('serviceTelegramPayments needs config.telegram');
  return new TelegramPayments(ctx.payments, {
    token: config.token,
    ...(config.apiUrl === null ? {} : { apiBaseUrl: config.apiUrl }),
    clock: ctx.clock,
    onAlert: (alert) => ctx.logger.warn({ alert }, 'telegram payment needs review'),
    onLateAnswer: (late) => ctx.logger.warn({ late }, 'telegram pre_checkout_query answered past its budget'),
  });
}

/** The bot's webhook intake and the engine behind it; `answerAfterCommit` sends what a committed delivery decided. */
export interface ServiceTelegramIntake {
  readonly intake: WebhookIntake;
  readonly telegram: TelegramPayments<unknown>;
  /** Sends the pre-checkout answer a delivery's handler decided, once its receipt committed (`status` 2xx). */
  answerAfterCommit(rawBody: Uint8Array, status: number): Promise<void>;
}

function preCheckoutIdOf(rawBody: Uint8Array): string | null {
  try {
    const update = JSON.parse(Buffer.from(rawBody).toString('utf8')) as { pre_checkout_query?: { id?: unknown } };
    const id = update?.pre_checkout_query?.id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/**
 * The bot's updates through the webhook intake in one-commit mode (`transaction: true` on the service's SQL store,
 * whatever holds the Stripe-shaped receipts): the receipt (`telegramWebhook`: secret token in constant time, key bot
 * id + `update_id`) and the engine's writes (`handleUpdate(update, tx)`) are ONE commit, journaled with
 * `telegramRedaction()`. A pre-checkout's answer is decided in that transaction and sent by `answerAfterCommit`
 * after the commit only, so an `ok: true` never outlives a rollback; a redelivery of a committed pre-checkout is a
 * duplicate and is not answered again (Telegram ignores a second answer).
 * @see docs/service.md "Telegram"; docs/providers/telegram.md "Webhook", "Payments".
 */
export function serviceTelegramIntake(ctx: ServiceContext): ServiceTelegramIntake {
  const config = ctx.config.telegram;
  if (config === null) throw new Error('serviceTelegramIntake needs config.telegram');
  const telegram = serviceTelegramPayments(ctx);
  const decided = new Map<string, TelegramPaymentStep>();
  const guard = new IdempotencyGuard(ctx.store, {
    clock: ctx.clock,
    staleAfterMs: ctx.config.receiptStaleAfterMs,
    ...serviceNestedClaims(process.env.NODE_ENV),
  });
  const intake = createWebhookIntake({
    guard,
    journal: ctx.journal,
    redaction: telegramRedaction(),
    endpoints: {
      [ENDPOINT]: {
        ...telegramWebhook({ botId: config.botId, secretTokens: config.secretTokens }),
        transaction: true,
        handler: async (event, { tx, receivedAtMs }) => {
          const update = event.payload as TelegramUpdate;
          const step = await telegram.handleUpdate(update, tx as Transaction<unknown>, receivedAtMs);
          if (step.kind === 'pre_checkout_query') decided.set(step.answer.pre_checkout_query_id, step);
          return { kind: step.kind };
        },
      },
    },
  });
  return {
    intake,
    telegram,
    async answerAfterCommit(rawBody, status) {
      const queryId = preCheckoutIdOf(rawBody);
      if (queryId === null) return;
      const step = decided.get(queryId);
      // Another copy still in progress (409) must not take the answer its handler has not committed yet.
      if (step === undefined || status === 409) return;
      decided.delete(queryId);
      if (status >= 200 && status < 300) await telegram.answer(step);
    },
  };
}

/**
 * `POST /telegram/webhook`: an encapsulated fastify plugin reading the body as the exact bytes received, handing
 * them to the intake (`serviceTelegramIntake`), then answering a committed pre-checkout. 401 for a wrong or missing
 * `X-Telegram-Bot-Api-Secret-Token`, 400 for a body that is not an update, 200 `{"received":true}` after the commit,
 * 409 + `Retry-After` while a copy is handled, 500 when the handler failed (Telegram redelivers).
 */
export function fastifyTelegramWebhook(parts: ServiceTelegramIntake): FastifyPluginAsync {
  const { intake } = parts;
  return async function telegramWebhookRoute(fastify) {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: intake.maxBodyBytes }, (_request, body, done) =>
      done(null, body),
    );
    fastify.post(TELEGRAM_WEBHOOK_PATH, async function telegramUpdate(request, reply) {
      const rawBody = request.body instanceof Uint8Array ? request.body : new Uint8Array(0);
      const response = await intake.receive({
        endpoint: ENDPOINT,
        rawBody,
        headers: request.headers,
        client: request.ip,
      });
      await parts.answerAfterCommit(rawBody, response.status);
      reply.code(response.status).headers(response.headers);
      return reply.send(bodyBuffer(response));
    });
  };
}

/** Registers `POST /telegram/webhook` when Telegram is configured and returns its intake (for metrics); else `null`. */
export async function registerTelegram(
  app: FastifyInstance,
  ctx: ServiceContext,
): Promise<ServiceTelegramIntake | null> {
  if (ctx.config.telegram === null) return null;
  const parts = serviceTelegramIntake(ctx);
  await app.register(fastifyTelegramWebhook(parts));
  return parts;
}
