import type { DeliveryRecord } from './journal/delivery-record.js';
import type { ProviderEvent } from './providers/provider-event.js';
import type { VerifyResult } from './verify/signature-scheme.js';

/**
 * Typed events of a webhook intake; `src/observe` listens (metrics, logs), the intake never imports a metrics or
 * logging library. Listeners that throw are ignored.
 */
export interface IntakeEvents {
  /**
   * One delivery was answered. `record` is the journal row (already redacted); `event` is the extracted event
   * (unredacted: do not log it as is) or `null` when the payload was not read; `verify` is `null` when the
   * delivery was refused before verification.
   */
  delivery: { record: DeliveryRecord; event: ProviderEvent | null; verify: VerifyResult | null };
  /** Writing the journal row failed; the response was still sent. `error` is the store's error. */
  'journal-error': { record: DeliveryRecord; error: unknown };
  /**
   * An unauthenticated delivery of a client past its `refusalLimit` was answered 429 `WEBHOOK_REFUSALS_LIMITED`
   * and NOT journaled (count these to see a flood): the endpoint, its provider, the client and the refusal's code.
   */
  'refusal-limited': { endpoint: string; provider: string; client: string; code: string };
  /**
   * The endpoint's handler threw (a `WebhookDecline` is no failure): the delivery is answered 5xx (or the
   * provider's retryable error) and its receipt is `failed` or rolled back. Emitted whether or not a journal is
   * configured; `logIntake` logs it at `error`. `receiptKey` is `provider/eventId` (`null`: an event without a
   * key); `error` is the thrown error's name (`type`, as pino's error serializer calls it) and message, redacted
   * (`scrubText`) and cut to `maxErrorChars`: never the payload.
   */
  'handler-failed': {
    endpoint: string;
    provider: string;
    receiptKey: string | null;
    error: { type: string; message: string };
  };
}

/** The name of an intake event. */
export type IntakeEventName = keyof IntakeEvents;

/** A listener of intake event `E`. */
export type IntakeListener<E extends IntakeEventName> = (event: IntakeEvents[E]) => void;

/** A minimal typed listener registry; a throwing listener never changes a delivery's outcome. */
export class IntakeEmitter {
  private readonly listeners = new Map<IntakeEventName, Set<(event: never) => void>>();

  /** Registers `listener`; returns a function that removes it. */
  on<E extends IntakeEventName>(name: E, listener: IntakeListener<E>): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    const stored = listener as (event: never) => void;
    set.add(stored);
    return () => set.delete(stored);
  }

  /** True when `name` has at least one listener. */
  has(name: IntakeEventName): boolean {
    return (this.listeners.get(name)?.size ?? 0) > 0;
  }

  /** Calls every listener of `name` with `event`, ignoring their errors. */
  emit<E extends IntakeEventName>(name: E, event: IntakeEvents[E]): void {
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        (listener as IntakeListener<E>)(event);
      } catch {
        // Observers must not change the outcome of a delivery.
      }
    }
  }
}
