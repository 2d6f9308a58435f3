import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { logIntake } from '../../packages/payonce/src/observe/log-events.js';
import { createLogger } from '../../packages/payonce/src/observe/logger.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createWebhookIntake, type WebhookHandler } from '../../packages/payonce/src/webhooks/intake.js';
import { MemoryDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/memory-delivery-journal.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { invoicePaidBody, STRIPE_SECRET, signedStripeHeaders } from './support/stripe-deliveries.js';

// How the intake reports what went wrong where nobody may be looking: a handler that throws is logged through the
// intake's logger (logIntake) whether or not a journal is configured, and is never silent; a store whose tables are
// missing is answered 503 STORE_SCHEMA_MISSING.

/** A handler that fails with a message carrying personal data (which must not reach a log). */
const failing: WebhookHandler = () => {
  throw new TypeError('no order for customer jane.doe@example.com');
};

function intakeOf(handler: WebhookHandler, options: { journal?: boolean; store?: MemoryStore | SqliteStore } = {}) {
  return createWebhookIntake({
    guard: new IdempotencyGuard(options.store ?? new MemoryStore()),
    journal: options.journal ? new MemoryDeliveryJournal() : undefined,
    endpoints: { stripe: { profile: stripeProfile(), scheme: stripeScheme({ secrets: [STRIPE_SECRET] }), handler } },
  });
}

const deliver = (intake: ReturnType<typeof intakeOf>, eventId: string) => {
  const body = invoicePaidBody(eventId, `in_${eventId}`, 4321);
  return intake.receive({ endpoint: 'stripe', rawBody: Buffer.from(body), headers: signedStripeHeaders(body) });
};

/** A pino logger of `createLogger` whose JSON lines are kept. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ destination: destination as never }), lines };
}

describe('a webhook handler that throws', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([false, true])(
    'is logged at error by logIntake (journal configured: %s): endpoint, provider, receipt key, error; no payload, no personal data',
    async (journal) => {
      const intake = intakeOf(failing, { journal });
      const { logger, lines } = capturedLogger();
      logIntake(intake, logger);
      const answer = await deliver(intake, `evt_fail_${journal}`);
      expect(answer.status).toBe(500);
      const failures = lines.filter((line) => line.msg === 'webhook handler failed');
      expect(failures).toHaveLength(1);
      const { level, endpoint, provider, receiptKey, error } = failures[0]!;
      expect({ level, endpoint, provider, receiptKey }).toEqual({
        level: 50,
        endpoint: 'stripe',
        provider: 'stripe',
        receiptKey: `stripe/evt_fail_${journal}`,
      });
      expect(error).toEqual({ type: 'TypeError', message: 'no order for customer [REDACTED]' });
      const text = JSON.stringify(failures[0]);
      expect(text).not.toContain('jane.doe');
      expect(text).not.toContain('4321'); // nothing of the payload (the amount) is in the line
    },
  );

  it('with no logger and no journal: one line on stderr per failure, so it is never silent', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    const intake = intakeOf(failing);
    await deliver(intake, 'evt_silent_1');
    await deliver(intake, 'evt_silent_2');
    expect(stderr.mock.calls.map(([line]) => String(line))).toEqual([
      'payonce: webhook handler failed (stripe, stripe/evt_silent_1): TypeError: no order for customer [REDACTED]',
      'payonce: webhook handler failed (stripe, stripe/evt_silent_2): TypeError: no order for customer [REDACTED]',
    ]);
  });

  it('with a journal and no logger: the journal has it, nothing goes to stderr', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    await deliver(intakeOf(failing, { journal: true }), 'evt_journaled');
    expect(stderr).not.toHaveBeenCalled();
  });

  it('a handler that succeeds reports nothing', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    const intake = intakeOf(() => ({ ok: true }));
    const { logger, lines } = capturedLogger();
    logIntake(intake, logger);
    expect((await deliver(intake, 'evt_ok')).status).toBe(200);
    expect(lines.filter((line) => line.msg === 'webhook handler failed')).toEqual([]);
    expect(stderr).not.toHaveBeenCalled();
  });
});

describe('an intake whose receipt store is not migrated', () => {
  it('answers 503 STORE_SCHEMA_MISSING with Retry-After, and the handler never runs', async () => {
    const store = await SqliteStore.open(':memory:');
    try {
      let runs = 0;
      const intake = intakeOf(
        () => {
          runs++;
        },
        { store },
      );
      const guardReports: unknown[] = [];
      vi.spyOn(console, 'error').mockImplementation((line) => guardReports.push(line));
      const answer = await deliver(intake, 'evt_unmigrated');
      expect([answer.status, answer.headers['retry-after']]).toEqual([503, '1']);
      expect(JSON.parse(Buffer.from(answer.body).toString('utf8'))).toMatchObject({
        code: 'STORE_SCHEMA_MISSING',
        status: 503,
      });
      expect(runs).toBe(0);
      expect(guardReports).toEqual([expect.stringMatching(/^payonce: STORE_SCHEMA_MISSING: .*payonce migrate/)]);
    } finally {
      vi.restoreAllMocks();
      await store.close();
    }
  });
});
