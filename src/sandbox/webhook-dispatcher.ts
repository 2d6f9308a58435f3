import { Agent, request } from 'undici';
import type { DeliveryKind, DeliveryRecord } from './delivery-record.js';
import type { EventVariants, SandboxEvent } from './sandbox-event.js';
import { newSigningSecret, signedHeaders } from './webhook-signer.js';

/** Settings of a {@link WebhookDispatcher}. */
export interface WebhookDispatcherSettings {
  /** Where to send; read at every attempt, so it can be set after events were created. */
  readonly target: () => string | null;
  /** Delay before each attempt in ms, already scaled; its length bounds the attempts. */
  readonly scheduleMs: readonly number[];
  /** Multiplier applied to a `Retry-After` answer. */
  readonly timeScale: number;
  /** Per-request limit on waiting for the target's answer, ms. */
  readonly deliveryTimeoutMs: number;
  readonly nowMs: () => number;
}

/** Knobs of one genuine event's delivery. */
export interface DeliveryPlan {
  readonly parallelDeliveries: number;
  readonly duplicateDeliveries: number;
}

const MAX_RESPONSE_CHARS = 2_000;

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/**
 * At-least-once webhook delivery: each genuine event is sent until the target answers 2xx, at most once per entry
 * of the schedule; `410 Gone` stops it; a `Retry-After` on 429/503 postpones the next attempt (scaled). Every
 * request, injected copies included, goes to the delivery log. Pending work is tracked so `idle()` can wait for it
 * and `close()` stops it (sleeps end, in-flight requests are aborted).
 * @see standard-webhooks spec "Retry schedule" (2xx is success, 3xx a failure, 410 disables).
 */
export class WebhookDispatcher {
  /** The delivery log, in send order. */
  readonly log: DeliveryRecord[] = [];
  private readonly settings: WebhookDispatcherSettings;
  private readonly agent = new Agent({ connections: 64, keepAliveTimeout: 1_000 });
  private readonly closing = new AbortController();
  private readonly pending = new Set<Promise<unknown>>();
  /** `Retry-After` seconds of the last 429/503 answer, by event id, used once. */
  private readonly retryAfterSec = new Map<string, number>();

  constructor(settings: WebhookDispatcherSettings) {
    this.settings = settings;
  }

  /**
   * Delivers `events` in order: each event's injected copies and first attempt finish before the next event starts;
   * retries and duplicates continue in the background. Resolves when every first attempt has finished.
   */
  async deliverInOrder(
    events: readonly { event: SandboxEvent; variants: EventVariants }[],
    plan: DeliveryPlan,
  ): Promise<void> {
    for (const { event, variants } of events) {
      await this.track(this.deliver(event, variants, plan));
    }
  }

  /** Sends `copies` more copies of `event` (fresh signatures), `parallel` at a time, and returns their records. */
  async resend(event: SandboxEvent, copies: number, parallel: number): Promise<DeliveryRecord[]> {
    const out: DeliveryRecord[] = [];
    let sent = 0;
    while (sent < copies && !this.closing.signal.aborted) {
      const batch = Math.min(parallel, copies - sent);
      const records = await this.track(
        Promise.all(
          Array.from({ length: batch }, (_, i) =>
            this.send(event, event.id, event.body, null, 'resend', sent + i + 1, false),
          ),
        ),
      );
      out.push(...records);
      sent += batch;
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
  private async deliver(event: SandboxEvent, variants: EventVariants, plan: DeliveryPlan): Promise<void> {
    if (variants.forged) await this.send(event, event.id, event.body, null, 'forged-signature', 1, true);
    if (variants.inTransitBody !== null) {
      await this.send(event, event.id, variants.inTransitBody, event.body, 'tampered-in-transit', 1, false);
    }
    if (variants.resigned !== null) {
      await this.send(event, variants.resigned.id, variants.resigned.body, null, 'tampered-resigned', 1, false);
    }
    await this.wait(this.settings.scheduleMs[0] ?? 0);
    const first = await this.attempt(event, 1, plan.parallelDeliveries);
    this.track(this.rest(event, plan, first));
  }

  private async rest(event: SandboxEvent, plan: DeliveryPlan, first: readonly (number | null)[]): Promise<void> {
    let statuses = first;
    const schedule = this.settings.scheduleMs;
    for (let attempt = 2; attempt <= schedule.length; attempt++) {
      if (statuses.some(isSuccess) || statuses.includes(410) || this.closing.signal.aborted) break;
      await this.wait(Math.max(schedule[attempt - 1] ?? 0, this.retryAfterOf(event.id)));
      if (this.closing.signal.aborted) return;
      statuses = await this.attempt(event, attempt, 1);
    }
    const delivered = statuses.some(isSuccess);
    for (let copy = 1; delivered && copy <= plan.duplicateDeliveries && !this.closing.signal.aborted; copy++) {
      await this.send(event, event.id, event.body, null, 'duplicate', copy, false);
    }
  }

  private retryAfterOf(eventId: string): number {
    const seconds = this.retryAfterSec.get(eventId);
    this.retryAfterSec.delete(eventId);
    return seconds === undefined ? 0 : seconds * 1000 * this.settings.timeScale;
  }

  /** One attempt (with `copies` sent at once); the answered statuses. */
  private async attempt(event: SandboxEvent, attempt: number, copies: number): Promise<(number | null)[]> {
    const records = await Promise.all(
      Array.from({ length: copies }, (_, i) =>
        this.send(event, event.id, event.body, null, i === 0 ? 'attempt' : 'parallel-copy', attempt, false),
      ),
    );
    return records.map((record) => record.status);
  }

  private async send(
    event: SandboxEvent,
    eventId: string,
    body: string,
    signedBody: string | null,
    kind: DeliveryKind,
    attempt: number,
    forge: boolean,
  ): Promise<DeliveryRecord> {
    const url = this.settings.target();
    const sentAtMs = this.settings.nowMs();
    const signing = forge ? { ...event.signing, secret: newSigningSecret(event.signing.scheme) } : event.signing;
    const headers = signedHeaders(signing, eventId, signedBody ?? body, Math.floor(sentAtMs / 1000));
    let status: number | null = null;
    let responseBody = '';
    let error: string | null = null;
    if (url === null) {
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
          this.retryAfterSec.set(eventId, Number(retryAfter));
        }
      } catch (cause) {
        error = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
      }
    }
    const record: DeliveryRecord = Object.freeze({
      seq: this.log.length + 1,
      eventId,
      sourceEventId: event.id,
      eventType: event.type,
      paymentId: event.paymentId,
      merchantReference: event.merchantReference,
      kind,
      attempt,
      scheme: event.signing.scheme,
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
