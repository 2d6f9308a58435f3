import { InvalidRequestKey } from '../../core/errors.js';
import { RequestKey } from '../../core/request-key.js';
import { requireRawBody } from '../verify/check-verify-input.js';
import { MAX_UNIX_SECONDS } from '../verify/unix-timestamp.js';
import { MalformedWebhookPayload } from './malformed-webhook-payload.js';
import { minorUnitsFromDecimal } from './minor-units.js';

/** A parsed JSON object. */
export type JsonObject = { readonly [key: string]: unknown };

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Typed, throwing field access for one provider's payload. Every failure is a {@link MalformedWebhookPayload}
 * naming the field path, never its value.
 */
export class PayloadReader {
  constructor(readonly provider: string) {}

  /** Throws {@link MalformedWebhookPayload} for `path`; `cause` keeps the underlying parser error. */
  fail(path: string, expectation: string, cause?: unknown): never {
    throw new MalformedWebhookPayload(this.provider, path, expectation, cause === undefined ? undefined : { cause });
  }

  /**
   * The body as UTF-8 text (a leading BOM is dropped, RFC 8259 §8.1 allows ignoring it).
   * @throws {RawBodyRequired} `rawBody` is not bytes.
   */
  text(rawBody: unknown): string {
    const bytes = requireRawBody(rawBody);
    try {
      return UTF8.decode(bytes);
    } catch (error) {
      return this.fail('body', 'must be UTF-8', error);
    }
  }

  /** The body parsed as a JSON object. */
  json(rawBody: unknown): JsonObject {
    const text = this.text(rawBody);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return this.fail('body', 'must be JSON', error);
    }
    return isObject(parsed) ? parsed : this.fail('body', 'must be a JSON object');
  }

  /** `value` as a JSON object (not null, not an array). */
  object(value: unknown, path: string): JsonObject {
    return isObject(value) ? value : this.fail(path, 'must be an object');
  }

  /** Like {@link object}; absent or `null` is `null`. */
  optionalObject(value: unknown, path: string): JsonObject | null {
    return value === undefined || value === null ? null : this.object(value, path);
  }

  /** A non-empty string. */
  string(value: unknown, path: string): string {
    return typeof value === 'string' && value !== '' ? value : this.fail(path, 'must be a non-empty string');
  }

  /** Like {@link string}; absent or `null` is `null`, any other type still fails. */
  optionalString(value: unknown, path: string): string | null {
    return value === undefined || value === null ? null : this.string(value, path);
  }

  /** A string, or a safe integer rendered in decimal (merchant account fields are sent either way). */
  optionalId(value: unknown, path: string): string | null {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    return this.optionalString(value, path);
  }

  /** A safe integer `>= min`; fractions, strings, NaN and numbers past 2^53 are refused. */
  integer(value: unknown, path: string, min = 0): number {
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= min
      ? value
      : this.fail(path, `must be an integer >= ${min}`);
  }

  /** Like {@link integer}; absent or `null` is `null`. */
  optionalInteger(value: unknown, path: string, min = 0): number | null {
    return value === undefined || value === null ? null : this.integer(value, path, min);
  }

  /** Unix seconds (at most 11 digits) as epoch milliseconds. */
  unixSecondsAsMs(value: unknown, path: string): number {
    const seconds = this.integer(value, path);
    return seconds <= MAX_UNIX_SECONDS ? seconds * 1000 : this.fail(path, 'must be Unix seconds, not milliseconds');
  }

  /** Epoch milliseconds (13 digits today); a value that reads as Unix seconds (11 digits or fewer) is refused. */
  epochMs(value: unknown, path: string): number {
    const ms = this.integer(value, path);
    return ms > MAX_UNIX_SECONDS ? ms : this.fail(path, 'must be epoch milliseconds, not seconds');
  }

  /** An ISO 8601 date-time with a zone (`2018-07-10T14:27:54.691Z`) as epoch milliseconds. */
  isoTimeAsMs(value: unknown, path: string): number {
    const text = this.string(value, path);
    const ms = ISO_8601.test(text) ? Date.parse(text) : Number.NaN;
    return Number.isFinite(ms) ? ms : this.fail(path, 'must be an ISO 8601 date-time with a time zone');
  }

  /** A three-letter ISO-4217 code, returned upper-case (Stripe sends `usd`). */
  currency(value: unknown, path: string): string {
    const text = this.string(value, path).toUpperCase();
    return /^[A-Z]{3}$/.test(text) ? text : this.fail(path, 'must be a three-letter ISO 4217 code');
  }

  /** A decimal string in major units converted exactly to minor units of `currency`. */
  decimalAmount(value: unknown, path: string, currency: string): number {
    const minor = minorUnitsFromDecimal(this.string(value, path), currency);
    return minor ?? this.fail(path, `must be a non-negative decimal with at most the minor-unit digits of ${currency}`);
  }

  /** `RequestKey(provider, id)`; an id RequestKey refuses (over 160 characters, NUL) is a malformed payload. */
  key(externalId: string, path: string): RequestKey {
    try {
      return new RequestKey(this.provider, externalId);
    } catch (error) {
      if (error instanceof InvalidRequestKey) return this.fail(path, 'cannot be a receipt key', error);
      throw error;
    }
  }

  /** `RequestKey.forEvent(provider, objectId, eventType)`, with the same error mapping as {@link key}. */
  compositeKey(objectId: string, eventType: string, path: string): RequestKey {
    try {
      return RequestKey.forEvent(this.provider, objectId, eventType);
    } catch (error) {
      if (error instanceof InvalidRequestKey) return this.fail(path, 'cannot be part of a receipt key', error);
      throw error;
    }
  }
}
