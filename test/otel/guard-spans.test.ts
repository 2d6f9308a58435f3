import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyGuard, PayloadMismatch, RequestInProgress, RequestKey } from '../../packages/payonce/src/index.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/index.js';
import { registerTestSdk } from './otel-sdk.js';

const sdk = registerTestSdk();
afterAll(() => sdk.shutdown());
beforeEach(() => sdk.spans.reset());

const ok = async () => ({ status: 200, body: '{"ok":true}' });
const hrMs = ([seconds, nanos]: readonly [number, number]) => seconds * 1_000 + nanos / 1e6;

describe('the guard under an OpenTelemetry SDK', () => {
  it('records fresh then replay, the claim and the completion as events of the guard span', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const key = new RequestKey('stripe', `evt_${crypto.randomUUID()}`);
    await guard.run(key, ok);
    await guard.run(key, ok);
    const runs = sdk.named('payonce.guard');
    expect(runs.map((span) => span.attributes['payonce.idempotency.outcome'])).toEqual(['fresh', 'replay']);
    expect(runs.map((span) => span.attributes['payonce.receipt.provider'])).toEqual(['stripe', 'stripe']);
    expect(runs[0]?.attributes['payonce.attempts']).toBe(1);
    expect(runs.map((span) => span.attributes['payonce.claim.decision'])).toEqual(['claimed', 'replay']);
    // The fresh call: claimed, then the handler's response handed to the store; the replay stored nothing.
    expect(runs[0]?.events.map((event) => event.name)).toEqual(['payonce.guard.claimed', 'payonce.guard.handled']);
    expect(runs[1]?.events.map((event) => event.name)).toEqual(['payonce.guard.claimed']);
    const [claimed, handled] = runs[0]?.events ?? [];
    expect(hrMs(claimed!.time)).toBeLessThanOrEqual(hrMs(handled!.time));
    expect(sdk.spans.getFinishedSpans().filter((span) => span.name.startsWith('payonce.guard.'))).toEqual([]);
  });

  it('records conflict, mismatch, and waited after a wait span', async () => {
    const guard = new IdempotencyGuard(new MemoryStore(), { waitForInFlightMs: 0 });
    const key = new RequestKey('http', `k_${crypto.randomUUID()}`);
    let release: () => void = () => {};
    const held = guard.run(key, () => new Promise((resolve) => (release = () => resolve({ status: 201, body: 'x' }))), {
      payload: 'a',
    });
    await expect(guard.run(key, ok, { payload: 'a' })).rejects.toBeInstanceOf(RequestInProgress);
    const waiting = guard.run(key, ok, { payload: 'a', waitForInFlightMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await held;
    expect((await waiting).isReplay).toBe(true);
    await expect(guard.run(key, ok, { payload: 'b' })).rejects.toBeInstanceOf(PayloadMismatch);
    const outcomes = sdk.named('payonce.guard').map((span) => span.attributes['payonce.idempotency.outcome']);
    expect(outcomes.sort()).toEqual(['conflict', 'fresh', 'mismatch', 'waited']);
    expect(sdk.named('payonce.guard.wait')).toHaveLength(1);
    const conflict = sdk.named('payonce.guard').find((s) => s.attributes['payonce.idempotency.outcome'] === 'conflict');
    expect(conflict?.status.code).toBe(2);
  });

  it('counts outcomes by outcome and provider, and records claim durations in seconds', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const provider = `p${crypto.randomUUID().slice(0, 8)}`;
    const key = new RequestKey(provider, 'e1');
    await guard.run(key, ok);
    await guard.run(key, ok);
    await guard.run(key, ok);
    const points = (await sdk.points('payonce.idempotency.outcomes')).filter(
      (point) => point.attributes['payonce.receipt.provider'] === provider,
    );
    const byOutcome = Object.fromEntries(points.map((p) => [p.attributes['payonce.idempotency.outcome'], p.value]));
    expect(byOutcome).toEqual({ fresh: 1, replay: 2 });
    const claims = (await sdk.points('payonce.idempotency.claim.duration')).filter(
      (point) => point.attributes['payonce.receipt.provider'] === provider,
    );
    expect(claims[0]?.value).toBe(3);
  });
});
