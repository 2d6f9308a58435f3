import type { Transaction } from 'kysely';
import { systemClock } from '../../core/clock.js';
import { InvalidOption } from '../../core/errors.js';
import { isStoredId } from '../../core/stored-id.js';
import { SqlStore } from '../../stores/sql/sql-store.js';
import { tablesOf } from '../../stores/sql/table-namespace.js';
import { inProviderCallTransaction } from '../provider-call-transaction.js';
import { inProviderSpan } from '../provider-span.js';
import { memoryPaymeKeys } from './memory-payme-keys.js';
import { authorisedKey } from './payme-auth.js';
import type { PaymeContext } from './payme-context.js';
import { checkPerform, createTransaction } from './payme-create.js';
import { PAYME_ERROR_CODES, type PaymeRpcError, paymeError } from './payme-errors.js';
import type { PaymeKeyProvider } from './payme-key-provider.js';
import type { PaymeMerchantOptions } from './payme-merchant-options.js';
import { type PaymeOutcome, PaymeRaceLost } from './payme-outcome.js';
import { cancelTransaction, performTransaction } from './payme-perform.js';
import { checkTransaction, getStatement, setFiscalData } from './payme-reads.js';
import { type PaymeCall, type PaymeMethod, PaymeParamError, parsePaymeCall } from './payme-request.js';
import { paymeSpan } from './payme-span.js';
import { PAYME_TRANSACTIONS_TABLE, type PaymeDatabase } from './payme-tables.js';
import { PAYME_TIMEOUT_MS } from './payme-timeout.js';
import { type PaymeTransaction, toPaymeTransaction } from './payme-transaction.js';

/** A Merchant API call as received: the exact body bytes, the headers, and the sender's address. */
export interface PaymeRequest {
  /** The body exactly as received (a JSON-RPC object). */
  readonly rawBody: Uint8Array | string;
  /** The request headers (names in any case); `Authorization` is read. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The sender's IP address, checked against `allowIps` when that option is set. */
  readonly client?: string;
}

/** The answer to send: always HTTP 200 with a JSON-RPC body (fixtures payme/errors.json). */
export interface PaymeResponse {
  /** Always 200: Payme reads errors from the body. */
  readonly status: 200;
  /** `content-type: application/json; charset=utf-8`. */
  readonly headers: Readonly<Record<string, string>>;
  /** `{ jsonrpc: "2.0", id, result }` or `{ jsonrpc: "2.0", id, error: { code, message: { ru, uz, en }, data? } }`. */
  readonly body: string;
}

/** The Payme Merchant API endpoint `createPaymeMerchant` makes. */
export interface PaymeMerchant {
  /** Answers one Merchant API call (see `createPaymeMerchant`). Never throws. */
  handle(request: PaymeRequest): Promise<PaymeResponse>;
  /** The stored transaction with Payme id `paymeId`, or `null` (also for a string no row can hold). */
  find(paymeId: string): Promise<PaymeTransaction | null>;
}

type MethodHandler<DB> = (
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  params: Readonly<Record<string, unknown>>,
) => Promise<PaymeOutcome>;

/** Longest Payme key accepted from ChangePassword, in characters (`payonce_payme_keys.merchant_key` is varchar(200)). */
const PAYME_KEY_MAX_LENGTH = 200;

const HANDLERS: Readonly<Record<Exclude<PaymeMethod, 'ChangePassword'>, MethodHandler<unknown>>> = Object.freeze({
  CheckPerformTransaction: checkPerform,
  CreateTransaction: createTransaction,
  PerformTransaction: performTransaction,
  CancelTransaction: cancelTransaction,
  CheckTransaction: checkTransaction,
  GetStatement: getStatement,
  SetFiscalData: setFiscalData,
});

/** How often one call runs again after a concurrent call's row refused its insert. */
const RACE_ATTEMPTS = 10;

/** A call runs again after a lost race or a deadlock, up to RACE_ATTEMPTS times in all. */
const RETRY = { attempts: RACE_ATTEMPTS, raceLost: (error: unknown) => error instanceof PaymeRaceLost };
const HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8' });

function respond(id: number | string | null, outcome: PaymeOutcome): PaymeResponse {
  const member = outcome.error === undefined ? { result: outcome.result } : { error: outcome.error };
  return Object.freeze({ status: 200, headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id, ...member }) });
}

const failed = (error: PaymeRpcError): PaymeOutcome => ({ error });

function requireFunction(value: unknown, option: string): void {
  if (typeof value !== 'function') throw new InvalidOption(option, 'must be a function');
}

function keyProviderOf<DB>(options: PaymeMerchantOptions<DB>): PaymeKeyProvider {
  if ((options.keys === undefined) === (options.keyProvider === undefined)) {
    throw new InvalidOption('keys', 'give exactly one of keys and keyProvider');
  }
  if (options.keys !== undefined) return memoryPaymeKeys(options.keys);
  const provider = options.keyProvider as PaymeKeyProvider;
  if (typeof provider?.keys !== 'function' || typeof provider.changeKey !== 'function') {
    throw new InvalidOption('keyProvider', 'must have keys() and changeKey(currentKey, newKey)');
  }
  return provider;
}

function contextOf<DB>(options: PaymeMerchantOptions<DB>): PaymeContext<DB> {
  if (!(options.store instanceof SqlStore))
    throw new InvalidOption('store', 'must be a SQL store (SQLite, PostgreSQL, MySQL)');
  requireFunction(options.findOrder, 'findOrder');
  requireFunction(options.onPerformed, 'onPerformed');
  const accountField = options.accountField ?? 'order_id';
  if (typeof accountField !== 'string' || accountField === '')
    throw new InvalidOption('accountField', 'must be a non-empty string');
  const { onCreated, onPerformed, onCancelled, canCancelPerformed } = options;
  if (onCreated !== undefined) requireFunction(onCreated, 'onCreated');
  if (onCancelled !== undefined) requireFunction(onCancelled, 'onCancelled');
  const ctx: PaymeContext<DB> = {
    store: options.store,
    clock: options.clock ?? systemClock,
    timeoutMs: PAYME_TIMEOUT_MS,
    accountField,
    findOrder: options.findOrder,
    onCreated: async (trx, tx) => onCreated?.(trx, tx),
    onPerformed: async (trx, tx) => onPerformed(trx, tx),
    onCancelled: async (trx, tx) => onCancelled?.(trx, tx),
    canCancelPerformed: async (trx, tx) => (canCancelPerformed === undefined ? true : canCancelPerformed(trx, tx)),
  };
  return Object.freeze(ctx);
}

function allowListOf(allowIps: unknown): ReadonlySet<string> | null {
  if (allowIps === undefined) return null;
  if (!Array.isArray(allowIps) || allowIps.some((ip) => typeof ip !== 'string' || ip === '')) {
    throw new InvalidOption('allowIps', 'must be an array of IP addresses');
  }
  return new Set(allowIps.map((ip: string) => ip.replace(/^::ffff:/, '')));
}

/**
 * The merchant side of the Payme (Paycom) Merchant API, complete: CheckPerformTransaction, CreateTransaction,
 * PerformTransaction, CancelTransaction, CheckTransaction, GetStatement, SetFiscalData and ChangePassword. The user
 * supplies only `findOrder(account)` (the order and its amount in tiyin) and `onPerformed` (the fulfilment).
 * - Every call runs in ONE database transaction that locks the Payme transaction's row, and every repeat is answered
 *   from the transaction's CURRENT stored state (create_time, perform_time, cancel_time), never a stored answer:
 *   Create → Cancel → Create with one id is -31008, Perform → Cancel → Perform is -31008, a repeated Perform gets
 *   the stored perform_time.
 * - `onPerformed` runs exactly once per transaction, in the commit that makes it state 2.
 * - One live (1 or 2) transaction per order, held by a unique index: another id for that order → -31050.
 * - A transaction in state 1 for more than 12 hours after Payme's `time` is cancelled (state -1, reason 4) and
 *   answered -31008 by Create and Perform.
 * - Authorisation: `Basic base64("Paycom:" + key)` with a key the key provider gives now; else -32504 (so is a
 *   sender outside `allowIps`). Parse errors -32700, bad fields -32600, unknown methods -32601, a database
 *   failure -32400 (nothing committed; Payme repeats). Always HTTP 200, errors with a `{ ru, uz, en }` message.
 * @throws {InvalidOption} (`store`) not a SQL store; (`keys`) both or neither of keys/keyProvider, or an empty key;
 *   (`keyProvider`, `findOrder`, `onCreated`, `onPerformed`, `onCancelled`, `accountField`, `allowIps`) of the wrong
 *   type.
 * @see fixtures payme/idempotency-rules.json, payme/states-and-reasons.json, payme/errors.json, payme/rpc/*.json,
 *   payme/auth/*.json; https://developer.help.paycom.uz/metody-merchant-api/
 * @example
 * const payme = createPaymeMerchant({
 *   store, keyProvider: storedPaymeKeys(store, { initialKeys: process.env.PAYME_KEY! }),
 *   findOrder: async (account) => orders.payable(String(account.order_id)), // { orderId, amountTiyin } | null
 *   onPerformed: (trx, tx) => outbox.enqueueOnce(trx, 'order.fulfil', `order:${tx.orderId}`, { orderId: tx.orderId }).then(() => {}),
 * });
 * app.use('/payme', expressPayme(payme));
 */
export function createPaymeMerchant<DB>(options: PaymeMerchantOptions<DB>): PaymeMerchant {
  if (typeof options !== 'object' || options === null) throw new InvalidOption('options', 'must be an object');
  const ctx = contextOf(options);
  const keyProvider = keyProviderOf(options);
  const allowIps = allowListOf(options.allowIps);
  const onError = options.onError ?? (() => {});

  async function runInTransaction(call: PaymeCall): Promise<PaymeOutcome> {
    const handler = HANDLERS[call.method as Exclude<PaymeMethod, 'ChangePassword'>] as MethodHandler<DB>;
    return inProviderCallTransaction(ctx.store, RETRY, (trx) => handler(ctx, trx, call.params));
  }

  async function answer(call: PaymeCall, key: string): Promise<PaymeOutcome> {
    if (call.method !== 'ChangePassword') return runInTransaction(call);
    const password = call.params.password;
    // 1–200 characters: the stored key's column holds 200 (migration 0011); a longer one is refused, never a -32400.
    if (typeof password !== 'string' || password === '' || password.length > PAYME_KEY_MAX_LENGTH) {
      throw new PaymeParamError('password');
    }
    await keyProvider.changeKey(key, password);
    return { result: { success: true } };
  }

  async function outcomeOf(request: PaymeRequest, parsed: ReturnType<typeof parsePaymeCall>): Promise<PaymeOutcome> {
    try {
      if (allowIps !== null && !allowIps.has((request.client ?? '').replace(/^::ffff:/, ''))) {
        return failed(paymeError(PAYME_ERROR_CODES.insufficientPrivilege));
      }
      const key = authorisedKey(request.headers ?? {}, await keyProvider.keys());
      if (key === null) return failed(paymeError(PAYME_ERROR_CODES.insufficientPrivilege));
      if (!('call' in parsed)) return failed(parsed.error);
      return await answer(parsed.call, key);
    } catch (error) {
      if (error instanceof PaymeParamError) return failed(paymeError(PAYME_ERROR_CODES.invalidRequest, error.field));
      onError(error);
      return failed(paymeError(PAYME_ERROR_CODES.system));
    }
  }

  async function handle(request: PaymeRequest): Promise<PaymeResponse> {
    const parsed = parsePaymeCall(request.rawBody);
    const id = 'call' in parsed ? parsed.call.id : parsed.id;
    const span = paymeSpan('call' in parsed ? parsed.call.method : null);
    return respond(id, await inProviderSpan(span, () => outcomeOf(request, parsed)));
  }

  async function find(paymeId: string): Promise<PaymeTransaction | null> {
    if (!isStoredId(paymeId)) return null;
    const row = await tablesOf<PaymeDatabase>(ctx.store)
      .selectFrom(PAYME_TRANSACTIONS_TABLE)
      .selectAll()
      .where('payme_id', '=', paymeId)
      .executeTakeFirst();
    return row === undefined ? null : toPaymeTransaction(row);
  }

  return Object.freeze({ handle, find });
}
