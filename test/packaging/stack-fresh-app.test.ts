import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresNamespace, POSTGRES_TEST_URL, type PostgresNamespace } from '../contract/backends/postgres.js';
import { type PackedApp, packedApp, userEnv } from './support/packed-app.js';

// A user's fresh app, built from docs/your-stack.md only: the packed library plus the user's own stack from the
// registry (`npm i payonce express drizzle-orm pg`; and apart, `npm i payonce express @prisma/client
// @prisma/adapter-pg pg` + `npm i -D prisma tsx`), a Stripe webhook endpoint whose delivery runs in ONE transaction
// of that stack (receipt, the user's `orders` update through the ORM, the outbox job). The app runs as its own
// process; a kill -9 in the middle of the transaction leaves all three or none, and the provider's redelivery then
// commits them once. Needs `npm run build` (the packed dist/) and the machine's PostgreSQL.

const ROOT = new URL('../../', import.meta.url);
const devVersions = (
  JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies;
const pinned = (name: string) => `${name}@${devVersions[name]}`;

/** Stripe's checkout.session.completed fixture, with a placeholder event id and order id per delivery. */
const FIXTURE = JSON.parse(
  readFileSync(new URL('../shared/fixtures/providers/stripe/payloads/checkout.session.completed.json', ROOT), 'utf8'),
) as { raw_body: string };
const SECRET = 'whsec_placeholder_fresh_app';

function stripeDelivery(eventId: string, orderId: string): { body: string; signature: string } {
  const event = JSON.parse(FIXTURE.raw_body) as { id: string; data: { object: Record<string, unknown> } };
  event.id = eventId;
  event.data.object.client_reference_id = orderId;
  const body = JSON.stringify(event);
  const signature = new Stripe('sk_test_placeholder').webhooks.generateTestHeaderString({
    payload: body,
    secret: SECRET,
  });
  return { body, signature };
}

/** The app's server, as the guide writes it (plain JavaScript, so it runs with `node` as the user's would). */
const DRIZZLE_SERVER = `
import express from 'express';
import pg from 'pg';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { IdempotencyGuard } from 'payonce';
import { Outbox } from 'payonce/outbox';
import { PostgresStore } from 'payonce/postgres';
import { drizzleTransactions } from 'payonce/tx/drizzle';
import { createWebhookIntake, stripeProfile, stripeScheme } from 'payonce/webhooks';
import { expressWebhooks } from 'payonce/webhooks/express';

const connection = { connectionString: process.env.DATABASE_URL, options: process.env.PG_OPTIONS };
const store = await PostgresStore.connect(connection);
await store.migrate();
const pool = new pg.Pool(connection);
await pool.query('create table if not exists orders (id text primary key, paid boolean not null default false)');
const orders = pgTable('orders', { id: text('id').primaryKey(), paid: boolean('paid').notNull() });
const db = drizzle(pool);
const guard = new IdempotencyGuard(store);
const outbox = new Outbox(store);

const intake = createWebhookIntake({
  guard,
  endpoints: {
    stripe: {
      profile: stripeProfile(),
      scheme: stripeScheme({ secrets: process.env.STRIPE_WEBHOOK_SECRET }),
      transaction: drizzleTransactions(db),
      async handler(event, { tx, payonceTx }) {
        const orderId = event.merchantReference;
        await tx.update(orders).set({ paid: true }).where(eq(orders.id, orderId));
        await outbox.enqueueOnce(payonceTx, 'order.fulfil', 'order:' + orderId, { orderId });
        if (event.eventId === process.env.HANG_EVENT) {
          console.log('in-handler');
          await new Promise(() => setInterval(() => {}, 1000));
        }
      },
    },
  },
});

const app = express();
app.use(expressWebhooks(intake));
const server = app.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

interface Running {
  readonly child: ChildProcess;
  readonly port: number;
  /** Resolves when the app printed `line`. */
  printed(line: string): Promise<void>;
  stop(): Promise<void>;
}

/** The user's Prisma schema: the `orders` model only (payonce's tables are never modelled). */
const PRISMA_SCHEMA = `
generator client {
  provider = "prisma-client"
  output   = "../generated/prisma"
}

datasource db {
  provider = "postgresql"
}

model Order {
  id   String  @id
  paid Boolean @default(false)

  @@map("orders")
}
`;

/** The Prisma app's server (TypeScript, run with tsx as the user's dev server would). */
const PRISMA_SERVER = `
import { PrismaPg } from '@prisma/adapter-pg';
import express from 'express';
import { IdempotencyGuard } from 'payonce';
import { Outbox } from 'payonce/outbox';
import { PostgresStore } from 'payonce/postgres';
import { prismaTransactions } from 'payonce/tx/prisma';
import { createWebhookIntake, stripeProfile, stripeScheme, webhookEndpoint } from 'payonce/webhooks';
import { expressWebhooks } from 'payonce/webhooks/express';
import type { AddressInfo } from 'node:net';
import { PrismaClient } from './generated/prisma/client.js';

const connection = { connectionString: process.env.DATABASE_URL, options: process.env.PG_OPTIONS };
const schema = /search_path=(\\w+)/.exec(process.env.PG_OPTIONS ?? '')?.[1] ?? 'public';
const store = await PostgresStore.connect(connection);
await store.migrate();
const prisma = new PrismaClient({ adapter: new PrismaPg(connection, { schema }) });
await prisma.$executeRawUnsafe('create table if not exists orders (id text primary key, paid boolean not null default false)');
const guard = new IdempotencyGuard(store);
const outbox = new Outbox(store);

const stripe = webhookEndpoint({
  profile: stripeProfile(),
  scheme: stripeScheme({ secrets: process.env.STRIPE_WEBHOOK_SECRET ?? '' }),
  transaction: prismaTransactions(prisma),
  async handler(event, { tx, payonceTx }) {
    const orderId = event.merchantReference ?? '';
    await tx.order.update({ where: { id: orderId }, data: { paid: true } });
    await outbox.enqueueOnce(payonceTx as Parameters<typeof outbox.enqueueOnce>[0], 'order.fulfil', 'order:' + orderId, { orderId });
    if (event.eventId === process.env.HANG_EVENT) {
      console.log('in-handler');
      await new Promise(() => setInterval(() => {}, 1000));
    }
  },
});
const intake = createWebhookIntake({ guard, endpoints: { stripe } });

const app = express();
app.use(expressWebhooks(intake));
const server = app.listen(0, '127.0.0.1', () => console.log('listening ' + (server.address() as AddressInfo).port));
`;

/** The Prisma CLI's environment offline (see scripts/prisma-generate.mjs). */
const PRISMA_OFFLINE_ENV = {
  PRISMA_SCHEMA_ENGINE_BINARY: new URL('../stack/prisma/schema-engine-stub.sh', import.meta.url).pathname,
  PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};

/** How one stack's fresh app is made: its packed install, its files, the command that starts its server. */
interface FreshApp {
  readonly stack: string;
  /** Installs the app and writes its files; returns the app and the server's command line in it. */
  create(): Promise<{ app: PackedApp; command: readonly string[] }>;
}

/** The same cases for every stack's fresh app. */
function freshAppSuite(fresh: FreshApp): void {
  describe(`a fresh app on the packed library + ${fresh.stack}: a Stripe webhook in one ${fresh.stack} transaction`, () => {
    let app: PackedApp;
    let command: readonly string[];
    let ns: PostgresNamespace;
    let pool: pg.Pool;
    const running: Running[] = [];

    beforeAll(async () => {
      ({ app, command } = await fresh.create());
      ns = await createPostgresNamespace();
      pool = new pg.Pool({ connectionString: POSTGRES_TEST_URL, options: `-c search_path=${ns.schema}` });
    }, 240_000);

    // Stopping the app servers and removing the installed app takes long on a loaded machine.
    afterAll(async () => {
      for (const server of running) await server.stop();
      await pool?.end();
      await ns?.drop();
      app?.remove();
    }, 120_000);

    async function start(hangEvent = ''): Promise<Running> {
      const [program = process.execPath, ...args] = command;
      const child = spawn(program, args, {
        cwd: app.dir,
        env: {
          ...userEnv(),
          DATABASE_URL: POSTGRES_TEST_URL,
          PG_OPTIONS: `-c search_path=${ns.schema}`,
          STRIPE_WEBHOOK_SECRET: SECRET,
          HANG_EVENT: hangEvent,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      const waiters: { line: string; resolve: () => void }[] = [];
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        for (const waiter of waiters) if (out.includes(waiter.line)) waiter.resolve();
      });
      const printed = (line: string) =>
        new Promise<void>((resolve, reject) => {
          if (out.includes(line)) return resolve();
          waiters.push({ line, resolve });
          child.once('exit', (code) => reject(new Error(`app exited with ${code} before printing "${line}"`)));
        });
      await printed('listening ');
      const port = Number(/listening (\d+)/.exec(out)?.[1]);
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const server: Running = {
        child,
        port,
        printed,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
      };
      running.push(server);
      return server;
    }

    async function deliver(server: Running, eventId: string, orderId: string): Promise<Response> {
      const { body, signature } = stripeDelivery(eventId, orderId);
      return await fetch(`http://127.0.0.1:${server.port}/webhooks/stripe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body,
      });
    }

    /** What one delivery left: the receipt's status, the order's `paid`, the outbox jobs for the order. */
    async function traces(eventId: string, orderId: string) {
      const receipt = await pool.query<{ status: string }>(
        `select status from payonce_receipts where provider = 'stripe' and external_id = $1`,
        [eventId],
      );
      const order = await pool.query<{ paid: boolean }>('select paid from orders where id = $1', [orderId]);
      const jobs = await pool.query<{ n: string }>('select count(*) as n from payonce_outbox where dedupe_key = $1', [
        `order:${orderId}`,
      ]);
      return {
        receipt: receipt.rows[0]?.status ?? null,
        paid: order.rows[0]?.paid ?? null,
        jobs: Number(jobs.rows[0]?.n),
      };
    }

    it('commits the receipt, the order update and the outbox job together, once for a redelivery', async () => {
      const server = await start();
      await pool.query(`insert into orders (id) values ('ord_fresh_1')`);
      const first = await deliver(server, 'evt_fresh_1', 'ord_fresh_1');
      expect(first.status).toBe(200);
      const again = await deliver(server, 'evt_fresh_1', 'ord_fresh_1');
      expect(again.status).toBe(200);
      expect(await traces('evt_fresh_1', 'ord_fresh_1')).toEqual({ receipt: 'completed', paid: true, jobs: 1 });
      await server.stop();
    }, 60_000);

    it('leaves none of them when the app is killed with SIGKILL mid-transaction; the redelivery commits them once', async () => {
      await pool.query(`insert into orders (id) values ('ord_fresh_2')`);
      const doomed = await start('evt_fresh_2');
      const inFlight = deliver(doomed, 'evt_fresh_2', 'ord_fresh_2').catch((error: unknown) => error);
      await doomed.printed('in-handler');
      await doomed.stop();
      expect(await inFlight).toBeInstanceOf(Error); // the connection died with the app: no answer, Stripe redelivers
      expect(await traces('evt_fresh_2', 'ord_fresh_2')).toEqual({ receipt: null, paid: false, jobs: 0 });

      const restarted = await start();
      expect((await deliver(restarted, 'evt_fresh_2', 'ord_fresh_2')).status).toBe(200);
      expect(await traces('evt_fresh_2', 'ord_fresh_2')).toEqual({ receipt: 'completed', paid: true, jobs: 1 });
      await restarted.stop();
    }, 60_000);
  });
}

freshAppSuite({
  stack: 'Drizzle',
  async create() {
    const app = await packedApp(['payonce'], [pinned('express'), pinned('drizzle-orm'), pinned('pg')]);
    writeFileSync(join(app.dir, 'server.mjs'), DRIZZLE_SERVER);
    return { app, command: [process.execPath, 'server.mjs'] };
  },
});

freshAppSuite({
  stack: 'Prisma',
  async create() {
    const app = await packedApp(
      ['payonce'],
      [
        pinned('express'),
        pinned('pg'),
        pinned('@prisma/client'),
        pinned('@prisma/adapter-pg'),
        pinned('prisma'),
        pinned('tsx'),
      ],
    );
    mkdirSync(join(app.dir, 'prisma'));
    writeFileSync(join(app.dir, 'prisma', 'schema.prisma'), PRISMA_SCHEMA);
    writeFileSync(join(app.dir, 'server.ts'), PRISMA_SERVER);
    // `npx prisma generate`, offline: the CLI looks for its schema engine at start (and would download it) but
    // never asks it for work when it only generates a client; the repository's stub stands in for it.
    const generated = await app.exec(
      process.execPath,
      [join(app.dir, 'node_modules/prisma/build/index.js'), 'generate', '--schema', 'prisma/schema.prisma'],
      PRISMA_OFFLINE_ENV,
    );
    if (generated.code !== 0) throw new Error(`prisma generate failed: ${generated.stderr}${generated.stdout}`);
    return { app, command: [process.execPath, '--import', 'tsx', 'server.ts'] };
  },
});
