import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';

// Issue #40: `prepareBatch` reads ahead for a group-commit batch, in its shared transaction: it only means something
// on a `transaction: true` endpoint, and must be a function. A wrong one is refused when the intake is built.
const endpointWith = (extra: Record<string, unknown>) => ({
  profile: stripeProfile(),
  scheme: stripeScheme({ secrets: 'whsec_placeholder' }),
  handler: () => undefined,
  ...extra,
});

describe('an endpoint’s prepareBatch', () => {
  it('is refused on an endpoint that is not transaction: true, naming it', () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const build = () =>
      createWebhookIntake({ guard, endpoints: { stripe: endpointWith({ prepareBatch: async () => 0 }) } as never });
    expect(build).toThrow(InvalidOption);
    expect(build).toThrow(/endpoints\.stripe\.prepareBatch/);
  });

  it('is refused when it is not a function, and taken when it is', async () => {
    const store = await SqliteStore.open(':memory:');
    try {
      const guard = new IdempotencyGuard(store);
      const endpoints = (prepareBatch: unknown) => ({ stripe: endpointWith({ transaction: true, prepareBatch }) });
      expect(() => createWebhookIntake({ guard, groupCommit: true, endpoints: endpoints('yes') as never })).toThrow(
        /endpoints\.stripe\.prepareBatch/,
      );
      expect(() =>
        createWebhookIntake({ guard, groupCommit: true, endpoints: endpoints(async () => 0) }),
      ).not.toThrow();
    } finally {
      await store.close();
    }
  });
});
