import { ownAmountRefused } from '../acceptance/setup-mistakes.js';
import type { ClickBatteryTransaction, ClickRunner } from './click-battery.js';
import { CLICK_CODES, CLICK_FAILED_PAYMENT_ERROR } from './click-codes.js';
import { SOURCES } from './click-doc-sources.js';
import { clickError, expectClick, isMerchantId, sameId } from './click-verdicts.js';
import { type ClickCallSpec, clickAmountOf } from './click-wire.js';

/** A `merchant_prepare_id` no merchant hands out in a test (Click's scenario uses a large unknown id). */
const UNKNOWN_PREPARE_ID = 999_999_999_999;

/**
 * The life of a paid transaction: Prepare and its repeat (the same merchant_prepare_id), a Complete signed with a
 * wrong key (-1), with another amount (-2), with an unknown merchant_prepare_id (-6), the Complete (0) and its
 * repeat, a new Prepare for the paid order (-4), and a failed-payment Complete after the confirmation. A Prepare
 * refused with -2 at the order's own amount stops the battery (amounts given in sum, not tiyin).
 */
export async function clickPaidChecks(runner: ClickRunner, tx: ClickBatteryTransaction, nextId: () => number) {
  const prepare: ClickCallSpec = {
    action: 0,
    clickTransId: tx.clickTransId,
    merchantTransId: tx.order.merchantTransId,
    amount: tx.amount,
  };
  await runner.check(
    {
      name: 'Prepare',
      expected: 'error 0, merchant_prepare_id, click_trans_id and merchant_trans_id echoed',
      why: `a payable order of this amount is prepared: 0 and the merchant's id for the payment — ${SOURCES.request}`,
    },
    async (call) => {
      const exchange = await call(prepare);
      if (clickError(exchange) === CLICK_CODES.incorrectAmount) {
        return {
          passed: false,
          halt: true,
          got: ownAmountRefused(tx.order.amountTiyin, String(CLICK_CODES.incorrectAmount)),
        };
      }
      tx.merchantPrepareId = exchange.answer?.merchant_prepare_id;
      return expectClick(exchange, [CLICK_CODES.success], {
        merchant_prepare_id: isMerchantId,
        click_trans_id: sameId(tx.clickTransId),
        merchant_trans_id: sameId(tx.order.merchantTransId),
      });
    },
  );
  await runner.check(
    {
      name: 'Prepare repeated',
      expected: `error 0 with the same merchant_prepare_id (${String(tx.merchantPrepareId)})`,
      why: `Click repeats a Prepare it got no answer to; the same click_trans_id is the same payment, never a second one — ${SOURCES.request}`,
    },
    async (call) => expectClick(await call(prepare), [0], { merchant_prepare_id: sameId(tx.merchantPrepareId) }),
  );
  const complete = (): ClickCallSpec => ({
    ...prepare,
    action: 1,
    merchantPrepareId: Number(tx.merchantPrepareId),
  });
  await completeRefusals(runner, tx, complete);
  await runner.check(
    {
      name: 'Complete',
      expected: 'error 0, merchant_confirm_id',
      why: `a Complete of a prepared payment confirms it: 0 and merchant_confirm_id — ${SOURCES.request}; test scenario 6 of ${SOURCES.testing}`,
    },
    async (call) => {
      const exchange = await call(complete());
      tx.merchantConfirmId = exchange.answer?.merchant_confirm_id;
      return expectClick(exchange, [0], { merchant_confirm_id: isMerchantId });
    },
  );
  await runner.check(
    {
      name: 'Complete repeated',
      expected: `error 0 with the same merchant_confirm_id (${String(tx.merchantConfirmId)}), or -4`,
      why: `a confirmed payment is never confirmed twice: -4 "Already paid" per ${SOURCES.errors} and test scenario 7, or the first answer again (an idempotent repeat Click reads as paid)`,
    },
    async (call) => {
      const exchange = await call(complete());
      const verdict = expectClick(exchange, [CLICK_CODES.alreadyPaid]);
      if (verdict.passed) return verdict;
      return expectClick(exchange, [0], { merchant_confirm_id: sameId(tx.merchantConfirmId) });
    },
  );
  await runner.check(
    {
      name: 'Prepare for a paid order',
      expected: `error ${CLICK_CODES.alreadyPaid} (a new click_trans_id)`,
      why: `an order already paid is not paid again: -4 "Already paid" — ${SOURCES.errors}; ${SOURCES.order}`,
    },
    async (call) => expectClick(await call({ ...prepare, clickTransId: nextId() }), [CLICK_CODES.alreadyPaid]),
  );
  await runner.check(
    {
      name: 'failed-payment Complete after confirmation',
      expected: `error ${CLICK_CODES.alreadyPaid} or ${CLICK_CODES.cancelled} (error=${CLICK_FAILED_PAYMENT_ERROR})`,
      why: `-4 covers "trying to … cancel the previously confirmed transaction" (${SOURCES.errors}); Click's test scenario 8 expects -9; the docs disagree, both are accepted`,
    },
    async (call) =>
      expectClick(await call({ ...complete(), error: CLICK_FAILED_PAYMENT_ERROR }), [
        CLICK_CODES.alreadyPaid,
        CLICK_CODES.cancelled,
      ]),
  );
}

async function completeRefusals(runner: ClickRunner, tx: ClickBatteryTransaction, complete: () => ClickCallSpec) {
  const cases: readonly [string, string, Partial<ClickCallSpec>, number, string][] = [
    [
      'Complete: wrong signature',
      'sign_string made with another key',
      { signWith: 'wrong-secret' },
      CLICK_CODES.signCheckFailed,
      `the Complete formula adds merchant_prepare_id after merchant_trans_id; any other key is -1 — ${SOURCES.sign}; test scenario 4 of ${SOURCES.testing}`,
    ],
    [
      'Complete: wrong amount',
      'the amount plus 1 sum',
      { amount: clickAmountOf(tx.order.amountTiyin + 100) },
      CLICK_CODES.incorrectAmount,
      `a Complete whose amount is not the prepared one is -2 — ${SOURCES.errors}; test scenario 5 of ${SOURCES.testing}`,
    ],
    [
      'Complete: unknown merchant_prepare_id',
      `merchant_prepare_id ${UNKNOWN_PREPARE_ID}`,
      { merchantPrepareId: UNKNOWN_PREPARE_ID },
      CLICK_CODES.transactionNotFound,
      `a merchant_prepare_id the merchant never answered is -6 "Transaction does not exist" — ${SOURCES.errors}; test scenario 10 of ${SOURCES.testing}`,
    ],
  ];
  for (const [name, what, change, code, why] of cases) {
    await runner.check({ name, expected: `error ${code} (${what})`, why }, async (call) =>
      expectClick(await call({ ...complete(), ...change }), [code]),
    );
  }
}
