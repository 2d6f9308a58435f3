/**
 * A one-line explanation of `error` for the terminal: its message, or for an `AggregateError` with an empty
 * message (pg/mysql2 on a refused connection to every address) the messages inside, plus the `cause`.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
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
