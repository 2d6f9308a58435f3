import type { Capture, CaptureExpectation } from './capture.js';
import { InvalidCaptureFile } from './invalid-capture-file.js';

/** The fields a capture line may have; any other name is refused (a typo such as `expected` must not pass silently). */
const FIELDS = new Set(['id', 'path', 'method', 'headers', 'body', 'bodyBase64', 'expect', 'note']);
/** RFC 9110 §5.1 field name / §9.1 method: a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 §5.5 field value octets: HTAB, visible ASCII, SP and obs-text; never CR, LF or NUL. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Canonical base64 (RFC 4648 §4) with padding. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rejects
const CONTROL = /[\x00-\x1f\x7f]/;
const MAX_ID_CHARS = 200;

/**
 * Parses a capture file's text: JSON lines, one delivery per line,
 * `{ "id"?, "path", "method"?, "headers", "body" | "bodyBase64", "expect"?, "note"? }` (see `docs/replay.md`).
 * Empty lines are skipped; a trailing `\r` is ignored (CRLF files). Strict: the whole text is checked before
 * anything is returned, so a caller sends nothing from an invalid file.
 * @param source names the file in error messages (its path, or a label).
 * @returns the captures in file order; `body` holds the exact bytes (`body` as UTF-8, or `bodyBase64` decoded).
 * @throws {InvalidCaptureFile} a line that is not a JSON object, an unknown field, a missing or mistyped field, a
 * path not starting with `/`, a header name that is not an RFC 9110 token or a value with CR/LF/NUL or a character
 * above U+00FF, two header names differing only by case, `body` and `bodyBase64` both or neither, a body string
 * with a lone surrogate, non-canonical base64, an `expect` other than `accepted`/`rejected`, a repeated `id`, or
 * no capture at all. The error carries the 1-based line number and the field.
 * @example const captures = parseCaptures(await readFile('captures.jsonl', 'utf8'), 'captures.jsonl');
 */
export function parseCaptures(text: string, source = 'capture file'): Capture[] {
  if (typeof text !== 'string') throw new InvalidCaptureFile(source, null, null, 'is not text');
  const captures: Capture[] = [];
  const lineOfId = new Map<string, number>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
    if (raw.trim() === '') continue;
    const capture = parseCaptureLine(raw, i + 1, source);
    const earlier = lineOfId.get(capture.id);
    if (earlier !== undefined) {
      throw new InvalidCaptureFile(source, i + 1, 'id', `"${capture.id}" was already used on line ${earlier}`);
    }
    lineOfId.set(capture.id, i + 1);
    captures.push(capture);
  }
  if (captures.length === 0) throw new InvalidCaptureFile(source, null, null, 'holds no capture');
  return captures;
}

/** One line of a capture file (see {@link parseCaptures}); `line` is its 1-based number. */
function parseCaptureLine(raw: string, line: number, source: string): Capture {
  const fail = (field: string | null, reason: string): never => {
    throw new InvalidCaptureFile(source, line, field, reason);
  };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return fail(null, `is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(null, 'is not a JSON object');
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) if (!FIELDS.has(name)) fail(name, 'is not a capture field');

  const id = record.id === undefined ? `line-${line}` : record.id;
  if (typeof id !== 'string' || id === '') return fail('id', 'must be a non-empty string');
  if (id.length > MAX_ID_CHARS || CONTROL.test(id))
    fail('id', `must be at most ${MAX_ID_CHARS} characters, no control characters`);

  const path = record.path;
  if (typeof path !== 'string') return fail('path', 'is required: a string starting with "/"');
  if (
    !path.startsWith('/') ||
    path.startsWith('//') ||
    /[\s#]/.test(path) ||
    CONTROL.test(path) ||
    !path.isWellFormed()
  ) {
    fail('path', 'must start with a single "/" and hold no whitespace, control character or "#"');
  }

  const method = record.method === undefined ? 'POST' : record.method;
  if (typeof method !== 'string' || !TOKEN.test(method)) return fail('method', 'must be an HTTP method token');

  const headers = record.headers;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    return fail('headers', 'is required: an object of header name to string value');
  }
  const seen = new Map<string, string>();
  for (const [name, headerValue] of Object.entries(headers)) {
    const field = `headers.${name}`;
    if (!TOKEN.test(name)) fail(field, 'is not a valid header name (RFC 9110 token)');
    if (typeof headerValue !== 'string') fail(field, 'must be a string');
    if (!FIELD_VALUE.test(headerValue as string)) {
      fail(field, 'holds a character that cannot be sent (CR, LF, NUL, another control character or above U+00FF)');
    }
    const other = seen.get(name.toLowerCase());
    if (other !== undefined) fail(field, `repeats header "${other}" (names are case-insensitive)`);
    seen.set(name.toLowerCase(), name);
  }

  let body: Uint8Array;
  if ((record.body === undefined) === (record.bodyBase64 === undefined)) {
    return fail('body', 'exactly one of "body" (text) and "bodyBase64" is required');
  }
  if (record.body !== undefined) {
    if (typeof record.body !== 'string') return fail('body', 'must be a string (the exact raw body text)');
    if (!record.body.isWellFormed())
      fail('body', 'holds a lone surrogate: it has no exact UTF-8 bytes; use bodyBase64');
    body = new Uint8Array(Buffer.from(record.body, 'utf8'));
  } else {
    const encoded = record.bodyBase64;
    if (typeof encoded !== 'string' || !BASE64.test(encoded)) {
      return fail('bodyBase64', 'must be canonical padded base64 (RFC 4648 §4)');
    }
    body = new Uint8Array(Buffer.from(encoded, 'base64'));
  }

  let expect: CaptureExpectation | null = null;
  if (record.expect !== undefined) {
    if (record.expect !== 'accepted' && record.expect !== 'rejected') {
      return fail('expect', 'must be "accepted" or "rejected"');
    }
    expect = record.expect;
  }
  const note = record.note === undefined ? null : record.note;
  if (note !== null && typeof note !== 'string') return fail('note', 'must be a string');

  return Object.freeze({
    id,
    line,
    method: method.toUpperCase(),
    path,
    headers: Object.freeze({ ...(headers as Record<string, string>) }),
    body,
    expect,
    note,
  });
}
