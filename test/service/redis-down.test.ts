import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../packages/cli/src/demo/free-port.js';
import { signedHeaders } from '../../packages/sandbox/src/webhook-signer.js';
import { call, deliver, type Harness, startHarness, stripeIntentEvent } from './service-harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Redis of this test only, on a free loopback port, no persistence; stopped by its pid. */
async function startRedis(): Promise<{ url: string; process: ChildProcess }> {
  const port = await findFreePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  for (let i = 0; i < 100; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return { url, process: child };
    } catch {
      await sleep(50);
    }
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

function killByPid(child: ChildProcess): Promise<unknown> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = once(child, 'exit');
  process.kill(child.pid!, 'SIGKILL');
  return exited;
}

describe('reference service with its intake receipts in a Redis that goes down (issue 11 item 7)', () => {
  let redis: { url: string; process: ChildProcess };
  let h: Harness;
  const STORE_TIMEOUT_MS = 500;
  const ADMIN_TOKEN = `tok_${randomUUID().replaceAll('-', '')}`;
  const overview = () =>
    call(h.service.url, 'GET', '/admin/api/overview', {
      customer: null,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });

  beforeAll(async () => {
    redis = await startRedis();
    h = await startHarness({
      redisUrl: redis.url,
      redisPrefix: `payonce-down-${randomUUID()}:`,
      storeTimeoutMs: STORE_TIMEOUT_MS,
      adminToken: ADMIN_TOKEN,
    });
  });
  afterAll(async () => {
    await h?.close();
    if (redis) await killByPid(redis.process);
  });

  async function webhook(): Promise<{ status: number; text: string; retryAfter: string | null; ms: number }> {
    const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
    const body = stripeIntentEvent({
      eventId,
      type: 'payment_intent.processing',
      paymentId: 'pi_redis_down',
      merchantReference: 'attempt-none',
      amountMinor: 100,
      currency: 'EUR',
    });
    const headers = signedHeaders(h.sandbox.controls.signing(), eventId, body, Math.floor(Date.now() / 1000));
    const started = performance.now();
    const answer = await deliver(h.service.url, 'stripe', body, headers);
    return { ...answer, ms: performance.now() - started };
  }

  it('healthz reports every store; with Redis killed it answers 503 naming the receipts store', async () => {
    const up = await call(h.service.url, 'GET', '/healthz', { customer: null });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ status: 'ok', receipts: 'redis', stores: { database: 'ok', receipts: 'ok' } });
    expect((await webhook()).status).toBe(200);
    expect((await overview()).status).toBe(200);

    await killByPid(redis.process);
    const started = performance.now();
    const down = await call(h.service.url, 'GET', '/healthz', { customer: null });
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'unavailable', stores: { database: 'ok', receipts: 'unavailable' } });
    expect(performance.now() - started).toBeLessThan(STORE_TIMEOUT_MS + 1_500);
    // The overview counts the abandoned claims held in Redis: without Redis it is 503, not a 500.
    const refused = await overview();
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  });

  it('every delivery while Redis is down gets 503 STORE_UNAVAILABLE fast, and the wait does not grow', async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await webhook());
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.text)).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(answer.retryAfter).toBe('1');
      // Before: 0.14 → 1.7 → 10.3 s (ioredis offline queue behind growing reconnect back-offs).
      expect(answer.ms).toBeLessThan(STORE_TIMEOUT_MS + 1_500);
    }
  });
});

describe('a service whose Redis is down at start does not start (issue 11 item 7)', () => {
  it('createService rejects with a clear message instead of reporting healthy', async () => {
    const port = await findFreePort();
    const started = performance.now();
    const error = await startHarness({ redisUrl: `redis://127.0.0.1:${port}`, storeTimeoutMs: 500 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(new RegExp(`Redis at 127\\.0\\.0\\.1:${port} is unreachable`));
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
