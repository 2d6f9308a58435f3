import type { HttpResponse } from '../http/http-exchange.js';
import type { Acknowledgement } from './intake-acknowledgement.js';

/** The body of a problem+json response with its `status` member set to `status` (other bodies unchanged). */
function rewriteStatus(response: HttpResponse, status: number): Uint8Array {
  if (!response.headers['content-type']?.startsWith('application/problem+json')) return response.body;
  try {
    const problem = JSON.parse(new TextDecoder().decode(response.body)) as Record<string, unknown>;
    return new TextEncoder().encode(JSON.stringify({ ...problem, status }));
  } catch {
    return response.body;
  }
}

/**
 * `ack` whose signature refusals (`WEBHOOK_SIGNATURE_INVALID`, 401) are answered with `status` instead (an
 * endpoint's `rejectionStatus: 400`); every other answer, and acknowledgements that never answer 401, unchanged.
 */
export function withRejectionStatus(ack: Acknowledgement, status: 400): Acknowledgement {
  return {
    accepted: (event, result) => ack.accepted(event, result),
    declined: (event, decline) => ack.declined(event, decline),
    deliver: (stored, request) => ack.deliver(stored, request),
    problem(problem, request) {
      const response = ack.problem(problem, request);
      if (problem.kind !== 'signature_invalid' || response.status !== 401) return response;
      return Object.freeze({ status, headers: response.headers, body: rewriteStatus(response, status) });
    },
  };
}
