import qs from 'qs';
import { type JsonObject, StripeApiError } from './stripe-api-error.js';

/** Limits on one request's parameters: nesting depth, number of parameters, array length, bytes. */
export const FORM_LIMITS = Object.freeze({
  /** Deepest bracket nesting accepted (`a[b][c][d][e]` is depth 4). */
  depth: 5,
  /** Parameters in one body or query string. */
  parameters: 1_000,
  /** Highest array index (`items[99]`). */
  arrayLength: 100,
  /** Body size in bytes (fastify `bodyLimit`). */
  bodyBytes: 256 * 1024,
});

function tooComplex(reason: string): StripeApiError {
  return new StripeApiError(400, 'invalid_request_error', `Invalid request: ${reason}.`, {
    code: 'parameter_invalid',
  });
}

/**
 * Parses Stripe's form encoding (`application/x-www-form-urlencoded` with bracket notation: `metadata[order_id]=…`,
 * `payment_method_types[]=card`, `expand[0]=latest_charge`, nested objects) into plain objects, arrays and strings,
 * with {@link FORM_LIMITS}. Used for POST bodies and GET query strings alike.
 * @throws {StripeApiError} 400 invalid_request_error when nesting, parameter count or an array index is over a limit.
 * @see https://docs.stripe.com/api/metadata; https://docs.stripe.com/api/expanding_objects
 */
export function parseStripeForm(text: string): JsonObject {
  try {
    return qs.parse(text, {
      depth: FORM_LIMITS.depth,
      strictDepth: true,
      parameterLimit: FORM_LIMITS.parameters,
      arrayLimit: FORM_LIMITS.arrayLength,
      throwOnLimitExceeded: true,
      allowPrototypes: false,
      plainObjects: true,
      parseArrays: true,
    }) as JsonObject;
  } catch (error) {
    if (error instanceof RangeError) throw tooComplex(limitBroken(error.message));
    throw tooComplex('the body could not be read');
  }
}

/** Which limit a qs RangeError is about, in our words. */
function limitBroken(message: string): string {
  if (/depth/i.test(message)) return `parameters nest deeper than ${FORM_LIMITS.depth} levels`;
  if (/array/i.test(message)) return `an array has more than ${FORM_LIMITS.arrayLength} items`;
  return `more than ${FORM_LIMITS.parameters} parameters`;
}

/**
 * Parses a JSON request body (the sandbox accepts JSON besides Stripe's form encoding).
 * @throws {StripeApiError} 400 when it is not a JSON object or nests deeper than 20 levels.
 */
export function parseJsonBody(text: string): JsonObject {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new StripeApiError(400, 'invalid_request_error', 'Invalid JSON in the request body.', {
      code: 'parameter_invalid',
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StripeApiError(400, 'invalid_request_error', 'The request body must be a JSON object.');
  }
  if (depthOf(value) > 20) throw tooComplex('the JSON body nests deeper than 20 levels');
  return value as JsonObject;
}

/** Depth of nested objects/arrays, stopping early past 21 (no recursion on attacker input). */
function depthOf(root: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > 20) return deepest;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return deepest;
}

function encodePart(text: string): string {
  return encodeURIComponent(text).replace(/%5B/g, '[').replace(/%5D/g, ']');
}

/**
 * Encodes `params` the way Stripe's SDKs do: nested objects as `a[b]=…`, arrays as `a[0]=…`, `null` as an empty
 * value (Stripe's "unset"), `undefined` skipped. The one encoder the sandbox's own clients (SandboxClient, the
 * storm) use, so they send what the official SDK sends.
 * @example encodeStripeForm({ amount: 1999, metadata: { order_id: 'o1' } }) // 'amount=1999&metadata[order_id]=o1'
 */
export function encodeStripeForm(params: JsonObject): string {
  const pairs: string[] = [];
  const visit = (key: string, value: unknown): void => {
    if (value === undefined) return;
    if (value === null || typeof value !== 'object') {
      pairs.push(`${encodePart(key)}=${encodePart(value === null ? '' : String(value))}`);
      return;
    }
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [k, v] of entries) visit(`${key}[${k}]`, v);
  };
  for (const [key, value] of Object.entries(params)) visit(key, value);
  return pairs.join('&');
}
