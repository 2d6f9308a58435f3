import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../src/core/errors.js';
import { resolveGuardOptions } from '../../../src/core/guard-options.js';

describe('resolveGuardOptions', () => {
  it('applies documented defaults', () => {
    const options = resolveGuardOptions();
    expect(options.staleAfterMs).toBe(300_000);
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
