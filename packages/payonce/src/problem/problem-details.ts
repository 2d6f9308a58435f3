/**
 * How one stable error code is answered over HTTP: its status and its RFC 9457 `title` (a short summary, constant
 * for a given code within its context). Owned by the layer that owns the code.
 * @see RFC 9457 §3.1 (`status`, `title`).
 */
export interface ProblemDefinition {
  /** The HTTP status code (400–599). */
  readonly status: number;
  /** Short human-readable summary of the problem type, in the words of the context that answers it. */
  readonly title: string;
}

/**
 * One layer's table of the codes it owns (or answers in its own context) → their `ProblemDefinition`. The HTTP
 * layer's (`HTTP_PROBLEMS`), the webhook intake's (`WEBHOOK_PROBLEMS`), the payments' (`PAYMENT_PROBLEMS`) and the
 * reference service's (`SERVICE_PROBLEMS`) are each declared next to their codes; this module owns none.
 */
export type ProblemCatalogue<C extends string> = { readonly [K in C]: ProblemDefinition };

/** A rendered problem answer: status, headers (lower-case names) and the exact body bytes (`HttpResponse`'s shape). */
export interface ProblemResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** Base of every problem `type` URI; the code follows in kebab case, e.g. `…/errors/payload-mismatch`. */
export const PROBLEM_TYPE_BASE = 'https://payonce.dev/errors/';

/**
 * The stable RFC 9457 `type` URI of a code: `https://payonce.dev/errors/` + the code in lower kebab case.
 * Documented per code in `docs/errors.md`. @example problemType('PAYLOAD_MISMATCH') // '…/errors/payload-mismatch'
 */
export function problemType(code: string): string {
  return `${PROBLEM_TYPE_BASE}${code.toLowerCase().replaceAll('_', '-')}`;
}

/** True when `catalogue` has a row for `code` (an error of another layer or a newer module may not). */
export function hasProblem<C extends string>(catalogue: ProblemCatalogue<C>, code: string): code is C {
  return Object.hasOwn(catalogue, code);
}

/**
 * The RFC 9457 problem+json answer for `code` as `definition` renders it: `Content-Type: application/problem+json`,
 * body `{ type, title, status, detail, code }` (`code` is an extension member with the stable code). `detail` must
 * never contain secrets or request bodies. Extra headers (e.g. `Retry-After`) are added as given.
 * @see RFC 9457 §3 (members), §3.1.1 (`type` URI); `docs/errors.md`.
 */
export function renderProblem(
  code: string,
  definition: ProblemDefinition,
  detail: string,
  headers: Readonly<Record<string, string>> = {},
): ProblemResponse {
  const { status, title } = definition;
  const body = JSON.stringify({ type: problemType(code), title, status, detail, code });
  return Object.freeze({
    status,
    headers: Object.freeze({ ...headers, 'content-type': 'application/problem+json' }),
    body: new TextEncoder().encode(body),
  });
}

/** `{ code: status }` of a catalogue, for tables and tests. */
export function statusesOf<C extends string>(catalogue: ProblemCatalogue<C>): { readonly [K in C]: number } {
  return Object.freeze(
    Object.fromEntries(Object.entries<ProblemDefinition>(catalogue).map(([code, d]) => [code, d.status])),
  ) as { readonly [K in C]: number };
}

/** `{ code: title }` of a catalogue, for tables and tests. */
export function titlesOf<C extends string>(catalogue: ProblemCatalogue<C>): { readonly [K in C]: string } {
  return Object.freeze(
    Object.fromEntries(Object.entries<ProblemDefinition>(catalogue).map(([code, d]) => [code, d.title])),
  ) as { readonly [K in C]: string };
}
