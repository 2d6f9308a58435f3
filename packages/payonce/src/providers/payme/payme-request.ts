import { isStoredId } from '../../core/stored-id.js';
import { jsonNestsDeeperThan } from '../../webhooks/json-nesting.js';
import { PAYME_ERROR_CODES, type PaymeRpcError, paymeError } from './payme-errors.js';

/** The Merchant API methods, in the order the docs list them. @see https://developer.help.paycom.uz/metody-merchant-api/ */
export const PAYME_METHODS = Object.freeze([
  'CheckPerformTransaction',
  'CreateTransaction',
  'PerformTransaction',
  'CancelTransaction',
  'CheckTransaction',
  'GetStatement',
  'SetFiscalData',
  'ChangePassword',
] as const);

/** One of {@link PAYME_METHODS}. */
export type PaymeMethod = (typeof PAYME_METHODS)[number];

/** A parsed JSON-RPC call: its `id` (echoed in the answer), method and params object. */
export interface PaymeCall {
  readonly id: number | string | null;
  readonly method: PaymeMethod;
  readonly params: Readonly<Record<string, unknown>>;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON body as an object, or `null` when it is not one. */
function parseBody(rawBody: Uint8Array | string): Record<string, unknown> | null {
  const bytes = typeof rawBody === 'string' ? new TextEncoder().encode(rawBody) : rawBody;
  if (jsonNestsDeeperThan(bytes, 64)) return null;
  try {
    const parsed: unknown = JSON.parse(typeof rawBody === 'string' ? rawBody : UTF8.decode(rawBody));
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Parses a Merchant API body: not JSON (or not an object) → -32700; no string `method` or no object `params` →
 * -32600; a method that is not one of the eight → -32601 with the method name as `data`. The JSON-RPC `id` is kept
 * for the answer even when the call is refused.
 * @see fixtures payme/errors.json "general".
 */
export function parsePaymeCall(
  rawBody: Uint8Array | string,
): { readonly call: PaymeCall } | { readonly id: number | string | null; readonly error: PaymeRpcError } {
  const body = parseBody(rawBody);
  if (body === null) return { id: null, error: paymeError(PAYME_ERROR_CODES.parse) };
  const id = typeof body.id === 'number' || typeof body.id === 'string' ? body.id : null;
  if (typeof body.method !== 'string' || !isObject(body.params)) {
    return { id, error: paymeError(PAYME_ERROR_CODES.invalidRequest) };
  }
  if (!(PAYME_METHODS as readonly string[]).includes(body.method)) {
    return { id, error: paymeError(PAYME_ERROR_CODES.methodNotFound, body.method.slice(0, 100)) };
  }
  return { call: { id, method: body.method as PaymeMethod, params: body.params } };
}

/** Thrown by the param readers for a field of the wrong type; answered -32600. */
export class PaymeParamError extends Error {
  constructor(readonly field: string) {
    super(`params.${field} is missing or of the wrong type`);
  }
}

/** `params[field]` as an id payonce can store: 1–64 printable ASCII characters (Payme's ids are 24). */
export function idParam(params: Readonly<Record<string, unknown>>, field: string): string {
  const value = params[field];
  if (!isStoredId(value)) throw new PaymeParamError(field);
  return value;
}

/** `params[field]` as a non-negative safe integer (amounts, times, reasons). */
export function intParam(params: Readonly<Record<string, unknown>>, field: string): number {
  const value = params[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new PaymeParamError(field);
  return value;
}

/** `params[field]` as an object. */
export function objectParam(params: Readonly<Record<string, unknown>>, field: string): Record<string, unknown> {
  const value = params[field];
  if (!isObject(value)) throw new PaymeParamError(field);
  return value;
}
