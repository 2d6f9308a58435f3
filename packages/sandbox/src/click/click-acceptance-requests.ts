import type { ClickRunner } from './click-battery.js';
import { CLICK_CODES } from './click-codes.js';
import { SOURCES } from './click-doc-sources.js';
import type { ClickTestOrder } from './click-test-orders.js';
import { expectClick } from './click-verdicts.js';
import { type ClickCallSpec, clickAmountOf } from './click-wire.js';

/**
 * The checks no transaction survives: a Prepare signed with a wrong key (-1), for an unknown order (-5), with
 * another amount (-2), an unknown action (-3) and a Prepare missing a field (-8). Each uses its own
 * `click_trans_id` from `nextId`.
 */
export async function clickRequestChecks(
  runner: ClickRunner,
  order: ClickTestOrder,
  unknownOrder: string,
  nextId: () => number,
): Promise<void> {
  const prepare = (): ClickCallSpec => ({
    action: 0,
    clickTransId: nextId(),
    merchantTransId: order.merchantTransId,
    amount: clickAmountOf(order.amountTiyin),
  });
  const cases: readonly [string, string, Partial<ClickCallSpec>, number, string][] = [
    [
      'Prepare: wrong signature',
      'sign_string made with another key',
      { signWith: 'wrong-secret' },
      CLICK_CODES.signCheckFailed,
      `a sign_string that is not md5(click_trans_id + service_id + SECRET_KEY + …) is -1 — ${SOURCES.sign}; ${SOURCES.errors}; test scenario 1 of ${SOURCES.testing}`,
    ],
    [
      'Prepare: unknown order',
      'merchant_trans_id no order has',
      { merchantTransId: unknownOrder },
      CLICK_CODES.userNotFound,
      `no order under merchant_trans_id is -5 "User does not exist" — ${SOURCES.errors}; test scenario 2 of ${SOURCES.testing}`,
    ],
    [
      'Prepare: wrong amount',
      'the amount plus 1 sum',
      { amount: clickAmountOf(order.amountTiyin + 100) },
      CLICK_CODES.incorrectAmount,
      `an amount other than the order's is -2 "Incorrect parameter amount" — ${SOURCES.errors}`,
    ],
    [
      'unknown action',
      'action=2, correctly signed',
      { action: 2 },
      CLICK_CODES.actionNotFound,
      `an action other than 0 (Prepare) and 1 (Complete) is -3, after the signature check — ${SOURCES.errors}; ${SOURCES.order}`,
    ],
    [
      'Prepare: missing fields',
      'no sign_time',
      { omit: ['sign_time'] },
      CLICK_CODES.badRequest,
      `a request lacking a parameter is -8 "Error in request from click", checked first — ${SOURCES.errors}; ${SOURCES.order}`,
    ],
  ];
  for (const [name, what, change, code, why] of cases) {
    await runner.check({ name, expected: `error ${code} (${what})`, why }, async (call) =>
      expectClick(await call({ ...prepare(), ...change }), [code]),
    );
  }
}
