import type { PaymeRpcAnswer } from './payme-rpc.js';

/** JSON with object keys sorted, so two answers compare by content, not key order. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** What a repeat must reproduce: the whole `result`, or the error `code` (messages may be worded anew). */
export function answerKey(answer: PaymeRpcAnswer | null): string {
  if (answer === null) return 'no JSON answer';
  if (answer.error !== undefined && answer.error !== null) return `error ${answer.error.code}`;
  return `result ${stable(answer.result)}`;
}

/** The error code of an answer, or `null` when it has none. */
export function errorCode(answer: PaymeRpcAnswer | null): number | null {
  const code = answer?.error?.code;
  return typeof code === 'number' ? code : null;
}
