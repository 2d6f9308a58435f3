import { describe, expect, it } from 'vitest';
import { InvalidOption, PayonceError } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard, type RunOptions } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { MemoryStore } from '../../../packages/payonce/src/stores/memory/memory-store.js';

// Issue #11 item 16: from JavaScript (no type checker), `guard.run(k, h, { payload: {a:1} })` threw Node's raw
// TypeError out of the hash function. Every wrong argument is a typed PayonceError before any store call.

const key = new RequestKey('unit', 'input');
const handler = async () => ({ body: 'ok' });

describe('IdempotencyGuard.run with arguments the types forbid', () => {
  it.each<[string, unknown]>([
    ['an object', { a: 1 }],
    ['a number', 42],
    ['an array of numbers', [1, 2, 3]],
    ['null', null],
  ])('refuses a payload that is %s with InvalidOption("payload") and claims nothing', async (_kind, payload) => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const thrown = await guard.run(key, handler, { payload } as unknown as RunOptions).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(InvalidOption);
    expect(thrown).toBeInstanceOf(PayonceError);
    expect((thrown as InvalidOption).option).toBe('payload');
    expect((thrown as Error).message).toMatch(/raw bytes \(Uint8Array, Buffer\) or a string/);
    expect(await guard.find(key)).toBeNull();
  });

  it('accepts a Buffer, a Uint8Array and a string payload alike (same bytes, same fingerprint)', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    await guard.run(key, handler, { payload: Buffer.from('{"a":1}') });
    for (const payload of [new TextEncoder().encode('{"a":1}'), '{"a":1}']) {
      expect((await guard.run(key, handler, { payload })).isReplay).toBe(true);
    }
  });

  it('refuses options that are not an object, and a handler that is not a function', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const options = await guard.run(key, handler, 'raw' as unknown as RunOptions).catch((error: unknown) => error);
    expect(options).toBeInstanceOf(InvalidOption);
    expect((options as InvalidOption).option).toBe('options');
    const notAFunction = await guard.run(key, { body: 'x' } as never).catch((error: unknown) => error);
    expect(notAFunction).toBeInstanceOf(InvalidOption);
    expect((notAFunction as InvalidOption).option).toBe('handler');
    expect(await guard.find(key)).toBeNull();
  });
});
