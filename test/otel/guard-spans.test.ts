import { context, TraceFlags, trace } from '@opentelemetry/api';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  IdempotencyGuard,
  InvalidOption,
  PayloadMismatch,
  RequestInProgress,
  RequestKey,
} from '../../packages/payonce/src/index.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/index.js';
import { registerTestSdk } from './otel-sdk.js';

const sdk = registerTestSdk();
afterAll(() => sdk.shutdown());
beforeEach(() => sdk.spans.reset());

const ok = async () => ({ status: 200, body: '{"ok":true}' });
const hrMs = ([seconds, nanos]: readonly [number, number]) => seconds * 1_000 + nanos / 1e6;

/** Runs `fn` inside the span `app.request` (the application's own span, as an HTTP server's would be). */
async function inRequest<T>(fn: () => Promise<T>): Promise<T> {
  return await trace.getTracer('app').startActiveSpan('app.request', async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}

describe('the guard under an OpenTelemetry SDK', () => {
  it('records fresh then replay, the claim and the completion as events of the guard span', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const key = new RequestKey('stripe', `evt_${crypto.randomUUID()}`);
    await inRequest(() => guard.run(key, ok));
    await inRequest(() => guard.run(key, ok));
    const runs = sdk.named('payonce.guard');
    const requests = sdk.named('app.request');
    expect(runs.map((span) => span.parentSpanContext?.spanId)).toEqual(requests.map((s) => s.spanContext().spanId));
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
    // A guard whose calls outside any trace start traces of their own.
    const guard = new IdempotencyGuard(new MemoryStore(), { waitForInFlightMs: 0, requireParentSpan: false });
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
    expect(sdk.named('payonce.guard').every((span) => span.parentSpanContext === undefined)).toBe(true);
  });

  it('keeps the attempt on the span of a handler that threw, and counts the retry as the second', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const key = new RequestKey('stripe', `evt_${crypto.randomUUID()}`);
    await expect(
      inRequest(() => guard.run(key, () => Promise.reject(new Error('placeholder failure')))),
    ).rejects.toThrow();
    await inRequest(() => guard.run(key, ok));
    const runs = sdk.named('payonce.guard');
    expect(runs.map((span) => [span.attributes['payonce.attempts'], span.status.code])).toEqual([
      [1, 2],
      [2, 0],
    ]);
    expect(runs[0]?.events.map((event) => event.name)).toEqual(['payonce.guard.claimed', 'exception']);
  });

  it('starts no span for a call outside any trace by default, and still counts its outcome', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const provider = `p${crypto.randomUUID().slice(0, 8)}`;
    await guard.run(new RequestKey(provider, 'e1'), ok);
    await guard.run(new RequestKey(provider, 'e1'), ok);
    expect(sdk.spans.getFinishedSpans()).toEqual([]);
    const points = (await sdk.points('payonce.idempotency.outcomes')).filter(
      (point) => point.attributes['payonce.receipt.provider'] === provider,
    );
    expect(Object.fromEntries(points.map((p) => [p.attributes['payonce.idempotency.outcome'], p.value]))).toEqual({
      fresh: 1,
      replay: 1,
    });
  });

  it('follows the parent sampling decision: under a parent that was not sampled nothing is recorded', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const unsampled = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.NONE,
    });
    const outcome = await context.with(trace.setSpan(context.active(), unsampled), () =>
      guard.run(new RequestKey('stripe', `evt_${crypto.randomUUID()}`), ok),
    );
    expect(outcome.isReplay).toBe(false);
    expect(sdk.spans.getFinishedSpans()).toEqual([]);
  });

  it('refuses a requireParentSpan that is not a boolean', () => {
    expect(() => new IdempotencyGuard(new MemoryStore(), { requireParentSpan: 'no' as unknown as boolean })).toThrow(
      InvalidOption,
    );
  });

  it('counts outcomes by outcome and provider, and records one claim duration a call, in seconds', async () => {
    const claimCount = async () => {
      const points = await sdk.points('payonce.idempotency.claim.duration');
      expect(points.every((point) => Object.keys(point.attributes).length === 0)).toBe(true);
      return points.reduce((sum, point) => sum + point.value, 0);
    };
    const before = await claimCount();
    const guard = new IdempotencyGuard(new MemoryStore());
    const provider = `p${crypto.randomUUID().slice(0, 8)}`;
    const key = new RequestKey(provider, 'e1');
    await guard.run(key, ok);
    await guard.run(key, ok);
    await guard.run(key, ok);
    // A handler that throws after its claim ended, and a claim that throws (a conflict): one duration each.
    await expect(guard.run(new RequestKey(provider, 'e2'), () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    let release: () => void = () => {};
    const held = guard.run(
      new RequestKey(provider, 'e3'),
      () => new Promise((r) => (release = () => r({ status: 200 }))),
    );
    await expect(guard.run(new RequestKey(provider, 'e3'), ok)).rejects.toBeInstanceOf(RequestInProgress);
    release();
    await held;
    const points = (await sdk.points('payonce.idempotency.outcomes')).filter(
      (point) => point.attributes['payonce.receipt.provider'] === provider,
    );
    const byOutcome = Object.fromEntries(points.map((p) => [p.attributes['payonce.idempotency.outcome'], p.value]));
    expect(byOutcome).toEqual({ fresh: 3, replay: 2, conflict: 1 });
    expect((await claimCount()) - before).toBe(6);
  });
});
