import type { CheckRunner } from '../acceptance/check-runner.js';
import type { ClickTestOrder } from './click-test-orders.js';
import type { ClickCallSpec, ClickExchange } from './click-wire.js';

/** The runner every Click check goes through. */
export type ClickRunner = CheckRunner<ClickCallSpec, ClickExchange>;

/** One transaction the battery drives: Click's id, the order, and the ids the merchant answered. */
export interface ClickBatteryTransaction {
  readonly clickTransId: number;
  readonly order: ClickTestOrder;
  /** The order's amount as Click sends it (sums). */
  readonly amount: string;
  merchantPrepareId?: unknown;
  merchantConfirmId?: unknown;
}
