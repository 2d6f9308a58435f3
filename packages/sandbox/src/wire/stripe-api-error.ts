/** Stripe's error types (`error.type`). @see https://docs.stripe.com/api/errors */
export type StripeErrorType =
  | 'api_error'
  | 'card_error'
  | 'idempotency_error'
  | 'invalid_request_error'
  | 'rate_limit_error'
  | 'authentication_error';

/** JSON object. */
export type JsonObject = { [key: string]: unknown };

/**
 * An answer of the sandbox's Stripe API that is an error: HTTP `status` and the body `{ error: { type, code?,
 * param?, message, ... } }` exactly as Stripe shapes it (400 invalid_request_error, 401 authentication, 402
 * card_error, 404 resource_missing, 409 idempotency key in use, 429 rate limit, 5xx api_error). Thrown by routes
 * and request parsing; the API layer turns it into the answer and never into a 5xx of the framework.
 * @see https://docs.stripe.com/api/errors
 */
export class StripeApiError extends Error {
  constructor(
    /** HTTP status. */
    readonly status: number,
    readonly type: StripeErrorType,
    message: string,
    /** `code`, `param`, `decline_code`, `payment_intent`… added to the error object. */
    readonly extra: JsonObject = {},
  ) {
    super(message);
    this.name = 'StripeApiError';
  }

  /** The response body `{ error: { … } }`. */
  body(): JsonObject {
    return { error: { type: this.type, message: this.message, ...this.extra } };
  }
}

/** 400 `invalid_request_error` about one parameter. */
export function invalidParam(param: string, message: string, code = 'parameter_invalid'): StripeApiError {
  return new StripeApiError(400, 'invalid_request_error', message, { code, param });
}

/** 404 `resource_missing`: `No such <kind>: '<id>'`, as Stripe words it. */
export function noSuch(kind: string, id: string, param = 'id'): StripeApiError {
  return new StripeApiError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, {
    code: 'resource_missing',
    param,
  });
}

/** 400 for a method/path the API does not have, in Stripe's words ("Unrecognized request URL"). */
export function unknownRoute(method: string, path: string): StripeApiError {
  return new StripeApiError(
    404,
    'invalid_request_error',
    `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
  );
}
