import { isStoredId } from '../../core/stored-id.js';
import { jsonNestsDeeperThan } from '../../webhooks/json-nesting.js';

/** The five webhooks, in the order of the payment flow. @see https://developer.uzumbank.uz/en/merchant/ */
export const UZUM_OPERATIONS = Object.freeze(['check', 'create', 'confirm', 'reverse', 'status'] as const);

/** One of {@link UZUM_OPERATIONS}: the last path segment Uzum Bank posts to (`/check`, …). */
export type UzumOperation = (typeof UZUM_OPERATIONS)[number];

/** Thrown by a field reader: the named field is missing or of the wrong type (answered 10005). */
export class UzumParamError extends Error {
  constructor(readonly field: string) {
    super(`field ${field} is missing or invalid`);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The operation a path names (`/check`, `check`, `/uzum/check/`), or `null`. */
export function operationOf(path: string): UzumOperation | null {
  const last =
    path
      .split('?')[0]
      ?.split('/')
      .filter((part) => part !== '')
      .pop() ?? '';
  return (UZUM_OPERATIONS as readonly string[]).includes(last) ? (last as UzumOperation) : null;
}

/** The JSON body as an object, or `null` when it is not one (answered 10002). */
export function parseUzumBody(rawBody: Uint8Array | string): Record<string, unknown> | null {
  const bytes = typeof rawBody === 'string' ? new TextEncoder().encode(rawBody) : rawBody;
  if (jsonNestsDeeperThan(bytes, 64)) return null;
  try {
    const parsed: unknown = JSON.parse(typeof rawBody === 'string' ? rawBody : UTF8.decode(rawBody));
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** `body[name]` as a safe integer (`amount` must also be positive). @throws {UzumParamError} otherwise. */
export function intField(body: Readonly<Record<string, unknown>>, name: string, positive = false): number {
  const value = body[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || (positive && value <= 0)) {
    throw new UzumParamError(name);
  }
  return value;
}

/** `body.transId` as a storable id (1–64 printable ASCII). @throws {UzumParamError} otherwise. */
export function transIdField(body: Readonly<Record<string, unknown>>): string {
  const value = body.transId;
  if (!isStoredId(value)) throw new UzumParamError('transId');
  return value;
}

/** `body.params` as an object. @throws {UzumParamError} otherwise. */
export function paramsField(body: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const value = body.params;
  if (!isObject(value)) throw new UzumParamError('params');
  return value;
}
