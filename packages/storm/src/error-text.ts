import { inspect } from 'node:util';

/**
 * One line saying what was thrown, for a reason or a note: an `Error`'s message, a thrown string as it is, anything
 * else (an adapter that throws `{ code, detail }`) as `util.inspect` shows it on one line — never `[object Object]`.
 */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return inspect(error, { depth: 4, breakLength: Number.POSITIVE_INFINITY });
}
