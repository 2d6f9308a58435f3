import { describe, expect, it } from 'vitest';
import { captureLine } from '../../packages/storm/src/replay/capture-line.js';
import { InvalidCaptureFile } from '../../packages/storm/src/replay/invalid-capture-file.js';
import { parseCaptures } from '../../packages/storm/src/replay/parse-captures.js';

const line = (fields: Record<string, unknown>) => JSON.stringify(fields);
const minimal = { path: '/webhooks/stripe', headers: { 'Stripe-Signature': 't=1,v1=ab' }, body: '{"id":"evt_1"}' };

function errorOf(text: string): InvalidCaptureFile {
  try {
    parseCaptures(text, 'captures.jsonl');
  } catch (error) {
    if (error instanceof InvalidCaptureFile) return error;
    throw error;
  }
  throw new Error('parseCaptures accepted the text');
}

describe('parseCaptures', () => {
  it('reads a minimal line with the defaults: POST, id from the line number, no expect, exact UTF-8 body bytes', () => {
    const [capture] = parseCaptures(`\n${line({ ...minimal, body: '{"name":"Zoë"}\n' })}\n`);
    expect(capture).toEqual({
      id: 'line-2',
      line: 2,
      method: 'POST',
      path: '/webhooks/stripe',
      headers: { 'Stripe-Signature': 't=1,v1=ab' },
      body: new Uint8Array(Buffer.from('{"name":"Zoë"}\n', 'utf8')),
      expect: null,
      note: null,
    });
  });

  it('reads every field, upper-cases the method, decodes bodyBase64 to the exact bytes (not UTF-8)', () => {
    const bytes = Uint8Array.from([0xff, 0x00, 0x7b, 0x0d, 0x0a]);
    const [a, b] = parseCaptures(
      [
        line({ id: 'one', path: '/a?x=1', method: 'put', headers: {}, body: '', expect: 'accepted', note: 'n' }),
        line({ id: 'two', path: '/b', headers: { A: '1' }, bodyBase64: Buffer.from(bytes).toString('base64') }),
      ].join('\r\n'),
    );
    expect(a).toMatchObject({ id: 'one', method: 'PUT', path: '/a?x=1', expect: 'accepted', note: 'n' });
    expect(a!.body).toEqual(new Uint8Array(0));
    expect(b!.body).toEqual(bytes);
    expect(b!.line).toBe(2);
  });

  it.each<[string, string, number | null, string | null]>([
    ['not JSON', `${line(minimal)}\n{"path":`, 2, null],
    ['an array', '[1,2]', 1, null],
    ['an unknown field (typo of expect)', line({ ...minimal, expected: 'accepted' }), 1, 'expected'],
    ['no path', line({ headers: {}, body: '' }), 1, 'path'],
    ['a path without a leading slash', line({ ...minimal, path: 'webhooks/stripe' }), 1, 'path'],
    ['a protocol-relative path', line({ ...minimal, path: '//evil.example/x' }), 1, 'path'],
    ['a path with a space', line({ ...minimal, path: '/a b' }), 1, 'path'],
    ['a method that is not a token', line({ ...minimal, method: 'PO ST' }), 1, 'method'],
    ['no headers', line({ path: '/a', body: '' }), 1, 'headers'],
    ['headers as an array', line({ ...minimal, headers: [['a', 'b']] }), 1, 'headers'],
    ['a header name with a space', line({ ...minimal, headers: { 'bad name': 'x' } }), 1, 'headers.bad name'],
    ['a header value with CRLF', line({ ...minimal, headers: { a: 'x\r\nInjected: 1' } }), 1, 'headers.a'],
    ['a header value above U+00FF', line({ ...minimal, headers: { a: 'снег' } }), 1, 'headers.a'],
    ['a numeric header value', line({ ...minimal, headers: { a: 1 } }), 1, 'headers.a'],
    ['two header names differing by case', line({ ...minimal, headers: { 'X-A': '1', 'x-a': '2' } }), 1, 'headers.x-a'],
    ['both body and bodyBase64', line({ ...minimal, bodyBase64: 'AA==' }), 1, 'body'],
    ['neither body nor bodyBase64', line({ path: '/a', headers: {} }), 1, 'body'],
    ['a body that is not a string', line({ ...minimal, body: { id: 1 } }), 1, 'body'],
    ['a body with a lone surrogate', `{"path":"/a","headers":{},"body":"\\ud800"}`, 1, 'body'],
    ['unpadded base64', line({ path: '/a', headers: {}, bodyBase64: 'AAA' }), 1, 'bodyBase64'],
    ['base64url', line({ path: '/a', headers: {}, bodyBase64: '-_8=' }), 1, 'bodyBase64'],
    ['an unknown expect', line({ ...minimal, expect: 'valid' }), 1, 'expect'],
    ['an empty id', line({ ...minimal, id: '' }), 1, 'id'],
    ['a numeric note', line({ ...minimal, note: 3 }), 1, 'note'],
  ])('refuses %s, naming the line and field', (_name, text, lineNo, field) => {
    const error = errorOf(text);
    expect(error.code).toBe('INVALID_CAPTURE_FILE');
    expect(error.line).toBe(lineNo);
    expect(error.field).toBe(field);
    expect(error.message).toContain(`captures.jsonl line ${lineNo}`);
  });

  it('refuses a repeated id on the later line, naming the first', () => {
    const error = errorOf([line({ ...minimal, id: 'a' }), line(minimal), line({ ...minimal, id: 'a' })].join('\n'));
    expect(error).toMatchObject({ line: 3, field: 'id' });
    expect(error.message).toContain('already used on line 1');
  });

  it('refuses a file without any capture', () => {
    expect(errorOf('\n \n')).toMatchObject({ line: null, field: null });
    expect(errorOf('').message).toBe('captures.jsonl: holds no capture');
  });

  it('returns nothing from a file whose last line is bad (strict: all or nothing)', () => {
    expect(() => parseCaptures(`${line(minimal)}\n${line(minimal)}\n{}`)).toThrow(/line 3: path is required/);
  });
});

describe('captureLine', () => {
  it('writes text bodies as body and byte bodies as bodyBase64, and parses back to the same capture', () => {
    const bytes = Uint8Array.from([0, 1, 2, 250]);
    const text = [
      captureLine({ id: 't', path: '/w', headers: { h: 'v' }, body: '{"a": 1}\n', expect: 'rejected', note: 'x' }),
      captureLine({ id: 'b', path: '/w', method: 'PUT', headers: {}, body: bytes }),
    ].join('\n');
    expect(JSON.parse(text.split('\n')[1]!)).toEqual({
      id: 'b',
      path: '/w',
      method: 'PUT',
      headers: {},
      bodyBase64: 'AAEC+g==',
    });
    const [t, b] = parseCaptures(text);
    expect(Buffer.from(t!.body).toString('utf8')).toBe('{"a": 1}\n');
    expect(t).toMatchObject({ expect: 'rejected', note: 'x', headers: { h: 'v' } });
    expect(b!.body).toEqual(bytes);
  });

  it('refuses a record that would not be a valid capture', () => {
    expect(() => captureLine({ path: 'no-slash', headers: {}, body: '' })).toThrow(InvalidCaptureFile);
  });
});
