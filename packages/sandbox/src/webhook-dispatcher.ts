import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';
import { type DeliveryPlan, type DeliveryTarget, doubledAmountBody } from './delivery-target.js';
import type { SandboxEvent } from './sandbox-event.js';
import type { DeliveryKind, SentDelivery } from './sent-delivery.js';
import { stripeId } from './stripe-objects.js';
import { newSigningSecret, signedHeaders } from './webhook-signer.js';

/** Settings of a {@link WebhookDispatcher}. */
export interface WebhookDispatcherSettings {
  /** Delay before each attempt in ms, already scaled; its length bounds the attempts. */
  readonly scheduleMs: readonly number[];
  /** Multiplier applied to a `Retry-After` answer. */
  readonly timeScale: number;
  /** Per-request limit on waiting for the target's answer, ms. */
  readonly deliveryTimeoutMs: number;
  readonly nowMs: () => number;
}

/** One event on its way to one endpoint. */
export interface EventDelivery {
  readonly event: SandboxEvent;
  readonly target: DeliveryTarget;
}

const MAX_RESPONSE_CHARS = 2_000;

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/**
 * At-least-once webhook delivery: each event is sent to each of its endpoints until it answers 2xx, at most once
 * per entry of the schedule; `410 Gone` stops it; a `Retry-After` on 429/503 postpones the next attempt (scaled).
 * Every request, injected copies included, goes to the delivery log. Pending work is tracked so `idle()` can wait
 * for it and `close()` stops it (sleeps end, in-flight requests are aborted).
 * @see standard-webhooks spec "Retry schedule" (2xx is success, 3xx a failure, 410 disables);
 *   https://docs.stripe.com/webhooks#retries
 */
export class WebhookDispatcher {
  /** The delivery log, in send order. */
  readonly log: SentDelivery[] = [];
  private readonly settings: WebhookDispatcherSettings;
  private readonly agent = new Agent({ connections: 64, keepAliveTimeout: 1_000 });
  private readonly closing = new AbortController();
  private readonly pending = new Set<Promise<unknown>>();
  /** `Retry-After` seconds of the last 429/503 answer, by event id and endpoint, used once. */
  private readonly retryAfterSec = new Map<string, number>();

  constructor(settings: WebhookDispatcherSettings) {
    this.settings = settings;
    // Every delivery in flight and every retry wait listens on this one signal (and stops listening when it ends):
    // more than 10 at once is normal load, not a leak, so Node's leak warning must not fire for it.
    setMaxListeners(0, this.closing.signal);
  }

  /**
   * Delivers in order: each delivery's injected copies and first attempt finish before the next starts; retries
   * and duplicates continue in the background. Resolves when every first attempt has finished.
   */
  async deliverInOrder(deliveries: readonly EventDelivery[], plan: DeliveryPlan): Promise<void> {
    for (const delivery of deliveries) {
      await this.track(this.deliver(delivery, plan));
    }
  }

  /** Sends `copies` more copies of each delivery (fresh signatures), `parallel` at a time; returns their records. */
  async resend(deliveries: readonly EventDelivery[], copies: number, parallel: number): Promise<SentDelivery[]> {
    const out: SentDelivery[] = [];
    for (const delivery of deliveries) {
      let sent = 0;
      while (sent < copies && !this.closing.signal.aborted) {
        const batch = Math.min(parallel, copies - sent);
        const records = await this.track(
          Promise.all(
            Array.from({ length: batch }, (_, i) =>
              this.send(delivery, delivery.target.eventId, delivery.target.body, null, 'resend', sent + i + 1, 'sign'),
            ),
          ),
        );
        out.push(...records);
        sent += batch;
      }
    }
    return out;
  }

  /** Waits until no delivery is pending or `timeoutMs` passed; true when idle. */
  async idle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
      });
      await Promise.race([Promise.allSettled([...this.pending]), expired]);
      clearTimeout(timer);
    }
    return true;
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** Number of deliveries still running or waiting for a retry. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Stops retries and aborts requests in flight. */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.pending]);
    await this.agent.close();
  }

  /** Registers `work` as pending until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    const done = () => this.pending.delete(work);
    work.then(done, done);
    return work;
  }

  /** Injected copies and the first attempt; the rest (retries, duplicates) is tracked and runs on. */
  private async deliver(delivery: EventDelivery, plan: DeliveryPlan): Promise<void> {
    const { target } = delivery;
    if (plan.forgedSignature)
      await this.send(delivery, target.eventId, target.body, null, 'forged-signature', 1, 'forge');
    if (plan.tamperedAmount === 'in-transit') {
      const body = doubledAmountBody(target.body, null);
      await this.send(delivery, target.eventId, body, target.body, 'tampered-in-transit', 1, 'sign');
    }
    if (plan.tamperedAmount === 'resigned') {
      const id = stripeId(target.signing.scheme === 'stripe' ? 'evt' : 'msg');
      await this.send(delivery, id, doubledAmountBody(target.body, id), null, 'tampered-resigned', 1, 'sign');
    }
    await this.wait((this.settings.scheduleMs[0] ?? 0) + plan.webhookDelayMs);
    const first = await this.attempt(delivery, 1, plan.parallelDeliveries, plan.webhookDrop);
    this.track(this.rest(delivery, plan, first));
  }

  private async rest(delivery: EventDelivery, plan: DeliveryPlan, first: readonly (number | null)[]): Promise<void> {
    let statuses = first;
    const schedule = this.settings.scheduleMs;
    const key = `${delivery.event.id} ${delivery.target.endpointId}`;
    for (let attempt = 2; attempt <= schedule.length; attempt++) {
      if (statuses.some(isSuccess) || statuses.includes(410) || this.closing.signal.aborted) break;
      await this.wait(Math.max(schedule[attempt - 1] ?? 0, this.retryAfterOf(key)));
      if (this.closing.signal.aborted) return;
      statuses = await this.attempt(delivery, attempt, 1, false);
    }
    const delivered = statuses.some(isSuccess);
    for (let copy = 1; delivered && copy <= plan.duplicateDeliveries && !this.closing.signal.aborted; copy++) {
      await this.send(delivery, delivery.target.eventId, delivery.target.body, null, 'duplicate', copy, 'sign');
    }
  }

  private retryAfterOf(key: string): number {
    const seconds = this.retryAfterSec.get(key);
    this.retryAfterSec.delete(key);
    return seconds === undefined ? 0 : seconds * 1000 * this.settings.timeScale;
  }

  /** One attempt (with `copies` sent at once); the answered statuses. A dropped attempt never leaves. */
  private async attempt(
    delivery: EventDelivery,
    attempt: number,
    copies: number,
    dropFirst: boolean,
  ): Promise<(number | null)[]> {
    const { target } = delivery;
    const records = await Promise.all(
      Array.from({ length: copies }, (_, i) =>
        this.send(
          delivery,
          target.eventId,
          target.body,
          null,
          i === 0 ? 'attempt' : 'parallel-copy',
          attempt,
          i === 0 && dropFirst ? 'drop' : 'sign',
        ),
      ),
    );
    return records.map((record) => record.status);
  }

  private async send(
    delivery: EventDelivery,
    eventId: string,
    body: string,
    signedBody: string | null,
    kind: DeliveryKind,
    attempt: number,
    mode: 'sign' | 'forge' | 'drop',
  ): Promise<SentDelivery> {
    const { event, target } = delivery;
    const url = target.url();
    const sentAtMs = this.settings.nowMs();
    const signing =
      mode === 'forge'
        ? { scheme: target.signing.scheme, secret: newSigningSecret(target.signing.scheme) }
        : target.signing;
    const headers = signedHeaders(signing, eventId, signedBody ?? body, Math.floor(Date.now() / 1000));
    let status: number | null = null;
    let responseBody = '';
    let error: string | null = null;
    if (mode === 'drop') {
      error = 'dropped on the way (webhook-drop fault): never reached the target';
    } else if (url === null) {
      error = 'no webhook target configured';
    } else {
      try {
        const response = await request(url, {
          method: 'POST',
          headers,
          body,
          dispatcher: this.agent,
          signal: this.closing.signal,
          headersTimeout: this.settings.deliveryTimeoutMs,
          bodyTimeout: this.settings.deliveryTimeoutMs,
        });
        status = response.statusCode;
        responseBody = (await response.body.text()).slice(0, MAX_RESPONSE_CHARS);
        const retryAfter = response.headers['retry-after'];
        if ((status === 429 || status === 503) && typeof retryAfter === 'string' && /^\d{1,6}$/.test(retryAfter)) {
          this.retryAfterSec.set(`${event.id} ${target.endpointId}`, Number(retryAfter));
        }
      } catch (cause) {
        error = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
      }
    }
    const record: SentDelivery = Object.freeze({
      seq: this.log.length + 1,
      eventId,
      sourceEventId: event.id,
      eventType: event.type,
      paymentId: event.paymentId,
      merchantReference: event.merchantReference,
      endpointId: target.endpointId,
      kind,
      attempt,
      scheme: target.signing.scheme,
      url,
      requestHeaders: Object.freeze(headers),
      requestBody: body,
      sentAtMs,
      finishedAtMs: this.settings.nowMs(),
      status,
      responseBody,
      error,
    });
    this.log.push(record);
    return record;
  }

  /** Waits `ms` (real time), ending early when the dispatcher closes. */
  wait(ms: number): Promise<void> {
    const signal = this.closing.signal;
    return new Promise((resolve) => {
      if (signal.aborted || ms <= 0) {
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
