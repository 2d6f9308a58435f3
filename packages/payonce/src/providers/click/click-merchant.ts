import { systemClock } from '../../core/clock.js';
import { InvalidOption } from '../../core/errors.js';
import { SqlStore } from '../../stores/sql/sql-store.js';
import { tablesOf } from '../../stores/sql/table-namespace.js';
import { inProviderCallTransaction } from '../provider-call-transaction.js';
import { inProviderSpan } from '../provider-span.js';
import { CLICK_ANSWERS } from './click-answers.js';
import { complete } from './click-complete.js';
import type { ClickContext } from './click-context.js';
import type { ClickKeyProvider } from './click-key-provider.js';
import type { ClickMerchantOptions } from './click-merchant-options.js';
import { type ClickOutcome, ClickRaceLost } from './click-outcome.js';
import { prepare } from './click-prepare.js';
import { type ClickCall, type ClickEcho, type ParsedClickRequest, parseClickRequest } from './click-request.js';
import { clickSpan } from './click-span.js';
import { CLICK_TRANSACTIONS_TABLE, type ClickDatabase } from './click-tables.js';
import { type ClickTransaction, toClickTransaction } from './click-transaction.js';

/** A SHOP API call as received: the exact form body Click POSTed (`application/x-www-form-urlencoded`). */
export interface ClickRequest {
  /** The body exactly as received. */
  readonly rawBody: Uint8Array | string;
}

/** The answer to send: always HTTP 200 with a JSON body (Click reads `error` from it). */
export interface ClickResponse {
  /** Always 200. */
  readonly status: 200;
  /** `content-type: application/json; charset=utf-8`. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * `{ click_trans_id, merchant_trans_id, merchant_prepare_id (Prepare) | merchant_confirm_id (Complete), error,
   * error_note }`; the id is `null` when there is none to give.
   */
  readonly body: string;
}

/** The SHOP API endpoint `createClickMerchant` makes (one handler for both the Prepare and the Complete URL). */
export interface ClickMerchant {
  /** Answers one Prepare or Complete (see `createClickMerchant`). Never throws. */
  handle(request: ClickRequest): Promise<ClickResponse>;
  /** The stored transaction of Click's `click_trans_id`, or `null`. */
  find(clickTransId: number): Promise<ClickTransaction | null>;
}

/** How often one call runs again after a concurrent call's row refused its insert (attempts for one order pile up). */
const RACE_ATTEMPTS = 10;

/** A call runs again after a lost race or a deadlock, up to RACE_ATTEMPTS times in all. */
const RETRY = { attempts: RACE_ATTEMPTS, raceLost: (error: unknown) => error instanceof ClickRaceLost };
const HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8' });

/** The JSON answer for `outcome` of a call whose readable fields are `echo`. */
export function clickResponse(echo: ClickEcho, outcome: ClickOutcome): ClickResponse {
  const tx = outcome.transaction;
  const body =
    echo.action === 1
      ? { merchant_confirm_id: tx?.state === 'completed' ? tx.merchantPrepareId : null }
      : { merchant_prepare_id: tx?.merchantPrepareId ?? null };
  const json = JSON.stringify({
    click_trans_id: echo.clickTransId,
    merchant_trans_id: echo.merchantTransId,
    ...body,
    error: outcome.answer.error,
    error_note: outcome.answer.note,
  });
  return Object.freeze({ status: 200, headers: HEADERS, body: json });
}

function requireFunction(value: unknown, option: string): void {
  if (typeof value !== 'function') throw new InvalidOption(option, 'must be a function');
}

function checkedKeys(keys: unknown, option: string): readonly string[] {
  const list = typeof keys === 'string' ? [keys] : keys;
  if (!Array.isArray(list) || list.length === 0 || list.some((key) => typeof key !== 'string' || key === '')) {
    throw new InvalidOption(option, 'must be a non-empty key or a non-empty array of non-empty keys');
  }
  return Object.freeze([...(list as string[])]);
}

function keyProviderOf<DB>(options: ClickMerchantOptions<DB>): ClickKeyProvider {
  if ((options.secretKey === undefined) === (options.keyProvider === undefined)) {
    throw new InvalidOption('secretKey', 'give exactly one of secretKey and keyProvider');
  }
  if (options.secretKey !== undefined) {
    const keys = checkedKeys(options.secretKey, 'secretKey');
    return { secretKeys: async () => keys };
  }
  const provider = options.keyProvider as ClickKeyProvider;
  if (typeof provider?.secretKeys !== 'function') throw new InvalidOption('keyProvider', 'must have secretKeys()');
  return { secretKeys: async () => checkedKeys(await provider.secretKeys(), 'keyProvider.secretKeys()') };
}

function contextOf<DB>(options: ClickMerchantOptions<DB>): ClickContext<DB> {
  if (!(options.store instanceof SqlStore)) {
    throw new InvalidOption('store', 'must be a SQL store (SQLite, PostgreSQL, MySQL)');
  }
  requireFunction(options.findOrder, 'findOrder');
  requireFunction(options.onCompleted, 'onCompleted');
  if (options.onCancelled !== undefined) requireFunction(options.onCancelled, 'onCancelled');
  if (options.onPrepared !== undefined) requireFunction(options.onPrepared, 'onPrepared');
  const { onPrepared, onCompleted, onCancelled } = options;
  return Object.freeze({
    store: options.store,
    clock: options.clock ?? systemClock,
    findOrder: options.findOrder,
    onPrepared: async (trx, tx) => onPrepared?.(trx, tx),
    onCompleted: async (trx, tx) => onCompleted(trx, tx),
    onCancelled: async (trx, tx) => onCancelled?.(trx, tx),
  } satisfies ClickContext<DB>);
}

/**
 * The merchant side of Click's SHOP API: Prepare (action 0) and Complete (action 1), on one handler (mount it at
 * both URLs, or one). The user supplies only `findOrder(merchantTransId)` (the amount in tiyin) and `onCompleted`
 * (the fulfilment).
 * - Checks in Click's order: missing fields -8, `sign_string` (MD5, the Prepare and the Complete formulas, over the
 *   fields as sent) -1, `action` -3, then the call's own checks (-5, -6, -4, -2, -9; see `prepare`, `complete`).
 *   `amount` (sums, `1000` or `1000.00`) is converted to tiyin exactly; more than 2 decimals is -2.
 * - Every call runs in ONE database transaction that locks the transaction's row, and every repeat is answered
 *   from its CURRENT state: a repeated Prepare gets the same `merchant_prepare_id`, a repeated Complete the same
 *   `merchant_confirm_id` (equal to `merchant_prepare_id`), a Complete after a cancel -9.
 * - `onPrepared` runs once per new transaction, in the commit that stores it; `onCompleted` exactly once per
 *   transaction, in the commit that completes it.
 * - A Complete (or Prepare) carrying Click's `error < 0` cancels the prepared transaction and answers -9.
 * - One live (prepared or completed) transaction per order, held by a unique index: a Prepare for a paid order is
 *   -4; a Prepare with a new `click_trans_id` for an order whose earlier attempt is only prepared cancels that one
 *   (its Complete gets -9, so Click returns that money), so an abandoned attempt never blocks the order.
 * - A database failure or a throwing callback is answered -7 (nothing committed) and given to `onError`.
 *   Always HTTP 200 with JSON.
 * @throws {InvalidOption} (`store`) not a SQL store; (`serviceId`) not a positive integer; (`secretKey`) both or
 *   neither of secretKey/keyProvider, or an empty key; (`keyProvider`, `findOrder`, `onPrepared`, `onCompleted`,
 *   `onCancelled`) of the wrong type.
 * @see https://docs.click.uz/en/click-api-request/; https://docs.click.uz/en/click-api-error/; fixtures
 *   click/protocol.json, click/signature/*.json.
 * @example
 * const click = createClickMerchant({
 *   store, serviceId: Number(process.env.CLICK_SERVICE_ID), secretKey: process.env.CLICK_SECRET_KEY!,
 *   findOrder: async (orderId) => orders.payable(orderId), // { amountTiyin } | null
 *   onCompleted: (trx, tx) => outbox.enqueueOnce(trx, 'order.fulfil', `order:${tx.merchantTransId}`, {}).then(() => {}),
 * });
 * app.use('/click', expressClick(click));
 */
export function createClickMerchant<DB>(options: ClickMerchantOptions<DB>): ClickMerchant {
  if (typeof options !== 'object' || options === null) throw new InvalidOption('options', 'must be an object');
  const ctx = contextOf(options);
  const keyProvider = keyProviderOf(options);
  const serviceId = options.serviceId;
  if (!Number.isSafeInteger(serviceId) || serviceId <= 0) {
    throw new InvalidOption('serviceId', 'must be a positive integer');
  }
  const onError = options.onError ?? (() => {});

  async function run(call: ClickCall): Promise<ClickOutcome> {
    const action = call.action === 0 ? prepare : complete;
    return inProviderCallTransaction(ctx.store, RETRY, (trx) => action(ctx, trx, call));
  }

  async function outcomeOf(parsed: ParsedClickRequest): Promise<ClickOutcome> {
    if ('refused' in parsed) return { answer: parsed.refused, transaction: null };
    try {
      return await run(parsed.call);
    } catch (error) {
      onError(error);
      return { answer: CLICK_ANSWERS.failedToUpdate, transaction: null };
    }
  }

  async function handle(request: ClickRequest): Promise<ClickResponse> {
    let parsed: ParsedClickRequest;
    try {
      parsed = parseClickRequest(request?.rawBody ?? '', await keyProvider.secretKeys(), serviceId);
    } catch (error) {
      onError(error);
      const echo: ClickEcho = { action: null, clickTransId: null, merchantTransId: null };
      return clickResponse(echo, { answer: CLICK_ANSWERS.failedToUpdate, transaction: null });
    }
    return clickResponse(parsed.echo, await inProviderSpan(clickSpan(parsed), () => outcomeOf(parsed)));
  }

  async function find(clickTransId: number): Promise<ClickTransaction | null> {
    if (!Number.isSafeInteger(clickTransId) || clickTransId <= 0) return null;
    const row = await tablesOf<ClickDatabase>(ctx.store)
      .selectFrom(CLICK_TRANSACTIONS_TABLE)
      .selectAll()
      .where('click_trans_id', '=', clickTransId)
      .executeTakeFirst();
    return row === undefined ? null : toClickTransaction(row);
  }

  return Object.freeze({ handle, find });
}
