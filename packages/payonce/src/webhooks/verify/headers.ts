/** One header value as HTTP stacks hand it over: Node gives `string[]` for repeated fields (`set-cookie`). */
export type HeaderValue = string | readonly string[] | undefined;

/** Plain header record, e.g. Node's `IncomingHttpHeaders` or a fixture's `headers`; names in any case. */
export type HeaderRecord = { readonly [name: string]: HeaderValue };

/** The part of the Fetch `Headers` class (undici, hono, Request.headers) that verification calls. */
export interface HeadersLike {
  get(name: string): string | null;
}

/** Request headers for verification: a plain record or a `Headers`-like object. */
export type HeadersInput = HeaderRecord | HeadersLike;

function isHeadersLike(headers: HeadersInput): headers is HeadersLike {
  return typeof (headers as { get?: unknown }).get === 'function';
}

const OWS = /^[ \t]+|[ \t]+$/g;

/**
 * The value of header `name`, looked up case-insensitively (RFC 9110 §5.1). Repeated fields (array values,
 * or several record keys differing only in case) are combined with `", "` as RFC 9110 §5.3 and
 * `Headers.get` do. Leading and trailing spaces/tabs are removed (RFC 9110 §5.5). Returns `undefined` when
 * the header is absent or empty; values that are not strings are treated as absent, never thrown on.
 */
export function headerValue(headers: HeadersInput, name: string): string | undefined {
  let raw: string | undefined;
  if (isHeadersLike(headers)) {
    const got = headers.get(name);
    raw = typeof got === 'string' ? got : undefined;
  } else {
    const wanted = name.toLowerCase();
    const parts: string[] = [];
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() !== wanted) continue;
      const value: unknown = headers[key];
      if (typeof value === 'string') parts.push(value);
      else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') parts.push(v);
    }
    raw = parts.length === 0 ? undefined : parts.join(', ');
  }
  if (raw === undefined) return undefined;
  const trimmed = raw.replace(OWS, '');
  return trimmed === '' ? undefined : trimmed;
}

/**
 * How many values header `name` was given: the non-empty strings of an array value plus those of record keys
 * that differ only in case. A Fetch `Headers`-like object combines repeated fields itself, so it counts as 0 or
 * 1. Schemes whose header must appear once (`Stripe-Signature`) refuse a count above 1.
 */
export function headerValueCount(headers: HeadersInput, name: string): number {
  if (isHeadersLike(headers)) return headerValue(headers, name) === undefined ? 0 : 1;
  const wanted = name.toLowerCase();
  let count = 0;
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    const value: unknown = headers[key];
    const values: unknown[] = Array.isArray(value) ? value : [value];
    count += values.filter((v) => typeof v === 'string' && v.replace(OWS, '') !== '').length;
  }
  return count;
}

/**
 * Whether header `name` was handed over as a list: a record value that is an array (of any length, even one
 * element). Node never gives a list for request headers other than `set-cookie`, so a list means the caller
 * built it; a Fetch `Headers`-like object never does. Schemes that follow stripe-node refuse it.
 */
export function headerGivenAsList(headers: HeadersInput, name: string): boolean {
  if (isHeadersLike(headers)) return false;
  const wanted = name.toLowerCase();
  return Object.keys(headers).some((key) => key.toLowerCase() === wanted && Array.isArray(headers[key]));
}
