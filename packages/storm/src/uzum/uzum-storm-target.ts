import type { UzumTestOrder } from '@payonce/sandbox/uzum';
import type { HeldOrderCounts, StormTargetCapabilities } from '../provider/storm-target-capabilities.js';

/** An order the target created for the Uzum storm: the `params` Uzum Bank sends for it, and its amount in tiyin. */
export type UzumStormOrder = UzumTestOrder;

/**
 * A merchant the Uzum storm drives: its Merchant API webhook base URL with the Basic credentials and service id
 * Uzum Bank uses, a way to create a payable order and to read what it recorded about one (by `params`), plus the
 * optional capabilities of {@link StormTargetCapabilities}.
 * @see docs/storm.md "Uzum storm".
 */
export interface UzumStormTarget extends StormTargetCapabilities<Readonly<Record<string, unknown>>> {
  /** The webhook base URL: Uzum Bank posts to `<merchantUrl>/check`, `/create`, … */
  readonly merchantUrl: string;
  /** The Basic-authorization login. */
  readonly login: string;
  /** The Basic-authorization password. Never printed. */
  readonly password: string;
  /** The merchant's Uzum `serviceId`. */
  readonly serviceId: number;
  /** Creates a payable order of `amountTiyin` and returns it. @throws {Error} it was refused. */
  createOrder(amountTiyin: number): Promise<UzumStormOrder>;
  /** What the target recorded about the order Uzum Bank names with `params`. @throws {Error} it could not be read. */
  readOrder(params: Readonly<Record<string, unknown>>): Promise<HeldOrderCounts>;
}
