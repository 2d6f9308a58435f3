/**
 * Thrown by a webhook handler to refuse an authentic event with a provider-level answer instead of failing:
 * an amount or currency that does not match the order, an unknown order, a transaction in the wrong state.
 * The refusal is a final answer: it is stored with the receipt and replayed to redeliveries, and the provider
 * is not asked to retry. Each acknowledgement renders it in the provider's format: Payme as a JSON-RPC `error`
 * (`code` from payme/errors.json, e.g. -31001, -31008, -31050…-31099), Click as `error`/`error_note` (codes -2…-9
 * of click/protocol.json), JSON providers as `200 {"received":true,"declined":{…}}`.
 * @see docs/design.md §6 "Provider events"; fixtures payme/errors.json, click/protocol.json.
 * @example throw new WebhookDecline(-31001, 'Wrong amount');
 */
export class WebhookDecline extends Error {
  /** The provider's error code (a negative integer for Payme and Click) or a short token for JSON providers. */
  readonly code: number | string;
  /**
   * Extra data for the provider's error object: Payme `error.data` (the account field name); a localised message
   * object `{ ru, uz, en }` may be given as `localizedMessage`.
   */
  readonly data: string | null;
  /** Payme's localised message `{ ru, uz, en }`, used instead of `message` when set. */
  readonly localizedMessage: Readonly<Record<string, string>> | null;

  constructor(
    code: number | string,
    message: string,
    options: { data?: string; localizedMessage?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'WebhookDecline';
    this.code = code;
    this.data = options.data ?? null;
    this.localizedMessage = options.localizedMessage ? Object.freeze({ ...options.localizedMessage }) : null;
  }
}
