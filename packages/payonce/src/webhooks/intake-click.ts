import type { HttpResponse } from '../http/http-exchange.js';
import type { Acknowledgement, IntakeRequest } from './intake-acknowledgement.js';
import { type IntakeProblem, problemOf } from './intake-problem.js';
import type { ProviderEvent } from './providers/provider-event.js';
import { parseClickForm } from './verify/click-scheme.js';

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8' });

/** Click SHOP API error codes returned by the merchant (click/protocol.json "errors_returned_by_supplier"). */
export const CLICK_ERRORS = Object.freeze({
  success: 0,
  signCheckFailed: -1,
  incorrectAmount: -2,
  actionNotFound: -3,
  alreadyPaid: -4,
  userNotFound: -5,
  transactionNotFound: -6,
  failedToUpdate: -7,
  badRequest: -8,
  cancelled: -9,
});

/** A Click id field as a JSON number when it is a safe integer (Click sends bigint ids), else the string. */
function idValue(value: string | undefined): number | string | null {
  if (value === undefined) return null;
  return /^\d{1,15}$/.test(value) ? Number(value) : value;
}

function echo(fields: ReadonlyMap<string, string> | undefined): Record<string, unknown> {
  return {
    click_trans_id: idValue(fields?.get('click_trans_id')),
    merchant_trans_id: fields?.get('merchant_trans_id') ?? null,
  };
}

function fieldsOf(event: ProviderEvent): Map<string, string> {
  const payload = event.payload as Record<string, string>;
  return new Map(Object.entries(payload));
}

function json(value: unknown): HttpResponse {
  return Object.freeze({ status: 200, headers: JSON_HEADERS, body: new TextEncoder().encode(JSON.stringify(value)) });
}

function codeOf(problem: IntakeProblem): number {
  if (problem.kind === 'signature_invalid') return CLICK_ERRORS.signCheckFailed;
  if (problem.kind === 'malformed_payload' && problem.field === 'action') return CLICK_ERRORS.actionNotFound;
  if (problem.kind === 'malformed_payload' && problem.field === 'amount') return CLICK_ERRORS.incorrectAmount;
  return CLICK_ERRORS.badRequest;
}

/**
 * The Click SHOP API answer, HTTP 200 JSON: `click_trans_id`, `merchant_trans_id`, `error`, `error_note`, plus
 * `merchant_prepare_id` on Prepare or `merchant_confirm_id` on Complete, taken from the handler's result
 * (`{ merchant_prepare_id: 5 }` / `{ merchant_confirm_id: 7 }`). A bad `sign_string` is `-1 SIGN CHECK FAILED!`,
 * missing fields -8, an unknown action -3, a bad amount -2; a `WebhookDecline` gives its own code (-4 already
 * paid, -5 user not found, -6 transaction not found, -9 cancelled). Work that must be retried (in progress,
 * handler or store failure) has no Click code and is answered with problem+json 409/5xx, never `error: 0`.
 * @see fixtures click/protocol.json (prepare/complete response fields, supplier error codes, check order);
 * https://docs.click.uz/en/click-api-request/.
 */
export function clickAcknowledgement(): Acknowledgement {
  return {
    accepted: (event, result) => {
      const extra = typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {};
      return {
        status: 200,
        headers: JSON_HEADERS,
        body: JSON.stringify({ ...echo(fieldsOf(event)), ...extra, error: 0, error_note: 'Success' }),
      };
    },
    declined: (event, decline) => ({
      status: 200,
      headers: JSON_HEADERS,
      body: JSON.stringify({ ...echo(fieldsOf(event)), error: decline.code, error_note: decline.message }),
    }),
    deliver: (stored) => stored,
    problem: (problem, request: IntakeRequest) => {
      const retry = ['too_large', 'rate_limited', 'in_progress', 'handler_failed', 'claim_lost', 'store_unavailable'];
      if (retry.includes(problem.kind) || problem.status >= 500) return problemOf(problem);
      const code = codeOf(problem);
      const note = code === CLICK_ERRORS.signCheckFailed ? 'SIGN CHECK FAILED!' : problem.detail;
      return json({ ...echo(parseClickForm(request.rawBody)), error: code, error_note: note });
    },
  };
}
