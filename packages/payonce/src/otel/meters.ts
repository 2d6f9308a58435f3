import type { Attributes, Counter, Histogram, Meter, MeterProvider } from '@opentelemetry/api';
import { PAYONCE_ATTRIBUTES as A, type IdempotencyOutcome } from './attributes.js';
import { otelApi } from './otel-api.js';
import { SCOPE_NAME } from './tracing.js';

/** Bucket boundaries (seconds) of payonce's latency and lag histograms: 1 ms to 5 min. */
const SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** Every idempotency outcome, in the order of a tally's counts. */
const OUTCOMES: readonly IdempotencyOutcome[] = [
  'fresh',
  'replay',
  'waited',
  'conflict',
  'mismatch',
  'takeover',
  'fenced',
];
/** Each outcome's slot in a tally's counts. */
const OUTCOME_INDEX = Object.freeze(Object.fromEntries(OUTCOMES.map((outcome, i) => [outcome, i]))) as Readonly<
  Record<IdempotencyOutcome, number>
>;

/**
 * The running counts behind the asynchronous counter `payonce.idempotency.outcomes`: a guarded call adds 1 to a plain
 * number here (one map lookup by provider, one array slot by outcome), and the SDK reads them all when it collects.
 * A synchronous counter hashed its attributes on every call, which cost the guard on Redis about 2 µs of its ≈ 40 µs
 * per call (profiled 2026-12-07, packages/bench/notes/otel.md).
 */
export class OutcomeTally {
  readonly #byProvider = new Map<string, number[]>();

  /** Adds one call that ended with `outcome` on a key of `provider`. */
  add(outcome: IdempotencyOutcome, provider: string): void {
    let counts = this.#byProvider.get(provider);
    if (counts === undefined) {
      counts = OUTCOMES.map(() => 0);
      this.#byProvider.set(provider, counts);
    }
    counts[OUTCOME_INDEX[outcome]]! += 1;
  }

  /** Every non-zero count so far, with its attributes (cumulative, as an asynchronous counter reports). */
  *entries(): IterableIterator<{ readonly attributes: Attributes; readonly value: number }> {
    for (const [provider, counts] of this.#byProvider) {
      for (let i = 0; i < OUTCOMES.length; i++) {
        const value = counts[i]!;
        if (value > 0) yield { attributes: { [A.outcome]: OUTCOMES[i]!, [A.provider]: provider }, value };
      }
    }
  }
}

/** Every OpenTelemetry instrument payonce records (docs/observability.md "Metrics"). */
export interface PayonceInstruments {
  /**
   * `payonce.idempotency.outcomes`: guarded calls by `payonce.idempotency.outcome` and `payonce.receipt.provider`,
   * counted here and observed by the SDK at each collection (an asynchronous counter).
   */
  readonly outcomes: OutcomeTally;
  /**
   * `payonce.idempotency.claim.duration` (s): the claim protocol of one guarded call, wait included; recorded with
   * no attributes (the claim is the store's work, alike for every provider, and an attribute costs the SDK a hash
   * per record: about 1.3 µs of a 20 µs Redis call, measured 2026-12-07).
   */
  readonly claimDuration: Histogram;
  /** `payonce.idempotency.wait.duration` (s): a duplicate's wait for the claim held elsewhere. */
  readonly waitDuration: Histogram;
  /** `payonce.webhook.redeliveries`: deliveries of a webhook event already received (its receipt existed). */
  readonly redeliveries: Counter;
  /** `payonce.outbox.lag` (s): from a job's enqueue (or its backoff's end) to the start of its run. */
  readonly outboxLag: Histogram;
  /** `payonce.relay.lag` (s): from a job's enqueue to its message's publish by the relay. */
  readonly relayLag: Histogram;
}

let instrumentsOf: MeterProvider | undefined;
let cached: PayonceInstruments | undefined;
/** The constructor of the API's no-op meter, found once. */
let noopMeter: (new (...args: never[]) => Meter) | undefined;

function build(meter: Meter): PayonceInstruments {
  const seconds = (name: string, description: string) =>
    meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: SECONDS_BUCKETS } });
  const outcomes = new OutcomeTally();
  meter
    .createObservableCounter('payonce.idempotency.outcomes', {
      unit: '{call}',
      description: 'Guarded calls by idempotency outcome and receipt provider',
    })
    .addCallback((result) => {
      for (const { value, attributes } of outcomes.entries()) result.observe(value, attributes);
    });
  return Object.freeze({
    outcomes,
    claimDuration: seconds('payonce.idempotency.claim.duration', 'Time to claim a key, in-flight wait included'),
    waitDuration: seconds('payonce.idempotency.wait.duration', 'Time a duplicate waited for an in-flight claim'),
    redeliveries: meter.createCounter('payonce.webhook.redeliveries', {
      unit: '{delivery}',
      description: 'Deliveries of a webhook event that had been received before',
    }),
    outboxLag: seconds('payonce.outbox.lag', 'Time from an outbox job becoming due to the start of its run'),
    relayLag: seconds('payonce.relay.lag', 'Time from an outbox job enqueue to the publish of its message'),
  });
}

/**
 * payonce's instruments on the globally registered meter provider, or `undefined` when no SDK meter provider is
 * registered (or `@opentelemetry/api` is not installed): then nothing is measured. Re-created when the global
 * provider changes.
 */
export function instruments(): PayonceInstruments | undefined {
  const api = otelApi();
  if (api === null) return undefined;
  const provider = api.metrics.getMeterProvider();
  if (provider === instrumentsOf) return cached;
  noopMeter ??= api.createNoopMeter().constructor as new (...args: never[]) => Meter;
  const meter = provider.getMeter(SCOPE_NAME);
  instrumentsOf = provider;
  cached = meter instanceof noopMeter ? undefined : build(meter);
  return cached;
}

/** Adds 1 to counter `pick` with `attributes`, when metrics are on. */
export function countOne(pick: (all: PayonceInstruments) => Counter, attributes: Attributes): void {
  const all = instruments();
  if (all !== undefined) pick(all).add(1, attributes);
}

/** Records `ms` milliseconds as seconds in histogram `pick`, when metrics are on (a negative time records 0). */
export function recordSeconds(pick: (all: PayonceInstruments) => Histogram, ms: number, attributes?: Attributes): void {
  const all = instruments();
  if (all !== undefined) pick(all).record(Math.max(0, ms) / 1000, attributes);
}
