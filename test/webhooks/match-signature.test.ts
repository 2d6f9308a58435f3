import { describe, expect, it } from 'vitest';
import { hmac, utf8 } from '../../packages/payonce/src/webhooks/verify/bytes.js';
import { matchingSecret } from '../../packages/payonce/src/webhooks/verify/match-signature.js';

const body = utf8('{"id":"evt_1"}');
const keys = ['old', 'new', 'newer'].map(utf8);
const macOf = (key: Uint8Array) => hmac('sha256', key, [body]);

describe('matchingSecret: one constant-time signature match for every shared-secret scheme', () => {
  it('answers the index of the first secret any presented candidate matches', () => {
    const second = macOf(keys[1] as Uint8Array);
    expect(matchingSecret(keys, [second], macOf)).toBe(1);
    expect(matchingSecret(keys, [utf8('junk'), second], macOf)).toBe(1);
    expect(matchingSecret([...keys, keys[1] as Uint8Array], [second], macOf)).toBe(1);
  });

  it('answers -1 when nothing matches: no candidates, a wrong MAC, a truncated or longer one (never throws)', () => {
    const right = macOf(keys[0] as Uint8Array);
    expect(matchingSecret(keys, [], macOf)).toBe(-1);
    expect(matchingSecret(keys, [macOf(utf8('other'))], macOf)).toBe(-1);
    expect(matchingSecret(keys, [right.subarray(0, 31)], macOf)).toBe(-1);
    expect(matchingSecret(keys, [new Uint8Array([...right, 0])], macOf)).toBe(-1);
    expect(matchingSecret([], [right], macOf)).toBe(-1);
  });

  it('passes over a secret that cannot sign this input (undefined expectation)', () => {
    const third = macOf(keys[2] as Uint8Array);
    const onlyLast = (key: Uint8Array) => (key === keys[2] ? macOf(key) : undefined);
    expect(matchingSecret(keys, [third], onlyLast)).toBe(2);
    expect(matchingSecret(keys, [macOf(keys[0] as Uint8Array)], onlyLast)).toBe(-1);
  });
});
