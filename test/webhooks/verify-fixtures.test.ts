import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clickScheme } from '../../packages/payonce/src/webhooks/verify/click-scheme.js';
import { githubScheme } from '../../packages/payonce/src/webhooks/verify/github-scheme.js';
import { hmacScheme } from '../../packages/payonce/src/webhooks/verify/hmac-scheme.js';
import { paymeAuthScheme } from '../../packages/payonce/src/webhooks/verify/payme-auth-scheme.js';
import { shopifyScheme } from '../../packages/payonce/src/webhooks/verify/shopify-scheme.js';
import type { RejectReason, SyncSignatureScheme } from '../../packages/payonce/src/webhooks/verify/signature-scheme.js';
import { standardWebhooksScheme } from '../../packages/payonce/src/webhooks/verify/standard-webhooks-scheme.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { bodyBytes, fixtureFiles, fixturesRoot, isVector, readFixture, type Vector } from './fixtures.js';

/** The scheme that verifies each provider directory's vectors. A new provider directory fails until added. */
const schemeFor: Record<string, (v: Vector) => SyncSignatureScheme> = {
  'standard-webhooks': (v) => standardWebhooksScheme({ secrets: v.secret }),
  svix: (v) => standardWebhooksScheme({ secrets: v.secret }),
  stripe: (v) => stripeScheme({ secrets: v.secret, toleranceSeconds: v.tolerance_seconds ?? 300 }),
  github: (v) => githubScheme({ secrets: v.secret }),
  shopify: (v) => shopifyScheme({ secrets: v.secret }),
  payme: (v) => paymeAuthScheme({ keys: v.secret }),
  click: (v) => clickScheme({ secrets: v.secret }),
};

/**
 * Where payonce deliberately differs from the reference library a vector documents. The fixture's own
 * `expected` is still asserted to be what the file says, so a changed fixture is noticed.
 */
const deviations: Record<string, { fixtureSays: 'valid' | 'invalid'; reason: RejectReason; why: string }> = {
  'stripe/signature/11-future-timestamp.json': {
    fixtureSays: 'valid',
    reason: 'timestamp_too_new',
    why: 'issue 4: the Stripe window applies in both directions; stripe-node only rejects old events',
  },
};

/** The reason payonce gives for invalid vectors it knows; vectors not listed only need to be rejected. */
const reasons: Record<string, RejectReason> = {
  'click/signature/03-complete-signed-with-prepare-formula.json': 'signature_mismatch',
  'click/signature/04-prepare-wrong-secret.json': 'signature_mismatch',
  'click/signature/05-amount-string-formatting.json': 'signature_mismatch',
  'github/signature/03-octokit-wrong-signature.json': 'malformed_header',
  'github/signature/04-octokit-garbage-signature.json': 'malformed_header',
  'github/signature/05-octokit-wrong-secret.json': 'signature_mismatch',
  'github/signature/08-reserialized-lowercase-escapes.json': 'signature_mismatch',
  'github/signature/09-docs-vector-missing-prefix.json': 'malformed_header',
  'payme/auth/02-wrong-password.json': 'signature_mismatch',
  'payme/auth/03-missing-authorization.json': 'missing_header',
  'payme/auth/04-wrong-login.json': 'signature_mismatch',
  'shopify/signature/02-invalid-hmac-fake.json': 'malformed_header',
  'shopify/signature/03-missing-hmac.json': 'missing_header',
  'shopify/signature/04-body-reserialized.json': 'signature_mismatch',
  'shopify/signature/05-hex-instead-of-base64.json': 'malformed_header',
  'standard-webhooks/signature/04-rust-wrong-signature.json': 'signature_mismatch',
  'standard-webhooks/signature/05-go-invalid-signature.json': 'signature_mismatch',
  'standard-webhooks/signature/06-last-char-altered.json': 'signature_mismatch',
  'standard-webhooks/signature/07-garbage-suffix.json': 'signature_mismatch',
  'standard-webhooks/signature/08-empty-v1.json': 'signature_mismatch',
  'standard-webhooks/signature/09-truncated-header.json': 'signature_mismatch',
  'standard-webhooks/signature/11-multi-signature-none-valid.json': 'signature_mismatch',
  'standard-webhooks/signature/12-timestamp-too-old.json': 'timestamp_too_old',
  'standard-webhooks/signature/14-timestamp-too-new.json': 'timestamp_too_new',
  'standard-webhooks/signature/15-missing-webhook-id.json': 'missing_header',
  'standard-webhooks/signature/16-missing-timestamp.json': 'missing_header',
  'standard-webhooks/signature/17-missing-signature.json': 'missing_header',
  'standard-webhooks/signature/18-non-integer-timestamp.json': 'timestamp_malformed',
  'standard-webhooks/signature/19-body-reserialized.json': 'signature_mismatch',
  'standard-webhooks/signature/20-only-asymmetric-v1a.json': 'no_supported_signature',
  'stripe/signature/02-bad-signature.json': 'signature_mismatch',
  'stripe/signature/03-only-v0-scheme.json': 'no_supported_signature',
  'stripe/signature/04-outside-tolerance.json': 'timestamp_too_old',
  'stripe/signature/07-malformed-header.json': 'malformed_header',
  'stripe/signature/08-default-tolerance-exceeded.json': 'timestamp_too_old',
  'stripe/signature/09-body-reserialized.json': 'signature_mismatch',
  'stripe/signature/10-secret-with-trailing-space.json': 'signature_mismatch',
  'svix/signature/03-invalid-signature.json': 'signature_mismatch',
};

const files = [...fixtureFiles('signature'), ...fixtureFiles('auth')];
const vectors = files.filter((f) => isVector(readFixture(f)));
const others = files.filter((f) => !isVector(readFixture(f)));

function nowMsOf(v: Vector): number {
  return v.timestamp_now === null ? Date.now() : v.timestamp_now * 1000;
}

describe('signature fixtures', () => {
  it('finds the vector files (58 per the README)', () => {
    expect(vectors.length + others.length).toBeGreaterThanOrEqual(58);
    expect(vectors.length).toBeGreaterThan(50);
  });

  it.each(vectors)('%s', (file) => {
    const vector = readFixture(file) as Vector;
    const provider = file.split('/')[0] ?? '';
    const make = schemeFor[provider];
    if (make === undefined) throw new Error(`no scheme registered for provider directory ${provider}`);
    const result = make(vector).verify({
      rawBody: bodyBytes(vector.raw_body),
      headers: vector.headers,
      nowMs: nowMsOf(vector),
    });
    const deviation = deviations[file];
    if (deviation) {
      expect(vector.expected).toBe(deviation.fixtureSays);
      expect(result).toMatchObject({ ok: false, reason: deviation.reason });
      return;
    }
    expect(result.ok ? 'valid' : 'invalid').toBe(vector.expected);
    const reason = reasons[file];
    if (reason !== undefined) expect(result).toMatchObject({ ok: false, reason });
    if (!result.ok) expect(result.detail).not.toContain(vector.secret);
  });

  it('lists only existing files in the deviation and reason tables', () => {
    for (const file of [...Object.keys(deviations), ...Object.keys(reasons)]) {
      expect(existsSync(path.join(fixturesRoot, file)), file).toBe(true);
    }
  });

  it('knows every file with a different schema', () => {
    expect(others.sort()).toEqual([
      'stripe/signature/hmac-primitive-vectors.json',
      'svix/signature/large-payload-vectors.json',
    ]);
  });

  it('matches the stripe-node HMAC primitive vectors through the generic HMAC scheme', () => {
    const file = readFixture('stripe/signature/hmac-primitive-vectors.json') as {
      secret: string;
      vectors: { name: string; payload: string; expected_hex: string }[];
    };
    expect(file.vectors.length).toBeGreaterThan(0);
    const scheme = hmacScheme({ secrets: file.secret, header: 'X-Sig', algorithm: 'sha256', encoding: 'hex' });
    for (const v of file.vectors) {
      const ok = scheme.verify({ rawBody: bodyBytes(v.payload), headers: { 'x-sig': v.expected_hex }, nowMs: 0 });
      expect(ok.ok, v.name).toBe(true);
      const flipped = bodyBytes(`${v.payload} `);
      expect(scheme.verify({ rawBody: flipped, headers: { 'x-sig': v.expected_hex }, nowMs: 0 }).ok, v.name).toBe(
        false,
      );
    }
  });

  it('verifies the Svix large-payload vectors (1 MiB and 256 KiB bodies)', () => {
    const file = readFixture('svix/signature/large-payload-vectors.json') as {
      secret: string;
      msg_id: string;
      timestamp: number;
      timestamp_now: number;
      raw_body_char: string;
      vectors: { raw_body_repeat: number; expected_signature: string; expected: 'valid' | 'invalid' }[];
    };
    const scheme = standardWebhooksScheme({ secrets: file.secret });
    for (const v of file.vectors) {
      const result = scheme.verify({
        rawBody: bodyBytes(file.raw_body_char.repeat(v.raw_body_repeat)),
        headers: {
          'webhook-id': file.msg_id,
          'webhook-timestamp': String(file.timestamp),
          'webhook-signature': v.expected_signature,
        },
        nowMs: file.timestamp_now * 1000,
      });
      expect(result.ok ? 'valid' : 'invalid', String(v.raw_body_repeat)).toBe(v.expected);
    }
  });

  it('fails every valid JSON vector once its body is re-serialised', () => {
    let checked = 0;
    for (const file of vectors) {
      const vector = readFixture(file) as Vector;
      if (vector.expected !== 'valid' || deviations[file]) continue;
      let reserialised: string;
      try {
        reserialised = JSON.stringify(JSON.parse(vector.raw_body));
      } catch {
        continue;
      }
      if (reserialised === vector.raw_body) continue;
      const provider = file.split('/')[0] ?? '';
      const scheme = schemeFor[provider]?.(vector);
      if (!scheme || provider === 'payme') continue; // Basic auth does not cover the body
      const result = scheme.verify({
        rawBody: bodyBytes(reserialised),
        headers: vector.headers,
        nowMs: nowMsOf(vector),
      });
      expect(result, file).toMatchObject({ ok: false, reason: 'signature_mismatch' });
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });
});
