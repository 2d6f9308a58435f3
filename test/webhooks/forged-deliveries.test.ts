import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { createWebhookIntake, type WebhookIntakeOptions } from '../../packages/payonce/src/webhooks/intake.js';
import { MemoryDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/memory-delivery-journal.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { customScheme } from '../../packages/payonce/src/webhooks/verify/custom-scheme.js';
import { headerValue } from '../../packages/payonce/src/webhooks/verify/headers.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

/** An intake whose test scheme accepts a delivery only with `x-test-auth: ok`. */
function world(options: Partial<WebhookIntakeOptions> = {}) {
  const clock = new ManualClock(T0);
  const journal = new MemoryDeliveryJournal({ clock });
  const limited: string[] = [];
  const intake = createWebhookIntake({
    guard: new IdempotencyGuard(new MemoryStore(), { clock }),
    journal,
    endpoints: {
      stripe: {
        profile: stripeProfile(),
        scheme: customScheme({ name: 'test', verify: ({ headers }) => headerValue(headers, 'x-test-auth') === 'ok' }),
        handler: () => undefined,
      },
    },
    ...options,
  });
  intake.on('refusal-limited', (event) => limited.push(`${event.client}:${event.code}`));
  return { clock, journal, intake, limited };
}

function eventBody(id: string): Uint8Array {
  const padding = 'x'.repeat(40_000);
  return Buffer.from(
    JSON.stringify({
      id,
      type: 'payment_intent.succeeded',
      created: T0 / 1000,
      data: { object: { id: 'pi_placeholder', object: 'payment_intent', amount: 500, currency: 'eur', padding } },
    }),
  );
}

function deliver(intake: ReturnType<typeof world>['intake'], id: string, client: string, auth = 'forged') {
  const headers = { 'content-type': 'application/json', 'x-test-auth': auth };
  return intake.receive({ endpoint: 'stripe', rawBody: eventBody(id), headers, client });
}

describe('forged deliveries do not grow the journal without bound (issue #34 item 7)', () => {
  it('journals an unauthenticated delivery without its body', async () => {
    const { intake, journal } = world();
    const response = await deliver(intake, 'evt_forged_1', '192.0.2.1');
    expect(response.status).toBe(401);
    const [row] = journal.all();
    expect(row).toMatchObject({ decision: 'rejected', signature: 'signature_mismatch', payload: null });
    expect(JSON.stringify(row).length).toBeLessThan(1_000);
  });

  it('limits refused deliveries per client: 429 with Retry-After and no journal row past the burst', async () => {
    const { intake, journal, clock, limited } = world({ refusalLimit: { burst: 3, perMinute: 6 } });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await deliver(intake, `evt_f${i}`, '192.0.2.1')).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
    expect(journal.all()).toHaveLength(3);
    expect(limited).toHaveLength(7);
    expect(limited[0]).toBe('192.0.2.1:WEBHOOK_SIGNATURE_INVALID');
    const over = await deliver(intake, 'evt_f10', '192.0.2.1');
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(Buffer.from(over.body).toString())).toMatchObject({ code: 'WEBHOOK_REFUSALS_LIMITED' });

    // Another client has its own bucket; an authentic delivery from the limited client is never limited.
    expect((await deliver(intake, 'evt_other', '198.51.100.7')).status).toBe(401);
    expect((await deliver(intake, 'evt_real', '192.0.2.1', 'ok')).status).toBe(200);
    expect(journal.all()).toHaveLength(5);

    // The bucket refills with time (6 a minute: one every 10 s).
    clock.advance(10_000);
    expect((await deliver(intake, 'evt_f11', '192.0.2.1')).status).toBe(401);
    expect((await deliver(intake, 'evt_f12', '192.0.2.1')).status).toBe(429);
  });

  it('is on by default and can be turned off; bad limits are refused at construction', async () => {
    const on = world();
    const statuses: number[] = [];
    for (let i = 0; i < 105; i++) statuses.push((await deliver(on.intake, `evt_d${i}`, '192.0.2.9')).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const off = world({ refusalLimit: false });
    for (let i = 0; i < 25; i++) expect((await deliver(off.intake, `evt_o${i}`, '192.0.2.9')).status).toBe(401);
    expect(off.journal.all()).toHaveLength(25);
    expect(() => world({ refusalLimit: { burst: 0 } })).toThrow(InvalidOption);
    expect(() => world({ refusalLimit: { perMinute: Number.NaN } })).toThrow(InvalidOption);
  });
});
