import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { createIdempotencyCore } from '../../packages/payonce/src/http/idempotency-core.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/index.js';
import { registerTestSdk } from './otel-sdk.js';

const sdk = registerTestSdk();
afterAll(() => sdk.shutdown());
beforeEach(() => sdk.spans.reset());

describe('the Idempotency-Key core under an OpenTelemetry SDK', () => {
  it('records executed then replayed, with the guard span (http provider) under it', async () => {
    const core = createIdempotencyCore({ guard: new IdempotencyGuard(new MemoryStore()) });
    const exchange = {
      method: 'POST',
      route: '/orders',
      target: '/orders',
      principal: 'client-1',
      headers: { 'idempotency-key': crypto.randomUUID() },
      body: new TextEncoder().encode('{"sku":"placeholder"}'),
    };
    const next = async () => ({ status: 201, headers: { 'content-type': 'application/json' }, body: new Uint8Array() });
    expect((await core.handle(exchange, next)).kind).toBe('executed');
    expect((await core.handle(exchange, next)).kind).toBe('replayed');
    const spans = sdk.named('payonce.http.idempotency');
    expect(spans.map((span) => span.attributes['payonce.http.result'])).toEqual(['executed', 'replayed']);
    expect(spans.map((span) => span.attributes['http.route'])).toEqual(['/orders', '/orders']);
    expect(spans.map((span) => span.attributes['http.response.status_code'])).toEqual([201, 201]);
    const guards = sdk.named('payonce.guard');
    expect(guards.map((span) => span.attributes['payonce.idempotency.outcome'])).toEqual(['fresh', 'replay']);
    expect(guards[0]?.parentSpanContext?.spanId).toBe(spans[0]?.spanContext().spanId);
  });
});
