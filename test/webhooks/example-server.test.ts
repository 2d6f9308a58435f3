import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExposition, sampleValue } from '../observe/exposition.js';
import { bodyBytes, readFixture, repoRoot } from './fixtures.js';
import { standardHeaders, stripeHeaders } from './intake-deliveries.js';
import { DEFAULT_SECRETS, send } from './intake-support.js';

interface PayloadFixture {
  readonly raw_body: string;
  readonly body: {
    readonly id: string;
    readonly data: {
      readonly object: {
        readonly payment_intent: string;
        readonly customer_details: { readonly email: string; readonly name: string };
      };
    };
  };
}

interface JournalRow {
  readonly provider: string;
  readonly eventKey: string | null;
  readonly signature: string;
  readonly decision: string;
  readonly outcome: string;
  readonly responseStatus: number;
  readonly paymentId: string | null;
  readonly payload: string | null;
}

const FORGED_SECRET = 'whsec_forged_by_someone_else';
const checkout = readFixture('stripe/payloads/checkout.session.completed.json') as PayloadFixture;
const paymentId = checkout.body.data.object.payment_intent;
const personal = checkout.body.data.object.customer_details;

/** The example as its own process: `node --import tsx examples/webhooks/server.ts <sqlite-file>`, port 0. */
class ExampleProcess {
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
    });
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Resolves with the URL the example prints on stdout once it listens. */
  url(): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`webhooks example did not start: ${this.output}`)), 20_000);
      const check = () => {
        const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(this.output)?.[1];
        if (!url) return;
        clearTimeout(timer);
        resolve(url);
      };
      this.child.stdout?.on('data', check);
      void this.exited.then(({ code }) => {
        clearTimeout(timer);
        reject(new Error(`webhooks example exited with ${code}: ${this.output}`));
      });
      check();
    });
  }
}

describe('examples/webhooks/server.ts run as a process', () => {
  let dir: string;
  let dbPath: string;
  let example: ExampleProcess;
  let url: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-webhooks-example-'));
    dbPath = join(dir, 'webhooks.db');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'examples', 'webhooks', 'server.ts'), dbPath],
      {
        cwd: repoRoot,
        env: {
          ...process.env,
          PORT: '0',
          PAYONCE_STRIPE_WEBHOOK_SECRET: DEFAULT_SECRETS.stripe,
          PAYONCE_STANDARD_WEBHOOKS_SECRET: DEFAULT_SECRETS['standard-webhooks'],
          PAYONCE_LOG_LEVEL: 'debug',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    example = new ExampleProcess(child);
    url = await example.url();
  });

  afterAll(async () => {
    if (example && example.child.exitCode === null && example.child.signalCode === null) {
      example.child.kill('SIGTERM');
      await example.exited;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('fulfils a signed Stripe event once, replays its redelivery and refuses a forged copy', async () => {
    const nowSec = Math.floor(Date.now() / 1000);
    const body = bodyBytes(checkout.raw_body);
    const stripe = `${url}/webhooks/stripe`;
    const first = await send(stripe, body, stripeHeaders(body, nowSec));
    expect(first.status).toBe(200);
    expect(first.json()).toEqual({ received: true, payment: paymentId, fulfilled: true });
    const again = await send(stripe, body, stripeHeaders(body, nowSec));
    expect(again.status).toBe(200);
    expect(again.bytes).toEqual(first.bytes);
    const forged = await send(stripe, body, stripeHeaders(body, nowSec, FORGED_SECRET));
    expect(forged.status).toBe(400); // Stripe's own handler examples answer 400

    const event = readFixture('standard-webhooks/payloads/example.event.json') as { raw_body: string };
    const generic = bodyBytes(event.raw_body);
    const headers = standardHeaders('standard-webhooks', generic, nowSec, 'msg_example_server_1');
    expect((await send(`${url}/webhooks/standard-webhooks`, generic, headers)).status).toBe(200);

    const fulfilments = (await (await fetch(`${url}/fulfilments`)).json()) as {
      fulfilments: { payment: string; eventId: string | null }[];
    };
    expect(fulfilments.fulfilments.map((f) => f.payment)).toEqual([paymentId, 'msg_example_server_1']);
    expect(fulfilments.fulfilments[0]?.eventId).toBe(checkout.body.id);
  });

  it('serves GET /metrics as valid Prometheus exposition with the deliveries by provider and decision', async () => {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(response.headers.get('content-type')).toContain('version=0.0.4');
    const { types, samples } = parseExposition(await response.text());
    expect(types.get('payonce_webhook_deliveries_total')).toBe('counter');
    expect(types.get('payonce_webhook_duplicate_ratio')).toBe('gauge');
    expect(types.get('payonce_webhook_delivery_duration_seconds')).toBe('histogram');
    expect(types.get('payonce_webhook_handler_duration_seconds')).toBe('histogram');
    expect(types.get('payonce_receipt_events_total')).toBe('counter');
    expect(types.get('payonce_receipts_stuck')).toBe('gauge');

    const deliveries = samples.filter((s) => s.name === 'payonce_webhook_deliveries_total');
    const byLabels = Object.fromEntries(deliveries.map((s) => [`${s.labels.provider}/${s.labels.decision}`, s.value]));
    expect(byLabels).toEqual({
      'stripe/new': 1,
      'stripe/duplicate': 1,
      'stripe/rejected': 1,
      'standard-webhooks/new': 1,
    });
    expect(sampleValue(samples, 'payonce_webhook_duplicate_ratio', { provider: 'stripe' })).toBe(0.5);
    expect(sampleValue(samples, 'payonce_webhook_duplicate_ratio', { provider: 'standard-webhooks' })).toBe(0);
    const handler = { provider: 'stripe', outcome: 'completed' };
    expect(sampleValue(samples, 'payonce_webhook_handler_duration_seconds_count', handler)).toBe(1);
    expect(sampleValue(samples, 'payonce_webhook_handler_duration_seconds_bucket', { ...handler, le: '+Inf' })).toBe(1);
    expect(sampleValue(samples, 'payonce_receipt_events_total', { provider: 'stripe', event: 'claimed' })).toBe(1);
    expect(sampleValue(samples, 'payonce_receipt_events_total', { provider: 'stripe', event: 'replayed' })).toBe(1);
    expect(sampleValue(samples, 'payonce_receipts_stuck')).toBe(0);
    const rejectedDuration = { provider: 'stripe', decision: 'rejected' };
    expect(sampleValue(samples, 'payonce_webhook_delivery_duration_seconds_count', rejectedDuration)).toBe(1);
  });

  it('returns the journal rows of a payment from GET /deliveries, without secrets or personal data', async () => {
    const response = await fetch(`${url}/deliveries?payment=${encodeURIComponent(paymentId)}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const { payment, deliveries } = JSON.parse(text) as { payment: string; deliveries: JournalRow[] };
    expect(payment).toBe(paymentId);
    expect(deliveries.map((d) => [d.provider, d.decision, d.outcome, d.responseStatus, d.signature])).toEqual([
      ['stripe', 'new', 'completed', 200, 'valid'],
      ['stripe', 'duplicate', 'replayed', 200, 'valid'],
    ]);
    for (const row of deliveries) {
      expect(row.eventKey).toBe(checkout.body.id);
      expect(row.paymentId).toBe(paymentId);
      expect(row.payload).toContain('[REDACTED]');
    }
    for (const leak of [DEFAULT_SECRETS.stripe, FORGED_SECRET, personal.email, personal.name]) {
      expect(text).not.toContain(leak);
    }
    expect(text).not.toMatch(/v1=[0-9a-f]{64}/);

    expect((await fetch(`${url}/deliveries?payment=pi_unknown`)).status).toBe(200);
    expect(await (await fetch(`${url}/deliveries?payment=pi_unknown`)).json()).toEqual({
      payment: 'pi_unknown',
      deliveries: [],
    });
    expect((await fetch(`${url}/deliveries`)).status).toBe(400);
  });

  it('logs every delivery through the redacting logger and shuts down cleanly on SIGTERM', async () => {
    example.child.kill('SIGTERM');
    expect(await example.exited).toEqual({ code: 0, signal: null });
    const lines = example.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; delivery?: { decision: string } });
    const decisions = lines.filter((l) => l.msg.startsWith('webhook delivery')).map((l) => l.delivery?.decision);
    expect(decisions).toEqual(['new', 'duplicate', 'rejected', 'new']);
    // The forged (rejected) delivery is journaled and logged without its body (issue 34 item 7).
    expect(lines.filter((l) => l.msg === 'webhook payload')).toHaveLength(3);
    expect(lines.some((l) => l.msg === 'shutting down')).toBe(true);
    for (const leak of [
      DEFAULT_SECRETS.stripe,
      DEFAULT_SECRETS['standard-webhooks'],
      FORGED_SECRET,
      personal.email,
      personal.name,
    ]) {
      expect(example.output).not.toContain(leak);
    }
    expect(existsSync(dbPath)).toBe(true);
  });
});
