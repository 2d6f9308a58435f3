import { describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { createIdempotencyCore } from '../../packages/payonce/src/http/idempotency-core.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { errorAnswer, FRAMEWORKS, postPayment, RouteError, startRouteApp } from './support/route-apps.js';

// A route handler that throws is a failed request on every adapter and in every mode (here the default one, on the
// memory store): whatever it had already answered is dropped, the app's error handler answers alone, and the key is
// released (SPEC §4: thrown errors release the key), whatever status the error handler chose.

describe.each(FRAMEWORKS)('%s: a route handler that throws', (framework) => {
  async function start(failures: number, status: number) {
    const store = new MemoryStore();
    const core = createIdempotencyCore({ guard: new IdempotencyGuard(store), storedHeaders: ['content-type'] });
    let runs = 0;
    const app = await startRouteApp(framework, core, async (ctx) => {
      runs++;
      ctx.answer(201, JSON.stringify({ run: runs }), { 'x-run': String(runs) });
      await Promise.resolve(); // the route goes on after answering
      if (runs <= failures) throw new RouteError(`run ${runs} failed`, status);
    });
    return { app, runs: () => runs };
  }

  it("after answering: the client gets the app's error answer alone; the retry runs the route again", async () => {
    const { app, runs } = await start(1, 500);
    try {
      const failed = await postPayment(app, 'key-1', { amount: 100 });
      expect([failed.status, failed.text]).toEqual([500, errorAnswer(new RouteError('run 1 failed')).body]);
      expect(failed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(failed.headers.get('x-run')).toBeNull();
      const retry = await postPayment(app, 'key-1', { amount: 100 });
      expect([retry.status, retry.text, retry.headers.get('idempotent-replayed')]).toEqual([201, '{"run":2}', null]);
      const replay = await postPayment(app, 'key-1', { amount: 100 });
      expect([replay.status, replay.text, replay.headers.get('idempotent-replayed')]).toEqual([
        201,
        '{"run":2}',
        'true',
      ]);
      expect(runs()).toBe(2);
    } finally {
      await app.close();
    }
  });

  it('answered 4xx by its error handler: the answer is not stored, the key is released', async () => {
    const { app, runs } = await start(1, 409);
    try {
      const failed = await postPayment(app, 'key-2', { amount: 100 });
      expect([failed.status, failed.text]).toEqual([409, errorAnswer(new RouteError('run 1 failed', 409)).body]);
      const retry = await postPayment(app, 'key-2', { amount: 100 });
      expect([retry.status, retry.text, retry.headers.get('idempotent-replayed')]).toEqual([201, '{"run":2}', null]);
      expect(runs()).toBe(2);
    } finally {
      await app.close();
    }
  });
});
