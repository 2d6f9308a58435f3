import type { ClickBatteryTransaction, ClickRunner } from './click-battery.js';
import { CLICK_CODES, CLICK_FAILED_PAYMENT_ERROR } from './click-codes.js';
import { SOURCES } from './click-doc-sources.js';
import { expectClick, isMerchantId } from './click-verdicts.js';
import type { ClickCallSpec } from './click-wire.js';

/**
 * The life of a payment that failed at Click, on the second order: Prepare (0), a Complete carrying Click's
 * `error=-5017` (-9: the merchant cancels), the same again (-9), then a Complete with `error=0` (-9: cancelled stays
 * cancelled).
 */
export async function clickFailedChecks(runner: ClickRunner, tx: ClickBatteryTransaction): Promise<void> {
  const prepare: ClickCallSpec = {
    action: 0,
    clickTransId: tx.clickTransId,
    merchantTransId: tx.order.merchantTransId,
    amount: tx.amount,
  };
  await runner.check(
    {
      name: 'Prepare (second order)',
      expected: 'error 0, merchant_prepare_id',
      why: `as for the first order — ${SOURCES.request}; test scenario 12 of ${SOURCES.testing}`,
    },
    async (call) => {
      const exchange = await call(prepare);
      tx.merchantPrepareId = exchange.answer?.merchant_prepare_id;
      return expectClick(exchange, [0], { merchant_prepare_id: isMerchantId });
    },
  );
  const complete = (error: number): ClickCallSpec => ({
    ...prepare,
    action: 1,
    merchantPrepareId: Number(tx.merchantPrepareId),
    error,
  });
  const cases: readonly [string, number, string][] = [
    [
      'failed-payment Complete',
      CLICK_FAILED_PAYMENT_ERROR,
      `a Complete with error < 0 means the payment failed at Click: the supplier cancels it and answers -9 — ${SOURCES.errors}; test scenario 13 of ${SOURCES.testing}`,
    ],
    [
      'failed-payment Complete repeated',
      CLICK_FAILED_PAYMENT_ERROR,
      `a cancelled transaction stays cancelled: -9 "Transaction cancelled" — ${SOURCES.errors}; test scenario 14 of ${SOURCES.testing}`,
    ],
    [
      'Complete after the failed payment',
      0,
      `confirming a transaction cancelled before is -9, whatever the first Complete answered — ${SOURCES.errors}; test scenario 15 of ${SOURCES.testing}`,
    ],
  ];
  for (const [name, error, why] of cases) {
    await runner.check({ name, expected: `error ${CLICK_CODES.cancelled} (error=${error} sent)`, why }, async (call) =>
      expectClick(await call(complete(error)), [CLICK_CODES.cancelled]),
    );
  }
}
