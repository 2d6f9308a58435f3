import { InvalidOption } from '../../core/errors.js';
import type { ClaimContext, IdempotencyGuard } from '../../core/idempotency-guard.js';
import { MAX_TIMER_MS, positiveInt } from '../../core/options.js';
import type { HandlerTransactionOf, Store } from '../../core/store.js';
import type { TelegramOrdering } from './telegram-batch.js';
import type { FetchLike } from './telegram-bot-api.js';
import { botIdOfToken, checkBotId } from './telegram-bot-id.js';
import { telegramChatOf } from './telegram-chat-of.js';
import type { TelegramUpdate } from './telegram-update.js';

/** What the runner's handler learns besides the update. */
export interface TelegramUpdateContext<Tx> {
  /** The receipt claim the handler runs under (`takeover: true` when a dead runner's claim was taken over). */
  readonly claim: ClaimContext;
  /**
   * With `transaction: true`: the transaction that also holds the update's receipt; write the effect through it and
   * it commits once, with the receipt. `null` in the default mode.
   */
  readonly tx: Tx | null;
}

/**
 * Options of `TelegramPoller`.
 * @typeParam S the guard's store: its `HandlerTransactionOf` types `context.tx` of a one-commit handler.
 */
export interface TelegramPollerOptions<S extends Store = Store> {
  /** The receipt guard (any store; a SQL store for `transaction: true`). Its clock stamps the lease. */
  readonly guard: IdempotencyGuard<S>;
  /** The bot token, for `getUpdates` URLs only: never stored, journaled or put in an event or error. */
  readonly token: string;
  /** The bot id in receipt keys. @default the digits before `:` in `token` (`botIdOfToken`) */
  readonly botId?: string;
  /** Base URL of the Bot API (a local Bot API server, a sandbox, a test's fake). @default 'https://api.telegram.org' */
  readonly apiBaseUrl?: string;
  /** The `fetch` to call (undici's, a test's). @default globalThis.fetch */
  readonly fetch?: FetchLike;
  /**
   * `true` (SQL stores): each update's receipt and the handler's writes through `context.tx` commit in ONE
   * transaction, so an update is applied exactly once even across a kill -9 between the handler and the receipt.
   * `false`: the handler runs under a claim and its writes commit on their own (make them idempotent).
   * @default false
   */
  readonly transaction?: boolean;
  /**
   * Applies one update; throw to leave it unapplied (it is run again, after a back-off, before any later update of
   * its lane; see `ordering`). In the one-commit mode, write only through `context.tx` (no network calls: the
   * transaction may be run again after a deadlock).
   */
  handler(update: TelegramUpdate, context: TelegramUpdateContext<HandlerTransactionOf<S>>): unknown;
  /**
   * `update`: one update at a time, in `update_id` order; a failing update holds back every later one.
   * `chat`: each chat's updates in order (an update waits until the previous one of its chat committed), different
   * chats at the same time, up to `concurrency`; a failing update holds back only its chat.
   * `none`: up to `concurrency` updates at once, in no order.
   * In every mode the offset passes an update only after its receipt committed. @default 'update'
   */
  readonly ordering?: TelegramOrdering;
  /** Updates (or chats) run at once with `ordering: 'chat' | 'none'`. @default 8 */
  readonly concurrency?: number;
  /** The chat of an update for `ordering: 'chat'`. @default `telegramChatOf` */
  readonly chatOf?: (update: TelegramUpdate) => string | null;
  /** `getUpdates` `limit`, 1–100. @default 100 */
  readonly limit?: number;
  /** `getUpdates` long-polling `timeout`, seconds (0 = short polling). @default 30 */
  readonly pollTimeoutSeconds?: number;
  /** `getUpdates` `allowed_updates`. @default not sent (Telegram keeps the previous setting) */
  readonly allowedUpdates?: readonly string[];
  /**
   * Lease of the polling right, ms: renewed every third of it; a runner that stops renewing (it died) loses it to
   * another after this long. @default 30_000
   */
  readonly leaseMs?: number;
  /** First pause after a failure (network, 5xx, 409, an update not committed), ms; doubles per failure. @default 1_000 */
  readonly retryDelayMs?: number;
  /** Longest pause after failures, ms (a 429's `retry_after` is honoured even when longer). @default 60_000 */
  readonly maxRetryDelayMs?: number;
}

/** The options checked once. */
export interface ResolvedPollerOptions {
  readonly botId: string;
  readonly transaction: boolean;
  readonly ordering: TelegramOrdering;
  readonly concurrency: number;
  readonly chatOf: (update: TelegramUpdate) => string | null;
  readonly limit: number;
  readonly pollTimeoutSeconds: number;
  readonly allowedUpdates: readonly string[] | undefined;
  readonly leaseMs: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
}

/**
 * Checks `TelegramPoller`'s options.
 * @throws {InvalidOption} a bad token or bot id, `limit` outside 1–100, a bad timeout, lease, delay, concurrency or
 * ordering, a handler that is not a function.
 * @throws {TransactionsUnsupported} `transaction: true` on a memory or Redis store.
 */
export function resolvePollerOptions(options: TelegramPollerOptions<Store>): ResolvedPollerOptions {
  if (typeof options.handler !== 'function') throw new InvalidOption('handler', 'must be a function');
  const transaction = options.transaction ?? false;
  if (transaction) options.guard.transactionalStore();
  const ordering = options.ordering ?? 'update';
  if (!['update', 'chat', 'none'].includes(ordering)) {
    throw new InvalidOption('ordering', "must be 'update', 'chat' or 'none'");
  }
  const timeout = options.pollTimeoutSeconds ?? 30;
  if (!Number.isSafeInteger(timeout) || timeout < 0 || timeout > 3_600) {
    throw new InvalidOption('pollTimeoutSeconds', 'must be an integer from 0 to 3600');
  }
  const retryDelayMs = positiveInt('retryDelayMs', options.retryDelayMs ?? 1_000, MAX_TIMER_MS);
  return Object.freeze({
    botId: options.botId === undefined ? botIdOfToken(options.token) : checkBotId(options.botId),
    transaction,
    ordering,
    concurrency: positiveInt('concurrency', options.concurrency ?? 8, 1_000),
    chatOf: options.chatOf ?? telegramChatOf,
    limit: positiveInt('limit', options.limit ?? 100, 100),
    pollTimeoutSeconds: timeout,
    allowedUpdates: options.allowedUpdates === undefined ? undefined : [...options.allowedUpdates],
    leaseMs: positiveInt('leaseMs', options.leaseMs ?? 30_000, MAX_TIMER_MS),
    retryDelayMs,
    maxRetryDelayMs: Math.max(
      retryDelayMs,
      positiveInt('maxRetryDelayMs', options.maxRetryDelayMs ?? 60_000, MAX_TIMER_MS),
    ),
  });
}
