import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isStoredId } from '../../../packages/payonce/src/core/stored-id.js';

describe('isStoredId', () => {
  it('accepts the ids payonce makes and any 1–64 printable ASCII characters with no space at either end', () => {
    for (const id of [randomUUID(), 'a', 'x'.repeat(64), 'pay_1 2', '~!"#$%&()*+,-./:;<=>?@[\\]^_`{|}']) {
      expect(isStoredId(id), id).toBe(true);
    }
  });

  it('refuses what cannot name a stored row: empty, over 64, non-ASCII, control characters, edge spaces', () => {
    const refused = ['', 'x'.repeat(65), 'é', '\u{1F600}', 'a\u0000b', 'tab\there', 'a\nb', ' a', 'a ', ' ', 'a\x7f'];
    for (const id of refused) {
      expect(isStoredId(id), JSON.stringify(id)).toBe(false);
    }
    for (const notText of [undefined, null, 42, ['a'], { id: 'a' }]) expect(isStoredId(notText)).toBe(false);
  });
});
