import { randomUUID } from 'node:crypto';
import type { HttpResponse } from '../../packages/payonce/src/http/http-exchange.js';

/** A charge request as the payment provider port receives it. Amount in integer minor units. */
export interface ChargeInput {
  readonly account: string;
  readonly amount: number;
  readonly currency: string;
  readonly reference: string;
}

/** The payment provider port. Throws `ProviderUnavailable` when the provider cannot be reached. */
export type Charge = (input: ChargeInput) => Promise<{ readonly id: string }>;

/** The provider could not be reached; the API answers 503 and the Idempotency-Key is released for a retry. */
export class ProviderUnavailable extends Error {
  constructor() {
    super('payment provider unavailable');
    this.name = 'ProviderUnavailable';
  }
}

/** Everything the example API depends on; tests pass their own. */
export interface PaymentsApiDeps {
  readonly charge: Charge;
  /** API token → account id (the principal). */
  readonly accounts: Readonly<Record<string, string>>;
}

/** The demo provider: always succeeds with a fresh payment id. */
export const demoCharge: Charge = async () => ({ id: `pay_${randomUUID()}` });

/** Demo tokens: `Authorization: Bearer sk_test_acme` is account `acct_acme`. */
export const demoAccounts: Readonly<Record<string, string>> = {
  sk_test_acme: 'acct_acme',
  sk_test_globex: 'acct_globex',
};

/** The account of an `Authorization: Bearer <token>` header, or `undefined`. */
export function accountOf(deps: PaymentsApiDeps, authorization: string | undefined): string | undefined {
  const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  return token === undefined ? undefined : deps.accounts[token];
}

const encoder = new TextEncoder();
const json = (status: number, value: unknown, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json', 'x-request-id': randomUUID(), ...headers },
  body: encoder.encode(JSON.stringify(value)),
});
const problem = (status: number, title: string, detail: string): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/problem+json' },
  body: encoder.encode(JSON.stringify({ type: 'about:blank', title, status, detail })),
});

/** 500 for an unexpected error; the error itself is not echoed (it may carry provider details). */
export const internalError = (): HttpResponse => problem(500, 'Internal Server Error', 'Retry with the same key.');

/** 401 for a request without a known bearer token (checked before the Idempotency-Key layer). */
export const unauthorized = (): HttpResponse => problem(401, 'Unauthorized', 'Send Authorization: Bearer <token>.');

function parse(body: Uint8Array): { amount?: unknown; currency?: unknown; reference?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(body));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `POST /v1/payments` and `POST /v1/payments/:id/refunds`, framework-neutral: validates the raw JSON body
 * (`{ amount: positive integer minor units, currency: ISO 4217, reference?: string }`), charges through the
 * provider port and answers 201 with `Location`. Bad JSON → 400, bad fields → 422 (both stored and replayed by
 * the Idempotency-Key layer), provider down → 503 (the key is released). Other errors are thrown to the framework.
 */
export async function createPayment(
  deps: PaymentsApiDeps,
  account: string,
  body: Uint8Array,
  refundOf?: string,
): Promise<HttpResponse> {
  const input = parse(body);
  if (!input) return problem(400, 'Malformed JSON', 'The body must be a JSON object.');
  const { amount, currency, reference = '' } = input;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) {
    return problem(422, 'Invalid amount', 'amount must be a positive integer in minor units.');
  }
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency) || typeof reference !== 'string') {
    return problem(422, 'Invalid currency', 'currency must be an ISO 4217 code such as EUR.');
  }
  try {
    const { id } = await deps.charge({ account, amount, currency, reference });
    const path = refundOf === undefined ? `/v1/payments/${id}` : `/v1/payments/${refundOf}/refunds/${id}`;
    const kind = refundOf === undefined ? 'payment' : 'refund';
    return json(201, { id, object: kind, amount, currency, reference }, { location: path });
  } catch (error) {
    if (error instanceof ProviderUnavailable) return problem(503, 'Provider unavailable', 'Retry with the same key.');
    throw error;
  }
}
