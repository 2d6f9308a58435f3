/**
 * A shop on NestJS, Prisma and PostgreSQL that takes Stripe payments, with payonce: `POST /orders` and
 * `POST /orders/:id/pay` (Idempotency-Key interceptor), `POST /webhooks/stripe` (PayonceModule's webhook controller:
 * receipt + order + outbox job in ONE Prisma transaction), an outbox worker that ships paid orders,
 * `GET /orders/:id`, `GET /healthz`. Run: `DATABASE_URL=postgres://… STRIPE_API_KEY=sk_test_… STRIPE_WEBHOOK_SECRET=whsec_…
 * npm start`; under `payonce storm --start` the PAYONCE_STORM_* variables point it at the storm's sandbox.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { configFromEnv } from './config.js';
import { createShopTables } from './shop-tables.js';

await createShopTables(configFromEnv());
// rawBody: true keeps the exact bytes: the Stripe signature and the Idempotency-Key fingerprint are computed on them.
const app = await NestFactory.create(AppModule, { rawBody: true, logger: ['error', 'warn'] });
app.enableShutdownHooks(); // SIGTERM → the worker stops, PayonceModule closes its store, Prisma disconnects
await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
console.log(`shop listening on ${await app.getUrl()}`);
