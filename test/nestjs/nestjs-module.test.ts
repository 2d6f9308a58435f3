import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BadRequestException,
  Body,
  Controller,
  HttpCode,
  type INestApplication,
  Module,
  Post,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { Transaction } from 'kysely';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { IdempotencyKeyInterceptor } from '../../packages/payonce/src/nestjs/idempotency-key-interceptor.js';
import { PayonceModule } from '../../packages/payonce/src/nestjs/payonce-module.js';
import { PAYONCE_GUARD, PAYONCE_STORE } from '../../packages/payonce/src/nestjs/payonce-tokens.js';
import { payonceWebhookController } from '../../packages/payonce/src/nestjs/payonce-webhook-controller.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import type { ReceiptsDatabase } from '../../packages/payonce/src/stores/sql/receipts-table.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { drizzleTransactions } from '../../packages/payonce/src/tx/drizzle.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { invoicePaidBody, STRIPE_SECRET, signedStripeHeaders } from '../webhooks/support/stripe-deliveries.js';
import { bootNest, PLATFORMS, postText } from './nest-apps.js';

// The decorators are applied as functions: the repository's tsconfig has no `experimentalDecorators` (the example
// app under examples/nestjs uses the decorator syntax with its own tsconfig).

/** What the routes of one app saw: handler runs by name, and a gate the slow route waits on. */
class Calls {
  readonly runs = new Map<string, number>();
  release: () => void = () => {};
  gate: Promise<void> = Promise.resolve();
  count(name: string): number {
    this.runs.set(name, (this.runs.get(name) ?? 0) + 1);
    return this.runs.get(name)!;
  }
  hold(): void {
    this.gate = new Promise((resolve) => {
      this.release = resolve;
    });
  }
}

function appModule(calls: Calls, store: MemoryStore) {
  class ItemsController {
    create(body: { name: string }) {
      return { id: `item_${calls.count('create')}`, name: body.name };
    }
    async slow(body: { name: string }) {
      calls.count('slow');
      await calls.gate;
      return { name: body.name };
    }
    /** A status the handler picks (express's `res.status` and fastify's `reply.status` alike). */
    accept(body: { name: string }, res: { status(code: number): unknown }) {
      calls.count(`accept:${body.name}`);
      res.status(body.name === 'later' ? 202 : 200);
      return { name: body.name, queued: body.name === 'later' };
    }
    refuse() {
      calls.count('refuse');
      throw new BadRequestException('name is taken');
    }
    crash() {
      calls.count('crash');
      throw new Error('database down');
    }
  }
  const proto = ItemsController.prototype;
  const route = (name: keyof ItemsController, path: string) => {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
    Body()(proto, name, 0);
    Post(path)(proto, name, descriptor);
  };
  route('create', '');
  route('slow', 'slow');
  route('refuse', 'refuse');
  route('crash', 'crash');
  route('accept', 'accept');
  Res({ passthrough: true })(proto, 'accept', 1);
  HttpCode(202)(proto, 'slow', Object.getOwnPropertyDescriptor(proto, 'slow')!);
  UseInterceptors(IdempotencyKeyInterceptor({ principal: (req) => String(req.headers['x-account']) }))(ItemsController);
  Controller('items')(ItemsController);

  class AppModule {}
  Module({
    imports: [
      PayonceModule.forRoot({
        store,
        webhooks: {
          endpoints: {
            stripe: {
              profile: stripeProfile(),
              scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
              handler: (event) => {
                calls.count(`webhook:${event.eventId}`);
                return { received: true };
              },
            },
          },
        },
      }),
    ],
    controllers: [ItemsController, payonceWebhookController()],
  })(AppModule);
  return AppModule;
}

const json = (key: string) => ({
  'content-type': 'application/json',
  'idempotency-key': `"${key}"`,
  'x-account': 'acct_1',
});

for (const platform of PLATFORMS) {
  describe(`payonce/nestjs on ${platform}`, () => {
    let app: INestApplication | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    async function start() {
      const calls = new Calls();
      const store = new MemoryStore();
      const booted = await bootNest(appModule(calls, store), platform);
      app = booted.app;
      return { calls, url: booted.url, store };
    }

    it('runs a route once per Idempotency-Key and replays its status, stored headers and bytes', async () => {
      const { calls, url } = await start();
      const first = await postText(`${url}/items`, '{"name":"lamp"}', json('k-1'));
      const again = await postText(`${url}/items`, '{"name":"lamp"}', json('k-1'));
      expect(first.status).toBe(201);
      expect(JSON.parse(first.text)).toEqual({ id: 'item_1', name: 'lamp' });
      expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(calls.runs.get('create')).toBe(1);
      const other = await postText(`${url}/items`, '{"name":"lamp"}', json('k-2'));
      expect(JSON.parse(other.text)).toEqual({ id: 'item_2', name: 'lamp' });
    });

    it('answers 422 problem+json for the same key with another body, and 400 without a key', async () => {
      const { calls, url } = await start();
      await postText(`${url}/items`, '{"name":"lamp"}', json('k-1'));
      const mismatch = await postText(`${url}/items`, '{"name":"desk"}', json('k-1'));
      expect(mismatch.status).toBe(422);
      expect(mismatch.headers.get('content-type')).toBe('application/problem+json');
      expect(JSON.parse(mismatch.text)).toMatchObject({ status: 422, code: 'PAYLOAD_MISMATCH' });
      const { 'idempotency-key': _key, ...withoutKey } = json('unused');
      const missing = await postText(`${url}/items`, '{"name":"lamp"}', withoutKey);
      expect(missing.status).toBe(400);
      expect(JSON.parse(missing.text)).toMatchObject({ code: 'IDEMPOTENCY_KEY_MISSING' });
      expect(calls.runs.get('create')).toBe(1);
    });

    it('answers 409 with Retry-After while the first request runs, then replays it with its @HttpCode', async () => {
      const { calls, url } = await start();
      calls.hold();
      const first = postText(`${url}/items/slow`, '{"name":"lamp"}', json('k-slow'));
      while (calls.runs.get('slow') !== 1) await new Promise((resolve) => setTimeout(resolve, 5));
      const during = await postText(`${url}/items/slow`, '{"name":"lamp"}', json('k-slow'));
      expect(during.status).toBe(409);
      expect(during.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(JSON.parse(during.text)).toMatchObject({ code: 'REQUEST_IN_PROGRESS' });
      calls.release();
      expect((await first).status).toBe(202);
      const after = await postText(`${url}/items/slow`, '{"name":"lamp"}', json('k-slow'));
      expect(after.status).toBe(202);
      expect(after.headers.get('idempotent-replayed')).toBe('true');
      expect(calls.runs.get('slow')).toBe(1);
    });

    it('stores and replays the status the handler set (@Res passthrough), not the route default', async () => {
      const { calls, url } = await start();
      for (const [name, status] of [
        ['later', 202],
        ['now', 200],
      ] as const) {
        const body = JSON.stringify({ name });
        const first = await postText(`${url}/items/accept`, body, json(`k-accept-${name}`));
        const again = await postText(`${url}/items/accept`, body, json(`k-accept-${name}`));
        expect(first.status).toBe(status);
        expect(again.status).toBe(status);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.text).toBe(first.text);
        expect(calls.runs.get(`accept:${name}`)).toBe(1);
      }
    });

    it("stores a handler's 4xx HttpException as Nest answers it; a throw that becomes a 500 releases the key", async () => {
      const { calls, url } = await start();
      const refused = await postText(`${url}/items/refuse`, '{}', json('k-r'));
      const replayed = await postText(`${url}/items/refuse`, '{}', json('k-r'));
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text)).toEqual({ message: 'name is taken', error: 'Bad Request', statusCode: 400 });
      expect(replayed.status).toBe(400);
      expect(replayed.text).toBe(refused.text);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(calls.runs.get('refuse')).toBe(1);
      expect((await postText(`${url}/items/crash`, '{}', json('k-c'))).status).toBe(500);
      expect((await postText(`${url}/items/crash`, '{}', json('k-c'))).status).toBe(500);
      expect(calls.runs.get('crash')).toBe(2);
    });

    it('serves the webhook intake at POST /webhooks/:provider on the raw body', async () => {
      const { calls, url } = await start();
      const body = invoicePaidBody(`evt_nest_${platform}`, 'in_nest_1');
      const headers = signedStripeHeaders(body);
      const first = await postText(`${url}/webhooks/stripe`, body, headers);
      const again = await postText(`${url}/webhooks/stripe`, body, headers);
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(calls.runs.get(`webhook:evt_nest_${platform}`)).toBe(1);
      const forged = await postText(`${url}/webhooks/stripe`, body.replace('in_nest_1', 'in_nest_2'), headers);
      expect(forged.status).toBe(400);
      expect(forged.headers.get('content-type')).toBe('application/problem+json');
      expect(JSON.parse(forged.text)).toMatchObject({ code: 'WEBHOOK_SIGNATURE_INVALID' });
      expect((await postText(`${url}/webhooks/paypal`, body, headers)).status).toBe(404);
    });

    it('provides the guard and the store by token, and closes the store it owns on shutdown', async () => {
      const { url, store } = await start();
      expect(url).toMatch(/^http:/);
      const closed: string[] = [];
      Object.assign(store, { close: async () => void closed.push('closed') });
      expect(app?.get(PAYONCE_STORE)).toBe(store);
      expect(app?.get(PAYONCE_GUARD)).toBeInstanceOf(IdempotencyGuard);
      await app?.close();
      app = undefined;
      expect(closed).toEqual(['closed']);
    });
  });
}

describe('PayonceModule options', () => {
  it("refuses an interceptor with transaction: 'stack' when the module has no stackTransactions, at boot", async () => {
    class StackController {
      create() {
        return {};
      }
    }
    Post()(StackController.prototype, 'create', Object.getOwnPropertyDescriptor(StackController.prototype, 'create')!);
    UseInterceptors(IdempotencyKeyInterceptor({ principal: () => 'acct_1', transaction: 'stack' }))(StackController);
    Controller('stack')(StackController);
    class StackModule {}
    Module({ imports: [PayonceModule.forRoot({ store: new MemoryStore() })], controllers: [StackController] })(
      StackModule,
    );
    await expect(bootNest(StackModule, 'express')).rejects.toThrow(/stackTransactions/);
  });

  it('forRoot types an inline endpoint on the stack from its opener and the store, and runs it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payonce-nest-types-'));
    const store = await SqliteStore.open(join(dir, 'app.db'));
    await store.migrate();
    const db = drizzle(new Database(join(dir, 'app.db')));
    db.run(sql`create table credits (event_id text not null)`);
    const credits = sqliteTable('credits', { eventId: text('event_id').notNull() });
    class TypedModule {}
    Module({
      imports: [
        PayonceModule.forRoot({
          store,
          webhooks: {
            endpoints: {
              stripe: {
                profile: stripeProfile(),
                scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
                transaction: drizzleTransactions(db),
                handler: (event, { tx, payonceTx }) => {
                  expectTypeOf(tx).toEqualTypeOf<typeof db>(); // was TS7006: parameter implicitly any
                  expectTypeOf(payonceTx).toEqualTypeOf<Transaction<ReceiptsDatabase>>();
                  tx.insert(credits)
                    .values({ eventId: event.eventId ?? '' })
                    .run();
                },
              },
            },
          },
        }),
      ],
      controllers: [payonceWebhookController()],
    })(TypedModule);
    const { app, url } = await bootNest(TypedModule, 'express');
    try {
      const body = invoicePaidBody('evt_nest_types', 'in_nest_types');
      expect((await postText(`${url}/webhooks/stripe`, body, signedStripeHeaders(body))).status).toBe(200);
      expect(db.select().from(credits).all()).toEqual([{ eventId: 'evt_nest_types' }]);
    } finally {
      await app.close(); // closes the store
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses neither or both of store and guard, and a principal that is not a function', () => {
    const store = new MemoryStore();
    const guard = new IdempotencyGuard(store);
    expect(() => PayonceModule.forRoot({})).toThrow(InvalidOption);
    expect(() => PayonceModule.forRoot({ store, guard })).toThrow(InvalidOption);
    expect(() => PayonceModule.forRoot({ guard: {} as IdempotencyGuard })).toThrow(/IdempotencyGuard/);
    expect(() => IdempotencyKeyInterceptor({} as never)).toThrow(InvalidOption);
    expect(() => IdempotencyKeyInterceptor({ principal: () => 'a', expiryMs: -1 })).toThrow(InvalidOption);
  });
});
