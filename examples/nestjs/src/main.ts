import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

// rawBody: true keeps the exact bytes of each request: the Stripe signature and the Idempotency-Key fingerprint are
// computed on them. (On fastify: NestFactory.create(AppModule, new FastifyAdapter(), { rawBody: true }).)
const app = await NestFactory.create(AppModule, { rawBody: true });
app.enableShutdownHooks(); // SIGTERM → PayonceModule closes its store, Prisma disconnects
await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
console.log(`listening on ${await app.getUrl()}`);
