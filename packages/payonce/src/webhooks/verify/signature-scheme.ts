import type { HeadersInput } from './headers.js';

/** What a verifier is given: the exact request bytes, the headers and the receiver's clock. */
export interface VerifyInput {
  /** The request body exactly as received. Anything else throws `RawBodyRequired`. */
  readonly rawBody: Uint8Array;
  /** Request headers; names are matched case-insensitively. */
  readonly headers: HeadersInput;
  /** The receiver's current time, milliseconds since the Unix epoch (e.g. `clock.now()`). */
  readonly nowMs: number;
}

/**
 * Why a delivery was rejected. Stable strings, for the delivery journal and metrics.
 * - `missing_header`: a required header is absent or empty.
 * - `malformed_header`: a header is present but cannot be parsed (wrong prefix, not hex/base64, wrong length,
 *   non-ASCII, no timestamp in a Stripe header…).
 * - `no_supported_signature`: the header parses, but carries only schemes this verifier ignores (Stripe `v0`,
 *   Standard Webhooks `v1a`).
 * - `signature_mismatch`: no configured secret produced any of the presented signatures (or credentials).
 * - `timestamp_malformed`: the signed timestamp is not an integer (`hello`, `1.5`, `+1`, `0x10`).
 * - `timestamp_negative`: the signed timestamp is below zero.
 * - `timestamp_wrong_units`: more than 11 digits, i.e. milliseconds or finer instead of Unix seconds.
 * - `timestamp_too_old` / `timestamp_too_new`: authentic, but outside the tolerance window.
 * - `malformed_body`: the scheme signs fields inside the body (Click) or needs UTF-8 (Standard Webhooks) and
 *   the body does not allow it.
 * - `verifier_error`: a custom verification function threw.
 */
export type RejectReason =
  | 'missing_header'
  | 'malformed_header'
  | 'no_supported_signature'
  | 'signature_mismatch'
  | 'timestamp_malformed'
  | 'timestamp_negative'
  | 'timestamp_wrong_units'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'malformed_body'
  | 'verifier_error';

/** An authentic delivery. */
export interface VerifyAccepted {
  readonly ok: true;
  /** Name of the scheme that accepted it, e.g. `stripe`. */
  readonly scheme: string;
  /** Index, in the configured list, of the secret that matched (tells when an old secret can be retired). */
  readonly secretIndex: number;
  /** The signed timestamp in Unix seconds, or `null` for schemes without one (GitHub, Shopify, Click, Basic). */
  readonly timestampSec: number | null;
}

/** A rejected delivery. `detail` is for humans; it never contains a secret or a presented signature. */
export interface VerifyRejected {
  readonly ok: false;
  readonly scheme: string;
  readonly reason: RejectReason;
  /** The header (as configured, e.g. `Stripe-Signature`) the reason is about, if any. */
  readonly header: string | null;
  readonly detail: string;
}

/** Outcome of one verification. */
export type VerifyResult = VerifyAccepted | VerifyRejected;

/**
 * One signature scheme. `verify` never throws on anything a sender controls (headers, body bytes); it throws
 * only on caller bugs: `RawBodyRequired` when `rawBody` is not bytes, `InvalidVerifyInput` for bad headers
 * or `nowMs`.
 * @see docs/design.md §5 "Signature schemes".
 */
export interface SignatureScheme {
  readonly name: string;
  /**
   * HTTP status the provider's own documentation answers a missing, wrong or stale signature with: the intake's
   * default for an endpoint using this scheme (an endpoint's `rejectionStatus` overrides it). `stripeScheme` and
   * `standardWebhooksScheme` say 400; absent means 401 (RFC 9110 §15.5.2). docs/webhooks.md lists every scheme.
   */
  readonly rejectionStatus?: 400 | 401;
  verify(input: VerifyInput): VerifyResult | Promise<VerifyResult>;
}

/** A scheme whose verification is synchronous (every built-in scheme except `customScheme`). */
export interface SyncSignatureScheme extends SignatureScheme {
  verify(input: VerifyInput): VerifyResult;
}

/** Builds a rejection. */
export function reject(scheme: string, reason: RejectReason, header: string | null, detail: string): VerifyRejected {
  return { ok: false, scheme, reason, header, detail };
}

/** Builds an acceptance. */
export function accept(scheme: string, secretIndex: number, timestampSec: number | null): VerifyAccepted {
  return { ok: true, scheme, secretIndex, timestampSec };
}
