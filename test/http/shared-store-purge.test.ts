import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { Store } from '../../packages/payonce/src/core/store.js';
import type { HttpExchange, HttpResponse } from '../../packages/payonce/src/http/http-exchange.js';
import { createIdempotencyCore } from '../../packages/payonce/src/http/idempotency-core.js';
import type { TestBackend } from '../contract/backend.js';
import { backendFactories, backendsFromEnv } from '../contract/backends/index.js';

const HOUR_MS = 3_600_000;
const encode = (text: string) => new TextEncoder().encode(text);
const exchange = (key: string): HttpExchange => ({
  method: 'POST',
  route: '/v1/orders',
  target: '/v1/orders',
  principal: 'acct_1',
  headers: { 'idempotency-key': key },
  body: encode('{"amount":1}'),
});

for (const backendName of backendsFromEnv()) {
  describe(`${backendName}: HTTP keys and webhook receipts in one store`, () => {
    let backend: TestBackend;
    let store: Store;

    beforeAll(async () => {
      backend = await (await backendFactories[backendName]())();
      store = await backend.open();
    });
    afterAll(async () => {
      await backend?.cleanup();
    });

    it("the HTTP layer's expiry purge leaves another provider's receipt, so a 3-day-late redelivery replays", async () => {
      const clock = new ManualClock();
      const webhooks = new IdempotencyGuard(store, { clock });
      const core = createIdempotencyCore({ guard: new IdempotencyGuard(store, { clock }) }); // expiry 24 h, namespace http
      let fulfilled = 0;
      const event = new RequestKey('stripe', `evt_${randomUUID()}`);
      const deliver = () =>
        webhooks.run(event, () => {
          fulfilled++;
          return { body: '{"received":true}' };
        });
      let routeRuns = 0;
      const route = async (): Promise<HttpResponse> => {
        routeRuns++;
        return { status: 201, headers: {}, body: encode(`{"order":${routeRuns}}`) };
      };

      expect((await deliver()).isReplay).toBe(false);
      const httpKey = `k-${randomUUID()}`;
      expect(await core.handle(exchange(httpKey), route)).toMatchObject({ kind: 'executed', stored: true });

      // 25 h later the HTTP key has expired: meeting it purges expired HTTP keys inline and runs afresh.
      clock.advance(25 * HOUR_MS);
      expect(await core.handle(exchange(httpKey), route)).toMatchObject({ kind: 'executed', stored: true });
      expect(routeRuns).toBe(2);
      expect((await webhooks.find(event))?.status).toBe('completed');

      // A scheduled HTTP purge two days on deletes the HTTP key, and only it.
      clock.advance(25 * HOUR_MS);
      expect(await core.purge()).toBe(1);
      expect((await webhooks.find(event))?.status).toBe('completed');

      // Stripe redelivers up to 3 days later: the receipt is still there, the order is not fulfilled twice.
      clock.advance(21 * HOUR_MS);
      const late = await deliver();
      expect(late.isReplay).toBe(true);
      expect(fulfilled).toBe(1);

      // The webhook side's own retention removes it, and an HTTP purge never counted it.
      expect(await core.purge()).toBe(0);
      expect(await webhooks.purge({ olderThan: 70 * HOUR_MS, provider: 'stripe' })).toBe(1);
      expect(await webhooks.find(event)).toBeNull();
    });
  });
}
