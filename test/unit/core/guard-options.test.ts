import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../src/core/errors.js';
import { resolveGuardOptions } from '../../../src/core/guard-options.js';

describe('resolveGuardOptions', () => {
  it('applies documented defaults', () => {
    const options = resolveGuardOptions();
    expect(options.leaseMs).toBe(30_000);
    expect(options.heartbeatMs).toBe(10_000);
    expect(options.staleAfterMs).toBe(30_000);
    expect(options.maxErrorChars).toBe(2_000);
    expect(options.maxRetryAfterMs).toBe(5_000);
    expect(options.purgeBatchSize).toBe(500);
    expect(Object.isFrozen(options)).toBe(true);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'rejects a lease of %s ms',
    (staleAfterMs) => {
      expect(() => resolveGuardOptions({ staleAfterMs })).toThrow(InvalidOption);
    },
  );

  it('waits for in-flight claims only when asked: waitForInFlightMs defaults to 0, 0 or more whole ms', async () => {
    expect(resolveGuardOptions().waitForInFlightMs).toBe(0);
    expect(resolveGuardOptions().waitPollMaxMs).toBe(100);
    expect(resolveGuardOptions({ waitForInFlightMs: 2_000 }).waitForInFlightMs).toBe(2_000);
    for (const waitForInFlightMs of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => resolveGuardOptions({ waitForInFlightMs })).toThrow(InvalidOption);
    }
    expect(() => resolveGuardOptions({ waitPollMaxMs: 0 })).toThrow(InvalidOption);
    const { IdempotencyGuard } = await import('../../../src/core/idempotency-guard.js');
    const { MemoryStore } = await import('../../../src/stores/memory/memory-store.js');
    const { RequestKey } = await import('../../../src/core/request-key.js');
    const guard = new IdempotencyGuard(new MemoryStore());
    let runs = 0;
    const run = guard.run(
      new RequestKey('unit', 'bad-wait'),
      async () => {
        runs++;
      },
      { waitForInFlightMs: -5 },
    );
    await expect(run).rejects.toThrow(InvalidOption);
    expect(runs).toBe(0);
  });

  it('caps purgeBatchSize at 1 000 (larger batches overflow SQL expression limits)', () => {
    expect(resolveGuardOptions({ purgeBatchSize: 1_000 }).purgeBatchSize).toBe(1_000);
    expect(() => resolveGuardOptions({ purgeBatchSize: 1_001 })).toThrow(InvalidOption);
    expect(resolveGuardOptions().maxResponseBytes).toBe(6_291_456);
  });

  it('names the offending option', () => {
    try {
      resolveGuardOptions({ maxErrorChars: 0 });
      expect.unreachable();
    } catch (error) {
      expect((error as InvalidOption).option).toBe('maxErrorChars');
    }
  });
});
