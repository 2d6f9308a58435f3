import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { githubProfile } from '../../packages/payonce/src/webhooks/providers/github-profile.js';
import { standardWebhooksProfile } from '../../packages/payonce/src/webhooks/providers/standard-webhooks-profile.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { githubScheme } from '../../packages/payonce/src/webhooks/verify/github-scheme.js';
import { shopifyScheme } from '../../packages/payonce/src/webhooks/verify/shopify-scheme.js';
import type { SignatureScheme } from '../../packages/payonce/src/webhooks/verify/signature-scheme.js';
import { standardWebhooksScheme } from '../../packages/payonce/src/webhooks/verify/standard-webhooks-scheme.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';

// Issue #34 item 21: a refused signature is answered with the status the provider's own docs answer it with
// (docs/webhooks.md "Rejection status per provider"), unless the endpoint sets `rejectionStatus`.
const SW_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = new TextEncoder().encode('{"id":"evt_placeholder","type":"placeholder.event"}');

const unsigned: Record<string, { scheme: SignatureScheme; profile: ReturnType<typeof stripeProfile> }> = {
  stripe: { scheme: stripeScheme({ secrets: 'whsec_placeholder' }), profile: stripeProfile() },
  'standard-webhooks': { scheme: standardWebhooksScheme({ secrets: SW_SECRET }), profile: standardWebhooksProfile() },
  github: { scheme: githubScheme({ secrets: 'placeholder-secret' }), profile: githubProfile() },
  shopify: { scheme: shopifyScheme({ secrets: 'placeholder-secret' }), profile: githubProfile() },
};

function intakeOf(overrides: Partial<Record<string, 400 | 401>> = {}) {
  const guard = new IdempotencyGuard(new MemoryStore(), { clock: new ManualClock(1_767_225_600_000) });
  const endpoints = Object.fromEntries(
    Object.entries(unsigned).map(([name, { scheme, profile }]) => [
      name,
      {
        scheme,
        profile,
        handler: () => undefined,
        ...(overrides[name] === undefined ? {} : { rejectionStatus: overrides[name] }),
      },
    ]),
  );
  return createWebhookIntake({ guard, endpoints });
}

const refuse = async (intake: ReturnType<typeof intakeOf>, endpoint: string) => {
  const response = await intake.receive({ endpoint, rawBody: body, headers: { 'content-type': 'application/json' } });
  const problem = JSON.parse(new TextDecoder().decode(response.body)) as { code: string; status: number };
  return { status: response.status, code: problem.code, problemStatus: problem.status };
};

describe('default rejection status of a missing signature, per provider', () => {
  it.each([
    ['stripe', 400],
    ['standard-webhooks', 400],
    ['github', 401],
    ['shopify', 401],
  ] as const)('%s: %i by default, WEBHOOK_SIGNATURE_INVALID', async (endpoint, status) => {
    expect(await refuse(intakeOf(), endpoint)).toEqual({
      status,
      code: 'WEBHOOK_SIGNATURE_INVALID',
      problemStatus: status,
    });
  });

  it("an endpoint's rejectionStatus overrides its scheme's default both ways", async () => {
    const intake = intakeOf({ stripe: 401, 'standard-webhooks': 401, github: 400, shopify: 400 });
    expect((await refuse(intake, 'stripe')).status).toBe(401);
    expect((await refuse(intake, 'standard-webhooks')).status).toBe(401);
    expect((await refuse(intake, 'github')).status).toBe(400);
    expect((await refuse(intake, 'shopify')).status).toBe(400);
  });

  it('the built-in schemes say which status their provider documents', () => {
    expect(unsigned.stripe?.scheme.rejectionStatus).toBe(400);
    expect(unsigned['standard-webhooks']?.scheme.rejectionStatus).toBe(400);
    expect(unsigned.github?.scheme.rejectionStatus).toBeUndefined();
  });

  it('refuses a scheme whose rejectionStatus is neither 400 nor 401 at construction, naming it', () => {
    const odd = { name: 'odd', rejectionStatus: 403, verify: () => ({}) } as unknown as SignatureScheme;
    const guard = new IdempotencyGuard(new MemoryStore());
    expect(() =>
      createWebhookIntake({ guard, endpoints: { odd: { scheme: odd, profile: stripeProfile(), handler: () => 0 } } }),
    ).toThrow(/endpoints\.odd\.scheme\.rejectionStatus/);
  });
});
