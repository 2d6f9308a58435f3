import type { Transaction } from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import { isStoredId } from '../../core/stored-id.js';
import type { UzumContext } from './uzum-context.js';
import { UZUM_ERROR_CODES } from './uzum-errors.js';
import type { UzumOrder } from './uzum-order.js';
import { type UzumOutcome, UzumRaceLost } from './uzum-outcome.js';
import { intField, paramsField, transIdField } from './uzum-request.js';
import { insertUzumTransaction, liveUzumTransactionOf, lockUzumTransaction } from './uzum-rows.js';
import type { UzumTransaction } from './uzum-transaction.js';

type Data = Readonly<Record<string, { readonly value: string }>>;

/** The `data` answered for an order: its own attributes, else the `params` echoed as text. */
function dataOf(order: UzumOrder, params: Readonly<Record<string, unknown>>): Data {
  const source: Readonly<Record<string, unknown>> = order.data ?? params;
  const entries = Object.entries(source).map(([name, value]) => [
    name,
    { value: typeof value === 'string' ? value : JSON.stringify(value) },
  ]);
  return Object.freeze(Object.fromEntries(entries));
}

/** Calls `findOrder` and checks its answer's shape. @throws {InvalidOption} (`findOrder`) on a malformed answer. */
async function orderFor<DB>(ctx: UzumContext<DB>, trx: Transaction<DB>, params: Readonly<Record<string, unknown>>) {
  const order = await ctx.findOrder(params, trx);
  if (order === null) return null;
  const data = order?.data;
  const dataOk =
    data === undefined ||
    (typeof data === 'object' && data !== null && Object.values(data).every((v) => typeof v === 'string'));
  if (!isStoredId(order?.orderId) || !Number.isSafeInteger(order.amountTiyin) || order.amountTiyin <= 0 || !dataOk) {
    throw new InvalidOption(
      'findOrder',
      'must answer null or { orderId: 1-64 printable ASCII, amountTiyin: a positive integer, data?: { name: text } }',
    );
  }
  return order;
}

/** The /create answer of a transaction, from its stored row. */
export const createdBody = (ctx: UzumContext<unknown>, tx: UzumTransaction): UzumOutcome => ({
  body: {
    serviceId: ctx.serviceId,
    transId: tx.transId,
    status: 'CREATED',
    transTime: tx.transTime,
    data: tx.data,
    amount: tx.amountTiyin,
  },
});

/**
 * /check: `status: "OK"` with the order's `data` when `params` names a payable order with no live (CREATED or
 * CONFIRMED) transaction; else 10007 (no such order) or 10008 (paid, or a payment under way). Writes nothing.
 * @see fixtures uzum/protocol.json "endpoints./check", "error_codes"; uzum/examples/check.json.
 */
export async function uzumCheck<DB>(
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  body: Readonly<Record<string, unknown>>,
): Promise<UzumOutcome> {
  const params = paramsField(body);
  const order = await orderFor(ctx, trx, params);
  if (order === null) return { errorCode: UZUM_ERROR_CODES.accountNotFound };
  if ((await liveUzumTransactionOf(ctx, trx, order.orderId)) !== null) {
    return { errorCode: UZUM_ERROR_CODES.alreadyPaid };
  }
  return { body: { serviceId: ctx.serviceId, timestamp: ctx.clock.now(), status: 'OK', data: dataOf(order, params) } };
}

/**
 * /create, answered from the transaction's CURRENT state:
 * - a known transId: CREATED → its STORED transTime (no new row), unless `amount` differs (10011); CONFIRMED →
 *   10008; REVERSED → 10009;
 * - a new transId: no order → 10007; amount other than the order's → 10011; the order has a live transaction →
 *   10008; else a CREATED row is inserted and `onCreated` runs in the same transaction. The database holds one live transaction per order: a unique index
 *   refusing the insert (a concurrent call's row) throws {@link UzumRaceLost}, and the whole call runs again.
 * @see fixtures uzum/protocol.json "endpoints./create", "error_codes"; uzum/examples/create.json.
 */
export async function uzumCreate<DB>(
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  body: Readonly<Record<string, unknown>>,
): Promise<UzumOutcome> {
  const transId = transIdField(body);
  const amount = intField(body, 'amount', true);
  const params = paramsField(body);
  const existing = await lockUzumTransaction(ctx, trx, transId);
  if (existing !== null) {
    if (existing.status === 'CONFIRMED') return { errorCode: UZUM_ERROR_CODES.alreadyPaid };
    if (existing.status === 'REVERSED') return { errorCode: UZUM_ERROR_CODES.paymentCancelled };
    if (existing.amountTiyin !== amount) return { errorCode: UZUM_ERROR_CODES.invalidAmount };
    return createdBody(ctx as UzumContext<unknown>, existing);
  }
  const order = await orderFor(ctx, trx, params);
  if (order === null) return { errorCode: UZUM_ERROR_CODES.accountNotFound };
  if (order.amountTiyin !== amount) return { errorCode: UZUM_ERROR_CODES.invalidAmount };
  const live = await liveUzumTransactionOf(ctx, trx, order.orderId);
  // The same transId committed by a concurrent call since this call looked it up: run again and answer from it.
  if (live?.transId === transId) throw new UzumRaceLost();
  if (live !== null) return { errorCode: UZUM_ERROR_CODES.alreadyPaid };
  const created = await insertUzumTransaction(ctx, trx, {
    transId,
    orderId: order.orderId,
    params,
    amountTiyin: amount,
    data: dataOf(order, params),
  });
  if (created === null) throw new UzumRaceLost();
  await ctx.onCreated(trx, created);
  return createdBody(ctx as UzumContext<unknown>, created);
}
