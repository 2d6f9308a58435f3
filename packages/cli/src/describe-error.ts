import { inspect } from 'node:util';

/**
 * A one-line explanation of `error` for the terminal: its message, or for an `AggregateError` with an empty
 * message (pg/mysql2 on a refused connection to every address) the messages inside, plus the `cause`. Something
 * thrown that is no `Error` (an adapter factory throwing `{ code, detail }`) is shown as `util.inspect` shows it,
 * on one line, never `[object Object]`; a thrown string as it is.
 */
export function describeError(error: unknown): string {
  if (typeof error === 'string') return error;
  if (!(error instanceof Error)) return inspect(error, { depth: 4, breakLength: Number.POSITIVE_INFINITY });
  let text = error.message;
  if (text === '' && error instanceof AggregateError) {
    text = error.errors.map((inner) => describeError(inner)).join('; ');
  }
  if (text === '') text = String((error as { code?: unknown }).code ?? error.name);
  if (error.cause !== undefined && !text.includes(describeError(error.cause))) {
    text = `${text} (${describeError(error.cause)})`;
  }
  return text;
}
