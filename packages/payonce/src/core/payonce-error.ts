/**
 * Base class of every error payonce throws on purpose. `code` is stable across versions; `message` is not.
 * Core's codes are `PayonceErrorCode`; other modules (webhooks, payments, outbox) extend this class with codes of
 * their own (`C`), and `src/http` maps every known code to a status in one table.
 */
export abstract class PayonceError<C extends string = string> extends Error {
  abstract readonly code: C;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * A request key failed validation (empty part, more than 160 characters, NUL, not a string).
 * Thrown before any store is touched. HTTP: 400.
 * @see docs/design.md §3 "RequestKey".
 */
export class InvalidRequestKey extends PayonceError {
  readonly code = 'INVALID_REQUEST_KEY';
  /** Which part failed: `provider` or `externalId`. */
  readonly part: 'provider' | 'externalId';
  constructor(part: 'provider' | 'externalId', reason: string) {
    super(`invalid request key: ${part} ${reason}`);
    this.part = part;
  }
}
