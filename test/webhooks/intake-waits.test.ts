import { describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';

/** `WebhookIntake.waitsForInFlight`: adapters make a client-gone signal per delivery only when a wait can happen. */
function intakeWith(guardWaitMs: number, intakeWaitMs?: number) {
  const guard = new IdempotencyGuard(new MemoryStore(), { waitForInFlightMs: guardWaitMs });
  return createWebhookIntake({
    guard,
    ...(intakeWaitMs === undefined ? {} : { waitForInFlightMs: intakeWaitMs }),
    endpoints: {
      stripe: {
        profile: stripeProfile(),
        scheme: stripeScheme({ secrets: 'whsec_test' }),
        handler: () => undefined,
      },
    },
  });
}

describe('webhook intake: does a delivery ever wait for an in-flight duplicate?', () => {
  it('no when neither the intake nor its guard has a wait budget (the default)', () => {
    expect(intakeWith(0).waitsForInFlight).toBe(false);
  });

  it('yes with the guard’s budget, unless the intake sets its own to 0', () => {
    expect(intakeWith(500).waitsForInFlight).toBe(true);
    expect(intakeWith(500, 0).waitsForInFlight).toBe(false);
  });

  it('yes with the intake’s own budget over a guard that never waits', () => {
    expect(intakeWith(0, 250).waitsForInFlight).toBe(true);
  });
});
