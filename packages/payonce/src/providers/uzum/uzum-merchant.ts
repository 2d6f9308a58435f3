import type { Transaction } from 'kysely';
import { systemClock } from '../../core/clock.js';
import { InvalidOption } from '../../core/errors.js';
import { isStoredId } from '../../core/stored-id.js';
import { SqlStore } from '../../stores/sql/sql-store.js';
import { tablesOf } from '../../stores/sql/table-namespace.js';
import { inProviderCallTransaction } from '../provider-call-transaction.js';
import { inProviderSpan } from '../provider-span.js';
import { isUzumAuthorised } from './uzum-auth.js';
import { uzumCheck, uzumCreate } from './uzum-check-create.js';
import { uzumConfirm, uzumReverse, uzumStatus } from './uzum-confirm-reverse.js';
import type { UzumContext } from './uzum-context.js';
import { UZUM_ERROR_CODES, type UzumErrorCode } from './uzum-errors.js';
import type { UzumMerchantOptions } from './uzum-merchant-options.js';
import { type UzumOutcome, UzumRaceLost } from './uzum-outcome.js';
import { operationOf, parseUzumBody, type UzumOperation, UzumParamError } from './uzum-request.js';
import { uzumSpan } from './uzum-span.js';
import { UZUM_TRANSACTIONS_TABLE, type UzumDatabase } from './uzum-tables.js';
import { toUzumTransaction, type UzumTransaction } from './uzum-transaction.js';

/** A webhook call as received: the path it was posted to, the exact body bytes and the headers. */
export interface UzumRequest {
  /** The path (or just the operation): its last segment names the webhook, e.g. `/uzum/confirm` → `confirm`. */
  readonly path: string;
  /** The body exactly as received (a JSON object). */
  readonly rawBody: Uint8Array | string;
  /** The request headers (names in any case); `Authorization` is read. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** The answer to send: HTTP 200 with the webhook's body, or 400 with `status: "FAILED"` and `errorCode`. */
export interface UzumResponse {
  /** 200 on success, 400 on an error (fixtures uzum/protocol.json "http_status"). */
  readonly status: 200 | 400;
  /** `content-type: application/json; charset=utf-8`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body. */
  readonly body: string;
}

/** The Uzum Bank Merchant API endpoints `createUzumMerchant` makes. */
export interface UzumMerchant {
  /** Answers one webhook call (see `createUzumMerchant`). Never throws. */
  handle(request: UzumRequest): Promise<UzumResponse>;
  /** The stored transaction with Uzum's `transId`, or `null` (also for a string no row can hold). */
  find(transId: string): Promise<UzumTransaction | null>;
}

type Handler<DB> = (
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  body: Readonly<Record<string, unknown>>,
) => Promise<UzumOutcome>;

const HANDLERS: Readonly<Record<UzumOperation, Handler<unknown>>> = Object.freeze({
  check: uzumCheck,
  create: uzumCreate,
  confirm: uzumConfirm,
  reverse: uzumReverse,
  status: uzumStatus,
});

/** How often one call runs again after a concurrent call's row refused its insert. */
const RACE_ATTEMPTS = 10;

/** A call runs again after a lost race or a deadlock, up to RACE_ATTEMPTS times in all. */
const RETRY = { attempts: RACE_ATTEMPTS, raceLost: (error: unknown) => error instanceof UzumRaceLost };
const HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8' });

function requireString(value: unknown, option: string): string {
  if (typeof value !== 'string' || value === '') throw new InvalidOption(option, 'must be a non-empty string');
  return value;
}

function contextOf<DB>(options: UzumMerchantOptions<DB>): UzumContext<DB> {
  if (!(options.store instanceof SqlStore))
    throw new InvalidOption('store', 'must be a SQL store (SQLite, PostgreSQL, MySQL)');
  if (typeof options.findOrder !== 'function') throw new InvalidOption('findOrder', 'must be a function');
  if (typeof options.onConfirmed !== 'function') throw new InvalidOption('onConfirmed', 'must be a function');
  for (const hook of ['onCreated', 'onReversed'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') {
      throw new InvalidOption(hook, 'must be a function');
    }
  }
  if (!Number.isSafeInteger(options.serviceId) || options.serviceId <= 0) {
    throw new InvalidOption('serviceId', 'must be a positive integer');
  }
  const { onCreated, onConfirmed, onReversed } = options;
  return Object.freeze({
    store: options.store,
    clock: options.clock ?? systemClock,
    serviceId: options.serviceId,
    findOrder: options.findOrder,
    onCreated: async (trx: Transaction<DB>, tx: UzumTransaction) => onCreated?.(trx, tx),
    onConfirmed: async (trx: Transaction<DB>, tx: UzumTransaction) => onConfirmed(trx, tx),
    onReversed: async (trx: Transaction<DB>, tx: UzumTransaction) => onReversed?.(trx, tx),
  });
}

/**
 * The merchant side of Uzum Bank's Merchant API, complete: the five webhooks `/check`, `/create`, `/confirm`,
 * `/reverse` and `/status`. The user supplies only `findOrder(params)` (the order and its amount in tiyin) and
 * `onConfirmed` (the fulfilment).
 * - Every call runs in ONE database transaction that locks the transaction's row; every repeat is answered from
 *   the transaction's CURRENT stored state (transTime, confirmTime, reverseTime), never a stored answer: a repeated
 *   /create of a CREATED transId gets its stored transTime, of a CONFIRMED one 10008, of a REVERSED one 10009; a
 *   repeated /confirm gets the stored confirmTime; /confirm after /reverse is 10015.
 * - `onCreated` runs once per new transaction, in the commit that stores it CREATED; `onConfirmed` exactly once
 *   per transaction, in the commit that makes it CONFIRMED.
 * - One live (CREATED or CONFIRMED) transaction per order, held by a unique index: another transId → 10008.
 * - Checks in order: Basic authorization with `login`/`password` (constant time; else 10001), the body is a JSON
 *   object (10002), the path names a webhook (10003), `serviceId` is yours (10006), required fields (10005);
 *   a database failure or a throwing callback is 99999 with nothing committed.
 * Success is HTTP 200 with the webhook's body; an error is HTTP 400 with `{ serviceId, timestamp, status: "FAILED",
 * errorCode, transId? }` (errorCode a string). Codes marked unconfirmed in the fixtures (10011, 10014, 10015) come
 * from one third-party source: the official error table was not available.
 * @throws {InvalidOption} (`store`) not a SQL store; (`login`, `password`) not a non-empty string; (`serviceId`) not
 *   a positive integer; (`findOrder`, `onCreated`, `onConfirmed`, `onReversed`) not a function.
 * @see fixtures uzum/protocol.json, uzum/examples/*.json; https://developer.uzumbank.uz/en/merchant/
 * @example
 * const uzum = createUzumMerchant({
 *   store, login: process.env.UZUM_LOGIN!, password: process.env.UZUM_PASSWORD!, serviceId: 123123,
 *   findOrder: async (params) => orders.payable(String(params.account)), // { orderId, amountTiyin } | null
 *   onConfirmed: (trx, tx) => outbox.enqueueOnce(trx, 'order.fulfil', `order:${tx.orderId}`, { orderId: tx.orderId }).then(() => {}),
 * });
 * app.use('/uzum', expressUzum(uzum));
 */
export function createUzumMerchant<DB>(options: UzumMerchantOptions<DB>): UzumMerchant {
  if (typeof options !== 'object' || options === null) throw new InvalidOption('options', 'must be an object');
  const login = requireString(options.login, 'login');
  const password = requireString(options.password, 'password');
  const ctx = contextOf(options);
  const onError = options.onError ?? (() => {});

  function respond(outcome: UzumOutcome, body: Readonly<Record<string, unknown>> | null): UzumResponse {
    if (outcome.errorCode === undefined) {
      return Object.freeze({ status: 200, headers: HEADERS, body: JSON.stringify(outcome.body) });
    }
    const transId = isStoredId(body?.transId) ? { transId: body.transId } : {};
    const failed = {
      serviceId: ctx.serviceId,
      timestamp: ctx.clock.now(),
      ...transId,
      status: 'FAILED',
      errorCode: outcome.errorCode,
    };
    return Object.freeze({ status: 400, headers: HEADERS, body: JSON.stringify(failed) });
  }

  async function run(operation: UzumOperation, body: Readonly<Record<string, unknown>>): Promise<UzumOutcome> {
    const handler = HANDLERS[operation] as Handler<DB>;
    return inProviderCallTransaction(ctx.store, RETRY, (trx) => handler(ctx, trx, body));
  }

  const fail = (errorCode: UzumErrorCode): UzumOutcome => ({ errorCode });

  async function outcomeOf(
    operation: UzumOperation | null,
    body: Readonly<Record<string, unknown>> | null,
  ): Promise<UzumOutcome> {
    if (body === null) return fail(UZUM_ERROR_CODES.jsonParsing);
    if (operation === null) return fail(UZUM_ERROR_CODES.invalidOperation);
    if (body.serviceId !== ctx.serviceId) {
      const missing = body.serviceId === undefined;
      return fail(missing ? UZUM_ERROR_CODES.missingParameters : UZUM_ERROR_CODES.invalidServiceId);
    }
    try {
      return await run(operation, body);
    } catch (error) {
      if (error instanceof UzumParamError) return fail(UZUM_ERROR_CODES.missingParameters);
      onError(error);
      return fail(UZUM_ERROR_CODES.system);
    }
  }

  async function handle(request: UzumRequest): Promise<UzumResponse> {
    const operation = operationOf(String(request.path ?? ''));
    let body: Readonly<Record<string, unknown>> | null = null;
    const outcome = await inProviderSpan(uzumSpan(operation), async () => {
      if (!isUzumAuthorised(request.headers ?? {}, login, password)) return fail(UZUM_ERROR_CODES.accessDenied);
      body = parseUzumBody(request.rawBody);
      return outcomeOf(operation, body);
    });
    return respond(outcome, body);
  }

  async function find(transId: string): Promise<UzumTransaction | null> {
    if (!isStoredId(transId)) return null;
    const row = await tablesOf<UzumDatabase>(ctx.store)
      .selectFrom(UZUM_TRANSACTIONS_TABLE)
      .selectAll()
      .where('trans_id', '=', transId)
      .executeTakeFirst();
    return row === undefined ? null : toUzumTransaction(row);
  }

  return Object.freeze({ handle, find });
}
