import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { resolveGuardOptions } from '../../../packages/payonce/src/core/guard-options.js';

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

  it('takes the lease as leaseMs or its former name staleAfterMs, and a heartbeat of 0 (off) or below the lease', () => {
    expect(resolveGuardOptions({ leaseMs: 9_000 })).toMatchObject({ leaseMs: 9_000, heartbeatMs: 3_000 });
    expect(resolveGuardOptions({ staleAfterMs: 9_000 })).toMatchObject({ leaseMs: 9_000, staleAfterMs: 9_000 });
    expect(resolveGuardOptions({ leaseMs: 9_000, staleAfterMs: 9_000 }).leaseMs).toBe(9_000);
    expect(resolveGuardOptions({ leaseMs: 9_000, heartbeatMs: 0 }).heartbeatMs).toBe(0);
    expect(resolveGuardOptions({ leaseMs: 9_000, heartbeatMs: 8_999 }).heartbeatMs).toBe(8_999);
    const refused = (options: Parameters<typeof resolveGuardOptions>[0]) => {
      try {
        resolveGuardOptions(options);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidOption);
        return (error as InvalidOption).option;
      }
      return 'accepted';
    };
    expect(refused({ leaseMs: 9_000, staleAfterMs: 8_000 })).toBe('leaseMs');
    expect(refused({ leaseMs: 9_000, heartbeatMs: 9_000 })).toBe('heartbeatMs');
    expect(refused({ leaseMs: 9_000, heartbeatMs: -1 })).toBe('heartbeatMs');
    expect(refused({ leaseMs: 9_000, heartbeatMs: 1.5 })).toBe('heartbeatMs');
    expect(refused({ leaseMs: 0 })).toBe('leaseMs');
    expect(refused({ leaseMs: Number.POSITIVE_INFINITY })).toBe('leaseMs');
  });

  it('waits for in-flight claims only when asked: waitForInFlightMs defaults to 0, 0 or more whole ms', async () => {
    expect(resolveGuardOptions().waitForInFlightMs).toBe(0);
    expect(resolveGuardOptions().waitPollMaxMs).toBe(100);
    expect(resolveGuardOptions({ waitForInFlightMs: 2_000 }).waitForInFlightMs).toBe(2_000);
    for (const waitForInFlightMs of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => resolveGuardOptions({ waitForInFlightMs })).toThrow(InvalidOption);
    }
    expect(() => resolveGuardOptions({ waitPollMaxMs: 0 })).toThrow(InvalidOption);
    const { IdempotencyGuard } = await import('../../../packages/payonce/src/core/idempotency-guard.js');
    const { MemoryStore } = await import('../../../packages/payonce/src/stores/memory/memory-store.js');
    const { RequestKey } = await import('../../../packages/payonce/src/core/request-key.js');
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
