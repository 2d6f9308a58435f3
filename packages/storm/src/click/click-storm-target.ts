import type { ClickTestOrder } from '@payonce/sandbox/click';
import type { HeldOrderCounts, StormTargetCapabilities } from '../provider/storm-target-capabilities.js';

/** An order the target created for the Click storm: its `merchant_trans_id` and amount in tiyin. */
export type ClickStormOrder = ClickTestOrder;

/**
 * A merchant the Click storm drives: its SHOP API Prepare and Complete URLs with the service id and SECRET_KEY
 * Click signs with, a way to create a payable order and to read what it recorded about one (by
 * `merchant_trans_id`), plus the optional capabilities of {@link StormTargetCapabilities}.
 * @see docs/storm.md "Click storm".
 */
export interface ClickStormTarget extends StormTargetCapabilities<string> {
  /** The Prepare URL (`action=0`), e.g. `http://127.0.0.1:3000/click/prepare`. */
  readonly prepareUrl: string;
  /** The Complete URL (`action=1`). */
  readonly completeUrl: string;
  /** The merchant's Click `service_id`. */
  readonly serviceId: number;
  /** The service's SECRET_KEY. Never printed. */
  readonly secretKey: string;
  /** Creates a payable order of `amountTiyin` (whole sums) and returns it. @throws {Error} it was refused. */
  createOrder(amountTiyin: number): Promise<ClickStormOrder>;
  /** What the target recorded about the order `merchantTransId`. @throws {Error} it could not be read. */
  readOrder(merchantTransId: string): Promise<HeldOrderCounts>;
}
