import { createHash } from 'node:crypto';
import { ClaimLost, PayloadMismatch, RequestInProgress } from '../../core/errors.js';
import type { Handler } from '../../core/idempotency-guard.js';
import { RequestKey } from '../../core/request-key.js';
import type { DemoWorker, DemoWorld } from './demo-world.js';

/** Counts of what happened to the deliveries of one scenario. */
export interface Tally {
  deliveries: number;
  /** Times a handler started (including runs that then failed or were fenced). */
  handlerRuns: number;
  replays: number;
  /** Deliveries answered "in progress" (HTTP 409): the provider will redeliver. */
  inProgress: number;
  /** Deliveries refused for reusing an event id with another payload (HTTP 422). */
  rejected: number;
  /** Deliveries whose handler threw (HTTP 5xx): the provider will redeliver. */
  failed: number;
  /** Handlers that finished after their claim had been taken over: result not recorded. */
  fenced: number;
}

export const emptyTally = (): Tally => ({
  deliveries: 0,
  handlerRuns: 0,
  replays: 0,
  inProgress: 0,
  rejected: 0,
  failed: 0,
  fenced: 0,
});

/** A provider notification as the demo sends it: its request key, amount in minor units, raw body bytes. */
export interface DemoEvent {
  readonly key: RequestKey;
  /** Names the business effect in the fulfilment table (`provider/externalId`). */
  readonly effectId: string;
  readonly amountMinor: number;
  readonly body: string;
}

/** A Stripe-like `payment_intent.succeeded` event with a unique id derived from `label` and `n`. */
export function demoEvent(label: string, n: number, amountMinor = 1_500): DemoEvent {
  const id = `evt_${createHash('sha256').update(`${label}:${n}`).digest('hex').slice(0, 24)}`;
  const object = { id: `pi_${id.slice(4)}`, amount: amountMinor, currency: 'usd' };
  const body = JSON.stringify({ id, type: 'payment_intent.succeeded', data: { object } });
  return eventOf(new RequestKey('sandbox', id), amountMinor, body);
}

/** A demo event for an explicit key (e.g. `RequestKey.forEvent` for providers without unique event ids). */
export function eventOf(key: RequestKey, amountMinor: number, body: string): DemoEvent {
  return { key, effectId: key.toString(), amountMinor, body };
}

/** What the demo's handler does besides fulfilling: hang until released, or throw before committing. */
export interface DeliveryBehaviour {
  /** Awaited inside the handler before the fulfilment is written. */
  readonly before?: () => Promise<void>;
  /** Thrown inside the handler instead of fulfilling. */
  readonly failWith?: Error;
}

/**
 * Delivers `event` to `worker` once, the way an intake endpoint would: the guard runs the fulfilment at most once
 * per event id and every outcome is counted in `tally`. Never throws for an expected outcome.
 */
export async function deliver(
  world: DemoWorld,
  worker: DemoWorker,
  event: DemoEvent,
  tally: Tally,
  behaviour: DeliveryBehaviour = {},
): Promise<void> {
  tally.deliveries++;
  const handler: Handler = async () => {
    tally.handlerRuns++;
    await behaviour.before?.();
    if (behaviour.failWith) throw behaviour.failWith;
    await world.fulfil(worker, event.effectId, event.amountMinor);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true}' };
  };
  try {
    const outcome = await worker.guard.run(event.key, handler, { payload: event.body });
    if (outcome.isReplay) tally.replays++;
  } catch (error) {
    if (error instanceof RequestInProgress) tally.inProgress++;
    else if (error instanceof PayloadMismatch) tally.rejected++;
    else if (error instanceof ClaimLost) tally.fenced++;
    else if (behaviour.failWith && error === behaviour.failWith) tally.failed++;
    else throw error;
  }
}
