import { createService, type PaymentService } from '../../packages/service/src/create-service.js';
import type { ServiceOptions } from '../../packages/service/src/service-options.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';
import { call, FAST } from './service-harness.js';

/** A reference service on a fresh SQLite file WITHOUT a Stripe-shaped provider: only Payme, Click or Uzum. */
export interface LocalService {
  readonly service: PaymentService;
  readonly url: string;
  close(): Promise<void>;
}

/** A database the service may run on instead of a fresh SQLite file: its URL, and how to drop it. */
export interface LocalDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * Starts the service with `options` (the local provider's credentials) and no `providerUrl`, on `database` (a
 * PostgreSQL schema, a MariaDB database; dropped on close) or a fresh SQLite file.
 */
export async function startLocalService(options: ServiceOptions, database?: LocalDatabase): Promise<LocalService> {
  const ns =
    database === undefined
      ? await createSqliteNamespace().then((sqlite) => ({ url: sqlite.path, drop: sqlite.drop }))
      : database;
  try {
    const service = await createService({ ...FAST, ...options, databaseUrl: ns.url });
    return {
      service,
      url: service.url,
      async close() {
        await service.close();
        await ns.drop();
      },
    };
  } catch (error) {
    await ns.drop();
    throw error;
  }
}

/** Creates a UZS order with the caller-chosen id `orderId` through `POST /orders`. @throws unless 201. */
export async function createUzsOrder(url: string, orderId: string, amountMinor: number): Promise<void> {
  const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
    body: { orderId, amountMinor, currency: 'UZS' },
  });
  if (created.status !== 201 || created.body.order.id !== orderId) {
    throw new Error(`POST /orders answered ${created.status}: ${created.text}`);
  }
}
