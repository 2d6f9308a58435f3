import { invalidParam, type JsonObject } from './wire/stripe-api-error.js';

/** Resolves an expandable field's id to its object (`latest_charge` → the Charge), or `undefined` when unknown. */
export type Expander = (field: string, id: string) => JsonObject | undefined;

const EXPANDABLE = new Set(['latest_charge', 'payment_intent', 'charge']);

/**
 * Applies `expand[]` to an answer: `latest_charge`, `payment_intent`, `charge`, and `data.<field>` on lists,
 * one level deep, as Stripe's expansion replaces an id with its object.
 * @throws {StripeApiError} 400 for a path the sandbox cannot expand.
 * @see https://docs.stripe.com/api/expanding_objects
 */
export function expandObject(object: JsonObject, paths: readonly string[] | undefined, resolve: Expander): JsonObject {
  if (paths === undefined || paths.length === 0) return object;
  let out = object;
  for (const path of paths) {
    const parts = path.split('.');
    if (parts.length === 2 && parts[0] === 'data' && Array.isArray(out.data)) {
      const field = parts[1]!;
      check(field, path);
      out = { ...out, data: (out.data as JsonObject[]).map((item) => expandField(item, field, resolve)) };
    } else if (parts.length === 1) {
      check(parts[0]!, path);
      out = expandField(out, parts[0]!, resolve);
    } else {
      throw invalidParam('expand', `This property cannot be expanded (${path.slice(0, 100)}).`);
    }
  }
  return out;
}

function check(field: string, path: string): void {
  if (!EXPANDABLE.has(field)) throw invalidParam('expand', `This property cannot be expanded (${path.slice(0, 100)}).`);
}

function expandField(object: JsonObject, field: string, resolve: Expander): JsonObject {
  const id = object[field];
  if (typeof id !== 'string') return object;
  const expanded = resolve(field, id);
  return expanded === undefined ? object : { ...object, [field]: expanded };
}
