import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServiceConfig } from '../../packages/service/src/service-config.js';
import { backendsFromEnv } from '../contract/backends/index.js';
import { createPostgresNamespace, POSTGRES_TEST_URL } from '../contract/backends/postgres.js';
import { call, type Harness, startHarness, untilFulfilled, type ViewBody } from './service-harness.js';

async function tablesIn(schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      'select table_name as name from information_schema.tables where table_schema = $1 order by 1',
      [schema],
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe('databaseSchema', () => {
  it('is refused on SQLite and for a bad name (InvalidOption)', () => {
    expect(() => resolveServiceConfig({ databaseSchema: 'payonce' })).toThrow(/schema/);
    expect(() => resolveServiceConfig({ databaseUrl: 'postgres://127.0.0.1/x', databaseSchema: 'no-dashes' })).toThrow(
      /schema/,
    );
    expect(
      resolveServiceConfig({ databaseUrl: 'postgres://127.0.0.1/x', databaseSchema: 'payonce' }).databaseSchema,
    ).toBe('payonce');
  });
});

describe.runIf(backendsFromEnv().includes('postgres'))('reference service with databaseSchema on PostgreSQL', () => {
  const payonceSchema = `ns_service_${randomBytes(5).toString('hex')}`;
  let h: Harness;
  let userSchema: string;
  beforeAll(async () => {
    const ns = await createPostgresNamespace();
    userSchema = ns.schema;
    h = await startHarness({
      databaseUrl: ns.url,
      databaseSchema: payonceSchema,
      dropDatabase: async () => {
        const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
        await client.connect();
        await client.query(`drop schema if exists ${payonceSchema} cascade`).finally(() => client.end());
        await ns.drop();
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("migrates into the schema, takes an order to fulfilment there, and leaves the connection's search_path schema empty", async () => {
    const url = h.service.url;
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 3100, currency: 'EUR' },
    });
    const orderId = created.body.order.id;
    const checkout = await call(url, 'POST', `/orders/${orderId}/checkout`, { key: `schema-${orderId}` });
    expect(checkout.status).toBe(201);
    await untilFulfilled(url, orderId, 'customer-a', 15_000);
    const view = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
    expect(view.order.status).toBe('completed');
    expect(view.fulfilments).toHaveLength(1);
    const tables = await tablesIn(payonceSchema);
    expect(tables).toContain('payonce_service_fulfilments');
    expect(tables).toContain('payonce_receipts');
    expect(await tablesIn(userSchema)).toEqual([]);
  });
});
