/**
 * The Standard Webhooks recommended retry schedule as delays before each attempt, in ms: immediately, 5 s,
 * 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (10 attempts over about 3 days, close to Stripe's "up to three
 * days"; Stripe does not publish its intervals). Multiply by `timeScale` to compress it for tests.
 * @see fixtures/providers/retry-schedules.json; standard-webhooks spec "Retry schedule".
 */
export const STANDARD_WEBHOOKS_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
]);

/**
 * An approximation of Stripe's live-mode webhook retries, as delays before each attempt in ms: at once, then
 * exponential back-off (1 h, 2 h, 4 h, 8 h, 16 h, 24 h, 24 h: 8 attempts over about 3 days). Stripe states only
 * "up to three days with exponential backoff" and does not publish the intervals; these are ours.
 * @see https://docs.stripe.com/webhooks#retries; fixtures/providers/retry-schedules.json "stripe".
 */
export const STRIPE_LIVE_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  0, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 57_600_000, 86_400_000, 86_400_000,
]);

/**
 * An approximation of Stripe's test-mode (sandbox) webhook retries: at once, then 3 retries "over a few hours"
 * (1 h, 2 h, 3 h). Stripe does not publish the intervals; these are ours.
 * @see https://docs.stripe.com/webhooks#retries; fixtures/providers/retry-schedules.json "stripe".
 */
export const STRIPE_TEST_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([0, 3_600_000, 7_200_000, 10_800_000]);

/** Named retry schedules (`--retry-schedule`, `SandboxOptions.retryScheduleMs`). */
export const RETRY_SCHEDULES: Readonly<Record<string, readonly number[]>> = Object.freeze({
  'standard-webhooks': STANDARD_WEBHOOKS_RETRY_SCHEDULE_MS,
  'stripe-live': STRIPE_LIVE_RETRY_SCHEDULE_MS,
  'stripe-test': STRIPE_TEST_RETRY_SCHEDULE_MS,
});
