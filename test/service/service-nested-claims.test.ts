import { afterEach, describe, expect, it, vi } from 'vitest';
import { serviceNestedClaims } from '../../packages/service/src/service-nested-claims.js';
import { orderAndCheckout, startHarness, untilFulfilled } from './service-harness.js';

// Issue 40: in production the reference service's own guards skip the nested-claim check (its AsyncLocalStorage
// turns on promise hooks for the whole process on Node.js < 24); everywhere else, the test suite included, they
// keep the guard's default, so a nesting in the service's own handlers is still caught by its tests.

describe('serviceNestedClaims', () => {
  it('is off only when NODE_ENV is exactly production', () => {
    expect(serviceNestedClaims('production')).toEqual({ detectNestedClaims: false });
    for (const env of [undefined, '', 'test', 'development', 'Production', 'production ']) {
      expect(serviceNestedClaims(env), String(env)).toEqual({});
    }
  });
});

describe("the reference service's guards", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  async function detectionOf(nodeEnv: string) {
    vi.stubEnv('NODE_ENV', nodeEnv);
    const h = await startHarness();
    try {
      const { context } = h.service;
      // The whole path still works: an order paid by its webhook and fulfilled once.
      const { orderId } = await orderAndCheckout(h.service.url);
      const view = await untilFulfilled(h.service.url, orderId);
      expect(view.fulfilments).toHaveLength(1);
      return [context.intakeGuard, context.httpGuard, context.payments.guard].map(
        (guard) => guard.options.nestedClaimDetection,
      );
    } finally {
      await h.close();
    }
  }

  it('skip the nested-claim check in production', async () => {
    expect(await detectionOf('production')).toEqual(['off', 'off', 'off']);
  });

  it('check around every handler outside production', async () => {
    expect(await detectionOf('test')).toEqual(['everywhere', 'everywhere', 'everywhere']);
  });
});
