import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { ORDERS_TABLE, type PaymentsDatabase } from '../../packages/payonce/src/payments/payments-tables.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createService, type PaymentService } from '../../packages/service/src/create-service.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import { tsChildArgs } from '../support/ts-child.js';
import { call } from './service-harness.js';

// Issue 11 item 1: one Idempotency-Key on POST /orders must never create two orders after a crash. The service
// process is SIGKILLed after the order insert and before the key's receipt completes; after the stale limit the
// customer's retry (same key, same body) must find one order only, and every later retry replays it.

const child = fileURLToPath(new URL('./orders-crash-child.ts', import.meta.url));
const STALE_MS = 500;

async function killBeforeCompletion(backend: SqlBackend, customer: string, key: string): Promise<void> {
  const proc = spawn(process.execPath, tsChildArgs(child, [backend.dialect, backend.target]), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const seen = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const check = () => out.includes(text) && resolve(out);
      proc.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        check();
      });
      proc.once('exit', (code) => reject(new Error(`child exited (${code}) before "${text}": ${out}`)));
      check();
    });
  const url = /listening (\S+)/.exec(await seen('listening '))?.[1] ?? '';
  call(url, 'POST', '/orders', { customer, key, body: { amountMinor: 1999, currency: 'EUR' } }).catch(() => {});
  await seen('completing');
  proc.kill('SIGKILL');
  await once(proc, 'exit');
}

for (const dialect of sqlDialectsFromEnv()) {
  describe(`${dialect}: POST /orders killed between the order insert and the receipt completion`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let service: PaymentService;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
    });
    afterAll(async () => {
      await service?.close();
      await backend?.drop();
    });

    it('answers the retry after the stale limit with one order, and replays it', async () => {
      const customer = `customer-crash-${dialect}`;
      const key = `order-key-${dialect}-${process.pid}`;
      await killBeforeCompletion(backend, customer, key);
      const db = store.db as unknown as Kysely<PaymentsDatabase>;
      const ordersOf = () => db.selectFrom(ORDERS_TABLE).select('id').where('principal', '=', customer).execute();
      expect(await ordersOf()).toEqual([]); // the order and its receipt commit together: neither survived the kill
      service = await createService({
        port: 0,
        logLevel: 'silent',
        worker: false,
        store,
        provider: new InMemoryPaymentProvider(),
        providerTimeoutMs: 100,
        idempotencyStaleAfterMs: STALE_MS,
      });
      await new Promise((resolve) => setTimeout(resolve, STALE_MS + 100));
      const body = { amountMinor: 1999, currency: 'EUR' };
      const retry = await call<{ order: { id: string } }>(service.url, 'POST', '/orders', { customer, key, body });
      expect(retry.status, retry.text).toBe(201);
      const again = await call<{ order: { id: string } }>(service.url, 'POST', '/orders', { customer, key, body });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.order.id).toBe(retry.body.order.id);
      expect((await ordersOf()).map((o) => o.id)).toEqual([retry.body.order.id]);
    }, 30_000);
  });
}
