import type { CheckRunner } from '../acceptance/check-runner.js';
import type { PaymeCallSpec, PaymeExchange } from './payme-rpc.js';

/** The runner every Payme check goes through. */
export type PaymeRunner = CheckRunner<PaymeCallSpec, PaymeExchange>;

/** One transaction the battery drives: its Payme id and `time`, and the results it was answered. */
export interface BatteryTransaction {
  readonly id: string;
  readonly time: number;
  readonly amount: number;
  readonly account: Readonly<Record<string, unknown>>;
  created?: Readonly<Record<string, unknown>>;
  performed?: Readonly<Record<string, unknown>>;
  cancelled?: Readonly<Record<string, unknown>>;
}
