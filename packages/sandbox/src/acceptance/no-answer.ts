/** What a sandbox call records when no answer came: `status: null`, why in words, and the failure's code. */
export interface NoAnswer {
  readonly status: null;
  /** `no answer within 10000 ms (…)` or `no answer (fetch failed: ECONNREFUSED)`. */
  readonly received: string;
  /** The network error's code (`ECONNREFUSED`, `ENOTFOUND`, …), `timeout`, or the error's (or its cause's) message. */
  readonly failure: string;
}

type Cause = { code?: unknown; message?: unknown; errors?: readonly { code?: unknown }[] };

/**
 * The `code` of `error`'s cause (fetch hides it there: `ECONNREFUSED`), of the first error of an AggregateError
 * cause, or else the cause's message (`bad port`).
 */
function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: Cause } | null)?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message;
  return typeof code === 'string' && code !== '' ? code : undefined;
}

/**
 * How a call that got no answer is recorded: a timeout after `waitMs` (ms), or the connection failure with the
 * code Node's fetch keeps in `error.cause` (`fetch failed` alone hides that the port was closed).
 */
export function noAnswer(error: unknown, waitMs: number): NoAnswer {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'TimeoutError') {
    return { status: null, received: `no answer within ${waitMs} ms (${message})`, failure: 'timeout' };
  }
  const code = causeCode(error);
  const received = code === undefined ? `no answer (${message})` : `no answer (${message}: ${code})`;
  return { status: null, received, failure: code ?? message };
}
