import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import {
  nonNegativeInt,
  nonNegativeNumber,
  positiveInt,
  positiveNumber,
} from '../../../packages/payonce/src/core/options.js';
import { resolveOutboxWorkerOptions } from '../../../packages/payonce/src/outbox/outbox-worker-options.js';
import { MemoryStore } from '../../../packages/payonce/src/stores/memory/memory-store.js';

// One option check, one message format: `invalid option <name>: must be <rule>, got <number or kind>`.

function refusal(check: () => unknown): InvalidOption {
  try {
    check();
  } catch (error) {
    if (error instanceof InvalidOption) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('option checks', () => {
  it.each<[string, (value: unknown) => number, unknown[], unknown[]]>([
    [
      'positiveInt',
      (v) => positiveInt('n', v),
      [1, 2 ** 53 - 1],
      [0, -1, 1.5, Number.NaN, Infinity, 2 ** 53, '5', null],
    ],
    ['nonNegativeInt', (v) => nonNegativeInt('n', v), [0, 7], [-1, 0.5, Number.NaN, Infinity, 2 ** 53, '0', undefined]],
    ['positiveNumber', (v) => positiveNumber('n', v), [0.25, 3], [0, -0.1, Number.NaN, Infinity, '1', {}]],
    ['nonNegativeNumber', (v) => nonNegativeNumber('n', v), [0, 0.5], [-1, Number.NaN, -Infinity, '0', []]],
  ])('%s accepts %j and refuses %j with InvalidOption', (_name, check, good, bad) => {
    for (const value of good) expect(check(value)).toBe(value);
    for (const value of bad) expect(refusal(() => check(value)).option).toBe('n');
  });

  it('says the rule and the number, or only the kind of a value that is not a number', () => {
    expect(refusal(() => positiveInt('leaseMs', -3)).message).toBe(
      'invalid option leaseMs: must be a positive integer, got -3',
    );
    expect(refusal(() => positiveInt('size', 11, 10)).message).toBe(
      'invalid option size: must be an integer from 1 to 10, got 11',
    );
    expect(refusal(() => nonNegativeInt('waitMs', 'secret-text')).message).toBe(
      'invalid option waitMs: must be an integer, 0 or more, got a string',
    );
    expect(refusal(() => positiveNumber('rate', null)).message).toBe(
      'invalid option rate: must be a positive number, got null',
    );
    expect(refusal(() => nonNegativeNumber('age', { a: 1 })).message).toBe(
      'invalid option age: must be a number, 0 or more, got an object',
    );
  });

  it('is the format of the guard and the outbox worker alike', () => {
    const guard = refusal(() => new IdempotencyGuard(new MemoryStore(), { purgeBatchSize: 1_001 }));
    expect(guard.message).toBe('invalid option purgeBatchSize: must be an integer from 1 to 1000, got 1001');
    const worker = refusal(() => resolveOutboxWorkerOptions({ concurrency: 0 }, 'worker-1'));
    expect(worker.message).toBe('invalid option concurrency: must be a positive integer, got 0');
  });
});
