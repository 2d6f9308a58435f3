import type { HttpResponse } from '../http/http-exchange.js';
import type { Acknowledgement, IntakeRequest } from './intake-acknowledgement.js';
import { type IntakeProblem, problemOf, retryAfterHeader } from './intake-problem.js';
import { jsonNestsDeeperThan } from './json-nesting.js';

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8' });
const utf8 = new TextEncoder();
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Payme JSON-RPC error codes used by the intake (payme/errors.json "general"). */
export const PAYME_ERRORS = Object.freeze({
  /** JSON parse error. */
  parse: -32700,
  /** Required RPC fields missing or of the wrong type. */
  invalidRequest: -32600,
  /** Method not found. */
  methodNotFound: -32601,
  /** Insufficient privileges: authorisation failed. */
  insufficientPrivilege: -32504,
  /** System (internal) error. */
  system: -32400,
});

/** The request's JSON-RPC `id` (number or string), or `null` when the body is not JSON or has none. */
function rpcId(rawBody: Uint8Array): number | string | null {
  // A body nested this deep is no JSON-RPC request; parsing it would only cost the event loop.
  if (jsonNestsDeeperThan(rawBody, 64)) return null;
  try {
    const parsed: unknown = JSON.parse(UTF8.decode(rawBody));
    if (typeof parsed !== 'object' || parsed === null) return null;
    const id = (parsed as { id?: unknown }).id;
    return typeof id === 'number' || typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

function envelope(request: IntakeRequest, member: string, headers: Record<string, string> = {}): HttpResponse {
  const prefix = `{"jsonrpc":"2.0","id":${JSON.stringify(rpcId(request.rawBody))},`;
  return Object.freeze({
    status: 200,
    headers: Object.freeze({ ...headers, ...JSON_HEADERS }),
    body: utf8.encode(`${prefix}${member}}`),
  });
}

function errorCodeOf(problem: IntakeProblem): number {
  switch (problem.kind) {
    case 'signature_invalid':
    case 'signature_malformed':
      return PAYME_ERRORS.insufficientPrivilege;
    case 'malformed_payload':
      if (problem.field === 'body') return PAYME_ERRORS.parse;
      if (problem.field === 'method') return PAYME_ERRORS.methodNotFound;
      return PAYME_ERRORS.invalidRequest;
    default:
      return PAYME_ERRORS.system;
  }
}

/**
 * The Payme (Paycom) Merchant API answer: always HTTP 200 with a JSON-RPC 2.0 object carrying the request's `id`
 * and either `result` (the handler's result) or `error: { code, message, data? }`. Failed authorisation is
 * -32504, an unparsable body -32700, an unknown method -32601, missing fields -32600, and everything that must be
 * retried (claim in progress, handler or store failure) -32400 "system error" — never a `result`, so Payme never
 * takes unfinished work for done; the receipt stays retryable and Payme repeats the call. A `WebhookDecline`
 * becomes `error` with its code (-31001 wrong amount, -31003 not found, -31008 impossible, -31050…-31099 account
 * errors, with `data` and a `{ ru, uz, en }` message). Only a body over the size limit gets a transport-level 413.
 * The stored part is `{"result":…}` or `{"error":…}`; the `jsonrpc`/`id` envelope is added per request, so a
 * repeated call with a new JSON-RPC id replays the stored answer under its own id.
 * @see fixtures payme/errors.json ("Always answer with HTTP 200"), payme/idempotency-rules.json (repeated calls
 * return the stored answer); https://developer.help.paycom.uz/metody-merchant-api/oshibki-errors.
 */
export function paymeAcknowledgement(): Acknowledgement {
  return {
    accepted: (_event, result) => ({
      status: 200,
      headers: JSON_HEADERS,
      body: JSON.stringify({ result: result ?? null }),
    }),
    declined: (_event, decline) => ({
      status: 200,
      headers: JSON_HEADERS,
      body: JSON.stringify({
        error: {
          code: decline.code,
          message: decline.localizedMessage ?? decline.message,
          ...(decline.data === null ? {} : { data: decline.data }),
        },
      }),
    }),
    deliver: (stored, request) => {
      const text = new TextDecoder().decode(stored.body);
      // The stored member list without its outer braces, placed after the per-request envelope.
      return envelope(request, text.slice(1, -1));
    },
    problem: (problem, request) => {
      if (problem.kind === 'too_large') return problemOf(problem);
      const error = { code: errorCodeOf(problem), message: problem.detail };
      return envelope(request, `"error":${JSON.stringify(error)}`, retryAfterHeader(problem.retryAfterMs));
    },
  };
}
