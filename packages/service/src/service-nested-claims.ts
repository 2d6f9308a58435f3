/**
 * `GuardOptions.detectNestedClaims` for the reference service's own guards (webhook intake, Idempotency-Key routes,
 * Telegram updates, provider-event receipts): `false` when `nodeEnv` is exactly `production`, else unset (the
 * guard's default, which checks around every handler outside production).
 *
 * The check catches a handler that claims the key its own call chain holds. The service's handlers are its own code,
 * run under the check by its test suite (where `NODE_ENV` is not `production`), so in production the check would
 * only cost: on Node.js before 24 its `AsyncLocalStorage` turns on promise hooks for the whole process; without them
 * the webhook intake delivered 5–28 % more at 64 connections, four alternating pairs (packages/bench/notes/path.md
 * §11). An application's own guards keep the default (docs/service.md "Configuration").
 * @example new IdempotencyGuard(store, { ...serviceNestedClaims(process.env.NODE_ENV) })
 */
export function serviceNestedClaims(nodeEnv: string | undefined): { detectNestedClaims?: false } {
  return nodeEnv === 'production' ? { detectNestedClaims: false } : {};
}
