import type { CheckRunner } from '../acceptance/check-runner.js';
import type { UzumTestOrder } from './uzum-test-orders.js';
import type { UzumCallSpec, UzumExchange } from './uzum-wire.js';

/** The runner every Uzum check goes through. */
export type UzumRunner = CheckRunner<UzumCallSpec, UzumExchange>;

/** One transaction the battery drives: Uzum's transId, the order, and the times the merchant answered. */
export interface UzumBatteryTransaction {
  readonly transId: string;
  readonly order: UzumTestOrder;
  transTime?: unknown;
  confirmTime?: unknown;
  reverseTime?: unknown;
}
