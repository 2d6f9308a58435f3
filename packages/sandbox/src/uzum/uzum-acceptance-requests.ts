import type { UzumRunner } from './uzum-battery.js';
import { UZUM_CODES } from './uzum-codes.js';
import { SOURCES } from './uzum-doc-sources.js';
import type { UzumTestOrder } from './uzum-test-orders.js';
import { expectFailed, expectStatus } from './uzum-verdicts.js';

/**
 * The checks that leave no transaction: /check with a wrong password and with no Authorization (10001), with another
 * serviceId (10006), for an unknown order (10007), for the payable order (OK with `data`); /create with a wrong
 * amount (10011); /status of an unknown transId (10014).
 */
export async function uzumRequestChecks(
  runner: UzumRunner,
  order: UzumTestOrder,
  unknownParams: Readonly<Record<string, unknown>>,
  serviceId: number,
  newTransId: () => string,
): Promise<void> {
  const check = { operation: 'check', fields: { params: order.params } };
  for (const [auth, what] of [
    ['wrong-password', 'a wrong password'],
    ['none', 'no Authorization header'],
  ] as const) {
    await runner.check(
      {
        name: `credentials: ${what}`,
        expected: `FAILED ${UZUM_CODES.accessDenied}`,
        why: `every webhook carries Basic login:password issued by Uzum Bank; anything else is refused first — ${SOURCES.auth}`,
      },
      async (call) => expectFailed(await call({ ...check, auth }), [UZUM_CODES.accessDenied]),
    );
  }
  const cases: readonly [string, string, Record<string, unknown>, string, string][] = [
    [
      '/check: wrong serviceId',
      'check',
      { serviceId: serviceId + 1, params: order.params },
      UZUM_CODES.invalidServiceId,
      `a serviceId other than the merchant's is 10006 — ${SOURCES.errors}`,
    ],
    [
      '/check: unknown order',
      'check',
      { params: unknownParams },
      UZUM_CODES.accountNotFound,
      `params naming no order is 10007 "additional payment attribute not found" — ${SOURCES.errors}; ${SOURCES.check}`,
    ],
    [
      '/create: wrong amount',
      'create',
      { transId: newTransId(), params: order.params, amount: order.amountTiyin + 100 },
      UZUM_CODES.invalidAmount,
      `an amount (tiyin) other than the order's is 10011 (unconfirmed code) and creates nothing — ${SOURCES.errors}; ${SOURCES.create}`,
    ],
    [
      '/status: unknown transId',
      'status',
      { transId: newTransId() },
      UZUM_CODES.transactionNotFound,
      `a transId the merchant never created is 10014 (unconfirmed code) — ${SOURCES.errors}; ${SOURCES.status}`,
    ],
  ];
  for (const [name, operation, fields, code, why] of cases) {
    await runner.check({ name, expected: `FAILED ${code}`, why }, async (call) =>
      expectFailed(await call({ operation, fields }), [code]),
    );
  }
  await runner.check(
    {
      name: '/check: payable order',
      expected: 'status OK with data',
      why: `a payable order is answered OK with the attributes shown to the customer — ${SOURCES.check}`,
    },
    async (call) =>
      expectStatus(await call(check), 'OK', { data: (v) => typeof v === 'object' && v !== null && !Array.isArray(v) }),
  );
}
