import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import { tsChildArgs } from '../support/ts-child.js';
import { createCreditsTable, creditsIntake, creditsOf } from './support/credits-app.js';
import { invoicePaidBody, STRIPE_VECTOR, signedStripeHeaders, stripeSignature } from './support/stripe-deliveries.js';
import { FRAMEWORKS, type Framework, postBytes, startWebhookApp, type WebhookApp } from './support/webhook-apps.js';

// Issue 13 "Done when": the outside acceptance suite for a Stripe `invoice.paid` handler ("grant credits per
// invoice") in the one-commit mode, through the public API (intake + fastify/express/hono routes), on SQLite,
// PostgreSQL and MariaDB, with a business table that has NO unique constraint of its own.

const child = fileURLToPath(new URL('./one-commit-crash-child.ts', import.meta.url));
let serial = 0;
const ids = (framework: string) => {
  serial += 1;
  const tag = `${framework}_${process.pid}_${serial}`;
  return { eventId: `evt_${tag}`, invoiceId: `in_${tag}` };
};

it('signs deliveries exactly as the Stripe fixture vector does', () => {
  expect(stripeSignature(STRIPE_VECTOR.raw_body, STRIPE_VECTOR.timestamp_now ?? 0)).toBe(
    STRIPE_VECTOR.headers['Stripe-Signature'],
  );
});

/** Starts the child serving `frameworks`, delivers one invoice per framework, SIGKILLs it after every write. */
async function killAfterWrites(backend: SqlBackend, frameworks: readonly Framework[]): Promise<Map<Framework, string>> {
  const proc = spawn(process.execPath, tsChildArgs(child, [backend.dialect, backend.target, frameworks.join(',')]), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const seen = (pattern: RegExp, count = 1) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const matches = out.match(new RegExp(pattern, 'g')) ?? [];
        if (matches.length >= count) resolve(out);
      };
      proc.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        check();
      });
      proc.once('exit', (code) => reject(new Error(`child exited (${code}) early: ${out}`)));
      check();
    });
  const ready = await seen(/ready \{.*\}\n/);
  const urls = JSON.parse(/ready (\{.*\})\n/.exec(ready)?.[1] ?? '{}') as Record<Framework, string>;
  const invoices = new Map<Framework, string>();
  for (const framework of frameworks) {
    const { eventId, invoiceId } = ids(framework);
    invoices.set(framework, `${eventId} ${invoiceId}`);
    const body = invoicePaidBody(eventId, invoiceId);
    postBytes(`${urls[framework]}/webhooks/stripe`, body, signedStripeHeaders(body)).catch(() => {}); // never answered
  }
  await seen(/written evt_/, frameworks.length);
  proc.kill('SIGKILL');
  await once(proc, 'exit');
  expect(proc.signalCode).toBe('SIGKILL');
  return invoices;
}

for (const dialect of sqlDialectsFromEnv()) {
  describe(`${dialect}: one-commit intake, business table without a unique constraint`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let failOnce: Set<string>;
    let guard: ReturnType<typeof creditsIntake>['guard'];
    const apps = new Map<Framework, WebhookApp>();
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      await createCreditsTable(store);
      failOnce = new Set();
      const built = creditsIntake(store, (eventId) => {
        if (failOnce.delete(eventId)) throw new Error('the business step failed after its write');
      });
      guard = built.guard;
      for (const framework of FRAMEWORKS) apps.set(framework, await startWebhookApp(framework, built.intake));
    }, 60_000);
    afterAll(async () => {
      for (const app of apps.values()) await app.close();
      await backend?.drop();
    });

    const deliver = (
      framework: Framework,
      eventId: string,
      invoiceId: string,
      body = invoicePaidBody(eventId, invoiceId),
    ) => postBytes(`${apps.get(framework)?.url}/webhooks/stripe`, body, signedStripeHeaders(body));
    const receipt = (eventId: string) => guard.find(new RequestKey('stripe', eventId));

    it.each(FRAMEWORKS)(
      '%s: a handler that throws after its write leaves neither the write nor a receipt; the retry applies once',
      async (framework) => {
        const { eventId, invoiceId } = ids(framework);
        failOnce.add(eventId);
        const body = invoicePaidBody(eventId, invoiceId);
        const failed = await deliver(framework, eventId, invoiceId, body);
        expect(failed.status).toBe(500);
        expect(await creditsOf(store, invoiceId)).toBe(0);
        expect(await receipt(eventId)).toBeNull();
        const retried = await deliver(framework, eventId, invoiceId, body);
        expect([retried.status, retried.text]).toEqual([200, '{"received":true,"credited":2500}']);
        const again = await deliver(framework, eventId, invoiceId, body);
        expect(again.bytes).toEqual(retried.bytes);
        expect(await creditsOf(store, invoiceId)).toBe(1);
        expect((await receipt(eventId))?.status).toBe('completed');
      },
    );

    it.each(FRAMEWORKS)('%s: 20 parallel copies of one event apply once', async (framework) => {
      const { eventId, invoiceId } = ids(framework);
      const body = invoicePaidBody(eventId, invoiceId);
      const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(framework, eventId, invoiceId, body)));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      expect(new Set(answers.map((a) => a.text))).toEqual(new Set(['{"received":true,"credited":2500}']));
      expect(await creditsOf(store, invoiceId)).toBe(1);
    });

    it.each(FRAMEWORKS)(
      '%s: two event ids for one invoice are two receipts and two credits (the business key is yours)',
      async (framework) => {
        const { eventId, invoiceId } = ids(framework);
        expect((await deliver(framework, eventId, invoiceId)).status).toBe(200);
        expect((await deliver(framework, `${eventId}_b`, invoiceId)).status).toBe(200);
        expect(await creditsOf(store, invoiceId)).toBe(2);
        expect((await receipt(eventId))?.status).toBe('completed');
        expect((await receipt(`${eventId}_b`))?.status).toBe('completed');
      },
    );

    it('SIGKILL of the process after the write, before the commit, leaves nothing; the retry applies once (every framework)', async () => {
      // SQLite has one writer: each framework's delivery gets its own child there; elsewhere one child takes all three.
      const rounds = dialect === 'sqlite' ? FRAMEWORKS.map((f) => [f]) : [FRAMEWORKS];
      for (const frameworks of rounds) {
        const killed = await killAfterWrites(backend, frameworks);
        for (const [framework, pair] of killed) {
          const [eventId = '', invoiceId = ''] = pair.split(' ');
          expect(await creditsOf(store, invoiceId)).toBe(0);
          expect(await receipt(eventId)).toBeNull();
          const retried = await deliver(framework, eventId, invoiceId);
          expect(retried.status).toBe(200);
          expect(await creditsOf(store, invoiceId)).toBe(1);
        }
      }
    }, 60_000);
  });
}
