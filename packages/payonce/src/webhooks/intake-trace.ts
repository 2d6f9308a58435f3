import { PayonceError } from '../core/errors.js';
import type { IntakeProblem } from './intake-problem.js';
import type { DeliveryDecision, DeliveryOutcome } from './journal/delivery-record.js';
import { jsonNestsDeeperThan, startsLikeJsonContainer } from './json-nesting.js';
import type { ProviderEvent } from './providers/provider-event.js';
import { type HeadersInput, headerValue } from './verify/headers.js';
import type { VerifyResult } from './verify/signature-scheme.js';

/** What the pipeline learned about one delivery, turned into a journal row at the end. */
export interface Trace {
  signature: string;
  decision: DeliveryDecision;
  outcome: DeliveryOutcome;
  error: string | null;
  event: ProviderEvent | null;
  verify: VerifyResult | null;
  payload: unknown;
}

/** The trace of a delivery nothing has been learned about yet (refused unless a step says otherwise). */
export function freshTrace(error: string | null = null): Trace {
  return {
    signature: 'not_checked',
    decision: 'rejected',
    outcome: 'rejected',
    error,
    event: null,
    verify: null,
    payload: null,
  };
}

/**
 * `trace` refused with `problem`; the journaled text is `CODE: error`, with the code once (`error` may already
 * start with it, as `errorText` of a payonce error does).
 */
export function refusedTrace(trace: Trace, problem: IntakeProblem, error: string): Trace {
  return { ...trace, decision: 'rejected', outcome: 'rejected', error: codedText(problem.code, error) };
}

/** `CODE: text`, unless `text` already starts with that code. */
export function codedText(code: string, text: string): string {
  return text.startsWith(`${code}: `) ? text : `${code}: ${text}`;
}

/** `CODE: message` of a payonce error, `Name: message` of another error, for the journal. */
export function errorText(error: unknown): string {
  if (error instanceof PayonceError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** True when the body looks like JSON and nests deeper than `maxDepth`: it must not be parsed at all. */
export function tooDeep(rawBody: Uint8Array, maxDepth: number): boolean {
  return startsLikeJsonContainer(rawBody) && jsonNestsDeeperThan(rawBody, maxDepth);
}

/**
 * The body as a JSON value or form record, for the journal of a delivery whose payload was not extracted;
 * `null` when it is not UTF-8, not readable, or nests deeper than `maxDepth` (never parsed then).
 */
export function looseParse(rawBody: Uint8Array, headers: HeadersInput, maxDepth: number): unknown {
  if (tooDeep(rawBody, maxDepth)) return null;
  let text: string;
  try {
    text = UTF8.decode(rawBody);
  } catch {
    return null;
  }
  try {
    return JSON.parse(text);
  } catch {
    const type = headerValue(headers, 'content-type')?.toLowerCase() ?? '';
    return type.startsWith('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(text)) : null;
  }
}
