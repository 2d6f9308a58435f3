import { InvalidRequestKey } from './payonce-error.js';

/** Longest provider name or external id, in Unicode code points (the receipt columns hold 160). */
export const MAX_KEY_PART_CHARS = 160;

function check(part: 'provider' | 'externalId', value: unknown): string {
  if (typeof value !== 'string') throw new InvalidRequestKey(part, `must be a string, got ${typeof value}`);
  if (value.length === 0) throw new InvalidRequestKey(part, 'must not be empty');
  if (value.includes('\u0000')) throw new InvalidRequestKey(part, 'must not contain NUL');
  if (!value.isWellFormed()) throw new InvalidRequestKey(part, 'must be well-formed Unicode (lone surrogate)');
  // Code points ≤ UTF-16 code units, so only a part longer than the limit in code units needs counting.
  if (value.length <= MAX_KEY_PART_CHARS) return value;
  let chars = 0;
  for (const _ of value) chars++;
  if (chars > MAX_KEY_PART_CHARS)
    throw new InvalidRequestKey(part, `has ${chars} characters, at most ${MAX_KEY_PART_CHARS}`);
  return value;
}

/**
 * Identity of one delivery: the provider's name plus an id the provider sent (event id, transaction id,
 * update id) — never an id generated locally, or every redelivery would look new.
 * Both parts are non-empty, at most 160 Unicode code points, without NUL; they compare byte for byte
 * (`evt_A` and `evt_a` are different keys).
 * @throws {InvalidRequestKey} on any violation, before any store is touched.
 * @see docs/design.md §3 "RequestKey".
 * @example const key = new RequestKey('stripe', event.id);
 */
export class RequestKey {
  readonly provider: string;
  readonly externalId: string;

  constructor(provider: string, externalId: string) {
    this.provider = check('provider', provider);
    this.externalId = check('externalId', externalId);
    Object.freeze(this);
  }

  /**
   * The composite key `objectId:eventType` for providers whose notifications have no unique event id, or
   * where one object legitimately produces several events (a refund is not a duplicate of the payment it
   * refunds: `forEvent('payme', txId, 'refunded')` differs from `forEvent('payme', txId, 'paid')`).
   * @throws {InvalidRequestKey} if a part is empty or the composite exceeds 160 characters.
   */
  static forEvent(provider: string, objectId: string, eventType: string): RequestKey {
    check('externalId', objectId);
    check('externalId', eventType);
    return new RequestKey(provider, `${objectId}:${eventType}`);
  }

  /** True when both parts are equal byte for byte. */
  equals(other: RequestKey): boolean {
    return this.provider === other.provider && this.externalId === other.externalId;
  }

  /** `provider/externalId`, for logs and messages. */
  toString(): string {
    return `${this.provider}/${this.externalId}`;
  }
}

/** Shorthand for `new RequestKey(provider, externalId)`. @throws {InvalidRequestKey} */
export function requestKey(provider: string, externalId: string): RequestKey {
  return new RequestKey(provider, externalId);
}
