import { StripeApiError } from './stripe-api-error.js';

/** The test secret key the sandbox's own clients send when none is configured. */
export const SANDBOX_API_KEY = 'sk_test_payonce_sandbox';

function unauthorized(message: string): StripeApiError {
  return new StripeApiError(401, 'invalid_request_error', message);
}

/**
 * Checks a request's `Authorization` the way Stripe does: `Bearer <key>` or HTTP Basic with the key as the user
 * name. The sandbox accepts any test secret or restricted key (`sk_test_…`, `rk_test_…`) and refuses live keys.
 * @throws {StripeApiError} 401 (Stripe answers missing and bad keys with `invalid_request_error`).
 * @see https://docs.stripe.com/api/authentication
 */
export function checkApiKey(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === '') {
    throw unauthorized(
      "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
    );
  }
  const [scheme, value = ''] = authorization.trim().split(/\s+/, 2);
  let key = '';
  if (scheme?.toLowerCase() === 'bearer') key = value;
  else if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    key = decoded.split(':')[0] ?? '';
  } else {
    throw unauthorized('Invalid authorization header: use Bearer auth or Basic auth with the key as the user name.');
  }
  if (!/^(sk|rk)_test_[A-Za-z0-9_]{1,240}$/.test(key)) {
    const shown = key.length > 12 ? `${key.slice(0, 8)}*********${key.slice(-4)}` : '***';
    throw unauthorized(`Invalid API Key provided: ${shown}. The sandbox takes test keys (sk_test_…).`);
  }
  return key;
}
