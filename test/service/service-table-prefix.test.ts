import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeOptions } from '../../packages/cli/src/commands/serve.js';
import { workerOptions } from '../../packages/cli/src/commands/worker.js';
import { resolveServiceConfig } from '../../packages/service/src/service-config.js';
import {
  call,
  type Harness,
  orderAndCheckout,
  startHarness,
  untilFulfilled,
  type ViewBody,
} from './service-harness.js';

/** Every named object of the SQLite file but SQLite's own (`sqlite_…`), sorted. */
function objectsOf(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("select name from sqlite_master where name not like 'sqlite%' order by 1").all();
    return (rows as { name: string }[]).map((row) => row.name);
  } finally {
    db.close();
  }
}

describe('databaseTablePrefix (payonce serve|worker|console --table-prefix)', () => {
  it('the flag reaches the service configuration; a bad prefix is InvalidOption (tablePrefix)', () => {
    const base = { databaseUrl: 'payonce.sqlite', providerUrl: 'http://127.0.0.1:9' };
    expect(resolveServiceConfig(runtimeOptions({ ...base, tablePrefix: 'billing_' }, {})).databaseTablePrefix).toBe(
      'billing_',
    );
    expect(resolveServiceConfig(workerOptions({ ...base, tablePrefix: 'billing_' }, {})).databaseTablePrefix).toBe(
      'billing_',
    );
    expect(resolveServiceConfig(runtimeOptions(base, {})).databaseTablePrefix).toBe('payonce_');
    expect(() => resolveServiceConfig(runtimeOptions({ ...base, tablePrefix: 'Billing-' }, {}))).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', option: 'tablePrefix' }),
    );
  });
});

describe('reference service on SQLite with a table prefix', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ databaseTablePrefix: 'billing_' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('migrates under the prefix, serves an order to fulfilment through the provider webhook, and names nothing payonce_', async () => {
    const url = h.service.url;
    const { orderId, checkout } = await orderAndCheckout(url, 3100);
    expect(checkout.status).toBe(201);
    await untilFulfilled(url, orderId, 'customer-a', 15_000);
    const view = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`, { customer: 'customer-a' })).body;
    expect(view.order.status).toBe('completed');
    expect(view.deliveries.some((d) => d.outcome === 'completed')).toBe(true);
    const objects = objectsOf(h.databaseUrl);
    expect(objects).toContain('billing_receipts');
    expect(objects).toContain('billing_service_fulfilments');
    expect(objects).toContain('billing_webhook_deliveries');
    expect(objects.filter((name) => !name.startsWith('billing_'))).toEqual([]);
  });
});
