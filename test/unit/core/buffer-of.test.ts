import { describe, expect, it } from 'vitest';
import { bufferOf } from '../../../packages/payonce/src/core/buffer-of.js';

describe('bufferOf', () => {
  const pattern = (length: number) => Uint8Array.from({ length }, (_, i) => (i * 37 + 11) % 256);

  it('gives a Buffer with exactly the same bytes, small or large, whole or a view at an offset', () => {
    for (const length of [0, 1, 17, 63, 64, 65, 200, 5_000]) {
      const whole = pattern(length);
      expect(Buffer.isBuffer(bufferOf(whole))).toBe(true);
      expect([...bufferOf(whole)]).toEqual([...whole]);
      const backing = pattern(length + 9);
      const view = backing.subarray(4, 4 + length);
      expect([...bufferOf(view)]).toEqual([...backing.slice(4, 4 + length)]);
    }
  });

  it('shares the memory of a Buffer or of more than 64 bytes (no copy) and copies a small plain typed array', () => {
    const large = pattern(65);
    bufferOf(large)[0] = 1;
    expect(large[0]).toBe(1);
    const small = pattern(64);
    const before = small[0]!;
    bufferOf(small)[0] = (before + 1) % 256;
    expect(small[0]).toBe(before);
    const smallBuffer = Buffer.from(pattern(17)); // a Buffer is always off the V8 heap: shared, not copied
    bufferOf(smallBuffer)[0] = 99;
    expect(smallBuffer[0]).toBe(99);
    const offsetView = new Uint8Array(pattern(40).buffer, 3, 17); // a view at an offset is off the heap: shared
    bufferOf(offsetView)[0] = 98;
    expect(offsetView[0]).toBe(98);
  });
});
