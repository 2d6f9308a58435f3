import { invalidParam, type JsonObject } from './stripe-api-error.js';

/**
 * Typed reads of request parameters that came either form-encoded (every value a string) or as JSON. Each
 * reader returns `undefined` when the parameter is absent (or an empty form value, Stripe's "unset") and throws
 * Stripe's 400 `invalid_request_error` with `param` naming it when present but wrong.
 */
export class Params {
  constructor(
    readonly raw: JsonObject,
    /** Prefix for `param` in errors (`metadata[` for nested readers). */
    private readonly prefix = '',
  ) {}

  private name(key: string): string {
    return this.prefix === '' ? key : `${this.prefix}[${key}]`;
  }

  /** True when the parameter was sent (also as an empty value). */
  has(key: string): boolean {
    return Object.hasOwn(this.raw, key);
  }

  private value(key: string): unknown {
    if (!Object.hasOwn(this.raw, key)) return undefined;
    const value = this.raw[key];
    return value === '' ? undefined : value;
  }

  /** A string of at most `maxLength` characters. */
  string(key: string, maxLength = 5_000): string | undefined {
    const value = this.value(key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw invalidParam(this.name(key), `Invalid string: ${this.name(key)}`);
    if (value.length > maxLength) {
      throw invalidParam(this.name(key), `Invalid string: must be at most ${maxLength} characters`, 'string_too_long');
    }
    return value;
  }

  /** An integer (form value "1999" or JSON 1999) from `min` to `max`. */
  integer(key: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const value = this.value(key);
    if (value === undefined || value === null) return undefined;
    const n =
      typeof value === 'number' ? value : typeof value === 'string' && /^-?\d{1,16}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n)) {
      throw invalidParam(this.name(key), `Invalid integer: ${String(value).slice(0, 40)}`, 'parameter_invalid_integer');
    }
    if (n < min || n > max) {
      throw invalidParam(this.name(key), `Invalid integer: must be from ${min} to ${max}`, 'parameter_invalid_integer');
    }
    return n;
  }

  /** `true`/`false` (form "true"/"false"). */
  boolean(key: string): boolean | undefined {
    const value = this.value(key);
    if (value === undefined || value === null) return undefined;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    throw invalidParam(this.name(key), `Invalid boolean: ${String(value).slice(0, 40)}`);
  }

  /** One of `allowed`. */
  oneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    const value = this.string(key, 100);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      throw invalidParam(this.name(key), `Invalid ${this.name(key)}: must be one of ${allowed.join(', ')}`);
    }
    return value as T;
  }

  /** A nested hash (`shipping[address][city]`). */
  object(key: string): Params | undefined {
    const value = this.value(key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw invalidParam(this.name(key), `Invalid object: ${this.name(key)}`);
    }
    return new Params(value as JsonObject, this.name(key));
  }

  /** A list of strings (`expand[]=a&expand[]=b`, `expand[0]=a`, or a JSON array). */
  strings(key: string, maxItems = 100): string[] | undefined {
    const value = this.value(key);
    if (value === undefined || value === null) return undefined;
    const items = Array.isArray(value) ? value : typeof value === 'object' ? Object.values(value) : [value];
    if (items.length > maxItems || !items.every((item) => typeof item === 'string')) {
      throw invalidParam(this.name(key), `Invalid array: ${this.name(key)}`);
    }
    return items as string[];
  }

  /**
   * Stripe metadata: up to 50 keys of at most 40 characters, values strings of at most 500 characters. An empty
   * value unsets the key (returned as `null`).
   * @see https://docs.stripe.com/api/metadata
   */
  metadata(key = 'metadata'): Record<string, string | null> | undefined {
    if (!Object.hasOwn(this.raw, key)) return undefined;
    const value = this.raw[key];
    if (value === '' || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value)) throw invalidParam(key, 'Invalid metadata: must be a hash');
    const entries = Object.entries(value as JsonObject);
    if (entries.length > 50) throw invalidParam(key, 'Invalid metadata: at most 50 keys');
    const out: Record<string, string | null> = {};
    for (const [k, v] of entries) {
      if (k.length > 40) throw invalidParam(`${key}[${k.slice(0, 40)}]`, 'Metadata keys must be at most 40 characters');
      if (v === '' || v === null) out[k] = null;
      else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
        const text = String(v);
        if (text.length > 500) throw invalidParam(`${key}[${k}]`, 'Metadata values must be at most 500 characters');
        out[k] = text;
      } else throw invalidParam(`${key}[${k}]`, 'Metadata values must be strings');
    }
    return out;
  }

  /** Throws `parameter_unknown` for a key outside `known` (Stripe refuses unknown parameters). */
  only(known: readonly string[]): this {
    for (const key of Object.keys(this.raw)) {
      if (!known.includes(key)) {
        throw invalidParam(
          this.name(key),
          `Received unknown parameter: ${this.name(key).slice(0, 100)}`,
          'parameter_unknown',
        );
      }
    }
    return this;
  }
}

/** Applies a metadata update: `null` deletes a key. */
export function mergeMetadata(
  current: Readonly<Record<string, string>>,
  change: Readonly<Record<string, string | null>> | undefined,
): Record<string, string> {
  if (change === undefined) return { ...current };
  const out: Record<string, string> = { ...current };
  for (const [k, v] of Object.entries(change)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}
