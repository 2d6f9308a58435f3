import { describe, expect, it } from 'vitest';
import { headersJson } from '../../../packages/payonce/src/stores/headers-json.js';

// headersJson is a stored format (the Redis completion field, read back with JSON.parse): whatever the headers, it
// must be exactly what JSON.stringify writes.
describe('headersJson', () => {
  const cases: Record<string, string>[] = [
    {},
    { 'content-type': 'application/json' },
    { 'content-type': 'text/plain; charset=utf-8', 'x-request-id': 'req_0001', etag: 'W/"abc"' },
    { 'x-path': 'C:\\temp', 'x-quote': 'say "hi"' },
    { 'x-unicode': 'café ✓', 'x-emoji': '😀' },
    { 'x-control': 'a\u0000b\tc\nd\u007f', 'x-lone-surrogate': '\ud800' },
    { '2': 'second', '1': 'first', b: 'b', a: 'a' }, // integer-like names come first, in ascending order
    { '': 'empty name', 'x-empty': '' },
    { ' spaced ': ' value ', '~!@#$%^&*()_+-=[]{}|;:,.<>/?`': 'ascii punctuation' },
  ];

  it('writes exactly what JSON.stringify writes, plain or not', () => {
    for (const headers of cases) expect(headersJson(headers)).toBe(JSON.stringify(headers));
  });

  it('ignores enumerable properties inherited from the prototype, as JSON.stringify does', () => {
    const inherited = Object.create({ inherited: 'x' }) as Record<string, string>;
    inherited['content-type'] = 'application/json';
    expect(headersJson(inherited)).toBe('{"content-type":"application/json"}');
  });

  it('round-trips through JSON.parse', () => {
    for (const headers of cases) expect(JSON.parse(headersJson(headers))).toEqual(headers);
  });
});
