/**
 * The Standard Webhooks recommended retry schedule as delays before each attempt, in ms: immediately, 5 s,
 * 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (10 attempts over about 3 days, close to Stripe's "up to three
 * days"; Stripe does not publish its intervals). Multiply by `timeScale` to compress it for tests.
 * @see fixtures/providers/retry-schedules.json; standard-webhooks spec "Retry schedule".
 */
export const STANDARD_WEBHOOKS_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
]);
