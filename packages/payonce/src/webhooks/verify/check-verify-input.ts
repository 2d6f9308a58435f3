import type { HeadersInput } from './headers.js';
import { InvalidVerifyInput } from './invalid-verify-input.js';
import { RawBodyRequired } from './raw-body-required.js';
import type { VerifyInput } from './signature-scheme.js';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  if (value instanceof ArrayBuffer) return 'ArrayBuffer';
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  return `object (${value.constructor?.name ?? 'null prototype'})`;
}

function isUint8Array(value: unknown): value is Uint8Array {
  return (
    value instanceof Uint8Array ||
    (ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === '[object Uint8Array]')
  );
}

/**
 * The request body as bytes, unchanged.
 * @throws {RawBodyRequired} a string, parsed object, `ArrayBuffer`, other typed array or absent value.
 */
export function requireRawBody(value: unknown): Uint8Array {
  if (!isUint8Array(value)) throw new RawBodyRequired(describe(value));
  return value;
}

/**
 * Checks the caller's half of a verify call before any comparison: `rawBody` is a `Uint8Array` (a `Buffer`
 * is one), `headers` is an object, `nowMs` a finite non-negative number. Returns the input unchanged.
 * @throws {RawBodyRequired} `rawBody` is a string, parsed object, `ArrayBuffer`, other typed array or absent.
 * @throws {InvalidVerifyInput} bad `headers` or `nowMs`.
 */
export function checkVerifyInput(input: VerifyInput): VerifyInput {
  const candidate: unknown = input;
  if (typeof candidate !== 'object' || candidate === null) throw new RawBodyRequired(`${describe(candidate)} input`);
  const { rawBody, headers, nowMs } = candidate as { rawBody?: unknown; headers?: unknown; nowMs?: unknown };
  requireRawBody(rawBody);
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new InvalidVerifyInput('headers', `must be a header record or Headers object, got ${describe(headers)}`);
  }
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs) || nowMs < 0) {
    throw new InvalidVerifyInput('nowMs', 'must be a finite, non-negative number of milliseconds since the epoch');
  }
  return { rawBody: rawBody as Uint8Array, headers: headers as HeadersInput, nowMs };
}
