import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logGuard, logIntake } from '../../packages/payonce/src/observe/log-events.js';
import { createLogger, pinoRedactPaths } from '../../packages/payonce/src/observe/logger.js';
import { bodyBytes } from '../webhooks/fixtures.js';
import { paymeHeaders, stripeHeaders } from '../webhooks/intake-deliveries.js';
import {
  DEFAULT_SECRETS,
  type IntakeWorld,
  send,
  startIntakeWorld,
  WEBHOOK_BACKENDS,
} from '../webhooks/intake-support.js';

/** Placeholder personal data that must never reach a log line. */
const PII = {
  name: 'John Placeholder',
  email: 'john.placeholder@example.com',
  errorEmail: 'person@example.com',
  phone: '+19999999999',
  card: '4242424242424242',
  cvc: 'cvc-placeholder-zq',
};

describe('pino redact paths', () => {
  it('turns "**." paths into pino paths at the first three depths and covers signature headers', () => {
    const paths = pinoRedactPaths(['**.email', 'data.secret_note', '**.bad-key']);
    expect(paths).toEqual(expect.arrayContaining(['email', '*.email', '*.*.email', 'data.secret_note']));
    expect(paths.some((p) => p.includes('bad-key'))).toBe(false);
    expect(paths).toEqual(expect.arrayContaining(['headers["stripe-signature"]', 'req.headers["authorization"]']));
  });
});

for (const backend of WEBHOOK_BACKENDS) {
  describe(`${backend}: pino logging of intake and guard`, () => {
    let world: IntakeWorld;
    const lines: string[] = [];
    beforeAll(async () => {
      world = await startIntakeWorld(backend);
      const logger = createLogger({
        level: 'debug',
        redaction: world.intake.redactor,
        destination: { write: (line: string) => void lines.push(line) },
      });
      logIntake(world.intake, logger);
      logGuard(world.guard, logger);
      // Direct use: credentials in headers, personal data in fields, message and error text.
      logger.info(
        {
          headers: { authorization: paymeHeaders().Authorization, 'stripe-signature': 't=1,v1=abc' },
          customer: { email: PII.email, profile: { contact: { phone: PII.phone } } },
        },
        `note for ${PII.email}`,
      );
      logger.error(new Error(`charge failed for ${PII.errorEmail}`));
    });
    afterAll(async () => {
      await world?.close();
    });

    it('logs every delivery as JSON with its decision, and no configured secret, credential or personal value', async () => {
      const nowSec = Math.floor(world.clock.now() / 1000);
      const id = `evt_log_${backend}`;
      const body = bodyBytes(
        JSON.stringify({
          id,
          object: 'event',
          type: 'payment_intent.succeeded',
          created: nowSec,
          data: {
            object: {
              id: `pi_log_${backend}`,
              object: 'payment_intent',
              amount: 700,
              currency: 'usd',
              billing_details: { name: PII.name, email: PII.email, phone: PII.phone },
              card: { number: PII.card, cvc: PII.cvc },
              shipping: { name: PII.name },
            },
          },
        }),
      );
      const url = `${world.url}/webhooks/stripe`;
      expect((await send(url, body, stripeHeaders(body, nowSec))).status).toBe(200);
      expect((await send(url, body, stripeHeaders(body, nowSec))).status).toBe(200);
      expect((await send(url, body, stripeHeaders(body, nowSec, 'whsec_forged'))).status).toBe(401);
      const failing = bodyBytes(
        JSON.stringify({
          id: `${id}_f`,
          object: 'event',
          type: 'ping',
          created: nowSec,
          data: { object: { id: 'o' } },
        }),
      );
      world.behaviour.failOnce.add(`stripe/${id}_f`);
      expect((await send(url, failing, stripeHeaders(failing, nowSec))).status).toBe(500);
      const check = { method: 'CheckPerformTransaction', params: { amount: 500000, account: { phone: PII.phone } } };
      expect((await send(`${world.url}/webhooks/payme`, JSON.stringify(check), paymeHeaders())).status).toBe(200);

      const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const text = lines.join('');
      for (const [what, secret] of Object.entries({
        ...PII,
        ...DEFAULT_SECRETS,
        authorization: paymeHeaders().Authorization ?? 'missing',
        signature: 't=1,v1=abc',
      })) {
        expect(text, what).not.toContain(secret);
      }
      expect(text).toContain('[REDACTED]');
      const decisions = parsed
        .map((p) => (p.delivery as { eventKey?: string; decision?: string } | undefined) ?? null)
        .filter((d) => d !== null);
      expect(decisions.filter((d) => d.eventKey === id).map((d) => d.decision)).toEqual(['new', 'duplicate']);
      expect(decisions.some((d) => d.decision === 'rejected')).toBe(true);
      const failedLine = parsed.find((p) => p.msg === 'receipt handler failed');
      expect(failedLine?.error).toContain('handler exploded for [REDACTED]');
      const payloadLine = parsed.find(
        (p) => p.msg === 'webhook payload' && JSON.stringify(p).includes(`pi_log_${backend}`),
      );
      expect(payloadLine).toBeDefined();
      const errorLine = parsed.find((p) => p.level === 50 && (p.err as { message?: string } | undefined)?.message);
      expect(errorLine?.err).toMatchObject({ type: 'Error', message: 'charge failed for [REDACTED]' });
      const direct = parsed.find((p) => p.msg === 'note for [REDACTED]');
      expect(direct).toMatchObject({
        headers: { authorization: '[REDACTED]', 'stripe-signature': '[REDACTED]' },
        customer: { email: '[REDACTED]', profile: { contact: { phone: '[REDACTED]' } } },
      });
    });
  });
}

describe('log lines and payment alerts keep identifiers readable (issue 11 item 12, issue 34 item 12)', () => {
  it('an alert about evt_/msg_ ids keeps them; a card number in it, even inside an id, is redacted', () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) } });
    logger.warn(
      {
        alert: {
          code: 'amount_mismatch',
          eventId: 'evt_1NG8Du2eZvKYlo2CUI3W8mBy',
          messageId: 'msg_x_4242424242424242',
          note: `customer typed ${PII.card} into the reference`,
        },
      },
      'payment alert for evt_1NG8Du2eZvKYlo2CUI3W8mBy (ref ord4242424242424242)',
    );
    const line = JSON.parse(lines[0]!) as { msg: string; alert: Record<string, string> };
    expect(line.msg).toBe('payment alert for evt_1NG8Du2eZvKYlo2CUI3W8mBy (ref ord[REDACTED])');
    expect(line.alert.eventId).toBe('evt_1NG8Du2eZvKYlo2CUI3W8mBy');
    expect(line.alert.messageId).toBe('msg_x_[REDACTED]');
    expect(line.alert.note).toBe('customer typed [REDACTED] into the reference');
  });
});
