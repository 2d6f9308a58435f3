import type { ActionContext } from './action-context.js';
import type { DeliveryPlan, DeliveryTarget } from './delivery-target.js';
import type { FaultLedger } from './faults/fault-ledger.js';
import type { ResolvedPaymentPlan } from './payment-plan.js';
import type { SandboxEvent } from './sandbox-event.js';
import type { SandboxPayment } from './sandbox-payment.js';
import { standardWebhooksEvent, stripeEvent, stripeId } from './stripe-objects.js';
import type { EventDelivery, WebhookDispatcher } from './webhook-dispatcher.js';
import { acceptsEvent, type RegisteredEndpoint } from './webhook-endpoints.js';
import type { SandboxSigning } from './webhook-signer.js';
import type { JsonObject } from './wire/stripe-api-error.js';

/**
 * Event types the sandbox's default endpoint receives unless told otherwise: the ones payonce's reference service
 * acts on (`charge.succeeded` only for payments whose plan sets `twoEventIds`). Registered endpoints get what
 * their `enabled_events` say.
 */
export const DEFAULT_ENDPOINT_EVENTS: readonly string[] = Object.freeze([
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'charge.refunded',
]);

/** An event and the endpoints it goes to. */
export interface PendingEvent {
  readonly event: SandboxEvent;
  readonly targets: readonly DeliveryTarget[];
}

/** What the event log needs from around it. */
export interface EventLogSettings {
  /** Sandbox clock, ms since the epoch. */
  readonly nowMs: () => number;
  readonly dispatcher: WebhookDispatcher;
  readonly faults: FaultLedger;
  /** The default endpoint as it is now. */
  readonly defaultEndpoint: () => {
    readonly url: string | null;
    readonly signing: SandboxSigning;
    readonly enabledEvents: readonly string[] | null;
  };
  readonly endpoints: () => readonly RegisteredEndpoint[];
}

/**
 * The sandbox's events (`GET /v1/events`): each one recorded with its Stripe envelope, sent to the endpoints
 * whose event types accept it (the default endpoint in its own scheme, registered ones as Stripe envelopes), with
 * the webhook fault knobs of the action that caused it, every one of them noted in the fault ledger.
 * @see https://docs.stripe.com/api/events; https://docs.stripe.com/webhooks
 */
export class EventLog {
  readonly events: SandboxEvent[] = [];
  private readonly targetsOf = new Map<string, readonly DeliveryTarget[]>();

  constructor(private readonly settings: EventLogSettings) {}

  /** The deliveries an event went out as (for resends). */
  deliveriesOf(event: SandboxEvent): EventDelivery[] {
    return (this.targetsOf.get(event.id) ?? []).map((target) => ({ event, target }));
  }

  /** Records one event (`object` as a retrieve returns it now) and picks the endpoints it goes to. */
  emit(
    type: string,
    object: JsonObject,
    payment: SandboxPayment,
    twoEventIds: boolean,
    ctx: ActionContext,
  ): PendingEvent {
    const nowMs = this.settings.nowMs();
    const createdSec = Math.floor(nowMs / 1000);
    const byDefault = this.settings.defaultEndpoint();
    const endpoints = this.settings
      .endpoints()
      .filter((e) => e.status === 'enabled' && acceptsEvent(e.enabledEvents, type));
    const defaultEvents = byDefault.enabledEvents ?? [
      ...DEFAULT_ENDPOINT_EVENTS,
      ...(twoEventIds ? ['charge.succeeded'] : []),
    ];
    const toDefault =
      acceptsEvent(defaultEvents, type) && (byDefault.url !== null || this.settings.endpoints().length === 0);
    const request = { id: ctx.requestId, idempotencyKey: ctx.idempotencyKey };
    const evtId = stripeId('evt');
    const pending = (toDefault ? 1 : 0) + endpoints.length;
    const envelope = stripeEvent(evtId, type, object, createdSec, request, pending);
    const stripeBody = JSON.stringify(envelope);
    const signing = byDefault.signing;
    const standard = signing.scheme === 'standard-webhooks';
    const id = standard ? stripeId('msg') : evtId;
    const event: SandboxEvent = Object.freeze({
      id,
      type,
      signing,
      paymentId: payment.id,
      merchantReference: payment.merchantReference,
      amountMinor: payment.amountMinor,
      currency: payment.currency,
      createdAtMs: nowMs,
      createdSec,
      body: standard ? JSON.stringify(standardWebhooksEvent(type, nowMs, object)) : stripeBody,
      stripeEvent: Object.freeze(envelope),
      requestId: ctx.requestId,
    });
    const targets: DeliveryTarget[] = [];
    if (toDefault)
      targets.push({
        endpointId: 'default',
        eventId: id,
        url: () => this.settings.defaultEndpoint().url,
        signing,
        body: event.body,
      });
    for (const endpoint of endpoints) {
      targets.push({
        endpointId: endpoint.id,
        eventId: evtId,
        url: () => endpoint.url,
        signing: { scheme: 'stripe', secret: endpoint.secret, previousSecrets: endpoint.previousSecrets },
        body: stripeBody,
      });
    }
    this.events.push(event);
    this.targetsOf.set(event.id, targets);
    return { event, targets };
  }

  /**
   * Hands a batch of events to the dispatcher with the plan's webhook knobs (recorded in the fault ledger). Waits
   * for the first attempts when `await` is set or the plan says `webhookBeforeResponse`.
   */
  async flush(
    batch: readonly PendingEvent[],
    plan: ResolvedPaymentPlan,
    ctx: ActionContext,
    wait = false,
  ): Promise<void> {
    if (batch.length === 0) return;
    const ordered = plan.reorder ? [...batch].reverse() : batch;
    const deliveries = ordered.flatMap(({ event, targets }) => targets.map((target) => ({ event, target })));
    this.recordWebhookFaults(ordered, plan, ctx);
    const deliveryPlan: DeliveryPlan = plan;
    const work = this.settings.dispatcher.track(this.settings.dispatcher.deliverInOrder(deliveries, deliveryPlan));
    if (wait || plan.webhookBeforeResponse) await work;
  }

  private recordWebhookFaults(batch: readonly PendingEvent[], plan: ResolvedPaymentPlan, ctx: ActionContext): void {
    const knobs: [string, boolean, string | null][] = [
      ['webhook-duplicate', plan.duplicateDeliveries > 0, `${plan.duplicateDeliveries} copies`],
      ['webhook-parallel', plan.parallelDeliveries > 1, `${plan.parallelDeliveries} at once`],
      ['webhook-reorder', plan.reorder && batch.length > 1, `${batch.length} events newest first`],
      ['webhook-delay', plan.webhookDelayMs > 0, `${plan.webhookDelayMs} ms`],
      ['webhook-drop', plan.webhookDrop, 'first attempt lost'],
      ['webhook-bad-signature', plan.forgedSignature, 'one copy signed with a wrong secret'],
      [
        'webhook-before-response',
        plan.webhookBeforeResponse && ctx.requestId !== null,
        'delivered before the API answer',
      ],
      [
        'webhook-tampered-amount',
        plan.tamperedAmount === 'in-transit',
        'one copy with the amount doubled after signing',
      ],
      ['webhook-resigned-amount', plan.tamperedAmount === 'resigned', 'one re-signed copy with the amount doubled'],
    ];
    for (const { event, targets } of batch) {
      if (targets.length === 0) continue;
      for (const [fault, on, detail] of knobs) {
        if (!on) continue;
        this.settings.faults.record({
          fault,
          phase: 'webhook',
          requestId: event.requestId,
          method: ctx.method,
          path: ctx.path,
          eventId: event.id,
          source: ctx.source,
          detail,
        });
      }
    }
  }
}
